"""Colours and SQL syntax highlighting (pygments' ``SqlLexer`` through prompt-toolkit)."""

from __future__ import annotations

from prompt_toolkit.lexers import Lexer, PygmentsLexer
from prompt_toolkit.styles import BaseStyle, Style, merge_styles, style_from_pygments_cls
from pygments.lexers.sql import SqlLexer
from pygments.styles import get_style_by_name

#: Classes used by the shell's own widgets (prompt, toolbar, result views).
SHELL_STYLE = {
    "prompt": "ansigreen bold",
    "continuation": "ansigreen",
    "bottom-toolbar": "bg:#303030 #c0c0c0 noreverse",
    "bottom-toolbar.key": "bg:#303030 #ffffff bold noreverse",
    "status": "bg:#303030 #c0c0c0",
    "status.running": "bg:#303030 ansigreen bold",
    "status.done": "bg:#303030 ansicyan bold",
    "table.header": "bold",
    "completion-menu.completion": "bg:#444444 #ffffff",
    "completion-menu.completion.current": "bg:#00aaaa #000000",
    "completion-menu.meta.completion": "bg:#303030 #aaaaaa",
    "completion-menu.meta.completion.current": "bg:#00aaaa #000000",
}


def sql_lexer() -> Lexer:
    """Highlights SQL keywords, strings, numbers and comments as the user types."""
    return PygmentsLexer(SqlLexer)


def shell_style(pygments_style: str = "monokai") -> BaseStyle:
    """The shell's style: a pygments colour scheme for SQL, then the shell's own classes."""
    try:
        base = style_from_pygments_cls(get_style_by_name(pygments_style))
    except Exception:  # an unknown scheme name: fall back to pygments' default
        base = style_from_pygments_cls(get_style_by_name("default"))
    return merge_styles([base, Style.from_dict(SHELL_STYLE)])
