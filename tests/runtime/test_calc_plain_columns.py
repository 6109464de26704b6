"""A projection without WHERE takes its plain columns from the batch; DuckDB computes only the rest.

Every input row is an output row in order, so the passed columns, row kinds, splits and origin are
the batch's own; the result must be what the whole query through DuckDB gives.
"""

from __future__ import annotations

import json
import re
from decimal import Decimal

import duckdb
import numpy as np
import pyarrow as pa
import pytest

from streamsql import StreamEnvironment
from streamsql.core.elements import Batch
from streamsql.core.errors import StreamSQLError
from streamsql.plan.query import compile_query
from streamsql.runtime.evaluator import BatchQuery, query_table

SCHEMA = pa.schema([("id", pa.int64()), ("s", pa.string()), ("ts", pa.timestamp("ms", tz="UTC")),
                    ("d", pa.decimal128(10, 2))])


def _table(n: int = 5) -> pa.Table:
    return pa.table({
        "id": pa.array([i if i % 3 else None for i in range(n)], pa.int64()),
        "s": pa.array([f"s{i}" if i % 4 else None for i in range(n)]),
        "ts": pa.array([1_700_000_000_123 + i for i in range(n)], pa.timestamp("ms", tz="UTC")),
        "d": pa.array([None if i == 2 else Decimal(f"{i}.25") for i in range(n)], pa.decimal128(10, 2)),
    }, schema=SCHEMA)


def _whole(spec, table: pa.Table) -> pa.Table:
    """The query as one DuckDB statement, cast to the spec's schema (what the split must equal)."""
    return query_table(duckdb.connect(), spec.sql(), table).cast(spec.output_schema)


@pytest.mark.parametrize("items", [
    [("id", '"id"'), ("x", '"id" * 2'), ("ts", '"ts"'), ("u", 'upper("s")'), ("d", '"d"')],
    [("x", '"id" + 1'), ("s", '"s"')],
    [("a", '"s"'), ("k", "42"), ("b", '"s"')],  # a column twice, a constant
])
def test_only_the_computed_items_go_to_duckdb_and_the_result_is_the_whole_querys(items):
    spec = compile_query(items, None, SCHEMA)
    bq = BatchQuery(spec)
    passed = {expr for _, expr in items if re.fullmatch('"[a-z]+"', expr)}
    assert bq._computed is not None
    assert [e for _, e in bq._computed.spec.items] == [e for _, e in items if e not in passed]
    table = _table()
    kinds, splits = np.array([0, 1, 2, 3, 0], np.int8), np.array([1, 0, 1, 0, 2], np.int32)
    out = bq.run(Batch(table, kinds, splits))
    assert out.table.equals(_whole(spec, table)) and out.table.schema == spec.output_schema
    assert out.kinds is kinds and out.splits is splits


def test_an_empty_batch_and_a_chunked_one():
    spec = compile_query([("x", '"id" * 2'), ("s", '"s"')], None, SCHEMA)
    bq = BatchQuery(spec)
    assert bq.run(Batch(_table(0))).table.equals(_whole(spec, _table(0)))
    chunked = pa.concat_tables([_table(3), _table(4)])
    assert bq.run(Batch(chunked)).table.equals(_whole(spec, chunked))


def test_a_where_or_all_plain_columns_are_not_split():
    assert BatchQuery(compile_query([("x", '"id" * 2'), ("s", '"s"')], '"id" > 1', SCHEMA))._computed is None
    assert BatchQuery(compile_query([("s", '"s"'), ("i", '"id"')], None, SCHEMA))._computed is None
    assert BatchQuery(compile_query([("x", '"id" * 2')], None, SCHEMA))._computed is None


def test_a_failing_computed_item_still_names_its_record(tmp_path):
    """Line 3 of the file is not a number; the plain ``id`` passed beside it changes nothing."""
    (tmp_path / "in.json").write_text("".join(json.dumps({"id": i, "s": v}) + "\n"
                                              for i, v in enumerate(["1", "2", "x3", "4"], 1)))
    with StreamEnvironment({"execution.checkpointing.dir": str(tmp_path / "cp")}) as env:
        env.execute_sql(f"CREATE TABLE t (id INT, s STRING) WITH ('connector' = 'filesystem', "
                        f"'path' = '{tmp_path}/in.json', 'format' = 'json')")
        env.execute_sql("CREATE TABLE o (id INT, a INT, s STRING) WITH ('connector' = 'blackhole')")
        with pytest.raises(StreamSQLError) as ei:
            env.execute_sql("INSERT INTO o SELECT id, CAST(s AS INT), s FROM t").wait(60)
    text = str(ei.value)
    assert "CAST('x3' AS INT) failed" in text and text.endswith(f"(record {tmp_path}/in.json:3)"), text


def test_an_unnest_is_not_split_it_makes_rows():
    """DuckDB's ``unnest`` in a SELECT list makes a row per element (CROSS JOIN UNNEST plans so)."""
    schema = pa.schema([("id", pa.int64()), ("l", pa.list_(pa.int64()))])
    spec = compile_query([("id", '"id"'), ("e", 'unnest("l")')], None, schema)
    bq = BatchQuery(spec)
    assert bq._computed is None
    table = pa.table({"id": [1, 2], "l": [[10, 11], [12]]}, schema=schema)
    rows = bq.run(Batch(table)).table.to_pylist()
    assert rows == [{"id": 1, "e": 10}, {"id": 1, "e": 11}, {"id": 2, "e": 12}]
