"""Record Apache Flink 2.3's answers to hints after a table's name (and some after SELECT).

Writes ``tests/plan/table_hints_flink.json``: the rows of the table ``t`` and, per query, either
the rows Flink returned or Flink's error message (its Java exception's messages, outermost
first, joined by `` / ``). ``tests/plan/test_table_hints.py`` runs the same queries here: the same
rows, or a refusal that says what Flink's says. Also the state TTLs of Flink's compiled plans
of two GROUP BY queries (``plans``: a STATE_TTL hint after the table's name sets none), which
``tests/plan/test_state_ttl_hint.py`` compares with the planned TTLs. Run it through the shared
Flink lock::

    flock /tmp/flink.lock /work/flinkvenv/bin/python scripts/flink_table_hints.py
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

from flink_session import ROOT, collect, error_text, table_env

OUT = ROOT / "tests" / "plan" / "table_hints_flink.json"
ROWS = [{"id": 1, "v": "a"}, {"id": 2, "v": "b"}, {"id": 3, "v": "*/"}]
R = ("'retry-predicate'='lookup_miss', 'retry-strategy'='fixed_delay', 'fixed-delay'='{d}', "
     "'max-attempts'='{n}'")
HINTS = [
    # known hints other than OPTIONS: checked, then without effect
    "LOOKUP('table'='t')", "lookup('table'='zzz', 'bogus'='1')", "BROADCAST(t)", "SHUFFLE_HASH(zzz)",
    "SHUFFLE_MERGE(t)", "NEST_LOOP(t)", "MULTI_JOIN(t, u)", "STATE_TTL('zzz'='1d')", "STATE_TTL(t='1d')",
    "ALIAS(t)", "JSON_AGGREGATE_WRAPPED", "JSON_AGGREGATE_WRAPPED(x)", "BROADCAST('t')", "BROADCAST(1)",
    "OPTIONS('json.ignore-parse-errors'='true'), LOOKUP('table'='t')",
    "LOOKUP('table'='t'), OPTIONS('json.ignore-parse-errors'='true')",
    "LOOKUP('table'='t', 'capacity'='-1')", "LOOKUP('table'='t', " + R.format(d="0s", n="2") + ")",
    "LOOKUP('table'='t', 'a'='1', 'b'='1', 'c'='1', 'd'='1', 'e'='1', 'f'='1', 'g'='1', 'h'='1', 'i'='1')",
    # refused by a hint's check
    "FOO(t)", "Foo", "LOOKUP('table'='t'), FOO(x)", "LOOKUP", "LOOKUP(t)", "LOOKUP('async'='true')",
    "LOOKUP('table'='t', 'async'='bogus')", "LOOKUP('table'='t', 'capacity'='-1', 'async'='true')",
    "LOOKUP('table'='t', 'max-attempts'='2')", "LOOKUP('table'='t', " + R.format(d="1s", n="0") + ")",
    "LOOKUP('table'='t', " + R.format(d="1s", n="2").replace("lookup_miss", "x") + ")",
    "LOOKUP('table'='t', 'a'='1', 'b'='1', 'c'='1', 'd'='1', 'e'='1', 'f'='1', 'g'='1', 'h'='1', 'i'='1', "
    "'j'='1')",
    "BROADCAST", "broadcast()", "BROADCAST('a'='b')", "MULTI_JOIN", "ALIAS", "ALIAS(a, b)",
    "STATE_TTL(t)", "STATE_TTL()", "STATE_TTL('t'='bogus')", "options()", "OPTIONS('a')",
    # refused by the parser
    "BROADCAST(t, 'x')", "BROADCAST(a.b)", "STATE_TTL('t'=1)", "LOOKUP(table='t')", "OPTIONS('a' = 1)",
    "LOOKUP('table'='t') LOOKUP('table'='t')", "LOOKUP('table'='t'),",
    # a */ inside a quoted value or identifier does not end the hint
    "LOOKUP('table'='a*/b')", "LOOKUP('table'='it''s */ ok')", "BROADCAST(`a*/b`)", "LOOKUP('ta*/ble'='t')",
    "OPTIONS('json.ignore-parse-errors'='tr*/ue')",
]
QUERIES = [f"SELECT id FROM t /*+ {h} */" for h in HINTS] + [
    "SELECT id FROM t /*+ LOOKUP('table'='t') */ AS x WHERE x.id > 1",
    "SELECT id FROM t /*+ LOOKUP('table'='t') */ /*+ LOOKUP('table'='t') */",
    "SELECT id FROM t /*+ OPTIONS('json.ignore-parse-errors'='true') */ WHERE v <> '*/'",
    "SELECT id FROM t /* 'a*/ WHERE v <> 'b' /* c */",
    "SELECT /*+ LOOKUP('table'='t', 'capacity'='0') */ id FROM t",
    "SELECT /*+ LOOKUP('table'='t', 'capacity'='0', 'async'='true') */ id FROM t",
    "SELECT /*+ LOOKUP('table'='a*/b') */ id FROM t",
    # the other hints Flink knows, after SELECT (MULTI_JOIN plans Flink's MultiJoin operator: same rows)
    *(f"SELECT /*+ {h} */ t.id FROM t JOIN t AS u ON t.id = u.id" for h in (
        "MULTI_JOIN(t, u)", "multi_join(u)", "MULTI_JOIN(zzz)", "MULTI_JOIN(t, zzz)", "MULTI_JOIN",
        "MULTI_JOIN()", "MULTI_JOIN('t')", "MULTI_JOIN(t), BROADCAST(u)", "ALIAS(t)", "ALIAS(zzz)",
        "JSON_AGGREGATE_WRAPPED", "OPTIONS('a'='b')", "BROADCAST")),
    "SELECT /*+ MULTI_JOIN(t, u, w) */ t.id FROM t JOIN t AS u ON t.id = u.id JOIN t AS w ON u.v = w.v",
    "SELECT /*+ MULTI_JOIN(zzz) */ id FROM t", "SELECT /*+ MULTI_JOIN */ id FROM t",
    *(f"SELECT /*+ {h} */ id FROM t" for h in (
        "ALIAS(t)", "ALIAS", "ALIAS(a, b)", "JSON_AGGREGATE_WRAPPED(x)", "OPTIONS('a'='b')", "OPTIONS()",
        "OPTIONS('a')", "FOO(t)")),
]
#: GROUP BY queries over ``orders (id INT, cid INT, v INT)`` whose compiled plan's state TTL is recorded:
#: a STATE_TTL hint after SELECT sets it, one after the table's name does not.
PLANS = [
    "SELECT /*+ STATE_TTL('orders' = '1d') */ cid, COUNT(*) FROM orders GROUP BY cid",
    "SELECT cid, COUNT(*) FROM orders /*+ STATE_TTL('orders' = '1d') */ GROUP BY cid",
]


def _plan_ttls(tenv, tmp: Path) -> list[dict]:
    """Per query of :data:`PLANS`, the TTLs of its operators' state in Flink's compiled plan."""
    tenv.execute_sql(f"CREATE TABLE orders (id INT, cid INT, v INT) WITH ('connector' = 'filesystem', "
                     f"'path' = '{tmp / 't.jsonl'}', 'format' = 'json')")
    tenv.execute_sql("CREATE TABLE counts (cid INT, n BIGINT) WITH ('connector' = 'blackhole')")
    out = []
    for i, sql in enumerate(PLANS):
        path = tmp / f"plan{i}.json"
        tenv.execute_sql(f"COMPILE PLAN '{path}' FOR INSERT INTO counts {sql}")
        nodes = json.loads(path.read_text())["nodes"]
        out.append({"sql": sql, "ttls": [s["ttl"] for n in nodes for s in n.get("state", [])]})
    return out


def main() -> int:
    """Run every query on Flink over ``ROWS``, write the JSON; the exit code."""
    cases = []
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "t.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in ROWS))
        tenv = table_env(utc=True)
        tenv.execute_sql(f"CREATE TABLE t (id INT, v STRING) WITH ('connector' = 'filesystem', "
                         f"'path' = '{path}', 'format' = 'json')")
        for sql in QUERIES:
            try:
                cases.append({"sql": sql, "rows": sorted(collect(tenv, sql))})
            except Exception as e:  # noqa: BLE001  (Flink's refusal is the answer recorded)
                cases.append({"sql": sql, "error": error_text(e)})
            print(cases[-1], file=sys.stderr)
        plans = _plan_ttls(tenv, Path(tmp))
    doc = {"about": "Apache Flink 2.3's answers to table hints, written by scripts/flink_table_hints.py",
           "rows": ROWS, "cases": cases, "plans": plans}
    OUT.write_text(json.dumps(doc, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
