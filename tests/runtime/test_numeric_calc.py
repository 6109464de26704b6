"""Numeric SELECT items computed by numpy must give DuckDB's very answer (streamsql.runtime.numeric_calc).

Differential: random batches (NULLs, negative values, zero, the 2^53 and int64 boundaries, NaN
and the infinities) through a compiled item and through DuckDB running the same SQL; equal
values and NULLs, DOUBLEs bit for bit. Where the compiled item refuses a batch (a value outside
its exact domain), the query's answer is still DuckDB's (it runs that batch).
"""

from __future__ import annotations

import zlib

import duckdb
import numpy as np
import pyarrow as pa
import pytest

from streamsql import StreamEnvironment
from streamsql.core.elements import Batch
from streamsql.core.errors import ExecutionError
from streamsql.plan.nodes import CalcNode, walk
from streamsql.plan.planner import Planner
from streamsql.plan.query import compile_query
from streamsql.runtime.evaluator import BatchQuery, query_table
from streamsql.runtime.numeric_calc import compile_items
from streamsql.sql.parser import parse_statement

SCHEMA = pa.schema([("price", pa.int64()), ("i", pa.int32()), ("d", pa.float64()), ("e", pa.float64()),
                    ("dm", pa.decimal128(10, 2))])
# Q1's item as the planner writes it, and the planner's texts of other numeric expressions
Q1 = 'CAST((TRY_CAST(CAST(("price") AS DECIMAL(38, 0)) * (0.908) AS DECIMAL(24, 3))) AS DOUBLE)'
COMPILED = [
    Q1,
    'TRY_CAST(CAST(("price") AS DECIMAL(38, 0)) * (0.908) AS DECIMAL(24, 3))',
    'TRY_CAST(CAST(("dm") AS DECIMAL(38, 2)) * (2) AS DECIMAL(21, 2))',
    'TRY_CAST(CAST(("dm") AS DECIMAL(38, 2)) * ("dm") AS DECIMAL(21, 4))',
    'CAST("dm" + 0.01 AS DECIMAL(11, 2))',
    'CAST("dm" - "price" AS DECIMAL(22, 2))',
    'CAST((CAST("dm" AS DOUBLE)) AS DOUBLE)',
    'CAST((CAST("price" AS DOUBLE) / CAST(3 AS DOUBLE)) AS DOUBLE)',
    'CAST(("d" * CAST(2 AS DOUBLE)) AS DOUBLE)',
    'CAST((CAST("price" AS DOUBLE) + "d") AS DOUBLE)',
    '("d" - "e") * ("d" + "e") / "e"',
    '-"d"',
    'CAST("i" AS BIGINT)',
    'CAST("price" AS INTEGER)',
    'TRY_CAST("price" AS DECIMAL(5, 2))',
    'CAST("price" AS DECIMAL(5, 2))',
    'CAST("dm" AS DECIMAL(12, 4))',
    'CAST("i" AS DECIMAL(12, 1)) * "dm"',
]
NOT_COMPILED = [
    '"d" + 1.5',  # DuckDB casts the DECIMAL literal to DOUBLE: mixed kinds are not compiled
    # integer arithmetic: the planner's Java wrap-around through HUGEINT masks
    'CAST((((CAST(("price") AS HUGEINT) + CAST((1) AS HUGEINT)) + 9223372036854775808) '
    '& CAST(18446744073709551615 AS HUGEINT)) - 9223372036854775808 AS BIGINT)',
    '"price" * 2',
    'CAST("d" AS BIGINT)',  # rounds
    'CAST("dm" AS DECIMAL(10, 1))',  # rounds
    'upper(CAST("price" AS VARCHAR))',
    '"dm" / 2',
    'CAST("price" AS DOUBLE) * 1.5e0',
]

_PRICE_EDGES = [0, 1, -1, 2**53 // 908, -(2**53 // 908), 2**53 // 908 + 1, 2**53 // 908 - 1, 2**53, -(2**53),
                2**63 - 1, -(2**63), 99_999, -99_999, 100_000, 10**7]
_DOUBLE_EDGES = [0.0, -0.0, 1.0, -1.5, np.nan, np.inf, -np.inf, 1e308, -1e308, 5e-324, 2.0**53, 0.1]


def _table(rng: np.random.Generator, n: int, wide: bool, small: bool = False) -> pa.Table:
    """A random batch; ``wide``: prices over the whole int64 range and its edges, else inside ±2^53/908.

    ``small``: every integer and DECIMAL within ±999 (so that products and narrowing casts fit).
    """
    if wide:
        price = np.concatenate([rng.integers(-(2**63), 2**63 - 1, n // 2, dtype=np.int64, endpoint=True),
                                rng.choice(np.array(_PRICE_EDGES, dtype=np.int64), n - n // 2)])
    else:
        price = rng.integers(-(2**53 // 908), 2**53 // 908, n, dtype=np.int64, endpoint=True)
        price[: n // 4] = rng.integers(-2000, 2000, n // 4)
    d = rng.standard_normal(n) * 10.0 ** rng.integers(-5, 12, n)
    edge = rng.random(n) < 0.2
    d[edge] = rng.choice(_DOUBLE_EDGES, int(edge.sum()))
    e = rng.standard_normal(n) * 1000
    e[rng.random(n) < 0.1] = 0.0
    dm = rng.integers(-(10**10) + 1, 10**10 - 1, n)
    i = rng.integers(-(2**31), 2**31 - 1, n, dtype=np.int64, endpoint=True).astype(np.int32)
    if small:
        price, dm, i = (rng.integers(-999, 1000, n, dtype=t) for t in (np.int64, np.int64, np.int32))

    def nulls():
        return rng.random(n) < 0.1

    cols = {
        "price": pa.array(price, pa.int64(), mask=nulls()),
        "i": pa.array(i, pa.int32(), mask=nulls()),
        "d": pa.array(d, pa.float64(), mask=nulls()),
        "e": pa.array(e, pa.float64(), mask=nulls()),
        "dm": _decimals(dm, nulls(), pa.decimal128(10, 2)),
    }
    return pa.table(cols, schema=SCHEMA)


_CON = duckdb.connect()


def _decimals(unscaled: np.ndarray, null: np.ndarray, t: pa.DataType) -> pa.Array:
    """A DECIMAL array of the unscaled int64 values (16-byte little-endian words)."""
    words = np.stack([unscaled, unscaled >> 63], axis=1).astype(np.int64)
    validity = pa.array(~null).buffers()[1]
    return pa.Array.from_buffers(t, len(unscaled), [validity, pa.py_buffer(words)], null_count=-1)


def _same(got: pa.Array, want: pa.Array) -> bool:
    """Equal NULLs and values; DOUBLEs bit for bit (NaN: any NaN, as DuckDB's sign of NaN varies)."""
    if got.type != want.type or not got.is_null().equals(want.is_null()):
        return False
    if pa.types.is_float64(got.type):
        g = got.fill_null(0.0).to_numpy()
        w = want.fill_null(0.0).to_numpy()
        return bool(((g.view(np.int64) == w.view(np.int64)) | (np.isnan(g) & np.isnan(w))).all())
    return got.equals(want)


def _duckdb(sql: str, table: pa.Table) -> pa.Array | None:
    """DuckDB's answer for the item, or None when DuckDB fails the batch."""
    try:
        return query_table(_CON, f"SELECT {sql} AS x FROM __in", table).column(0).combine_chunks()
    except duckdb.Error:
        return None


@pytest.mark.parametrize("sql", COMPILED)
def test_a_compiled_item_gives_duckdbs_answer_on_random_batches(sql):
    spec = compile_query([("x", sql)], None, SCHEMA)
    items = compile_items(spec.items, SCHEMA, spec.duckdb_schema)
    assert items is not None
    rng = np.random.default_rng(zlib.crc32(sql.encode()))
    computed = 0
    for round_ in range(24):
        table = _table(rng, 1000, wide=round_ % 4 == 3, small=round_ % 4 == 2)
        if round_ == 0:
            table = table.slice(0, 0)
        got = items.run(table)
        want = _duckdb(spec.items[0][1], table)
        if got is None:
            continue  # refused: DuckDB runs this batch (checked below through BatchQuery)
        computed += 1
        assert want is not None, "compiled where DuckDB fails the batch"
        assert _same(got[0], want), sql
        out = BatchQuery(spec).run(Batch(table)).table
        whole = query_table(_CON, spec.sql(), table).cast(spec.output_schema)
        assert out.schema == whole.schema
        assert _same(out.column(0).combine_chunks(), whole.column(0).combine_chunks())
    assert computed >= 5  # the small batches at least are in range: the test compares real answers


@pytest.mark.parametrize("sql", NOT_COMPILED)
def test_other_items_are_left_to_duckdb(sql):
    spec = compile_query([("x", sql)], None, SCHEMA)
    assert compile_items(spec.items, SCHEMA, spec.duckdb_schema) is None


def test_q1_exact_below_2_53_and_duckdbs_beyond():
    """Q1's price: float(price * 908) / 1000.0 below 2^53, DuckDB's own answer beyond (int64 edges)."""
    spec = compile_query([("x", Q1)], None, SCHEMA)
    items = compile_items(spec.items, SCHEMA, spec.duckdb_schema)
    prices = [0, 1, -1, 3387054, 2**53 // 908, -(2**53 // 908), None]
    inside = pa.table({"price": pa.array(prices, pa.int64()), "i": pa.nulls(7, pa.int32()),
                       "d": pa.nulls(7, pa.float64()), "e": pa.nulls(7, pa.float64()),
                       "dm": pa.nulls(7, pa.decimal128(10, 2))}, schema=SCHEMA)
    got = items.run(inside)[0].to_pylist()
    assert got == _duckdb(spec.items[0][1], inside).to_pylist()
    assert got[3] == 3075445.032 and got[-1] is None
    beyond = inside.slice(0, 1).set_column(0, "price", pa.array([2**63 - 1], pa.int64()))
    assert items.run(beyond) is None  # 2^63 × 908 leaves int64: DuckDB computes it
    want = _duckdb(spec.items[0][1], beyond).to_pylist()
    assert BatchQuery(spec).run(Batch(beyond)).table.column(0).to_pylist() == want


def test_a_failing_cast_is_still_duckdbs_error_naming_the_record():
    spec = compile_query([("x", 'CAST("price" AS INTEGER)')], None, SCHEMA)
    table = _table(np.random.default_rng(7), 10, wide=False).set_column(
        0, "price", pa.array([1, 2, 2**40] + [3] * 7, pa.int64()))
    with pytest.raises(ExecutionError, match="record row-2"):
        BatchQuery(spec).run(Batch(table, origin=lambda r: f"row-{r}"))


def test_the_planner_compiles_q1s_projection():
    with StreamEnvironment() as env:
        env.execute_sql("CREATE TABLE bids (auction BIGINT, price BIGINT) WITH ('connector' = 'datagen')")
        env.execute_sql("CREATE TABLE out_t (auction BIGINT, price DOUBLE) WITH ('connector' = 'blackhole')")
        sql = "INSERT INTO out_t SELECT auction, CAST(price * 0.908 AS DOUBLE) AS price FROM bids"
        root = Planner(env.catalog, env.config, sql).plan_insert(parse_statement(sql))
    calc = next(n for n in walk([root]) if isinstance(n, CalcNode))
    query = BatchQuery(calc.query)
    assert query._computed is not None and query._computed._numeric is not None
    table = pa.table({"auction": pa.array([1, 2, 3], pa.int64()),
                      "price": pa.array([1000, None, -7], pa.int64())})
    assert query.run(Batch(table)).table.to_pylist() == [
        {"auction": 1, "price": 908.0}, {"auction": 2, "price": None}, {"auction": 3, "price": -6.356}]


def test_sliced_chunked_and_chunkless_columns():
    """Offsets into an Arrow buffer (a slice), several chunks and no chunk at all read the right values."""
    rng = np.random.default_rng(3)
    parts = [_table(rng, 300, wide=False, small=True) for _ in range(3)]
    table = pa.concat_tables([parts[0].slice(17, 200), parts[1], parts[2].slice(5)])
    empty = pa.table({f.name: pa.chunked_array([], f.type) for f in SCHEMA}, schema=SCHEMA)
    for sql in ('CAST("i" AS DECIMAL(12, 1)) * "dm"', 'CAST((CAST("dm" AS DOUBLE)) AS DOUBLE)', '"d" * "e"'):
        spec = compile_query([("x", sql)], None, SCHEMA)
        items = compile_items(spec.items, SCHEMA, spec.duckdb_schema)
        assert _same(items.run(table)[0], _duckdb(sql, table))
        assert items.run(empty)[0].to_pylist() == []


def test_an_item_deeper_than_the_parsers_stack_is_left_to_duckdb():
    # the planner spells out Java's integer wrap-around, so nested integer arithmetic can give SQL
    # deeper than sqlglot's recursive parser can read: such an item is DuckDB's, not a job failure
    sql = "(" * 3000 + "CAST(x AS DOUBLE)" + " + 1.0)" * 3000
    schema = pa.schema([("x", pa.float64())])
    assert compile_items([("v", sql)], schema, pa.schema([("v", pa.float64())])) is None
