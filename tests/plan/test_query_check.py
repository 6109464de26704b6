"""compile_query remembers DuckDB's answers (plan/query.py ``_duckdb_schema``): only while they hold."""

from __future__ import annotations

import pyarrow as pa
import pytest

from streamsql.core.errors import SqlError
from streamsql.functions.python_functions import VectorFunction, register
from streamsql.plan.query import compile_query

INPUT = pa.schema([("x", pa.int32())])


def test_a_function_registered_again_is_checked_again():
    """The same query text after the function it calls is registered anew (another result type)
    takes the new type, not the answer remembered for the old function."""
    name = "__streamsql_test_checked_again"
    register(VectorFunction(name, "f", lambda a: a.cast(pa.int64()), ("INTEGER",), "BIGINT"))
    assert compile_query([("y", f'{name}("x")')], None, INPUT).output_schema.field("y").type == pa.int64()
    register(VectorFunction(name, "f", lambda a: a.cast(pa.string()), ("INTEGER",), "VARCHAR"))
    assert compile_query([("y", f'{name}("x")')], None, INPUT).output_schema.field("y").type == pa.string()


def test_a_remembered_refusal_is_positioned_in_each_statement():
    """A query DuckDB refused is refused again, positioned in the statement that plans it now."""
    bad = [("y", "\"x\" + 'abc'::BLOB")]
    for sql in ("SELECT x + b FROM t", "SELECT   x + b FROM t"):
        with pytest.raises(SqlError, match="Cannot evaluate expression") as e:
            compile_query(bad, None, INPUT, sql)
        assert e.value.sql == sql


def test_another_input_type_is_checked_again():
    """The same text over another input schema is DuckDB's answer for that schema."""
    assert compile_query([("y", '"x" + 1')], None, INPUT).output_schema.field("y").type == pa.int32()
    wide = pa.schema([("x", pa.int64())])
    assert compile_query([("y", '"x" + 1')], None, wide).output_schema.field("y").type == pa.int64()
