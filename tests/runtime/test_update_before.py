"""UPDATE_BEFORE elimination: no -U rows into a sink that upserts on the producer's key, and -U
rows kept wherever a consumer needs them (:mod:`streamsql.plan.update_kinds`).

Jobs run end to end (a debezium-json source with updates and deletes, small batches) into
recording sinks: one that upserts by its PRIMARY KEY (as upsert-kafka / jdbc / blackhole say
they do, ``sink_upserts``) and one that needs the whole changelog (as print). The upsert sink's
rows are folded by key and compared with DuckDB's result over the source's final rows; where
-U rows stay, the changelog is folded as a multiset (every -U must retract a row). Which edges
keep -U follows Flink 2.3's ``EXPLAIN CHANGELOG_MODE`` (asked for each shape below: GROUP BY
into a sink keyed on the group key ``[I,UA]``, into print ``[I,UB,UA]``, behind a WHERE
``[I,UB,UA]``, an inner GROUP BY under another ``[I,UB,UA]`` and the outer ``[I,UA,D]``, Top-N
with its rank number / ``rn = 1`` without it ``[I,UA,D]``). The operators themselves are
checked batch by batch: without -U they emit exactly the changelog with -U minus its -U rows.
"""

from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pyarrow as pa
import pytest
from streamsql.connectors.registry import _REGISTRY, register

from streamsql.core.connector import ConnectorSpec, OptionSpec, Sink
from streamsql.core.elements import Batch, RowKind
from streamsql.runtime.operators.group_agg import GroupAggOperator
from streamsql.runtime.operators.group_agg_columnar import ColumnarGroupAggOperator
from streamsql.runtime.operators.rank import RankSpec, TopNOperator
from tests.runtime.harness import open_operator
from tests.runtime.oracle import (
    assert_same,
    create_table,
    duck_con,
    duck_rows,
    fold,
    make_env,
    write_debezium,
    write_jsonl,
)
from tests.runtime.test_group_agg_cache import open_group_agg
from tests.runtime.test_group_agg_columnar import CHANGELOG, _batches, _schemas

#: table name → [(kind, row)] written to a recording sink
WRITTEN: dict[str, list[tuple[RowKind, tuple]]] = {}


class RecordingSink(Sink):
    """Keeps every row it gets, with its kind, in :data:`WRITTEN` under the table's name."""

    accepts_updates = True

    def __init__(self, ctx):
        self.rows = WRITTEN.setdefault(ctx.table.name, [])

    def write(self, batch: Batch) -> None:
        """Record the batch's rows (see :meth:`Sink.write`)."""
        for kind, row in zip(batch.kind_array().tolist(), batch.table.to_pylist()):
            self.rows.append((RowKind(kind), tuple(row.values())))


@pytest.fixture(autouse=True)
def recorders():
    """``test-upserts`` (upserts by PRIMARY KEY, drops -U) and ``test-changelog`` (needs -U)."""
    options = [OptionSpec("connector", required=True)]
    for name, upserts in (("test-upserts", True), ("test-changelog", False)):
        register(ConnectorSpec(name=name, options=options, create_sink=RecordingSink,
                               sink_accepts_updates=lambda table: True,
                               sink_upserts=lambda table, u=upserts: u))
    WRITTEN.clear()
    yield
    for name in ("test-upserts", "test-changelog"):
        _REGISTRY.pop(name, None)


COLS = [("id", "INT", "INTEGER"), ("g", "STRING", "VARCHAR"), ("x", "INT", "INTEGER")]


@pytest.fixture
def cdc(tmp_path):
    """A debezium-json changelog: inserts, updates that move rows between groups, deletes that
    empty group ``e`` (its result row must be deleted). ``(source path, final rows path)``."""
    rnd = random.Random(11)
    rows = {i: {"id": i, "g": rnd.choice("abcd") if i % 7 else "e", "x": rnd.randint(-50, 50)}
            for i in range(60)}
    events = [("c", None, r) for r in rows.values()]
    for i in list(rows):
        if rows[i]["g"] == "e":
            events.append(("d", rows.pop(i), None))
    for i in rnd.sample(sorted(rows), 25):
        old = rows[i]
        if rnd.random() < 0.7:
            new = dict(old, x=rnd.randint(-50, 50), g=rnd.choice("abcd"))
            events.append(("u", old, new))
            rows[i] = new
        else:
            events.append(("d", rows.pop(i), None))
    final = write_jsonl(tmp_path / "final.json", list(rows.values()))
    return write_debezium(tmp_path / "cdc.json", events), final


def _run(tmp_path, cdc, sink_ddl: str, insert: str, backend="hashmap") -> list[tuple[RowKind, tuple]]:
    env = make_env(tmp_path, backend, batch_size=4)
    create_table(env, "c", cdc[0], "debezium-json", COLS)
    env.execute_sql(sink_ddl)
    # a sink key that is not the query's upsert key: Flink 2.3 wants ON CONFLICT, or this key to
    # write the last row per key (what these tests check the -U rows of)
    env.execute_sql("SET 'table.exec.sink.upsert-materialize' = 'NONE'")
    plan = env.execute_sql(f"EXPLAIN {insert}").message
    res = env.execute_sql(insert)
    res.wait(60)
    env.close()
    return plan, WRITTEN.get(sink_ddl.split()[2], [])


def _upsert_fold(changelog, key: list[int]) -> Counter:
    """Fold an upsert changelog by ``key`` (no -U expected; -D must delete a present key)."""
    table: dict[tuple, tuple] = {}
    for kind, row in changelog:
        k = tuple(row[i] for i in key)
        assert kind != RowKind.UPDATE_BEFORE, f"-U{row} reached a sink keyed on the producer's key"
        if kind == RowKind.DELETE:
            assert table.pop(k, None) is not None, f"-D{row} of an absent key"
        else:
            table[k] = row
    return Counter(table.values())


def _kinds(changelog) -> set[RowKind]:
    return {k for k, _ in changelog}


AGG = "SELECT g, COUNT(*) AS c, SUM(x) AS s, MAX(x) AS m FROM c GROUP BY g"
AGG_FIXED = "SELECT g, COUNT(*) AS c, SUM(x) AS s FROM c GROUP BY g"  # the columnar operator


@pytest.mark.parametrize("backend", ["hashmap", "rocksdb"])
@pytest.mark.parametrize("query", [AGG, AGG_FIXED])
def test_group_by_into_an_upsert_sink_on_its_key_emits_no_update_before(tmp_path, cdc, backend, query):
    cols = "g STRING, c BIGINT, s INT" + (", m INT" if "MAX" in query else "")
    ddl = f"CREATE TABLE out_t ({cols}, PRIMARY KEY (g) NOT ENFORCED) WITH ('connector' = 'test-upserts')"
    plan, changelog = _run(tmp_path, cdc, ddl, f"INSERT INTO out_t {query}", backend)
    assert "changelog=[upsert]" in plan and "input=[upsert]" in plan, plan
    assert RowKind.UPDATE_AFTER in _kinds(changelog) and RowKind.DELETE in _kinds(changelog)
    expected = duck_rows(duck_con({"c": cdc[1]}, COLS), query)
    assert_same(_upsert_fold(changelog, [0]), expected, query)


@pytest.mark.parametrize(("sink", "insert", "duck"), [
    # the sink's key is not the group key: two groups may share a count, each -U must arrive
    ("CREATE TABLE out_t (g STRING, c BIGINT, s INT, PRIMARY KEY (c) NOT ENFORCED) WITH "
     "('connector' = 'test-upserts')", f"INSERT INTO out_t {AGG_FIXED}", AGG_FIXED),
    # a sink that shows the changelog (as print) needs -U, with or without a key
    ("CREATE TABLE out_t (g STRING, c BIGINT, s INT, PRIMARY KEY (g) NOT ENFORCED) WITH "
     "('connector' = 'test-changelog')", f"INSERT INTO out_t {AGG_FIXED}", AGG_FIXED),
    # a WHERE after the aggregation must see the old row leave the condition (FLINK-9528)
    ("CREATE TABLE out_t (g STRING, c BIGINT, s INT, PRIMARY KEY (g) NOT ENFORCED) WITH "
     "('connector' = 'test-upserts')", f"INSERT INTO out_t SELECT * FROM ({AGG_FIXED}) WHERE s > 0",
     f"SELECT * FROM ({AGG_FIXED}) WHERE s > 0"),
])
def test_update_before_kept_where_a_consumer_needs_it(tmp_path, cdc, sink, insert, duck):
    plan, changelog = _run(tmp_path, cdc, sink, insert)
    assert "changelog=[upsert]" not in plan and "input=[retract]" in plan, plan
    assert RowKind.UPDATE_BEFORE in _kinds(changelog)
    assert_same(fold(changelog), duck_rows(duck_con({"c": cdc[1]}, COLS), duck), insert)


def test_aggregate_of_an_aggregate_keeps_the_inner_update_before(tmp_path, cdc):
    """The outer GROUP BY retracts with the inner one's -U rows; only the outer one drops them."""
    query = f"SELECT c, COUNT(*) AS n FROM ({AGG_FIXED}) GROUP BY c"
    ddl = ("CREATE TABLE out_t (c BIGINT, n BIGINT, PRIMARY KEY (c) NOT ENFORCED) WITH "
           "('connector' = 'test-upserts')")
    plan, changelog = _run(tmp_path, cdc, ddl, f"INSERT INTO out_t {query}")
    aggs = [ln for ln in plan.splitlines() if "GroupAggregate" in ln]
    assert "changelog=[upsert]" in aggs[0] and "changelog=[retract]" in aggs[1], plan
    assert_same(_upsert_fold(changelog, [0]), duck_rows(duck_con({"c": cdc[1]}, COLS), query), query)


@pytest.mark.parametrize(("cols", "pk", "select", "key"), [
    ("g STRING, id INT, x INT, rn BIGINT", "g, rn", "g, id, x, rn", [0, 3]),
    ("g STRING, id INT, x INT", "g", "g, id, x", [0]),  # rn = 1 without the number: keyed by g
])
def test_top_n_into_an_upsert_sink_on_its_key_emits_no_update_before(tmp_path, cdc, cols, pk, select, key):
    top = 2 if "rn" in select else 1
    ranked = "SELECT g, id, x, ROW_NUMBER() OVER (PARTITION BY g ORDER BY x DESC, id) AS rn FROM c"
    query = f"SELECT {select} FROM ({ranked}) WHERE rn <= {top}"
    ddl = f"CREATE TABLE out_t ({cols}, PRIMARY KEY ({pk}) NOT ENFORCED) WITH ('connector' = 'test-upserts')"
    plan, changelog = _run(tmp_path, cdc, ddl, f"INSERT INTO out_t {query}")
    assert "Rank(" in plan and "changelog=[upsert]" in plan, plan
    assert RowKind.UPDATE_AFTER in _kinds(changelog)
    duck = query.replace("x DESC", "x DESC NULLS LAST")
    assert_same(_upsert_fold(changelog, key), duck_rows(duck_con({"c": cdc[1]}, COLS), duck), query)


# -- the operators, batch by batch -----------------------------------------------------------------

def _without_before(elements) -> Counter:
    """The output's rows but its -U ones, as a multiset (a batch's key order is DuckDB's)."""
    out: Counter = Counter()
    for e in elements:
        for kind, row in zip(e.kind_array().tolist(), e.table.to_pylist()):
            if kind != RowKind.UPDATE_BEFORE:
                out[kind, tuple(row.values())] += 1
    return out


@pytest.mark.parametrize("cls", [GroupAggOperator, ColumnarGroupAggOperator])
def test_group_by_operators_drop_only_the_update_before_rows(tmp_path, cls):
    inp, aggs, out = _schemas(pa.string(), CHANGELOG)
    ops = [open_group_agg(cls(1, aggs, inp, out, update_before=ub), "hashmap", tmp_path / str(ub))[0]
           for ub in (True, False)]
    saw_before = False
    for batch in _batches(pa.string(), True, seed=4):
        with_ub, without = (op.process_batch(batch, 0) for op in ops)
        saw_before |= any((e.kind_array() == RowKind.UPDATE_BEFORE).any() for e in with_ub)
        assert _without_before(with_ub) == _without_before(without)
        assert not any((e.kind_array() == RowKind.UPDATE_BEFORE).any() for e in without)
    assert saw_before


def test_top_n_operator_drops_only_the_update_before_rows(tmp_path):
    schema = pa.schema([("k", pa.int64()), ("v", pa.int64()), ("rn", pa.int64())])
    node = type("N", (), dict(partition=[0], order=[1], descending=[True], nulls_first=[False], rank_start=1,
                              rank_end=2, rn_index=2, output_rank=True, new_row_wins_ties=False,
                              window_end=None, limit=False))
    ops = [open_operator(TopNOperator(RankSpec(node, schema), updating_input=False, update_before=ub),
                         "hashmap", tmp_path / str(ub))[0] for ub in (True, False)]
    rnd = random.Random(2)
    for _ in range(20):
        n = rnd.randint(1, 6)
        table = pa.table({"k": [rnd.randint(0, 3) for _ in range(n)],
                          "v": [rnd.randint(0, 99) for _ in range(n)], "rn": [0] * n}, schema=schema)
        with_ub, without = (op.process_batch(Batch(table, np.zeros(n, np.int8)), 0) for op in ops)
        assert _without_before(with_ub) == _without_before(without)
        assert not any((e.kind_array() == RowKind.UPDATE_BEFORE).any() for e in without)
