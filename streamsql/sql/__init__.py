"""The SQL front end: Flink SQL text to sqlglot syntax trees and catalog definitions.

Where things live:

- :mod:`~streamsql.sql.parser` — the public API: :func:`parse_statement`,
  :func:`parse_script`, :func:`split_statements`, :func:`is_complete`, :func:`error_at`,
  :func:`error_in_script`.
- :mod:`~streamsql.sql.split` — statement splitting and the shell's completeness check.
- :mod:`~streamsql.sql.dialect` — the ``Flink`` sqlglot dialect (tokenizer settings).
- :mod:`~streamsql.sql.grammar` — parser hooks, one ``_parse_<construct>`` per construct.
- :mod:`~streamsql.sql.generator` — SQL generation, one ``<node>_sql`` per node.
- :mod:`~streamsql.sql.nodes` — syntax nodes for Flink-only statements and clauses.
- :mod:`~streamsql.sql.ddl` — ``CREATE TABLE/VIEW`` trees to ``TableDef``/``ViewDef``, and
  ``SHOW CREATE TABLE`` text.

To add a statement: define its node in ``nodes.py`` (and list it in ``NODE_CLASSES``), add a
hook to ``FlinkParser.FLINK_STATEMENTS`` keyed by its first word, add ``<node>_sql`` to the
generator, and a ``validate_identity`` case to ``tests/sql/test_dialect.py``.
"""

from streamsql.sql.dialect import Flink
from streamsql.sql.parser import (
    Statement,
    error_at,
    error_in_script,
    is_complete,
    parse_script,
    parse_statement,
    split_statements,
)

__all__ = [
    "Flink", "Statement", "error_at", "error_in_script", "is_complete", "parse_script", "parse_statement",
    "split_statements",
]
