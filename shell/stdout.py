"""Text other threads print while the prompt is shown: above the prompt, which is then redrawn.

A job's rows from the ``print`` connector (written to ``sys.stdout`` on its task thread) and the
notice of a failed background job are printed while the user types. prompt-toolkit's
``patch_stdout()`` routes ``sys.stdout`` through a ``StdoutProxy`` whose flush thread hands each
line to the running prompt with ``run_in_terminal`` (erase the prompt, print, redraw it). That
thread finds the prompt through the current ``AppSession``, a context variable, and a new thread
starts with an empty context: the shell's own session (``create_app_session`` with the shell's
input and output) was not seen there, ``run_in_terminal`` found no running application and wrote
the lines after the prompt without redrawing it (the prompt was gone until a key was pressed).
prompt-toolkit issue/PR #1854 describes the same lookup. :class:`SessionStdoutProxy` starts that
thread in a copy of the creating thread's context, so the shell's session (and its prompt) is the
one it sees.
"""

from __future__ import annotations

import contextvars
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from prompt_toolkit.patch_stdout import StdoutProxy


class SessionStdoutProxy(StdoutProxy):
    """prompt-toolkit's ``StdoutProxy`` whose flush thread runs in the creator's context.

    Create it inside the ``create_app_session(...)`` block whose prompt the text must not
    overwrite; writes from any thread are printed above that prompt, which is redrawn after them.
    """

    def _start_write_thread(self) -> threading.Thread:
        context = contextvars.copy_context()  # the shell's AppSession, seen by run_in_terminal
        thread = threading.Thread(target=context.run, args=(self._write_thread,),
                                  name="patch-stdout-flush-thread", daemon=True)
        thread.start()
        return thread


@contextmanager
def patch_stdout(raw: bool = False) -> Iterator[SessionStdoutProxy]:
    """``prompt_toolkit.patch_stdout.patch_stdout`` with :class:`SessionStdoutProxy`.

    Replaces ``sys.stdout`` and ``sys.stderr`` for the block (as prompt-toolkit's does), then
    restores them and flushes what is left.

    Args:
        raw: write the text as is (escape sequences included), as ``patch_stdout(raw=True)``.
    """
    with SessionStdoutProxy(raw=raw) as proxy:
        stdout, stderr = sys.stdout, sys.stderr
        sys.stdout = sys.stderr = proxy
        try:
            yield proxy
        finally:
            sys.stdout, sys.stderr = stdout, stderr
