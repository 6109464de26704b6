"""The process's Ctrl-C (SIGINT) or SIGTERM, remembered whatever became of its KeyboardInterrupt.

:func:`streamsql.cli._on_sigint` sets :data:`INTERRUPTED` and raises KeyboardInterrupt. When the
signal comes while DuckDB runs a query of the planner or the shell (a statement being planned),
DuckDB turns the KeyboardInterrupt into an exception of its own ("Query interrupted", or
"reading the schema of the object registered as '__in' failed: KeyboardInterrupt"), so the code
that catches errors around a statement asks here whether it was in fact interrupted.

The run it ends exits as a shell expects of a process ended by the signal: 128 + its number,
130 for Ctrl-C (SIGINT), 143 for ``kill`` (SIGTERM) (:func:`exit_code`).
"""

from __future__ import annotations

import signal


class _Flag:
    """A set/clear/is_set flag without a lock, for a signal handler to set.

    Not a :class:`threading.Event`: its ``set`` takes a lock that is not re-entrant, and Python
    runs a signal handler between any two bytecodes of the main thread, so a second signal (a
    Ctrl-C also forwarded by a wrapper such as ``timeout``, a SIGTERM just after it) arriving while
    the first handler held that lock blocked the process for good: ``streamsql run`` then ignored
    every later SIGINT and SIGTERM. One attribute store under the GIL needs no lock; nothing
    waits on this flag (it is only read).
    """

    def __init__(self) -> None:
        self._set = False

    def set(self) -> None:
        """Raise the flag."""
        self._set = True

    def clear(self) -> None:
        """Lower the flag."""
        self._set = False

    def is_set(self) -> bool:
        """Whether the flag is raised."""
        return self._set


#: Set by the first Ctrl-C (SIGINT) or SIGTERM; cleared when a command (or the shell, before each
#: statement) takes SIGINT over.
INTERRUPTED = _Flag()

_signal: int = signal.SIGINT


def interrupt(signum: int) -> None:
    """Remember an interrupting signal (SIGINT or SIGTERM): set :data:`INTERRUPTED`, keep its number."""
    global _signal
    if not INTERRUPTED.is_set():  # the first one since the last clear decides the exit code
        _signal = signum
    INTERRUPTED.set()


def exit_code() -> int:
    """The exit code of an interrupted run: 128 + the remembered signal (130 SIGINT, 143 SIGTERM).

    130 when none is remembered: a KeyboardInterrupt Python raised itself (a Ctrl-C before our
    handler was installed).
    """
    return 128 + (int(_signal) if INTERRUPTED.is_set() else int(signal.SIGINT))
