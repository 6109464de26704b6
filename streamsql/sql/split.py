r"""Splitting a script into statements, and deciding whether shell input is complete.

Works on raw text with a tiny lexer (strings, quoted identifiers, comments, words), so a
script with one bad statement still splits and the other statements keep their positions.

Example:
    >>> [s.text for s in split_statements("SELECT ';'; -- done\nSHOW TABLES;")]
    ["SELECT ';'", 'SHOW TABLES']
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from streamsql.sql.nodes import CLIENT_COMMANDS

# One alternative per lexeme, tried in order; "open" is a string, quoted identifier or block
# comment that the end of input cuts off. A hint (``/*+ ... */``) is read as Calcite's parser
# reads it, token by token: a ``*/`` inside one of its quoted strings or identifiers does not end
# it (``/*+ OPTIONS('k' = 'a*/b') */``); a plain comment ends at its first ``*/``.
_LEXEME = re.compile(
    r"""
    (?P<ws>\s+)
  | (?P<comment>--[^\n]*|/\*\+(?:'(?:[^']|'')*'|`(?:[^`]|``)*`|[^'`*]|\*(?!/))*\*/|/\*.*?\*/)
  | (?P<string>'(?:[^']|'')*')
  | (?P<ident>"(?:[^"]|"")*"|`(?:[^`]|``)*`)
  | (?P<open>/\*.*|['"`].*)
  | (?P<word>[A-Za-z_][A-Za-z0-9_$]*)
  | (?P<semi>;)
  | (?P<other>.)
    """,
    re.VERBOSE | re.DOTALL,
)
#: The first lexemes of a statement set block (its INSERTs end in ';' up to its END), run or explained.
_SET_PREFIXES = (["EXECUTE", "STATEMENT", "SET", "BEGIN"], ["EXPLAIN", "STATEMENT", "SET", "BEGIN"])
_SET_PREFIX_LEN = 4


@dataclass(frozen=True)
class Statement:
    """One statement of a script.

    Attributes:
        text: the statement without its terminating ``;``, from its first token (leading
            whitespace and comments dropped) to its last.
        line: 1-based line where the statement's first token is in the script.
        col: 1-based column of that token.
        offset: 0-based character offset of that token in the script.
    """

    text: str
    line: int
    col: int
    offset: int = 0


@dataclass(frozen=True)
class _Lexeme:
    kind: str
    text: str
    start: int


def lexemes(script: str) -> Iterator[_Lexeme]:
    """The script as lexemes (kinds: ws, comment, string, ident, open, word, semi, other)."""
    for m in _LEXEME.finditer(script):
        yield _Lexeme(m.lastgroup or "other", m.group(), m.start())


def line_col(script: str, offset: int) -> tuple[int, int]:
    """The 1-based (line, column) of a 0-based character offset."""
    line = script.count("\n", 0, offset) + 1
    col = offset - (script.rfind("\n", 0, offset) + 1) + 1
    return line, col


class _Splitter:
    """Groups lexemes into statements; ``pending`` is the unterminated tail, if any."""

    def __init__(self, script: str):
        self.script = script
        self.statements: list[Statement] = []
        self.pending: str | None = None  # text after the last ';', if not only comments
        self.open_quote = False  # the input ends inside a string, identifier or comment
        self._reset()
        for lx in lexemes(script):
            self._feed(lx)
        if self._start is not None:
            self.pending = script[self._start:].rstrip()
            self._emit(len(script))

    def _reset(self) -> None:
        self._start: int | None = None
        self._head: list[str] = []  # first significant lexemes, to spot EXECUTE STATEMENT SET BEGIN
        self._in_set = False  # inside an open EXECUTE STATEMENT SET block
        self._prev: _Lexeme | None = None  # previous significant lexeme
        self.count = 0  # significant lexemes in the current statement

    def _feed(self, lx: _Lexeme) -> None:
        if lx.kind == "open":
            self.open_quote = True
        if lx.kind in ("ws", "comment"):
            return
        if lx.kind == "semi" and not self._in_set:
            if self._start is not None:
                self._emit(lx.start)
            self._reset()
            return
        if self._start is None:
            self._start = lx.start
        self.count += 1
        if len(self._head) < _SET_PREFIX_LEN:
            self._head.append(lx.text.upper())
            self._in_set = self._head in _SET_PREFIXES
        elif self._in_set and lx.kind == "word" and lx.text.upper() == "END":
            # END closes the block only right after a ';' or the BEGIN (CASE ... END does not).
            prev = self._prev
            if prev is not None and (prev.kind == "semi" or prev.text.upper() == "BEGIN"):
                self._in_set = False
        self._prev = lx

    def _emit(self, end: int) -> None:
        assert self._start is not None
        text = self.script[self._start:end].rstrip()
        line, col = line_col(self.script, self._start)
        self.statements.append(Statement(text, line, col, self._start))


def split_statements(script: str) -> list[Statement]:
    """Split a script into statements at ``;``.

    A ``;`` inside a single-quoted string (``''`` escapes), a double-quoted or backtick
    identifier, a ``--`` line comment or a ``/* */`` block comment does not split.
    ``EXECUTE STATEMENT SET BEGIN ...; ...; END`` is one statement. Empty and comment-only
    statements are dropped; the last statement needs no ``;``.

    Returns:
        the statements in order, each with its position in the script.
    """
    return _Splitter(script).statements


def is_complete(text: str) -> bool:
    """Whether shell input is ready to run (the shell's "keep reading lines?" predicate).

    Returns:
        True when the input ends with a ``;`` outside strings, identifiers, comments and
        open statement sets; when it is a client command (``QUIT``, ``EXIT``, ``HELP``,
        ``CLEAR``, with or without ``;``); or when it holds nothing but whitespace and
        comments (nothing to wait for).
    """
    splitter = _Splitter(text)
    if splitter.open_quote:
        return False
    if splitter.pending is None:
        return True
    return splitter.count == 1 and splitter.pending.split()[0].upper() in CLIENT_COMMANDS
