"""The process's Ctrl-C (SIGINT) or SIGTERM, remembered whatever became of its KeyboardInterrupt.

:func:`streamsql.cli._on_sigint` sets :data:`INTERRUPTED` and raises KeyboardInterrupt. When the
signal comes while DuckDB runs a query of the planner or the shell (a statement being planned),
DuckDB turns the KeyboardInterrupt into an exception of its own ("Query interrupted", or
"reading the schema of the object registered as '__in' failed: KeyboardInterrupt"), so the code
that catches errors around a statement asks here whether it was in fact interrupted.
"""

from __future__ import annotations

import threading

#: Set by the first Ctrl-C (SIGINT) or SIGTERM; cleared when a command (or the shell, before each
#: statement) takes SIGINT over.
INTERRUPTED = threading.Event()
