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

    Parser = FlinkParser

    Generator = FlinkGenerator
