"""Dates and timestamps past year 9999 written by the filesystem sink's json and csv formats.

Flink 2.3 writes them as java.time does, ``+10024-01-01 00:00:00``; Arrow's text had no ``+`` and,
past the years -32767..32767 (a DuckDB TIMESTAMP reaches 294247), was ``<value out of range:
...>``. Expected lines: Flink 2.3's files for the same INSERT (PyFlink, parallelism 1, UTC).
"""

from __future__ import annotations

import json

import pytest

from streamsql import StreamEnvironment

FLINK = {
    "json": '{"id":0,"a":"+10024-01-01 00:00:00","b":"+84161-03-18 00:00:00","c":"+10024-01-01",'
            '"e":"+84161-03-18"}',
    "csv": '0,"+10024-01-01 00:00:00","+84161-03-18 00:00:00","+10024-01-01","+84161-03-18"',
}


@pytest.mark.parametrize("fmt", ["json", "csv"])
def test_a_far_year_is_written_as_flink_writes_it(tmp_path, fmt):
    src = tmp_path / "o.json"
    src.write_text(json.dumps({"id": 0, "ts": "2024-01-01 00:00:00", "d": "2024-01-01"}) + "\n")
    out = tmp_path / "out"
    with StreamEnvironment({"state.dir": str(tmp_path / "state"),
                            "execution.checkpointing.dir": str(tmp_path / "cp")}) as env:
        env.execute_sql(f"CREATE TABLE o (id INT, ts TIMESTAMP(3), d DATE) WITH ('connector' = 'filesystem', "
                        f"'path' = '{src}', 'format' = 'json')")
        env.execute_sql(f"CREATE TABLE j (id INT, a TIMESTAMP(3), b TIMESTAMP(3), c DATE, e DATE) WITH ("
                        f"'connector' = 'filesystem', 'path' = '{out}', 'format' = '{fmt}')")
        env.execute_sql("INSERT INTO j SELECT id, TIMESTAMPADD(YEAR, 8000, ts), TIMESTAMPADD(DAY, 30000000, "
                        "ts), TIMESTAMPADD(YEAR, 8000, d), TIMESTAMPADD(DAY, 30000000, d) FROM o").wait()
    files = [out] if out.is_file() else [p for p in out.rglob("*")
                                         if p.is_file() and not p.name.startswith(".")]
    assert [line for p in files for line in p.read_text().splitlines()] == [FLINK[fmt]]


@pytest.mark.parametrize("unit", ["s", "ms", "us", "ns"])
def test_the_year_10000_boundary_is_signed_only_past_it(unit):
    # render_* skip the per-row '+' regex when no value reaches 10000-01-01: the last instant of
    # 9999 stays unsigned, the first of 10000 gets its '+' (java.time's text), in one column.
    import numpy as np
    import pyarrow as pa
    from streamsql.connectors.formats.common import render_date, render_timestamp

    per_s = {"s": 1, "ms": 10**3, "us": 10**6, "ns": 10**9}[unit]
    last_9999 = 253402300799 * per_s + per_s - 1  # 9999-12-31 23:59:59.999...
    if unit == "ns":  # a datetime64[ns] reaches 2262 only: the year 2262 is the case there
        values = [0, 2**63 - 1]
        want = ["1970-01-01 00:00:00", "2262-04-11 23:47:16.854775807"]
    else:
        values = [last_9999, last_9999 + 1]
        fraction = "" if unit == "s" else "." + "9" * {"ms": 3, "us": 6}[unit]
        want = [f"9999-12-31 23:59:59{fraction}", "+10000-01-01 00:00:00"]
    digits = {"s": 0, "ms": 3, "us": 6, "ns": 9}[unit]
    column = pa.array(values, pa.timestamp(unit))
    assert render_timestamp(column.slice(0, 1), digits, trim=True).to_pylist() == want[:1]
    assert render_timestamp(column, digits, trim=True).to_pylist() == want
    days = pa.array(np.array([2_932_896, 2_932_897], np.int32)).cast(pa.date32())
    assert render_date(days.slice(0, 1)).to_pylist() == ["9999-12-31"]
    assert render_date(days).to_pylist() == ["9999-12-31", "+10000-01-01"]
