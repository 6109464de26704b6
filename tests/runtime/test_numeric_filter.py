"""WHERE conditions decided by numpy must keep DuckDB's very rows (streamsql.runtime.numeric_calc).

Differential: random batches (NULLs, negative values, zero, NaN, the int64 ends) through a
compiled condition and through DuckDB running ``SELECT ... WHERE`` with the same SQL; the rows
kept, their order, row kinds, splits and origin must be DuckDB's. Where the compiled condition
refuses a batch (a value outside its exact domain), the answer is still DuckDB's.
"""

from __future__ import annotations

import zlib

import duckdb
import numpy as np
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from streamsql import StreamEnvironment
from streamsql.core.elements import Batch
from streamsql.core.errors import BadRecordError, ExecutionError
from streamsql.plan.nodes import CalcNode, walk
from streamsql.plan.planner import Planner
from streamsql.plan.query import compile_query
from streamsql.runtime.evaluator import BatchQuery, query_table
from streamsql.runtime.numeric_calc import compile_condition
from streamsql.sql.parser import parse_statement
from tests.runtime.test_numeric_calc import _CON, _DOUBLE_EDGES, _PRICE_EDGES, _decimals, _same

SCHEMA = pa.schema([("auction", pa.int64()), ("i", pa.int32()), ("d", pa.float64()), ("e", pa.float64()),
                    ("dm", pa.decimal128(10, 2)), ("b", pa.bool_()), ("s", pa.string())])


def _guarded(x: str, divisor: str) -> str:
    """``x % divisor`` as the planner writes it (a divisor of 0 fails the job, as Flink)."""
    return (f'{x} % (CASE WHEN ({divisor}) = 0 THEN (CASE WHEN ({x}) IS NULL THEN NULL ELSE '
            f"error('StreamSQL: ' || 'Division by zero') END) ELSE ({divisor}) END)")


COMPILED = [
    f'CAST({_guarded(chr(34) + "auction" + chr(34), "123")} AS INT) = 0',  # Nexmark Q2's, as planned
    f'{_guarded(chr(34) + "i" + chr(34), "7")} = 1 OR "auction" IS NULL',
    f'{_guarded(chr(34) + "auction" + chr(34), "-5")} <> -2',
    '"auction" > 100 AND "i" <> 5',
    '"i" < "auction"',
    '"dm" >= 3.25',
    '"dm" < "auction"',
    '"auction" <= -1.5',
    '"d" > "e"',
    '"d" = "e" OR "d" IS NOT NULL AND NOT ("e" <= "d")',
    '"auction" BETWEEN -10 AND 10',
    '"i" IN (1, 2, 3, -4)',
    'NOT ("i" IN (0, 1))',
    '"b"',
    'NOT "b" OR "i" > 0',
    'NOT ("i" > 0 AND "b")',  # FALSE AND NULL is FALSE: NOT of it keeps the row
    'NOT ("i" > 0 OR "b" OR "dm" < 0)',
    '"b" AND "auction" % 2 = 0',
    '"b" IS NULL',
    'TRUE',
    'CAST((TRY_CAST(CAST(("auction") AS DECIMAL(38, 0)) * (0.908) AS DECIMAL(24, 3))) AS DOUBLE) > "d"',
]
NOT_COMPILED = [
    '"s" = \'x\'',  # strings
    '"d" > 1.5',  # DOUBLE against a DECIMAL literal: mixed kinds
    f'{_guarded(chr(34) + "auction" + chr(34), chr(34) + "i" + chr(34))} = 0',  # a per-row divisor guard
    'length("s") > 2',
    '"auction" IN (SELECT 1)',
    '"auction"',  # not a boolean
]


def _table(rng: np.random.Generator, n: int, edges: bool) -> pa.Table:
    """A random batch; ``edges``: a fifth of the BIGINTs at the 2^53 and int64 ends."""
    auction = rng.integers(-2000, 2000, n)
    wide = rng.random(n) < (0.2 if edges else 0.0)
    auction[wide] = rng.choice(np.array(_PRICE_EDGES, np.int64), int(wide.sum()))
    d = np.round(rng.standard_normal(n) * 4)  # small values: equal pairs happen
    e = np.round(rng.standard_normal(n) * 4)
    edge = rng.random(n) < 0.1
    d[edge] = rng.choice(_DOUBLE_EDGES, int(edge.sum()))
    if rng.random() < 0.5:  # NaN sends the batch to DuckDB: half the batches have none
        d[np.isnan(d)] = 1.0

    def nulls():
        return rng.random(n) < 0.1

    return pa.table({
        "auction": pa.array(auction, pa.int64(), mask=nulls()),
        "i": pa.array(rng.integers(-10, 10, n).astype(np.int32), pa.int32(), mask=nulls()),
        "d": pa.array(d, pa.float64(), mask=nulls()),
        "e": pa.array(e, pa.float64(), mask=nulls()),
        "dm": _decimals(rng.integers(-2000, 2000, n), nulls(), pa.decimal128(10, 2)),
        "b": pa.array(rng.random(n) < 0.5, pa.bool_(), mask=nulls()),
        "s": pa.array(rng.choice(["a", "bcd", "x"], n), pa.string()),
    }, schema=SCHEMA)


def _kept_by_duckdb(condition: str, table: pa.Table) -> list[int]:
    """The row numbers DuckDB's WHERE keeps, in order."""
    numbered = table.append_column("__n", pa.array(np.arange(table.num_rows), pa.int64()))
    return query_table(_CON, f"SELECT __n FROM __in WHERE {condition}", numbered).column(0).to_pylist()


@pytest.mark.parametrize("condition", COMPILED)
def test_a_compiled_condition_keeps_duckdbs_rows(condition):
    numeric = compile_condition(condition, SCHEMA)
    assert numeric is not None
    spec = compile_query([("auction", '"auction"'), ("x", 'CAST("d" * "e" AS DOUBLE)')], condition, SCHEMA)
    query = BatchQuery(spec)
    assert query._filter is not None
    rng = np.random.default_rng(zlib.crc32(condition.encode()))
    decided = 0
    for round_ in range(20):
        table = _table(rng, 0 if round_ == 0 else 500, edges=round_ % 4 == 3)
        want = _kept_by_duckdb(condition, table)
        mask = numeric.mask(table)
        if mask is not None:
            decided += 1
            assert np.flatnonzero(mask).tolist() == want, condition
        kinds = rng.integers(0, 4, table.num_rows).astype(np.int8)
        splits = rng.integers(0, 4, table.num_rows).astype(np.int32)
        out = query.run(Batch(table, kinds, splits, origin=lambda r: f"row-{r}"))
        whole = query_table(_CON, spec.sql(), table).cast(spec.output_schema)
        assert out.table.schema == whole.schema and out.num_rows == whole.num_rows == len(want)
        assert all(_same(out.table.column(c).combine_chunks(), whole.column(c).combine_chunks())
                   for c in range(2))
        assert out.kind_array().tolist() == kinds[want].tolist()
        assert (out.splits if out.splits is not None else []).tolist() == splits[want].tolist()
        assert [out.origin(r) for r in range(out.num_rows)] == [f"row-{w}" for w in want]
    assert decided >= 5  # batches without NaN or int64 ends are decided by numpy: real comparisons


@pytest.mark.parametrize("condition", NOT_COMPILED)
def test_other_conditions_are_left_to_duckdb(condition):
    assert compile_condition(condition, SCHEMA) is None


def test_a_failing_item_still_names_its_record_after_the_filter():
    """The items run over the kept rows only (as DuckDB's WHERE); a failing one names its input record."""
    spec = compile_query([("x", 'CAST("auction" AS INTEGER)')], '"i" > 0', SCHEMA)
    query = BatchQuery(spec)
    assert query._filter is not None
    table = _table(np.random.default_rng(5), 8, edges=False)
    table = table.set_column(0, "auction", pa.array([2**40, 1, 2, 2**40, 3, 4, 5, 6], pa.int64()))
    table = table.set_column(1, "i", pa.array([-1, 1, 1, 1, 1, 1, 1, 1], pa.int32()))
    with pytest.raises(ExecutionError, match="record row-3"):
        query.run(Batch(table, origin=lambda r: f"row-{r}"))
    assert query.run(Batch(table.slice(0, 3))).table.column(0).to_pylist() == [1, 2]  # row 0 filtered out


def test_the_planner_compiles_nexmark_q2s_filter():
    with StreamEnvironment() as env:
        env.execute_sql("CREATE TABLE bids (auction BIGINT, price BIGINT) WITH ('connector' = 'datagen')")
        env.execute_sql("CREATE TABLE out_t (auction BIGINT, price BIGINT) WITH ('connector' = 'blackhole')")
        sql = "INSERT INTO out_t SELECT auction, price FROM bids WHERE auction % 123 = 0"
        root = Planner(env.catalog, env.config, sql).plan_insert(parse_statement(sql))
    query = BatchQuery(next(n for n in walk([root]) if isinstance(n, CalcNode)).query)
    assert query._filter is not None
    table = pa.table({"auction": pa.array([0, 123, -246, 124, None, 2**63 - 1], pa.int64()),
                      "price": pa.array([1, 2, 3, 4, 5, 6], pa.int64())})
    assert query.run(Batch(table)).table.to_pylist() == [
        {"auction": 0, "price": 1}, {"auction": 123, "price": 2}, {"auction": -246, "price": 3}]


# Random conditions (hypothesis): expression trees of the shapes the planner writes, over random
# batches with NULLs, NaN and the int64 ends; every compiled one must keep DuckDB's rows.
_INTS = st.sampled_from(['"auction"', '"i"', "0", "7", "-3", "123", "4611686018427387903"])
_DECS = st.sampled_from(['"dm"', "3.25", "-0.5", "0.01"])
_DOUBLES = st.sampled_from(['"d"', '"e"', "CAST(2 AS DOUBLE)"])


@st.composite
def _integer(draw, depth: int = 2) -> str:
    if depth and draw(st.booleans()):
        x = draw(_integer(depth - 1))
        return draw(st.sampled_from([_guarded(f"({x})", draw(st.sampled_from(["123", "7", "-5", "-1", "1"]))),
                                     f"CAST(({x}) AS INTEGER)", f"CAST(({x}) AS BIGINT)"]))
    return draw(_INTS)


@st.composite
def _comparison(draw) -> str:
    op = draw(st.sampled_from(["=", "<>", "<", "<=", ">", ">="]))
    family = draw(st.sampled_from(["int", "dec", "double"]))
    if family == "double":
        a, b = draw(_DOUBLES), draw(_DOUBLES)
    elif family == "dec":
        a, b = draw(st.one_of(_DECS, _integer())), draw(_DECS)
    else:
        a, b = draw(_integer()), draw(_integer())
    shape = draw(st.integers(0, 3))
    if shape == 1:
        return f"{a} BETWEEN {b} AND {draw(_integer()) if family == 'int' else b}"
    if shape == 2 and family == "int":
        return f"{a} IN ({', '.join(draw(st.lists(st.sampled_from(['0', '1', '-3', '123']), min_size=1)))})"
    return f"{a} {op} {b}"


@st.composite
def _condition(draw, depth: int = 3) -> str:
    if depth and draw(st.integers(0, 2)):
        kind = draw(st.sampled_from(["AND", "OR", "NOT", "NOT"]))
        if kind == "NOT":
            return f"NOT ({draw(_condition(depth - 1))})"
        return f"({draw(_condition(depth - 1))}) {kind} ({draw(_condition(depth - 1))})"
    return draw(st.one_of(_comparison(), st.sampled_from(['"b"', '"b" IS NULL', '"auction" IS NOT NULL',
                                                           '"dm" IS NULL', "TRUE", "FALSE"])))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(condition=_condition(), seed=st.integers(0, 2**32 - 1), edges=st.booleans())
def test_random_conditions_keep_duckdbs_rows(condition, seed, edges):
    table = _table(np.random.default_rng(seed), 300, edges)
    numeric = compile_condition(condition, SCHEMA)
    assert numeric is not None, condition  # every shape drawn here compiles
    mask = numeric.mask(table)
    try:
        want = _kept_by_duckdb(condition, table)
    except duckdb.Error:
        assert mask is None, condition  # DuckDB fails this batch (a CAST out of range): its error stays
        return
    if mask is not None:
        assert np.flatnonzero(mask).tolist() == want, condition
    spec = compile_query([("auction", '"auction"')], condition, SCHEMA)
    out = BatchQuery(spec).run(Batch(table)).table
    assert out.column(0).to_pylist() == [table.column(0)[w].as_py() for w in want]


@pytest.mark.parametrize("bad", ['{"auction": 124, "price": "x"}', '{"auction": 125, "price": 3'])
def test_a_bad_record_the_filter_would_drop_still_fails_the_job(tmp_path, bad):
    """As Flink's JSON format: the record is decoded whole before the WHERE, so a value that does
    not convert or invalid JSON fails the job although ``auction % 123 = 0`` would drop the row."""
    path = tmp_path / "bids.json"
    path.write_text('{"auction": 123, "price": 1}\n' + bad + '\n{"auction": 246, "price": 2}\n')
    with StreamEnvironment() as env:
        env.execute_sql(f"CREATE TABLE bids (auction BIGINT, price BIGINT) WITH ('connector' = 'filesystem', "
                        f"'path' = '{path}', 'format' = 'json')")
        query = "SELECT auction, price FROM bids WHERE auction % 123 = 0"
        with pytest.raises(BadRecordError, match=rf"{path}:2"):
            list(env.execute_sql(query).collect())
        env.execute_sql(f"CREATE TABLE lenient (auction BIGINT, price BIGINT) WITH ("
                        f"'connector' = 'filesystem', 'path' = '{path}', 'format' = 'json', "
                        "'json.ignore-parse-errors' = 'true')")
        rows = [tuple(row) for _, row in env.execute_sql(query.replace("bids", "lenient")).collect()]
    assert sorted(rows) == [(123, 1), (246, 2)]
