"""TIMESTAMPADD far from the operand: past a DuckDB TIMESTAMP's or DATE's range the job fails naming
the call, its operands and the record; within it the value is Flink's.

Flink 2.3 computes TIMESTAMPADD in epoch milliseconds (a long) and gives a value even millions of
years away, whose year its CAST to STRING prints garbled (TIMESTAMPADD(DAY, 2147483647, ...) is
')+()-06-21 ...'); WEEK of a DATE fails there ('integer overflow'). DuckDB holds no such value and
failed with its own words ('Date out of range'), which named neither the function nor the values.
Expected strings: Flink 2.3's answers (PyFlink, streaming, parallelism 1, session zone UTC) over the
same rows.
"""

from __future__ import annotations

import json

import pytest

from streamsql import StreamEnvironment
from streamsql.core.errors import ExecutionError

N = [1, 2147483647, -2147483648, 100000, 3000000]


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("tsadd")
    rows = [{"id": i, "ts": "2024-01-01 00:00:00", "n": n, "d": "2024-01-01"} for i, n in enumerate(N)]
    (tmp / "o.json").write_text("".join(json.dumps(r) + "\n" for r in rows))
    with StreamEnvironment({"state.dir": str(tmp / "state"), "execution.checkpointing.dir": str(tmp / "cp"),
                            "table.local-time-zone": "UTC"}) as e:
        e.execute_sql(f"CREATE TABLE o (id INT, ts TIMESTAMP(3), n INT, d DATE) WITH ('connector' = "
                      f"'filesystem', 'path' = '{tmp / 'o.json'}', 'format' = 'json')")
        yield e


def rows(env, sql: str) -> list:
    return sorted(tuple(row) for _, row in env.execute_sql(sql).collect(timeout=60))


@pytest.mark.parametrize(("sql", "flink"), [
    ("SELECT id, CAST(TIMESTAMPADD(HOUR, n, ts) AS STRING) FROM o",
     ["2024-01-01 01:00:00.000", "7007-10-10 07:00:00.000", ".'*0-03-24 16:00:00.000",
      "2035-05-29 16:00:00.000", "2366-03-29 00:00:00.000"]),
    ("SELECT id, CAST(TIMESTAMPADD(YEAR, n, d) AS STRING) FROM o WHERE id < 4",
     ["2025-01-01", "2023-01-01", "2024-01-01", "2024-01-01"]),
])
def test_a_far_value_duckdb_holds_is_flinks(env, sql, flink):
    assert rows(env, sql) == list(enumerate(flink))


@pytest.mark.parametrize(("unit", "operand", "record"), [
    ("DAY", "ts", 2), ("MONTH", "ts", 2), ("WEEK", "ts", 2), ("YEAR", "ts", 5), ("DAY", "d", 2),
])
def test_past_the_range_fails_naming_the_call_and_the_record(env, unit, operand, record):
    n = {2: 2147483647, 5: 3000000}[record]
    value = "2024-01-01" if operand == "d" else "2024-01-01 00:00:00"
    kind = "DATE" if operand == "d" else "TIMESTAMP"
    with pytest.raises(ExecutionError) as failed:
        rows(env, f"SELECT id, TIMESTAMPADD({unit}, n, {operand}) FROM o")
    message = str(failed.value)
    assert message.startswith(f"TIMESTAMPADD({unit}, {n}, {value}) is out of the range of a {kind} here")
    assert f"o.json:{record})" in message
