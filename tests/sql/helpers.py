"""A sqlglot-style ``Validator`` for Flink round trips."""

from __future__ import annotations

import re

from sqlglot import exp

from streamsql.sql.dialect import Flink
from streamsql.sql.parser import parse_statement


def normalize_ws(sql: str) -> str:
    """Collapse runs of whitespace to one space (round trips may re-flow whitespace only)."""
    return re.sub(r"\s+", " ", sql).strip()


class Validator:
    """Round-trip checks: ``validate_identity`` as in sqlglot's ``tests/dialects/test_dialect.py``."""

    def validate_identity(self, sql: str, write_sql: str | None = None) -> exp.Expr:
        """Parse ``sql`` and assert it generates back to itself (or to ``write_sql``).

        Returns:
            the parsed tree, for further assertions.
        """
        tree = parse_statement(sql)
        expected = normalize_ws(write_sql if write_sql is not None else sql)
        assert normalize_ws(tree.sql(Flink)) == expected
        # The generated text must itself parse to the same tree.
        assert parse_statement(tree.sql(Flink)) == tree
        return tree
