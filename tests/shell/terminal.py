"""Two ways to drive the shell as a person would, for the shell's tests.

- :class:`PipeShell`: the real :func:`run_shell` in a thread, typing through prompt-toolkit's
  pipe input and reading what a VT100 terminal would receive (escape codes stripped).
- :class:`PtyShell`: the ``streamsql shell`` console script in a pseudo-terminal, as a user
  at a terminal runs it (Ctrl-C is a real SIGINT/keypress, exit codes are real).
"""

from __future__ import annotations

import io
import os
import re
import select
import signal
import subprocess
import sys
import threading
import time

from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output.vt100 import Vt100_Output

ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b[()][0-9A-B]|\x1b[=>78]|\x1b\][^\x07]*\x07")


def plain(text: str) -> str:
    """Terminal output without escape sequences; a carriage return that does not end a line
    starts one (a redrawn status line then stands on a line of its own)."""
    return ANSI.sub("", text).replace("\r\n", "\n").replace("\r", "\n")


class _Expect:
    def send(self, text: str) -> None:
        raise NotImplementedError

    def screen(self) -> str:
        raise NotImplementedError

    def expect(self, pattern: str, timeout: float = 10.0, after: int = 0) -> re.Match:
        """Wait until ``pattern`` (a regex) appears in the output after offset ``after``."""
        deadline = time.monotonic() + timeout
        rx = re.compile(pattern, re.S)
        while True:
            m = rx.search(self.screen(), after)
            if m:
                return m
            if time.monotonic() > deadline:
                tail = self.screen()[-3000:]
                msg = f"timed out waiting for {pattern!r}; screen ends with:\n{tail}"
                raise AssertionError(msg)
            time.sleep(0.05)

    def mark(self) -> int:
        """The current end of the output (pass as ``after`` to only look at what follows)."""
        return len(self.screen())

    def send_expect(self, text: str, pattern: str, timeout: float = 10.0) -> re.Match:
        """Type ``text``, then wait until ``pattern`` appears in the output that follows it."""
        after = self.mark()
        self.send(text)
        return self.expect(pattern, timeout, after)


class _Recorder(io.StringIO):
    def __init__(self) -> None:
        super().__init__()
        self.lock = threading.Lock()

    def write(self, s: str) -> int:
        with self.lock:
            return super().write(s)

    def isatty(self) -> bool:
        return False


class PipeShell(_Expect):
    """run_shell in a thread with typed input and a recorded 160x40 terminal."""

    def __init__(self, **kwargs) -> None:
        self.buf = _Recorder()
        self.output = Vt100_Output(self.buf, lambda: Size(rows=40, columns=160), term="xterm",
                                   enable_cpr=False)
        self._cm = create_pipe_input()
        self.input = self._cm.__enter__()
        self.rc: int | None = None
        self.error: BaseException | None = None

        def main() -> None:
            from streamsql.shell.app import run_shell

            try:
                self.rc = run_shell(input=self.input, output=self.output, **kwargs)
            except BaseException as e:  # surfaced by wait()
                self.error = e

        self.thread = threading.Thread(target=main, name="shell-under-test", daemon=True)
        self.thread.start()

    def send(self, text: str) -> None:
        """Type ``text`` (``\\n`` is Enter, ``\\x03`` is Ctrl-C)."""
        self.input.send_text(text)

    def screen(self) -> str:
        with self.buf.lock:
            return plain(self.buf.getvalue())

    def wait(self, timeout: float = 15.0) -> int | None:
        """Wait for the shell to end; returns its exit code."""
        self.thread.join(timeout)
        assert not self.thread.is_alive(), "shell did not exit:\n" + self.screen()[-2000:]
        if self.error is not None:
            raise self.error
        return self.rc

    def close(self) -> None:
        if self.thread.is_alive():
            self.send("\x04QUIT\n")
            self.thread.join(10)
        self._cm.__exit__(None, None, None)


def _controlling_tty() -> None:
    """In the child, after setsid: make the pty (stdin) the controlling terminal, so Ctrl-C
    typed into it becomes SIGINT as at a real terminal."""
    import fcntl
    import termios

    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


class PtyShell(_Expect):
    """``streamsql shell`` in a pseudo-terminal (POSIX only)."""

    def __init__(self, *args: str, env: dict[str, str] | None = None, cwd: str | None = None) -> None:
        import fcntl
        import struct
        import termios

        self.master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 160, 0, 0))
        exe = os.path.join(os.path.dirname(sys.executable), "streamsql")
        cmd = [exe, "shell", *args] if os.path.exists(exe) else \
            [sys.executable, "-m", "streamsql.cli", "shell", *args]
        self.proc = subprocess.Popen(cmd, stdin=slave, stdout=slave, stderr=slave, cwd=cwd,
                                     env={**os.environ, "TERM": "xterm", **(env or {})},
                                     start_new_session=True, preexec_fn=_controlling_tty)
        os.close(slave)
        self.raw = b""
        self._lock = threading.Lock()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        while True:
            try:
                r, _, _ = select.select([self.master], [], [], 0.1)
                if not r:
                    if self.proc.poll() is not None:
                        return
                    continue
                data = os.read(self.master, 65536)
            except OSError:
                return
            if not data:
                return
            with self._lock:
                self.raw += data
            if b"\x1b[6n" in data:  # answer cursor-position requests as a terminal would
                os.write(self.master, b"\x1b[1;1R")

    def send(self, text: str) -> None:
        os.write(self.master, text.encode())

    def screen(self) -> str:
        with self._lock:
            return plain(self.raw.decode("utf-8", "replace"))

    def wait(self, timeout: float = 15.0) -> int:
        return self.proc.wait(timeout)

    def close(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(5)
        os.close(self.master)
