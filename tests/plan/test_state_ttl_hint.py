"""The STATE_TTL hint: planned onto the joins and GROUP BY of its SELECT, and honoured by them.

Flink's results for the hinted queries (and its error for a key naming no input) are the compat
cases ``tests/compat/cases/state_ttl_hint_*``; here the planned TTLs are checked per operator and
input, and the operators are driven on an injected clock to show that the hinted TTL, not the
job's ``'table.exec.state.ttl'``, decides when state expires.
"""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pytest
from sqlglot import parse_one

from streamsql.core.elements import RowKind
from streamsql.core.errors import SqlError
from streamsql.core.types import SqlType
from streamsql.functions.aggregates import AggSpec
from streamsql.plan.joins import JoinNode
from streamsql.plan.nodes import GroupAggNode, PlanNode
from streamsql.plan.planner import Planner
from streamsql.runtime.operators.group_agg_columnar import create_group_agg
from streamsql.runtime.operators.join import StreamingJoinOperator
from streamsql.sql.dialect import Flink
from tests.runtime.harness import open_operator
from tests.runtime.test_state_ttl import Clock, _batch, changelog

INS, UB, UA = RowKind.INSERT, RowKind.UPDATE_BEFORE, RowKind.UPDATE_AFTER


@pytest.fixture
def env(planning_env):
    return planning_env("(id INT, cid INT, v INT)", ("orders", "customers", "items"), 5)


def _plan(env, sql: str) -> PlanNode:
    return Planner(env.catalog, env.config, sql).plan_query(parse_one(sql, read=Flink))


def _nodes(root: PlanNode, cls: type) -> list:
    out, todo = [], [root]
    while todo:
        n = todo.pop()
        out += [n] if type(n) is cls else []
        todo += n.inputs
    return out


def test_join_hint_sets_each_sides_ttl_by_alias_or_table_name(env):
    (j,) = _nodes(_plan(env, "SELECT /*+ STATE_TTL('o' = '1d', 'c' = '12h') */ o.id FROM orders o "
                             "JOIN customers c ON o.cid = c.id"), JoinNode)
    assert j.state_ttl_ms == (86_400_000, 43_200_000)
    (j,) = _nodes(_plan(env, "SELECT /*+ STATE_TTL('customers' = '0 ms') */ orders.id FROM orders "
                             "LEFT JOIN customers ON orders.cid = customers.id"), JoinNode)
    assert j.state_ttl_ms == (None, 0), "a side without a key keeps the job's TTL; '0 ms' never expires"


def test_cascaded_join_the_joined_input_has_no_name(env):
    joins = _nodes(_plan(env, "SELECT /*+ STATE_TTL('o' = '1 s', 'i' = '2 s') */ o.id FROM orders o "
                              "JOIN customers c ON o.cid = c.id JOIN items i ON i.cid = c.id"), JoinNode)
    assert sorted((j.state_ttl_ms for j in joins), key=repr) == [(1000, None), (None, 2000)]


def test_group_by_hint_and_a_subquerys_own_hint(env):
    root = _plan(env, "SELECT /*+ STATE_TTL('j' = '1h') */ cid, COUNT(*) FROM (SELECT /*+ STATE_TTL("
                      "'o' = '2h') */ o.cid FROM orders o JOIN customers c ON o.cid = c.id) j GROUP BY cid")
    (agg,), (j,) = _nodes(root, GroupAggNode), _nodes(root, JoinNode)
    assert agg.state_ttl_ms == 3_600_000
    assert j.state_ttl_ms == (7_200_000, None), "the outer hint does not reach the subquery's join"
    (agg,) = _nodes(_plan(env, "SELECT cid, COUNT(*) FROM orders GROUP BY cid"), GroupAggNode)
    assert agg.state_ttl_ms is None


@pytest.mark.parametrize(("sql", "message", "at"), [
    ("SELECT /*+ STATE_TTL('foo' = '1d', 'c' = '12h') */ o.id FROM orders o JOIN customers c ON o.cid = c.id",
     "cannot match the name of input tables or views: `foo` in `state_ttl`", "'foo'"),
    ("SELECT /*+ STATE_TTL('orders' = '1d') */ o.cid, COUNT(*) FROM orders o GROUP BY o.cid",
     "cannot match the name of input tables or views: `orders`", "'orders'"),
    ("SELECT /*+ STATE_TTL('orders' = 'soon') */ cid, COUNT(*) FROM orders GROUP BY cid",
     "Invalid STATE_TTL hint", "'soon'"),
    ("SELECT cid, COUNT(*) FROM orders o /*+ STATE_TTL('orders' = '1h') */ GROUP BY cid",
     "The STATE_TTL hint goes right after SELECT", "/*+"),
    ("SELECT /*+ STATE_TTL('orders' = '1h'), FOO(orders) */ cid, COUNT(*) FROM orders GROUP BY cid",
     "Hint: FOO should be registered in the HintStrategyTable", "FOO"),
])
def test_bad_hints_are_refused_at_their_position(env, sql, message, at):
    with pytest.raises(SqlError) as e:
        _plan(env, sql)
    assert message in e.value.message
    if at is not None:
        assert e.value.line == 1 and sql[e.value.col - 1:].startswith(at)


# -- the operators honour the hinted TTL over the job's ---------------------------------------------

AGG_IN = pa.schema([("k", pa.string()), ("v", pa.int64())])
JOB_TTL = {"table.exec.state.ttl": "1 s"}


@pytest.mark.parametrize("hinted", [5000, 0])
def test_group_by_with_a_hinted_ttl_ignores_the_jobs(tmp_path, hinted):
    calls = [AggSpec("sum", 1, SqlType("BIGINT"))]
    op = create_group_agg(1, calls, AGG_IN, pa.schema([("k", pa.string()), ("s", pa.int64())]), hinted)
    clock = Clock()
    op, backend = open_operator(op, "hashmap", tmp_path, "group-agg-1", JOB_TTL, clock=clock)
    assert changelog(op.process_batch(_batch(AGG_IN, [("a", 1)]), 0)) == [(INS, "a", 1)]
    clock.now = 4999  # past the job's 1 s, within the hint's 5 s (or never, for '0 ms')
    assert changelog(op.process_batch(_batch(AGG_IN, [("a", 2)]), 0)) == [(UB, "a", 1), (UA, "a", 3)]
    clock.now = 4999 + 5000
    expected = [(INS, "a", 4)] if hinted else [(UB, "a", 3), (UA, "a", 7)]
    assert changelog(op.process_batch(_batch(AGG_IN, [("a", 4)]), 0)) == expected
    backend.close()


def test_join_sides_expire_on_their_own_hinted_ttls(tmp_path):
    side = pa.schema([("k", pa.int64()), ("x", pa.string())])
    out = pa.schema([("k", pa.int64()), ("x", pa.string()), ("k0", pa.int64()), ("y", pa.string())])
    op = StreamingJoinOperator("INNER", [0], [0], side, side, out, state_ttl_ms=(None, 10_000))
    clock = Clock()
    op, backend = open_operator(op, "hashmap", tmp_path, "join-1", JOB_TTL, clock=clock)
    assert changelog(op.process_batch(_batch(side, [(1, "l")]), 0)) == []
    assert changelog(op.process_batch(_batch(side, [(1, "r")]), 1)) == [(INS, 1, "l", 1, "r")]
    clock.now = 5000  # the left row (job's TTL, 1 s) expired; the right one (hint: 10 s) did not
    assert changelog(op.process_batch(_batch(side, [(1, "l2")]), 0)) == [(INS, 1, "l2", 1, "r")]
    assert changelog(op.process_batch(_batch(side, [(1, "r2")]), 1)) == [(INS, 1, "l2", 1, "r2")]
    backend.close()


def test_the_hint_reaches_neither_a_subquerys_joins_nor_the_joins_made_for_subqueries(env):
    root = _plan(env, "SELECT /*+ STATE_TTL('orders' = '1h') */ cid, COUNT(*) FROM orders WHERE v > "
                      "(SELECT AVG(v) FROM items) AND EXISTS (SELECT 1 FROM customers c JOIN items i "
                      "ON c.id = i.cid WHERE c.id = orders.cid) GROUP BY cid")
    aggs = {a.num_keys: a.state_ttl_ms for a in _nodes(root, GroupAggNode)}
    assert aggs == {1: 3_600_000, 0: None}, "the GROUP BY's input is still 'orders'; the subquery's AVG no"
    assert all(j.state_ttl_ms == (None, None) for j in _nodes(root, JoinNode))
    root = _plan(env, "SELECT /*+ STATE_TTL('c' = '1h') */ id FROM orders WHERE EXISTS (SELECT 1 FROM "
                      "customers c JOIN items i ON c.id = i.cid WHERE c.id = orders.cid)")
    assert [j.state_ttl_ms for j in _nodes(root, JoinNode)] == [(None, None)], \
        "ignored: the outer SELECT has neither join nor GROUP BY of its own"
    root = _plan(env, "SELECT id FROM orders WHERE EXISTS (SELECT /*+ STATE_TTL('c' = '1h') */ 1 FROM "
                      "customers c JOIN items i ON c.id = i.cid WHERE c.id = orders.cid)")
    assert [j.state_ttl_ms for j in _nodes(root, JoinNode)] == [(3_600_000, None)], "the subquery's own hint"


@pytest.fixture
def cased(planning_env):
    return planning_env("(id INT, k INT)", ("Orders", "Cust"), 5)


@pytest.mark.parametrize("sql", [
    "SELECT /*+ STATE_TTL('orders' = '1d') */ * FROM Orders JOIN Cust ON Orders.id = Cust.id",
    "SELECT /*+ STATE_TTL('O' = '1d') */ * FROM Orders o JOIN Cust c ON o.id = c.id",
    "SELECT /*+ STATE_TTL('Orders' = '1d') */ * FROM Orders o JOIN Cust c ON o.id = c.id",
    "SELECT /*+ STATE_TTL('orders' = '1d') */ k, COUNT(*) FROM Orders GROUP BY k"])
def test_hint_keys_are_case_sensitive_and_an_alias_hides_the_table_name(cased, sql):
    """Flink 2.3 refuses each of these (ValidationException; explain_sql on PyFlink 2.3, 2026-12-01):
    a key is compared with the alias, else the table name, as written."""
    with pytest.raises(SqlError, match="cannot match the name of input tables or views"):
        _plan(cased, sql)


def test_hint_keys_as_written_match(cased):
    (j,) = _nodes(_plan(cased, "SELECT /*+ STATE_TTL('Orders' = '1d', 'Cust' = 'PT2H') */ * FROM Orders "
                               "JOIN Cust ON Orders.id = Cust.id"), JoinNode)
    assert j.state_ttl_ms == (86_400_000, 7_200_000)
    sql = "SELECT /*+ state_ttl('Orders' = '1 D') */ k, COUNT(*) FROM Orders GROUP BY k"
    (g,) = _nodes(_plan(cased, sql), GroupAggNode)
    assert g.state_ttl_ms == 86_400_000


@pytest.mark.parametrize(("sql", "message"), [
    ("SELECT /*+ STATE_TTL() */ * FROM Orders o JOIN Cust c ON o.id = c.id",
     "Invalid STATE_TTL hint, expecting at least one key-value options specified"),
    ("SELECT /*+ STATE_TTL() */ k, COUNT(*) FROM Orders GROUP BY k",
     "Invalid STATE_TTL hint, expecting at least one key-value options specified"),
    ("SELECT /*+ STATE_TTL('o') */ * FROM Orders o JOIN Cust c ON o.id = c.id",
     "Invalid list options in STATE_TTL hint, only support key-value options")])
def test_an_empty_or_list_hint_is_refused_with_flinks_message(cased, sql, message):
    with pytest.raises(SqlError, match=message):
        _plan(cased, sql)


FLINK_PLANS = json.loads((Path(__file__).parent / "table_hints_flink.json").read_text())["plans"]


@pytest.mark.parametrize("case", FLINK_PLANS, ids=["after SELECT", "after the table's name"])
def test_the_hint_sets_the_ttl_where_flink_s_compiled_plan_has_it(env, case):
    """Flink 2.3's COMPILE PLAN (scripts/flink_table_hints.py): STATE_TTL after SELECT gives the GROUP
    BY's state a TTL of '1 d'; after the table's name it is checked and ignored ('0 ms': the job's
    TTL, never expire). It was refused there before ("The STATE_TTL hint goes right after SELECT")."""
    (agg,) = _nodes(_plan(env, case["sql"]), GroupAggNode)
    (ttl,) = case["ttls"]
    assert agg.state_ttl_ms == {"1 d": 86_400_000, "0 ms": None}[ttl]
