"""Whether the shell's input is ready to run (litecli's ``clibuffer``).

Enter runs the input when it is complete (a ``;`` outside strings and comments, a client
command, or nothing at all) and inserts a newline otherwise, so statements span lines.
"""

from __future__ import annotations

from prompt_toolkit.application import get_app
from prompt_toolkit.filters import Condition

from streamsql.sql.split import is_complete


def input_is_multiline() -> Condition:
    """A filter that is true while the current buffer holds an unfinished statement."""

    @Condition
    def _multiline() -> bool:
        return not is_complete(get_app().current_buffer.text)

    return _multiline
