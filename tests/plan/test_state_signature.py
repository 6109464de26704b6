"""State signatures (streamsql/plan/state_signature.py): what an operator's checkpointed state means.

A restore compares them per operator id (tests/checkpoint/test_operator_claims.py, and end to end
through Kafka in tests/integration/test_state_signatures.py); these tests pin which query changes
change a signature and which do not.
"""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys

import pytest

from streamsql import StreamEnvironment
from streamsql.checkpoint.operators import StateMappingError, claim_state
from streamsql.functions.udf import udaf, udtf
from streamsql.plan.planner import Planner, assign_ids
from streamsql.plan.state_signature import recorded_signatures, state_signatures
from streamsql.sql.parser import parse_statement

DDL = ("CREATE TABLE src (id INT, a INT, b INT, v BIGINT, ts TIMESTAMP(3), "
       "WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector' = 'datagen')",
       "CREATE TABLE `out` (k INT, c BIGINT) WITH ('connector' = 'blackhole')",
       "CREATE TABLE outw (k INT, ws TIMESTAMP(3), c BIGINT) WITH ('connector' = 'blackhole')",
       "CREATE TABLE dim (a INT, name STRING) WITH ('connector' = 'datagen')",
       "CREATE TABLE outj (k INT, name STRING) WITH ('connector' = 'blackhole')",
       "CREATE TABLE texts (id INT, j INT, s STRING, t STRING, p AS PROCTIME()) "
       "WITH ('connector' = 'datagen')",
       "CREATE TABLE outs (w STRING, c BIGINT) WITH ('connector' = 'blackhole')",
       "CREATE TABLE out3 (k INT, x BIGINT, y BIGINT) WITH ('connector' = 'blackhole')",
       *(f"CREATE TABLE {d} (id INT, name STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' = 'jdbc', "
         f"'url' = 'jdbc:mysql://127.0.0.1:3306/db', 'table-name' = '{d}', 'password' = 'hunter2')"
         for d in ("dim1", "dim2")))
WINDOW = ("INSERT INTO outw SELECT a, window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE src, DESCRIPTOR(ts), "
          "INTERVAL '{s}' SECOND)) GROUP BY a, window_start, window_end")


@udtf(result_types=["STRING"])
def words(s):
    yield from (s or "").split(" ")


@udtf(result_types=["STRING"])
def chars(s):
    yield from s or ""


TABLE_FUNCTIONS = {"words": words, "chars": chars}


def signatures_in(env: StreamEnvironment):
    """A function from an INSERT's text to its plan's state signatures (operator id → signature)."""
    def of(sql: str) -> dict[str, dict]:
        root = Planner(env.catalog, env.config).plan_insert(parse_statement(sql))
        assign_ids([root])
        return state_signatures([root])

    return of


@pytest.fixture(scope="module")
def signatures():
    env = StreamEnvironment()
    for ddl in DDL:
        env.execute_sql(ddl)
    for name, fn in TABLE_FUNCTIONS.items():
        env.create_temporary_function(name, fn)

    yield signatures_in(env)
    env.close()


def _one(sigs: dict[str, dict], kind: str) -> tuple[str, dict]:
    (found,) = [(op, s) for op, s in sigs.items() if s["operator"] == kind]
    return found


def _compared(sig: dict) -> dict:
    """The parts a restore compares on their own (``rows`` only tells twins apart: operators.py)."""
    return {k: v for k, v in sig.items() if k not in ("explain", "rows", "filters", "twins")}


def test_a_group_by_key_of_the_same_type_from_another_column_is_another_state(signatures):
    op, by_a = _one(signatures("INSERT INTO `out` SELECT a, COUNT(*) FROM src GROUP BY a"), "group-agg")
    op_b, by_b = _one(signatures("INSERT INTO `out` SELECT b, COUNT(*) FROM src GROUP BY b"), "group-agg")
    assert op == op_b and by_a["output"] == by_b["output"] and by_a["parameters"] == by_b["parameters"]
    assert by_a["input"] == [["src.a INT"]] and by_b["input"] == [["src.b INT"]]


def test_a_key_expression_is_followed_to_the_table_columns(signatures):
    sql = "INSERT INTO `out` SELECT id % {0}, COUNT(*) FROM src GROUP BY id % {0}"
    _, mod10 = _one(signatures(sql.format(10)), "group-agg")
    _, mod7 = _one(signatures(sql.format(7)), "group-agg")
    assert mod10["input"] != mod7["input"]
    assert "src.id" in mod10["input"][0][0] and "10" in mod10["input"][0][0]


def test_another_aggregate_function_is_another_state(signatures):
    _, count = _one(signatures("INSERT INTO `out` SELECT a, COUNT(v) FROM src GROUP BY a"), "group-agg")
    _, total = _one(signatures("INSERT INTO `out` SELECT a, SUM(v) FROM src GROUP BY a"), "group-agg")
    assert count["input"] == total["input"]  # same columns in, another accumulator
    assert count["parameters"]["aggs"] != total["parameters"]["aggs"]


def test_calls_of_one_argument_name_it_by_what_it_computes(signatures):
    """``AVG(v), MAX(v)`` read one column of the Calc (Flink's); each call's ``arg`` is its origin,
    not the column's position, and the argument columns are not in ``input``."""
    sql = "INSERT INTO out3 SELECT a, AVG(v), MAX({}) FROM src GROUP BY a"
    _, same = _one(signatures(sql.format("v")), "group-agg")
    _, other = _one(signatures(sql.format("b")), "group-agg")
    assert [c["arg"] for c in same["parameters"]["aggs"]] == [["src.v BIGINT"], ["src.v BIGINT"]]
    assert [c["arg"] for c in other["parameters"]["aggs"]] == [["src.v BIGINT"], ["src.b INT"]]
    assert same["input"] == other["input"] == [["src.a INT"]]
    # as StreamSQL up to 735568b recorded it: a column per call, arguments by position
    old = {**same, "parameters": {**same["parameters"], "aggs": [
        {**c, "arg": n} for n, c in enumerate(same["parameters"]["aggs"], 1)]},
        "input": [["src.a INT", "src.v BIGINT", "src.v BIGINT"]], "columns": [["src.a INT", "src.v BIGINT",
                                                                              "src.v BIGINT"]]}
    assert _compared(recorded_signatures({"group-agg-3": old})["group-agg-3"]) == _compared(same)
    old["input"][0][2] = "src.b INT"  # MAX(b): another state
    moved = recorded_signatures({"group-agg-3": old})["group-agg-3"]
    assert [c["arg"] for c in moved["parameters"]["aggs"]] == [["src.v BIGINT"], ["src.b INT"]]
    assert _compared(moved) != _compared(same)


def test_a_recorded_row_wise_call_reads_as_many_columns_as_its_function():
    """A positional signature (up to 735568b) of an OVER aggregate, whose passed columns follow the
    arguments: LISTAGG reads two columns, a Python aggregate of two arguments two (its arity found
    by the name signatures give it, udf_names), not every column up to the passed ones."""
    from tests.functions.udf_flink.udfs import WeightedAvg

    with StreamEnvironment() as env:
        env.create_temporary_function("wavg", udaf(WeightedAvg(), result_type="BIGINT",
                                                   input_types=["INT", "INT"]))
        func = "udaf_py[wavg=tests.functions.udf_flink.udfs.WeightedAvg]_wavg"
        old = {"operator": "over-agg", "parameters": {"num_keys": 1, "ts_index": 1, "aggs": [
            {"": "AggSpec", "arg": 2, "func": "listagg", "out_type": "STRING"},
            {"": "AggSpec", "arg": 4, "func": func, "out_type": "BIGINT"}]},
            "input": [["src.a INT", "src.ts TIMESTAMP(3)", "CAST(src.v AS TEXT) STRING", "'-' STRING",
                       "src.a INT", "src.b INT", "src.id INT", "src.a INT"]]}
        new = recorded_signatures({"over-agg-3": old})["over-agg-3"]
    assert [c["arg"] for c in new["parameters"]["aggs"]] == [["CAST(src.v AS TEXT) STRING", "'-' STRING"],
                                                             ["src.a INT", "src.b INT"]]
    assert new["input"] == [["src.a INT", "src.ts TIMESTAMP(3)", "src.id INT", "src.a INT"]]


def test_a_recorded_python_aggregate_reads_the_columns_it_had_whatever_its_arity_now():
    """A positional signature (up to 735568b) of ``wavg(a), MAX(b)``, ``wavg`` a Python aggregate of one
    argument then and of two now: its arguments are the columns up to the next call's (``[a]``), not
    the two its registration says today (``[a, b]``, which made it read as today's ``wavg(a, b),
    MAX(b)``: another accumulator restored as this one). The same record of a two-argument ``wavg``
    still reads as that query."""
    from tests.functions.udf_flink.udfs import WeightedAvg

    with StreamEnvironment() as env:
        for ddl in (d for d in DDL if " src (" in d or " out3 (" in d):
            env.execute_sql(ddl)
        env.create_temporary_function("wavg", udaf(WeightedAvg(), result_type="BIGINT",
                                                   input_types=["INT", "INT"]))
        root = Planner(env.catalog, env.config).plan_insert(parse_statement(
            "INSERT INTO out3 SELECT a, wavg(a, b), MAX(b) FROM src GROUP BY a"))
        assign_ids([root])
        op, now = _one(state_signatures([root]), "group-agg")

        def recorded(columns: list[str], starts: list[int]) -> dict:
            calls = [{**c, "arg": n} for n, c in zip(starts, now["parameters"]["aggs"])]
            return recorded_signatures({op: {**now, "parameters": {**now["parameters"], "aggs": calls},
                                             "input": [columns], "columns": [columns]}})[op]

        keys, (both, mx) = now["input"][0], [c["arg"] for c in now["parameters"]["aggs"]]
        one_argument = recorded([*keys, both[0], *mx], [1, 2])
        two_arguments = recorded([*keys, *both, *mx], [1, 3])
    assert len(both) == 2 and [c["arg"] for c in one_argument["parameters"]["aggs"]] == [both[:1], mx]
    assert _compared(one_argument) != _compared(now)  # another state: refused at restore
    assert _compared(two_arguments) == _compared(now)


@pytest.mark.parametrize(("call", "same"), [("MAX", True), ("MIN", True), ("COUNT", False), ("SUM", False),
                                            ("AVG", False)])
def test_distinct_is_another_state_except_for_min_and_max(signatures, call, same):
    """DISTINCT changes nothing MIN and MAX compute: one function, one state (Flink 2.3 plans
    ``MAX(DISTINCT v)`` as ``MAX(v)``: Calcite ignores DISTINCT there). COUNT, SUM and AVG with
    DISTINCT keep the values seen (Flink: a distinct MapView in the accumulator): another state."""
    sql = "INSERT INTO `out` SELECT a, {} FROM src GROUP BY a"
    _, plain = _one(signatures(sql.format(f"{call}(v)")), "group-agg")
    _, distinct = _one(signatures(sql.format(f"{call}(DISTINCT v)")), "group-agg")
    assert (_compared(plain) == _compared(distinct)) is same


def test_another_window_size_is_another_state(signatures):
    op, ten = _one(signatures(WINDOW.format(s=10)), "window-agg")
    op20, twenty = _one(signatures(WINDOW.format(s=20)), "window-agg")
    assert op == op20
    assert ten["parameters"]["spec"]["size"] == 10_000 and twenty["parameters"]["spec"]["size"] == 20_000


def test_a_window_tvf_column_keeps_the_origin_checkpoints_recorded(signatures):
    """EXPLAIN spells a minute ``1 min`` as Flink 2.3 (polish35); a column computed by a window TVF
    keeps its origin ``size=[60 s]`` in the compared signature, as checkpoints taken before recorded it."""
    sql = ("INSERT INTO `out` SELECT a, COUNT(DISTINCT window_start) FROM TABLE(TUMBLE(TABLE src, "
           "DESCRIPTOR(ts), INTERVAL '1' MINUTE)) GROUP BY a")
    _, sig = _one(signatures(sql), "group-agg")
    compared = json.dumps(_compared(sig))
    assert "TUMBLE(time_col=[ts], size=[60 s]).5 TIMESTAMP(3)" in compared and "1 min" not in compared


def test_a_legacy_group_window_has_the_window_tvfs_signature(signatures):
    """``GROUP BY TUMBLE(ts, ...)`` (``WindowSpec.legacy``: a NULL rowtime reads as 1970 there) keeps
    the signature it had before that field, the TVF aggregate's: its state means the same."""
    legacy = ("INSERT INTO outw SELECT a, TUMBLE_START(ts, INTERVAL '10' SECOND), COUNT(*) FROM src "
              "GROUP BY a, TUMBLE(ts, INTERVAL '10' SECOND)")
    _, tvf = _one(signatures(WINDOW.format(s=10)), "window-agg")
    _, old = _one(signatures(legacy), "window-agg")
    assert "legacy" not in old["parameters"]["spec"]
    assert old["parameters"]["spec"] == tvf["parameters"]["spec"]


def test_another_join_key_is_another_state(signatures):
    sql = "INSERT INTO outj SELECT s.a, d.name FROM src s JOIN dim d ON s.{} = d.a"
    op, on_a = _one(signatures(sql.format("a")), "join")
    op_b, on_b = _one(signatures(sql.format("b")), "join")
    assert op == op_b and _compared(on_a) != _compared(on_b)


def test_a_null_safe_join_key_is_another_state(signatures):
    """A join on `=` keeps no match of a NULL key: its checkpoint must not restore a NULL-safe join."""
    sql = "INSERT INTO outj SELECT s.a, d.name FROM src s JOIN dim d ON s.a {} d.a"
    op, plain = _one(signatures(sql.format("=")), "join")
    op_ns, null_safe = _one(signatures(sql.format("IS NOT DISTINCT FROM")), "join")
    assert op == op_ns and _compared(plain) != _compared(null_safe)
    assert null_safe["parameters"]["null_safe_keys"] == [0]
    # left out while unset: the signatures recorded before the field existed stay the same
    assert "null_safe_keys" not in plain["parameters"]


@pytest.mark.parametrize("changed", [
    "INSERT INTO `out` SELECT a, COUNT(*) * 2 FROM src GROUP BY a",  # a projection after the aggregate
    "INSERT INTO `out` SELECT a AS k, COUNT(*) AS c FROM src GROUP BY a",  # aliases
    "INSERT INTO `out` SELECT a, COUNT(*) FROM src WHERE v > 3 GROUP BY a",  # a filter before it
])
def test_stateless_changes_around_an_aggregate_keep_its_signature(signatures, changed):
    before = signatures("INSERT INTO `out` SELECT a, COUNT(*) FROM src GROUP BY a")
    after = signatures(changed)
    op, sig = _one(before, "group-agg")
    assert op in after and _compared(after[op]) == _compared(sig)


LATERAL = "INSERT INTO outs SELECT w, COUNT(*) FROM texts, LATERAL TABLE({}) AS T(w) GROUP BY w"
LOOKUP = ("INSERT INTO outs SELECT d.name, COUNT(*) FROM texts AS o JOIN {} FOR SYSTEM_TIME AS OF o.p AS d "
          "ON o.{} = d.id GROUP BY d.name")
VALUES = "INSERT INTO `out` SELECT x, COUNT(*) FROM (SELECT a AS x FROM src UNION ALL VALUES {}) GROUP BY x"


@pytest.mark.parametrize(("before", "after"), [
    (LATERAL.format("words(s)"), LATERAL.format("words(t)")),  # another argument of the table function
    (LATERAL.format("words(s)"), LATERAL.format("chars(s)")),  # another table function
    (LOOKUP.format("dim1", "id"), LOOKUP.format("dim2", "id")),  # another lookup table
    (LOOKUP.format("dim1", "id"), LOOKUP.format("dim1", "j")),  # another lookup key
    (VALUES.format("(1), (2)"), VALUES.format("(3), (4)")),  # other literal rows
])
def test_a_key_made_by_a_stateless_operator_other_than_a_calc_is_followed_through_it(signatures, before,
                                                                                     after):
    """A GROUP BY over the column a LATERAL TABLE, a lookup join or VALUES makes: which call, table, key
    or rows made it is part of its origin, as an expression's is through a Calc. These stateless
    operators have no signature of their own, so the aggregate's was the same and a savepoint of the
    one query restored into the other, its counts per word of s resumed as counts per word of t."""
    op, old = _one(signatures(before), "group-agg")
    op_new, new = _one(signatures(after), "group-agg")
    assert op == op_new and old["input"] != new["input"]


def test_a_lookup_tables_options_stay_out_of_the_signatures(signatures):
    """What a signature holds is written to every checkpoint's _metadata: no option of a table."""
    assert "hunter2" not in json.dumps(signatures(LOOKUP.format("dim1", "id")))


def test_another_literal_row_list_is_another_values_source(signatures):
    """VALUES' position is the number of its rows handed out: of the rows it had."""
    def scan(rows: str) -> list[dict]:
        sigs = signatures(VALUES.format(rows)).values()
        return [s for s in sigs if s["parameters"].get("table") == "VALUES"]

    old, new = scan("(1), (2)"), scan("(3), (4)")
    assert len(old) == len(new) == 1 and _compared(old[0]) != _compared(new[0])


def test_signatures_are_the_same_in_another_process(signatures):
    """A checkpoint is restored by another process (a restart, a worker): nothing in a signature may
    depend on the process (hash seeds, set order, addresses)."""
    code = ("import json, sys; from tests.plan.test_state_signature import _print_signatures; "
            "_print_signatures(sys.argv[1])")
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    join = "INSERT INTO outj SELECT s.a, d.name FROM src s JOIN dim d ON s.a = d.a"
    for sql in (WINDOW.format(s=10), join, LATERAL.format("words(s)"), LOOKUP.format("dim1", "id")):
        out = subprocess.run([sys.executable, "-c", code, sql], env=env, capture_output=True, text=True,
                             check=True, timeout=120).stdout
        assert json.loads(out) == json.loads(json.dumps(signatures(sql)))


def _print_signatures(sql: str) -> None:
    env = StreamEnvironment()
    for ddl in DDL:
        env.execute_sql(ddl)
    for name, fn in TABLE_FUNCTIONS.items():
        env.create_temporary_function(name, fn)
    root = Planner(env.catalog, env.config).plan_insert(parse_statement(sql))
    assign_ids([root])
    print(json.dumps(state_signatures([root])))
    env.close()


def test_twins_are_the_rows_of_the_other_operators_of_the_same_state(signatures):
    """Two GROUP BYs of a statement set that differ in their WHERE only: equal compared parts, each
    with the other's filters as twin; a third of another key is no twin of theirs."""
    env = StreamEnvironment()
    for ddl in DDL:
        env.execute_sql(ddl)
    inserts = ["INSERT INTO `out` SELECT a, COUNT(*) FROM src WHERE v > 0 GROUP BY a",
               "INSERT INTO `out` SELECT a, COUNT(*) FROM src WHERE v <= 0 AND b = 1 GROUP BY a",
               "INSERT INTO `out` SELECT b, COUNT(*) FROM src WHERE v > 0 GROUP BY b"]
    roots = Planner(env.catalog, env.config).plan_statement_set([parse_statement(s) for s in inserts])
    aggs = [s for s in state_signatures(roots).values() if s["operator"] == "group-agg"]
    env.close()
    assert [(a["rows"], a["twins"]) for a in aggs] == [
        ([["src.v > 0"]], [[["src.v <= 0 AND src.b = 1"]]]),
        ([["src.v <= 0 AND src.b = 1"]], [[["src.v > 0"]]]),
        ([["src.v > 0"]], []),
    ]
    assert aggs[1]["filters"] == [["src.v <= 0 AND src.b = 1"]]


def test_a_python_udf_is_named_by_what_it_calls_not_its_registration_number(monkeypatch):
    """A scalar UDF's DuckDB name numbers the process's registrations: the same function registered
    again had another signature, and two functions registered first in two processes had one."""
    from streamsql.functions import udf as udf_module
    from tests.integration.test_state_signatures import bucket7, bucket10

    def agg(fn, start=None) -> dict:
        if start is not None:
            monkeypatch.setattr(udf_module, "_ids", itertools.count(start))
        env = StreamEnvironment()
        for ddl in DDL:
            env.execute_sql(ddl)
        env.create_temporary_function("bucket", fn)
        root = Planner(env.catalog, env.config).plan_insert(
            parse_statement("INSERT INTO `out` SELECT bucket(a), COUNT(*) FROM src GROUP BY bucket(a)"))
        assign_ids([root])
        env.close()
        return _one(state_signatures([root]), "group-agg")[1]

    assert _compared(agg(bucket10)) == _compared(agg(bucket10))
    assert _compared(agg(bucket10, start=5000)) != _compared(agg(bucket7, start=5000))
    assert "bucket=tests.integration.test_state_signatures.bucket10" in agg(bucket10)["input"][0][0]


@pytest.mark.parametrize("kind, sql", [
    ("group-agg", "INSERT INTO outw SELECT a, CAST(NULL AS TIMESTAMP(3)), COUNT(*) FROM src GROUP BY {}"),
    ("window-agg", "INSERT INTO outw SELECT a, window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE src, "
                   "DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY window_start, window_end, {}"),
])
def test_another_grouping_set_list_is_another_state(signatures, kind, sql):
    """The set number ``$e`` keys the state: the same keys and as many sets, other sets, must not restore."""
    variants = ["ROLLUP (a, b)", "GROUPING SETS ((a, b), (b), ())", "GROUPING SETS ((a, b), (), (a))",
                "CUBE (a, b)", "GROUPING SETS ((a), (b))"]
    compared = [_compared(_one(signatures(sql.format(v)), kind)[1]) for v in variants]
    assert all(c != d for c, d in itertools.combinations(compared, 2))
    assert compared[0] == _compared(_one(signatures(sql.format("GROUPING SETS ((a, b), (a), ())")), kind)[1])


NONTIME_OVER = ("INSERT INTO out3 SELECT a, COUNT(*) OVER w, SUM(v) OVER w FROM src WINDOW w AS "
                "(PARTITION BY a ORDER BY {order} {frame} BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)")


def test_an_over_ordered_by_another_column_or_frame_is_another_state(signatures):
    """A non-time OVER's state is its rows in ORDER BY order: another ORDER BY column (of the same
    type) or another frame is another state, and a time-ordered OVER's state is of another kind."""
    op, by_b = _one(signatures(NONTIME_OVER.format(order="b", frame="RANGE")), "over-agg-nontime")
    op_id, by_id = _one(signatures(NONTIME_OVER.format(order="id", frame="RANGE")), "over-agg-nontime")
    _, rows = _one(signatures(NONTIME_OVER.format(order="b", frame="ROWS")), "over-agg-nontime")
    assert op == op_id and _compared(by_b) != _compared(by_id) and by_b["input"] != by_id["input"]
    assert by_b["parameters"]["spec"] != rows["parameters"]["spec"]
    timed = signatures(NONTIME_OVER.format(order="ts", frame="RANGE"))
    assert [s["operator"] for s in timed.values() if s["operator"].startswith("over")] == ["over-agg"]


def _formats(sig: dict) -> list:
    return [c.get("accumulator") for c in sig["parameters"]["aggs"]]


@pytest.mark.parametrize(("sql", "kind", "formats"), [
    ("INSERT INTO out3 SELECT a, CAST(SUM(DISTINCT CAST(v AS DOUBLE)) AS BIGINT), "
     "CAST(AVG(DISTINCT CAST(v AS FLOAT)) AS BIGINT) FROM src GROUP BY a", "group-agg", [2, 2]),
    # an integer's old multiset is upgraded as read (its running sum: the sum of its values)
    ("INSERT INTO out3 SELECT a, SUM(DISTINCT v), AVG(DISTINCT v) FROM src GROUP BY a", "group-agg",
     [None, None]),
    ("INSERT INTO out3 SELECT a, COUNT(DISTINCT v), SUM(v) FROM src GROUP BY a", "group-agg", [None, None]),
    # the columnar GROUP BY's fixed-width floating SUM record starts at -0.0 now; AVG's did not change
    ("INSERT INTO out3 SELECT a, CAST(SUM(CAST(v AS DOUBLE)) AS BIGINT), "
     "CAST(AVG(CAST(v AS DOUBLE)) AS BIGINT) FROM src GROUP BY a", "group-agg", [2, None]),
    # the object form keeps its [sum, count] (None until set) as before
    ("INSERT INTO out3 SELECT a, COUNT(DISTINCT v), CAST(SUM(CAST(v AS DOUBLE)) AS BIGINT) FROM src "
     "GROUP BY a", "group-agg", [None, None]),
    ("INSERT INTO out3 SELECT a, CAST(SUM(DISTINCT CAST(v AS DOUBLE)) OVER w AS BIGINT), COUNT(*) OVER w "
     "FROM src WINDOW w AS (PARTITION BY a ORDER BY ts ROWS BETWEEN 1 PRECEDING AND CURRENT ROW)", "over-agg",
     [2, None]),
    # a TUMBLE window's slices keep lists of the distinct values, as before
    ("INSERT INTO outw SELECT a, window_start, CAST(SUM(DISTINCT CAST(v AS DOUBLE)) AS BIGINT) FROM "
     "TABLE(TUMBLE(TABLE src, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY a, window_start, window_end",
     "window-agg", [None]),
])
def test_a_changed_accumulator_format_is_in_the_signature(signatures, sql, kind, formats):
    """A floating SUM/AVG(DISTINCT x)'s running sum and the columnar floating SUM's record are new
    formats (sumdist31): those calls carry ``accumulator`` 2; other calls' signatures are unchanged."""
    _, sig = _one(signatures(sql), kind)
    assert _formats(sig) == formats


def test_a_checkpoint_of_the_old_distinct_sum_is_refused(signatures):
    """A GROUP BY ``SUM(DISTINCT d)`` of DOUBLEs checkpointed before sumdist31 kept the multiset alone,
    not the running sum's history: its signature had no ``accumulator``, so a restore refuses it,
    naming the state parameters."""
    op, now = _one(signatures("INSERT INTO out3 SELECT a, CAST(SUM(DISTINCT CAST(v AS DOUBLE)) AS BIGINT), "
                              "MAX(v) FROM src GROUP BY a"), "group-agg")
    old = {**now, "parameters": {**now["parameters"], "aggs": [
        {k: v for k, v in c.items() if k != "accumulator"} for c in now["parameters"]["aggs"]]}}
    with pytest.raises(StateMappingError) as err:
        claim_state(recorded_signatures({op: old}), {op: now}, location="/cp/job/chk-2", job="job",
                    ignore=False)
    assert f"operator {op}" in str(err.value) and "state parameters" in str(err.value)
    assert claim_state(recorded_signatures({op: now}), {op: now}, location="/cp/job/chk-2", job="job",
                       ignore=False) == []
