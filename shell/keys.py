"""Key bindings added to prompt-toolkit's emacs defaults (which already give Ctrl-R search,
Ctrl-A/E, Ctrl-C to clear the input and Ctrl-D on an empty line to quit)."""

from __future__ import annotations

from prompt_toolkit.filters import completion_is_selected
from prompt_toolkit.key_binding import KeyBindings


def shell_key_bindings() -> KeyBindings:
    """Enter on a selected completion applies it instead of running the input; Alt-Enter
    always inserts a newline; Ctrl-Space opens completion."""
    kb = KeyBindings()

    @kb.add("enter", filter=completion_is_selected)
    def _apply_completion(event) -> None:
        event.current_buffer.complete_state = None

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
