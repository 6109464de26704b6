"""Key bindings added to prompt-toolkit's emacs defaults.

The defaults already give Ctrl-R search, Ctrl-A/E, Ctrl-C to clear the input and Ctrl-D on an
empty line to quit.
"""

from __future__ import annotations

from prompt_toolkit import search
from prompt_toolkit.enums import DEFAULT_BUFFER
from prompt_toolkit.filters import completion_is_selected, has_focus, is_searching
from prompt_toolkit.key_binding import KeyBindings
from streamsql.shell.buffer import default_buffer

from streamsql.sql.split import is_complete


def _run_or_newline(buf) -> None:
    """Run the input when it is a complete statement, else start a new line.

    The new line is not indented: prompt-toolkit's own Enter copies the previous line's
    indentation, which added to the spaces the user types (or pastes line by line) makes
    indentation creep.
    """
    if is_complete(buf.text):
        buf.validate_and_handle()
    else:
        buf.insert_text("\n")


def shell_key_bindings() -> KeyBindings:
    """The shell's bindings for Enter, Alt-Enter and Ctrl-Space.

    Enter runs a complete statement and otherwise inserts a newline (without auto-indent);
    Enter on a selected completion applies it instead; Enter in a Ctrl-R search takes the match
    and runs it when it is a complete statement (as readline does); Alt-Enter always inserts a
    newline; Ctrl-Space opens completion.
    """
    kb = KeyBindings()

    @kb.add("enter", filter=has_focus(DEFAULT_BUFFER) & ~completion_is_selected & ~is_searching)
    def _enter(event) -> None:
        _run_or_newline(event.current_buffer)

    @kb.add("enter", filter=completion_is_selected & ~is_searching)
    def _apply_completion(event) -> None:
        event.current_buffer.complete_state = None

    @kb.add("enter", filter=is_searching)
    def _accept_search(event) -> None:
        search.accept_search()
        buf = default_buffer()
        if buf.text.strip() and is_complete(buf.text):
            buf.validate_and_handle()

    @kb.add("escape", "enter")
    def _newline(event) -> None:
        event.current_buffer.insert_text("\n")

    @kb.add("c-space")
    def _complete(event) -> None:
        buf = event.current_buffer
        if buf.complete_state:
            buf.complete_next()
        else:
            buf.start_completion(select_first=False)

    return kb
