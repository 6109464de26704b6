"""A script's query (``streamsql run FILE``, ``streamsql shell -f FILE``) as Flink 2.3's SQL client ``-f``.

Before (session 33) ``run`` and ``-f`` ignored ``'sql-client.execution.result-mode'`` and printed
a query's rows only when it ended (widths fitted to every row), an unbounded one when Ctrl-C ended
the whole run (exit 130). Flink's client (recorded by ``scripts/flink_sql_client.py`` in
``sql_client_flink.json``) refuses a query in another mode than tableau (the file stops there),
prints the header at once in widths by column type and each row as it arrives, and a Ctrl-C ends
only the query: ``Query terminated, ...`` and the script goes on in a terminal, while without one
the SIGINT ends the client (exit 130).
"""

from __future__ import annotations

import contextlib
import json
import os
import pty
import re
import select
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

FLINK = json.loads((Path(__file__).parent / "sql_client_flink.json").read_text())
ENTRY_POINTS = {"run": ["run", "s.sql"], "shell -f": ["shell", "-f", "s.sql"]}
_SECONDS = re.compile(r" \(\d+\.\d+ seconds\)$")


def _blocks(stdout: str) -> list[list[str]]:
    """The query results of a client's stdout: per query, its table lines and its last line.

    Flink echoes each statement after its prompt (``Flink SQL> SELECT ...``) on the line its
    header starts; the prompt and statement are cut, as are the timings ``(S.SS seconds)``.
    """
    out: list[list[str]] = []
    for raw in stdout.splitlines():
        line = raw.split("Flink SQL> ", 1)[1] if "Flink SQL> " in raw else raw
        if "+-" in line and not line.startswith("+"):
            line = line[line.index("+-"):]  # the echoed statement runs on into the header
        if line.startswith("+") and (not out or out[-1][-1].startswith(("Received", "Query terminated"))):
            out.append([])
        if line.startswith(("+", "|", "Received a total", "Query terminated")) and out:
            out[-1].append(_SECONDS.sub("", line))
    return out


def _folded(block: list[str]) -> Counter:
    """A block's row lines folded into its final table (+I/+U count a row line once more, -U/-D less)."""
    out: Counter = Counter()
    for line in block:
        if line.startswith(("| +", "| -")):
            out["|" + line.split("|", 2)[2]] += -1 if line.startswith(("| -U", "| -D")) else 1
    return +out


def _error(stdout: str) -> str:
    """The text of the refusal of a result mode (Flink's exception message, or ours)."""
    m = re.search(r"(In non-interactive mode, it only supports .*? in the sql file\.)", stdout)
    return m.group(1) if m else ""


def _streamsql(entry: str, script: str, cwd: Path, sigint_after: float | None = None,
               timeout: float = 120) -> tuple[int, str]:
    (cwd / "s.sql").write_text(script)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), "STREAMSQL_HISTORY": str(cwd / "history")}
    proc = subprocess.Popen([sys.executable, "-m", "streamsql", *ENTRY_POINTS[entry]], cwd=cwd, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    seen = ""
    try:
        if sigint_after is not None:  # once the query shows rows (not while the modules import)
            line = proc.stdout.readline()
            seen += line
            while line and not line.startswith("| +I |"):
                line = proc.stdout.readline()
                seen += line
            time.sleep(sigint_after)
            proc.send_signal(signal.SIGINT)
        out, _ = proc.communicate(timeout=timeout)
        out = seen + out
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return proc.returncode, out


@pytest.mark.parametrize("entry", ENTRY_POINTS)
def test_bounded_queries_and_a_refused_mode_as_flinks_client(entry, tmp_path):
    """Flink's tableau of each bounded query (header in widths by type, op column, ``0 row``), then
    ``'changelog'`` refused in Flink's words: the statements after it do not run (exit 1: ours)."""
    flink = FLINK["modes"]
    rc, out = _streamsql(entry, flink["sql"], tmp_path)
    ours, theirs = _blocks(out), _blocks(flink["stdout"])
    assert len(ours) == len(theirs) == 3, out
    for mine, flinks in zip(ours, theirs):
        assert mine[:3] == flinks[:3], out  # the header, printed before the rows, widths by type
    # insert-only results are the same lines; the GROUP BY's updates may come batched here (+I 1 2
    # for Flink's +I 1 1, -U 1 1, +U 1 2): the same final table, in the same row lines
    assert ours[0] == theirs[0] and ours[2] == theirs[2], out
    assert _folded(ours[1]) == _folded(theirs[1]), out
    assert _error(out) == _error(flink["stdout"]) != "", out
    assert "(line 6, column 1)" in out, out
    assert "| +I |                      1 |" not in out and rc == 1, out  # SELECT 1 AS x never ran


def _unbounded_block(blocks: list[list[str]]) -> list[str]:
    """The unbounded query's row lines (each as wide as the header: no cell wider than its type's)."""
    rows = [ln for ln in blocks[0][3:] if ln.startswith("| +I |")]
    assert rows and all(len(r) == len(blocks[0][0]) for r in rows), blocks
    return rows


@pytest.mark.parametrize("entry", ENTRY_POINTS)
def test_ctrl_c_without_a_terminal_ends_the_run_as_flinks_client(entry, tmp_path):
    """Rows shown as they arrive under Flink's header (widths of every type class); a SIGINT with no
    terminal ends Flink's client (exit 130, the next statements never run): it ends the run here too
    (130), after ``Query terminated, received a total of N rows`` (N the rows shown)."""
    flink = FLINK["ctrl_c"]
    assert flink["rc"] == 130 and not flink.get("tty")
    rc, out = _streamsql(entry, flink["sql"], tmp_path, sigint_after=3)
    ours, theirs = _blocks(out), _blocks(flink["stdout"])
    assert len(ours) == len(theirs) == 1, out  # SELECT 'after' never ran
    assert ours[0][:3] == theirs[0][:3], out
    _unbounded_block(theirs)
    rows = _unbounded_block(ours)
    ended = re.fullmatch(r"Query terminated, received a total of (\d+) rows?", ours[0][-1])
    assert ended and int(ended.group(1)) == len(rows), out
    assert rc == flink["rc"] == 130, out
    assert "after" not in out and _error(out) == "", out


def _in_terminal(entry: str, script: str, cwd: Path, sigint_after: float) -> tuple[int, str]:
    """Run ``script`` with a pty as stdin and stdout (a terminal); SIGINT once rows show."""
    (cwd / "s.sql").write_text(script)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), "STREAMSQL_HISTORY": str(cwd / "history")}
    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "streamsql", *ENTRY_POINTS[entry]], cwd=cwd, env=env,
                            stdin=slave, stdout=slave, stderr=subprocess.STDOUT)
    os.close(slave)
    text, sent, start = "", None, time.monotonic()
    try:
        while time.monotonic() - start < 120:
            ready, _, _ = select.select([master], [], [], 0.2)
            data = b""
            if ready:
                with contextlib.suppress(OSError):
                    data = os.read(master, 65536)
                text += data.decode(errors="replace").replace("\r\n", "\n")
            if sent is None and "| +I |" in text:
                sent = time.monotonic()
            if sent is not None and sent > 0 and time.monotonic() - sent > sigint_after:
                proc.send_signal(signal.SIGINT)
                sent = -1.0
            if not data and proc.poll() is not None:
                break
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(master)
    return proc.wait(), text


@pytest.mark.parametrize("entry", ENTRY_POINTS)
def test_ctrl_c_in_a_terminal_ends_only_the_query(entry, tmp_path):
    """In a terminal (a pty), as Flink's client in one (``ctrl_c_tty``): Ctrl-C ends the query only,
    ``Query terminated, received a total of N rows``, and the script goes on: the next query runs,
    then ``'table'`` is refused in Flink's words and the script stops there."""
    flink = FLINK.get("ctrl_c_tty")
    if flink is None:
        pytest.skip("Flink's client in a terminal not recorded yet (scripts/flink_sql_client.py ctrl_c_tty)")
    rc, out = _in_terminal(entry, flink["sql"], tmp_path, sigint_after=3)
    ours, theirs = _blocks(out), _blocks(flink["stdout"])
    assert len(ours) == len(theirs), (out, flink["stdout"])
    assert ours[0][:3] == theirs[0][:3], out
    rows = _unbounded_block(ours)
    ended = re.fullmatch(r"Query terminated, received a total of (\d+) rows?", ours[0][-1])
    assert ended and int(ended.group(1)) == len(rows), out
    assert [b[-1] for b in ours[1:]] == [b[-1] for b in theirs[1:]], out
    assert ours[1:] == theirs[1:], out  # SELECT 'after' ran after the Ctrl-C
    assert _error(out) == _error(flink["stdout"]) != "", out
