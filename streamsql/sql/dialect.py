"""The Flink SQL dialect for sqlglot: only what differs from sqlglot's base dialect.

- Identifiers are quoted with backticks (```my col```); strings use single quotes with
  ``''`` as the escape (a backslash is an ordinary character).
- Types: ``STRING``, ``BYTES``, ``TIMESTAMP_LTZ(p)`` (also written
  ``TIMESTAMP(p) WITH LOCAL TIME ZONE``).
- Statements: see :mod:`streamsql.sql.grammar` (parser hooks), :mod:`streamsql.sql.generator`
  (SQL generation) and :mod:`streamsql.sql.nodes` (custom syntax nodes).

Example:
    >>> from sqlglot import parse_one
    >>> parse_one("SELECT `a b` FROM t", read=Flink).sql(Flink)
    'SELECT `a b` FROM t'
"""

from __future__ import annotations

from sqlglot import tokens
from sqlglot.dialects.dialect import Dialect, NormalizationStrategy
from sqlglot.tokens import TokenType

from streamsql.sql.generator import FlinkGenerator
from streamsql.sql.grammar import FlinkParser
from streamsql.sql.nodes import HINT_MARK
from streamsql.sql.split import lexemes


class Flink(Dialect):
    """Flink SQL as a sqlglot dialect (``parse_one(sql, read=Flink)``, ``e.sql(Flink)``)."""

    NORMALIZATION_STRATEGY = NormalizationStrategy.CASE_SENSITIVE
    """Flink identifiers are case-sensitive; the binder resolves names case-insensitively."""

    ORIGINAL_NAME_META_KEY = "flink_name"
    """Keep the function name as written (``SUBSTR`` vs ``SUBSTRING``) for round trips."""

    class Tokenizer(tokens.Tokenizer):
        """Backtick identifiers, ``''`` string escapes and Flink type keywords."""

        IDENTIFIERS = ["`"]
        IDENTIFIER_ESCAPES = ["`"]
        QUOTES = ["'"]
        STRING_ESCAPES = ["'"]
        HEX_STRINGS = [("X'", "'"), ("x'", "'")]  # BINARY literals, as Flink's X'FF00'

        KEYWORDS = {
            **tokens.Tokenizer.KEYWORDS,
            "BYTES": TokenType.BLOB,
            "STRING": TokenType.TEXT,
            # EXPLAIN/SHOW/EXECUTE are parsed, not swallowed as opaque commands.
            "EXPLAIN": TokenType.VAR,
            "MATCH_RECOGNIZE": TokenType.MATCH_RECOGNIZE,  # streamsql.sql.match_syntax
        }

        COMMANDS = tokens.Tokenizer.COMMANDS - {TokenType.SHOW, TokenType.EXECUTE}

        NESTED_COMMENTS = False
        """Calcite's (Flink's) block comments do not nest: ``/* a /* b */`` ends at its first ``*/``."""

        def tokenize(self, sql: str) -> list[tokens.Token]:
            """Sqlglot's tokens, each hint comment (``/*+ ... */``) marked and with the token before it.

            See :func:`_mark_hints`. A hint after SELECT is a token of its own (sqlglot's), left as is.
            """
            masked = _mask_hint_quotes(sql)
            found = super().tokenize(masked)
            if masked is not sql:
                for token in found:
                    token.comments[:] = [c.replace(_HIDDEN_END, "*/") for c in token.comments]
            _mark_hints(found, sql, {TokenType.HINT, *self.TOKENS_PRECEDING_HINT})
            return found

    Parser = FlinkParser

    Generator = FlinkGenerator


#: What stands for a ``*/`` inside a hint's quoted text while sqlglot tokenizes (two characters
#: of Unicode's private use area: the same length, so every token keeps its position).
_HIDDEN_END = "\ue000\ue001"


def _mask_hint_quotes(sql: str) -> str:
    """``sql`` with each ``*/`` inside a hint's quoted string or identifier hidden, else ``sql`` itself.

    Calcite (Flink's parser) reads a hint's text token by token, so ``/*+ OPTIONS('k' = 'a*/b') */``
    ends at its last ``*/``; sqlglot ends every block comment at its first. The lexer of
    :func:`~streamsql.sql.split.lexemes` finds the hint's true end; :data:`_HIDDEN_END` is put back
    in the comments after tokenizing.
    """
    if _HIDDEN_END in sql or "*/" not in sql:
        return sql
    parts, done = [], 0
    for lx in lexemes(sql):
        if lx.kind == "comment" and lx.text.startswith("/*+") and "*/" in lx.text[3:-2]:
            parts += [sql[done:lx.start], "/*+", lx.text[3:-2].replace("*/", _HIDDEN_END), "*/"]
            done = lx.start + len(lx.text)
    return "".join(parts) + sql[done:] if parts else sql


def _mark_hints(found: list[tokens.Token], sql: str, skip: set[TokenType]) -> None:
    """Mark each hint comment (:data:`HINT_MARK`) and give it to the token before it.

    sqlglot keeps a comment without its ``/*`` or ``/*+``, so a table's hint read as a plain
    comment; here its text starts with ``+`` (``"+ OPTIONS('k' = 'v') "``, generated back as
    ``/*+ OPTIONS('k' = 'v') */``), and ``/* OPTIONS('k' = 'v') */`` stays a comment, as in Flink
    (a ``--+`` line comment's text gets a space first). And sqlglot gives a comment that starts a
    line to the token after it, so a table's hint on a line of its own (``FROM t``, newline,
    ``/*+ OPTIONS(...) */``, newline, ``WHERE``) went with ``WHERE``, where no table found it:
    Flink's grammar reads a hint after a table's name wherever the lines break. The tokens of
    ``skip`` (SELECT, a hint token) keep theirs.
    """
    for i, before in enumerate(found):
        after = found[i + 1] if i + 1 < len(found) else None
        if before.token_type in skip or not before.comments and (after is None or not after.comments):
            continue
        for lx in lexemes(sql[before.end + 1:after.start if after is not None else len(sql)]):
            if lx.kind != "comment" or not lx.text.startswith(("/*+", "--" + HINT_MARK)):
                continue
            hint = lx.text.startswith("/*+")
            body = lx.text[3:-2] if hint else lx.text[2:]
            holder = next((h for h in (before.comments, after and after.comments) if h and body in h), None)
            if holder is None:
                continue
            if hint:
                holder.remove(body)
                before.comments.append(HINT_MARK + body)
            else:
                holder[holder.index(body)] = " " + body
