"""Python aggregate functions (GROUP BY over a changelog, checkpoints) and table functions (LATERAL TABLE).

Results are checked against DuckDB over the same rows; the operator-level test checks that a
GROUP BY with a Python aggregate, checkpointed and restored on both backends, gives the changelog
of an uninterrupted run.
"""

from __future__ import annotations

import json

import duckdb
import pyarrow as pa
import pytest

from streamsql import StreamEnvironment
from streamsql.core.errors import SqlError, StreamSQLError
from streamsql.core.types import SqlType
from streamsql.functions.aggregates import AggSpec, agg_output_type
from streamsql.functions.udf import AggregateFunction, TableFunction, declare, udaf, udtf
from streamsql.runtime.operators.group_agg import GroupAggOperator
from tests.runtime.oracle import fold
from tests.runtime.test_group_agg_cache import (
    _changelog,
    _run,
    _schemas,
    _script,
    checkpointed_run,
    open_group_agg,
)


class SumOfSquares(AggregateFunction):
    """SUM(x * x) with retraction; NULL when no non-NULL x is left (as SQL's SUM)."""

    def create_accumulator(self):
        return [0, 0]

    def accumulate(self, acc, x):
        if x is not None:
            acc[0] += x * x
            acc[1] += 1

    def retract(self, acc, x):
        if x is not None:
            acc[0] -= x * x
            acc[1] -= 1

    def merge(self, acc, accs):
        for other in accs:
            acc[0] += other[0]
            acc[1] += other[1]

    def get_value(self, acc) -> int:
        return acc[0] if acc[1] else None


class InsertOnlyCount(AggregateFunction):
    def create_accumulator(self):
        return [0]

    def accumulate(self, acc, x):
        acc[0] += 1

    def get_value(self, acc) -> int:
        return acc[0]


class Opaque:
    pass


class OpaqueAccumulator(InsertOnlyCount):
    def create_accumulator(self):
        return Opaque()


class Failing(InsertOnlyCount):
    def accumulate(self, acc, x):
        if x == 0:
            raise ValueError("zero is not allowed")  # noqa: EM101
        acc[0] += 1


# -- the operator: checkpoints and restores ---------------------------------------------------------


@pytest.mark.parametrize("backend_name", ["hashmap", "rocksdb"])
@pytest.mark.parametrize("cache_entries", [0, None], ids=["no-cache", "default-cache"])
def test_a_python_aggregate_is_checkpointed_and_restored_like_the_others(
    tmp_path, backend_name, cache_entries
):
    ua = declare("sumsq", SumOfSquares())
    inp = _schemas(pa.string())
    aggs = [
        AggSpec(ua.func, 1, agg_output_type(ua.func, None)),
        AggSpec("count", 1, SqlType("BIGINT", nullable=False)),
        AggSpec("max_retract", 3, SqlType("STRING")),
    ]
    out = pa.schema([("k", pa.string()), ("sq", pa.int64()), ("n", pa.int64()), ("m", pa.string())])

    def make(workdir):
        return open_group_agg(GroupAggOperator(1, aggs, inp, out), backend_name, workdir, cache_entries)

    batches, live = _script(pa.string(), True, seed=7)
    ref, backend = make(tmp_path / "ref")
    expected = _run(ref, batches)
    backend.close()
    con = duckdb.connect()
    live_rows = pa.table(
        {
            "k": [r[0] for r in live],
            "x": pa.array([r[1] for r in live], pa.int64()),
            "s": [r[3] for r in live],
        }
    )
    con.register("live", live_rows)
    oracle = con.sql("SELECT k, sum(x * x), count(x), max(s) FROM live GROUP BY k").fetchall()
    assert sorted(fold([e for batch in expected for e in batch]), key=repr) == sorted(oracle, key=repr)
    assert checkpointed_run(make, batches, tmp_path) == expected


def test_the_batch_rows_are_folded_in_order(tmp_path):
    """accumulate and retract of one key in one batch are called in the rows' order (Flink's)."""
    calls = []

    class Recording(SumOfSquares):
        def accumulate(self, acc, x):
            calls.append(("+", x))
            super().accumulate(acc, x)

        def retract(self, acc, x):
            calls.append(("-", x))
            super().retract(acc, x)

    ua = declare("rec", Recording())
    inp = pa.schema([("k", pa.string()), ("x", pa.int64())])
    out = pa.schema([("k", pa.string()), ("v", pa.int64())])
    op, backend = open_group_agg(
        GroupAggOperator(1, [AggSpec(ua.func, 1, ua.result)], inp, out), "hashmap", tmp_path
    )
    import numpy as np

    from streamsql.core.elements import Batch

    batch = Batch(
        pa.table({"k": ["a", "b", "a", "a"], "x": [1, 5, 1, 3]}, schema=inp), np.array([0, 0, 3, 0], np.int8)
    )
    assert sorted(_changelog(op.process_batch(batch, 0)), key=repr) == sorted(
        [(k, r) for k, r in [(0, ("a", 9)), (0, ("b", 25))]], key=repr
    )
    assert calls == [("+", 1), ("+", 5), ("-", 1), ("+", 3)]
    backend.close()


# -- through SQL ---------------------------------------------------------------------------------------

CHANGES = [
    ("c", None, {"id": 1, "k": "a", "v": 3}),
    ("c", None, {"id": 2, "k": "a", "v": 4}),
    ("c", None, {"id": 3, "k": "b", "v": 5}),
    ("u", {"id": 1, "k": "a", "v": 3}, {"id": 1, "k": "b", "v": 6}),
    ("d", {"id": 3, "k": "b", "v": 5}, None),
    ("c", None, {"id": 4, "k": "a", "v": None}),
]


@pytest.fixture
def env(tmp_path):
    with open(tmp_path / "changes.json", "w") as f:
        for op, before, after in CHANGES:
            f.write(json.dumps({"before": before, "after": after, "op": op}) + "\n")
    (tmp_path / "t.json").write_text(
        '{"k": "a", "s": "x yy"}\n{"k": "b", "s": ""}\n{"k": "c", "s": null}\n{"k": "d", "s": "zzz"}\n'
    )
    with StreamEnvironment(
        {"state.dir": str(tmp_path / "state"), "execution.checkpointing.dir": str(tmp_path / "cp")}
    ) as e:
        e.execute_sql(
            f"CREATE TABLE changes (id BIGINT, k STRING, v BIGINT, PRIMARY KEY (id) NOT ENFORCED) WITH ("
            f"'connector' = 'filesystem', 'path' = '{tmp_path}/changes.json', 'format' = 'debezium-json')"
        )
        e.execute_sql(
            f"CREATE TABLE t (k STRING, s STRING) WITH ('connector' = 'filesystem', "
            f"'path' = '{tmp_path}/t.json', 'format' = 'json')"
        )
        yield e


def final(env, sql: str) -> list:
    return sorted(fold(env.execute_sql(sql).collect(timeout=30)), key=repr)


def test_a_group_by_over_a_changelog_retracts(env):
    env.create_temporary_function("sumsq", SumOfSquares)
    got = final(env, "SELECT k, sumsq(v) AS sq, COUNT(*) AS n FROM changes GROUP BY k")
    # the table the changelog folds to: a: 4, NULL; b: 6
    assert got == sorted([("a", 16, 2), ("b", 36, 1)], key=repr)


def test_declared_input_types_cast_the_arguments(env):
    class Concat(InsertOnlyCount):
        def create_accumulator(self):
            return [""]

        def accumulate(self, acc, s):
            acc[0] += s

        def get_value(self, acc):
            return acc[0]

    env.create_temporary_function("cat", udaf(Concat(), result_type="STRING", input_types=["STRING"]))
    got = final(env, "SELECT k, cat(s) FROM t WHERE s IS NOT NULL AND k <> 'a' GROUP BY k")
    assert got == [("b", ""), ("d", "zzz")]


@pytest.mark.parametrize(
    ("sql", "message"),
    [
        (
            "SELECT k, once(v) FROM changes GROUP BY k",
            r"does not implement at least one method named 'retract'",
        ),
        ("SELECT once(v, v) FROM changes", r"takes 1 argument\(s\), got 2"),
        ("SELECT k FROM t WHERE once(k) > 1", r"Aggregate function .* is not allowed here"),
    ],
)
def test_refused_at_the_call(env, sql, message):
    env.create_temporary_function("once", InsertOnlyCount())
    with pytest.raises(SqlError, match=message) as e:
        env.execute_sql(sql)
    assert "^" in str(e.value)


def test_an_accumulator_state_cannot_store_is_refused_when_declared():
    with pytest.raises(SqlError, match=r"accumulator .*Opaque.* cannot be stored in state"):
        declare("opaque", OpaqueAccumulator())


def test_an_exception_fails_the_job_naming_the_function_and_arguments(tmp_path):
    (tmp_path / "n.json").write_text('{"x": 1}\n{"x": 0}\n')
    with StreamEnvironment({"state.dir": str(tmp_path / "state")}) as env:
        env.execute_sql(
            f"CREATE TABLE n (x INT) WITH ('connector' = 'filesystem', 'path' = '{tmp_path}/n.json', "
            "'format' = 'json')"
        )
        env.create_temporary_function("picky", Failing)
        with pytest.raises(
            StreamSQLError,
            match=r"Python aggregate function 'picky' .* failed in accumulate on \(0\): "
            r"ValueError: zero is not allowed \(record .*n\.json:2\)",
        ):
            list(env.execute_sql("SELECT picky(x) FROM n").collect(timeout=30))


def test_a_result_type_is_required():
    class Untyped(InsertOnlyCount):
        def get_value(self, acc):
            return acc[0]

    with pytest.raises(SqlError, match="declare its result type"):
        declare("untyped", Untyped())


# -- table functions ----------------------------------------------------------------------------------


@udtf(result_types=["STRING", "INT"])
def words(s: str):
    for w in (s or "").split(" "):
        if w:
            yield w, len(w)


class Chars(TableFunction):
    def eval(self, s):
        return list(s or "")


DUCK_WORDS = "SELECT k, w, length(w) FROM (SELECT k, unnest(string_split(s, ' ')) AS w FROM t) WHERE w <> ''"


def _duck(tmp_path, sql):
    con = duckdb.connect()
    con.execute(f"CREATE VIEW t AS SELECT * FROM read_json_auto('{tmp_path}/t.json')")
    return sorted(con.sql(sql).fetchall(), key=repr)


def test_cross_join_lateral_table(env, tmp_path):
    env.create_temporary_function("words", words)
    expected = _duck(tmp_path, DUCK_WORDS)
    for sql in [
        "SELECT k, word, n FROM t, LATERAL TABLE(words(s)) AS T(word, n)",
        "SELECT t.k, T.word, T.n FROM t CROSS JOIN LATERAL TABLE(words(s)) AS T(word, n)",
        "SELECT k, f0, f1 FROM t, LATERAL TABLE(words(s))",
    ]:
        assert final(env, sql) == expected


def test_left_join_lateral_table_keeps_rows_without_result(env, tmp_path):
    env.create_temporary_function("words", words)
    expected = _duck(
        tmp_path, f"SELECT t.k, w.w, w.n FROM t LEFT JOIN ({DUCK_WORDS}) AS w(k, w, n) ON t.k = w.k"
    )
    got = final(env, "SELECT k, word, n FROM t LEFT JOIN LATERAL TABLE(words(s)) AS T(word, n) ON TRUE")
    assert got == expected


def test_a_table_function_object_with_one_column_feeds_an_aggregate(env):
    env.create_temporary_function("chars", udtf(Chars(), result_types="STRING"))
    got = final(env, "SELECT c, COUNT(*) FROM t, LATERAL TABLE(chars(s)) AS T(c) GROUP BY c")
    assert got == [(" ", 1), ("x", 1), ("y", 2), ("z", 3)]


@pytest.mark.parametrize(
    ("sql", "message"),
    [
        ("SELECT * FROM t LEFT JOIN LATERAL TABLE(words(s)) AS T(w, n) ON k = w", r"ON TRUE"),
        ("SELECT * FROM t, LATERAL TABLE(words(s)) AS T(w)", r"gives 2 column\(s\); the alias names 1"),
        ("SELECT * FROM t, LATERAL TABLE(nope(s))", r"No table function named 'nope'"),
        ("SELECT * FROM t, LATERAL TABLE(words(s, s))", r"takes 1 argument\(s\), got 2"),
    ],
)
def test_lateral_table_refused(env, sql, message):
    env.create_temporary_function("words", words)
    with pytest.raises(SqlError, match=message):
        env.execute_sql(sql)


def test_a_table_function_failing_names_its_arguments(env):
    def boom(s):
        yield 1 // len(s)

    env.create_temporary_function("boom", udtf(boom, result_types=["INT"]))
    with pytest.raises(
        StreamSQLError,
        match=r"Python table function 'boom' .* failed on \(''\): ZeroDivisionError: .* "
        r"\(record .*t\.json:2\)",
    ):
        list(env.execute_sql("SELECT * FROM t, LATERAL TABLE(boom(s)) WHERE k = 'b'").collect(timeout=30))


def test_a_table_function_yielding_a_wrong_type_names_itself_and_the_record(env):
    """It said 'Internal error (a bug in StreamSQL ...): Could not convert ...' (breaker)."""
    def bad(s):
        yield "notanint"

    env.create_temporary_function("bad", udtf(bad, result_types=["INT"]))
    with pytest.raises(StreamSQLError, match=r"Python table function 'bad' yielded 'notanint' as its result "
                                             r"column 1, which is declared INT \(record .*t\.json:1\)"):
        list(env.execute_sql("SELECT * FROM t, LATERAL TABLE(bad(s))").collect(timeout=30))


def test_show_functions_lists_every_kind(env):
    env.create_temporary_function("words", words)
    env.create_temporary_function("sumsq", SumOfSquares)
    assert env.execute_sql("SHOW USER FUNCTIONS").rows == [("sumsq",), ("words",)]
    assert ("sumsq",) in env.execute_sql("SHOW FUNCTIONS").rows


# -- window aggregates ----------------------------------------------------------------------------------


class WeightedAvg(SumOfSquares):
    """SUM(v * w) // SUM(w) over the rows with a value (Python's // floors)."""

    def accumulate(self, acc, v, w):
        if v is not None:
            acc[0] += v * w
            acc[1] += w

    def get_value(self, acc) -> int:
        return acc[0] // acc[1] if acc[1] else None


def test_a_python_aggregate_in_window_tvfs_equals_duckdb(tmp_path):
    from tests.runtime.oracle import assert_same, make_env
    from tests.runtime.test_windows import ddl as windows_ddl
    from tests.runtime.test_windows import duck, gen_events, write_events

    path = write_events(tmp_path / "ev.json", gen_events(11, 300))
    env = make_env(tmp_path, "rocksdb", 7)
    env.execute_sql(windows_ddl(path))
    env.create_temporary_function("wavg", WeightedAvg)
    env.create_temporary_function("sumsq", SumOfSquares)
    sql = ("SELECT k, window_start, window_end, wavg(v, id), sumsq(v), COUNT(*) FROM TABLE(HOP(TABLE ev, "
           "DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '10' SECOND)) GROUP BY window_start, window_end, k")
    duck_sql = ("SELECT k, epoch_ms(ms // 5000 * 5000 - i * 5000), "
                "epoch_ms(ms // 5000 * 5000 - i * 5000 + 10000), "
                "CASE WHEN sum(id) FILTER (WHERE v IS NOT NULL) > 0 THEN "
                "floor(sum(v * id) / sum(id) FILTER (WHERE v IS NOT NULL))::BIGINT END, sum(v * v), COUNT(*) "
                "FROM ev, range(0, 2) r(i) GROUP BY ALL")
    assert_same(fold(env.execute_sql(sql).collect(timeout=60)), duck(path, duck_sql), sql)


@pytest.mark.parametrize("backend_name", ["hashmap", "rocksdb"])
@pytest.mark.parametrize("kind", ["TUMBLE", "HOP"])
def test_a_python_aggregate_in_a_window_is_restored_with_its_pending_windows(tmp_path, backend_name, kind):
    from collections import Counter

    from streamsql.plan.specs import WindowSpec
    from streamsql.runtime.operators.slicing_window import SlicingWindowAggOperator
    from tests.runtime.harness import open_operator, replay_across_restore
    from tests.runtime.test_windows import IN_SCHEMA, OUT_SCHEMA, _play, _rows
    from tests.runtime.test_windows import _script as window_script

    ua = declare("sumsq", SumOfSquares())
    aggs = [AggSpec(ua.func, 2, ua.result), AggSpec("count_star", None, SqlType("BIGINT"))]
    out = pa.schema(list(OUT_SCHEMA)[:6])

    def make(workdir):
        spec = WindowSpec(kind, size=10_000, slide=5000 if kind == "HOP" else 0)
        op = SlicingWindowAggOperator(spec, 1, 1, aggs, IN_SCHEMA, out)
        return open_operator(op, backend_name, workdir, "w")

    steps = window_script(7)
    expected, actual, _, pending = replay_across_restore(make, lambda op, s: _rows(_play(op, s)), steps, 31,
                                                         tmp_path)
    assert pending > 0
    assert Counter(actual) == Counter(expected)
    rows = [r for what, batch in steps[:-2] if what == "batch" for r in batch]  # the last batch is late
    assert sum(n for *_, n in expected) >= len(rows)  # every row is in at least one window
    assert {(r[0], r[-2]) for r in expected} == {(r[0], r[-2]) for r in expected if r[-2] is not None}
