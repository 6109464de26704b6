"""The bottom toolbar under the prompt: result mode, running jobs, statement set, key hints."""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from prompt_toolkit.formatted_text import StyleAndTextTuples

if TYPE_CHECKING:
    from streamsql.shell.app import Shell


def create_toolbar(shell: Shell) -> Callable[[], StyleAndTextTuples]:
    """A function prompt-toolkit calls on each redraw for the toolbar's text."""

    def toolbar() -> StyleAndTextTuples:
        mode = shell.env.config.get("sql-client.execution.result-mode") or "tableau"
        running = sum(1 for j in shell.env.jobs.values() if not j.done)
        out: StyleAndTextTuples = [
            ("class:bottom-toolbar", " result-mode: "), ("class:bottom-toolbar.key", mode),
            ("class:bottom-toolbar", "  jobs running: "), ("class:bottom-toolbar.key", str(running)),
        ]
        if shell.statement_set is not None:
            out += [("class:bottom-toolbar", "  statement set: "),
                    ("class:bottom-toolbar.key", f"{len(shell.statement_set)} INSERT(s), END; runs it")]
        out += [("class:bottom-toolbar", "   HELP; for help, Ctrl-R history search, Ctrl-D quits ")]
        return out

    return toolbar
