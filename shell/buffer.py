"""Whether the shell's input is ready to run (litecli's ``clibuffer``).

Enter runs the input when it is complete (a ``;`` outside strings and comments, a client
command, or nothing at all) and inserts a newline otherwise, so statements span lines.

The check looks at the prompt's own (default) buffer, never at ``current_buffer``: during a
Ctrl-R search the current buffer is the search buffer, and judging the search text would flip
the prompt between its single- and multi-line layouts mid-search (each has its own search
control, so prompt-toolkit then loses track of the search and fails when it ends). While a
search runs the answer is also frozen at what it was when the search started: the text the
search recalls must not switch the layout under it either.
"""

from __future__ import annotations

from prompt_toolkit.application import get_app
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.enums import DEFAULT_BUFFER
from prompt_toolkit.filters import Condition

from streamsql.sql.split import is_complete


def default_buffer() -> Buffer:
    """The prompt's input buffer (not the search buffer, even while searching)."""
    app = get_app()
    return app.layout.get_buffer_by_name(DEFAULT_BUFFER) or app.current_buffer


def input_is_multiline() -> Condition:
    """A filter that is true while the prompt's buffer holds an unfinished statement."""
    last = {"multiline": False}

    @Condition
    def _multiline() -> bool:
        app = get_app()
        if app.layout.is_searching:  # keep the layout (and its search control) until it ends
            return last["multiline"]
        last["multiline"] = not is_complete(default_buffer().text)
        return last["multiline"]

    return _multiline
