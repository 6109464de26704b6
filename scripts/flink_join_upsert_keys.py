"""Record whether Flink 2.3 plans a join's (or semi join's) changelog into a sink keyed by a PRIMARY KEY.

Flink 2.3's upsert keys of a regular join keep only the input keys that contain that input's
join columns (the join shuffles by them, so only such keys stay co-located:
``FlinkRelMdUpsertKeys.getJoinUpsertKeys`` / ``filterKeys``), and a semi / anti join's likewise.
An INSERT whose sink key is no upsert key of the query is refused without ``ON CONFLICT``
(``The query has an upsert key that differs from the primary key of the sink table ...``).
Each case below is ``EXPLAIN``-ed on PyFlink 2.3 over tables shaped as those of
``tests/plan/test_on_conflict.py`` (a datagen ``src``, a debezium-json changelog ``c1`` keyed
by ``id``); the answer (``"planned"`` or Flink's message) goes to
``tests/plan/join_upsert_keys_flink.json``, which ``test_on_conflict.py`` compares with
StreamSQL's planning of the same statements.

Run it through the shared Flink lock::

    flock /tmp/flink.lock /work/flinkvenv/bin/python scripts/flink_join_upsert_keys.py
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from flink_session import ROOT, error_text, table_env

OUT = ROOT / "tests" / "plan" / "join_upsert_keys_flink.json"

L_AB = "(SELECT a, b, SUM(v) s FROM src GROUP BY a, b) l"
COUNTS = "(SELECT a, COUNT(*) s FROM src GROUP BY a) r"
J3 = "a INT, b INT, s BIGINT"
#: (name, sink columns, sink PRIMARY KEY, query)
CASES = [
    ("inner_on_other_column", "a INT, b INT", "a",
     "SELECT c1.id, c1.x FROM c1 JOIN c1 AS r ON c1.x = r.id"),
    ("inner_right_key", "a INT, b INT", "a",
     "SELECT r.id, c1.x FROM c1 JOIN c1 AS r ON c1.x = r.id"),
    ("left_on_other_column", "a INT, b INT", "a",
     "SELECT c1.id, r.x FROM c1 LEFT JOIN c1 AS r ON c1.x = r.id"),
    ("inner_on_both_keys", "a INT, b INT", "a",
     "SELECT c1.id, r.x FROM c1 JOIN c1 AS r ON c1.id = r.id"),
    ("inner_key_contains_join_key", J3, "a,b",
     f"SELECT l.a, l.b, r.s FROM {L_AB} JOIN {COUNTS} ON l.a = r.a"),
    ("inner_equivalent_column", J3, "a,b",
     f"SELECT r.a, l.b, l.s FROM {L_AB} JOIN {COUNTS} ON l.a = r.a"),
    ("left_equivalent_column", J3, "a,b",
     f"SELECT r.a, l.b, l.s FROM {L_AB} LEFT JOIN {COUNTS} ON l.a = r.a"),
    ("semi_on_other_column", "a INT, b INT", "a", "SELECT id, x FROM c1 WHERE x IN (SELECT a FROM src)"),
    ("semi_on_key", "a INT, b INT", "a", "SELECT id, x FROM c1 WHERE id IN (SELECT a FROM src)"),
    ("anti_on_other_column", "a INT, b INT", "a",
     "SELECT id, x FROM c1 WHERE NOT EXISTS (SELECT 1 FROM src WHERE src.a = c1.x)"),
]


def main() -> None:
    """EXPLAIN each case on a new PyFlink session and write the answers to :data:`OUT`."""
    t = table_env(utc=True)
    cdc = Path(tempfile.mkdtemp()) / "cdc.json"
    cdc.write_text('{"before":null,"after":{"id":1,"x":10},"op":"c"}\n')
    t.execute_sql("CREATE TABLE src (a INT, b INT, v INT) WITH ('connector' = 'datagen', "
                  "'number-of-rows' = '5')")
    t.execute_sql(f"CREATE TABLE c1 (id INT, x INT, PRIMARY KEY (id) NOT ENFORCED) WITH ("
                  f"'connector' = 'filesystem', 'path' = '{cdc}', 'format' = 'debezium-json')")
    out = {}
    for name, cols, pk, query in CASES:
        t.execute_sql("DROP TABLE IF EXISTS snk")
        t.execute_sql(f"CREATE TABLE snk ({cols}, PRIMARY KEY ({pk}) NOT ENFORCED) WITH ("
                      "'connector' = 'blackhole')")
        try:
            t.explain_sql(f"INSERT INTO snk {query}")
            answer = "planned"
        except Exception as e:  # noqa: BLE001 - Flink's refusal is the answer
            answer = error_text(e)
        out[name] = {"columns": cols, "pk": pk, "query": query, "flink": answer}
        print(name, "::", answer[:160], flush=True)
    OUT.write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
