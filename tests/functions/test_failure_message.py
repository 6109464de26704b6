"""How a DuckDB failure reads to the user (registry.failure_message), from real DuckDB errors."""

from __future__ import annotations

import duckdb
import pytest

from streamsql.functions.scalars.registry import fail_sql, failure_message, sql_string


def _duck_error(sql: str) -> str:
    with pytest.raises(duckdb.Error) as ei:
        duckdb.connect().sql(sql).fetchall()
    return str(ei.value).split("\n")[0]


def test_a_failure_raised_by_fail_sql_is_its_own_message():
    text = _duck_error(f"SELECT {fail_sql(sql_string('CAST(x) failed'))}")
    assert failure_message(text) == "CAST(x) failed"


def test_another_failure_quoting_a_fail_sql_is_that_other_failure():
    """DuckDB's division by zero quotes its divisor's SQL, here holding a fail_sql of its own."""
    divisor = f"CASE WHEN x > 5 THEN {fail_sql(sql_string('not this one'))} ELSE x - 1 END"
    text = _duck_error(f"SELECT 1000 // ({divisor}) FROM range(0, 3) t(x)")
    assert "not this one" in text
    assert failure_message(text).startswith("Division by zero in 1000 / ")
