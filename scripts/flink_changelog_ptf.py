"""Record Apache Flink 2.3's answers for the built-in PTFs TO_CHANGELOG and FROM_CHANGELOG.

Writes ``tests/runtime/changelog_ptf_flink.json``: the source tables (JSON lines, the filesystem
connector, one split so rows arrive in file order), and per scenario its query with Flink's result
schema (column names and types) and changelog (``[kind, cell, ...]`` in order), an EXPLAIN's text,
or Flink's error (its messages, outermost first, joined by `` / ``).
``tests/runtime/test_changelog_ptf.py`` runs the same queries and must give the same schema and
changelog, or refuse the same scenarios with Flink's innermost message. Name scenarios to rerun
only those (the others are kept)::

    flock /tmp/flink.lock /work/flinkvenv/bin/python scripts/flink_changelog_ptf.py [SCENARIO ...]
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

from flink_session import ROOT, error_text, table_env

OUT = ROOT / "tests" / "runtime" / "changelog_ptf_flink.json"

TABLES = {
    "ev": {"columns": "id INT, k STRING, v BIGINT",
           "rows": [{"id": 1, "k": "a", "v": 10}, {"id": 2, "k": "b", "v": 5}, {"id": 3, "k": "a", "v": 7},
                    {"id": 4, "k": "b", "v": 1}, {"id": 5, "k": "c", "v": 2}]},
    "ops": {"columns": "id INT, op STRING, v BIGINT",
            "rows": [{"id": 1, "op": "INSERT", "v": 10}, {"id": 2, "op": "INSERT", "v": 5},
                     {"id": 1, "op": "UPDATE_BEFORE", "v": 10}, {"id": 1, "op": "UPDATE_AFTER", "v": 11},
                     {"id": 3, "op": "INSERT", "v": 7}, {"id": 2, "op": "DELETE", "v": 5}]},
    "cdc": {"columns": "code STRING, id INT, name STRING",
            "rows": [{"code": "c", "id": 1, "name": "x"}, {"code": "r", "id": 2, "name": "y"},
                     {"code": "ub", "id": 1, "name": "x"}, {"code": "ua", "id": 1, "name": "z"},
                     {"code": "d", "id": 2, "name": "y"}]},
    "bad": {"columns": "id INT, op STRING, v BIGINT",
            "rows": [{"id": 1, "op": "INSERT", "v": 10}, {"id": 2, "op": "insert", "v": 5}]},
    "nullop": {"columns": "id INT, op STRING, v BIGINT",
               "rows": [{"id": 1, "op": "INSERT", "v": 10}, {"id": 2, "op": None, "v": 5}]},
    # a changelog out of order: updates before inserts, duplicates, deletes of absent rows and keys
    "odd": {"columns": "id INT, op STRING, v BIGINT",
            "rows": [{"id": 1, "op": "UPDATE_AFTER", "v": 11}, {"id": 1, "op": "UPDATE_BEFORE", "v": 10},
                     {"id": 1, "op": "INSERT", "v": 10}, {"id": 2, "op": "INSERT", "v": 5},
                     {"id": 2, "op": "INSERT", "v": 5}, {"id": 9, "op": "DELETE", "v": 9},
                     {"id": 2, "op": "DELETE", "v": 5}, {"id": 3, "op": "UPDATE_BEFORE", "v": 7},
                     {"id": 2, "op": "DELETE", "v": 5}, {"id": 2, "op": "DELETE", "v": 5},
                     {"id": 1, "op": "DELETE", "v": 99}, {"id": 4, "op": "INSERT", "v": None},
                     {"id": 4, "op": "UPDATE_BEFORE", "v": None}, {"id": 4, "op": "UPDATE_AFTER", "v": 3},
                     {"id": 2, "op": "INSERT", "v": 6}]},
    "codes": {"columns": "code STRING, id INT",
              "rows": [{"code": "c", "id": 1}, {"code": "", "id": 2}, {"code": "d", "id": 1},
                       {"code": "b", "id": 3}]},
    "spaced": {"columns": "id INT, op STRING, v BIGINT",
               "rows": [{"id": 1, "op": "INSERT", "v": 10}, {"id": 2, "op": "INSERT ", "v": 5}]},
}
VIEWS = ["CREATE VIEW agg AS SELECT k, SUM(v) AS s, COUNT(*) AS c FROM ev GROUP BY k",
         "CREATE VIEW aggop AS SELECT op, COUNT(*) AS c FROM ops GROUP BY op",
         "CREATE VIEW oddfrom AS SELECT * FROM FROM_CHANGELOG(input => TABLE odd)",
         "CREATE VIEW oddagg AS SELECT id, SUM(v) AS s, COUNT(*) AS c FROM FROM_CHANGELOG(input => TABLE "
         "odd) GROUP BY id"]

SCENARIOS = {
    # TO_CHANGELOG
    "to_default": "SELECT * FROM TO_CHANGELOG(input => TABLE agg)",
    "to_positional": "SELECT * FROM TO_CHANGELOG(TABLE agg)",
    "to_table_wrapper": "SELECT * FROM TABLE(TO_CHANGELOG(input => TABLE agg))",
    "to_lower_name_alias": "SELECT x.op, x.k, x.s FROM to_changelog(input => TABLE agg) AS x WHERE x.k <> "
                           "'b'",
    "to_insert_only": "SELECT * FROM TO_CHANGELOG(input => TABLE ev)",
    "to_op_name": "SELECT * FROM TO_CHANGELOG(input => TABLE agg, op => DESCRIPTOR(operation))",
    "to_positional_all": "SELECT * FROM TO_CHANGELOG(TABLE agg, DESCRIPTOR(o), MAP['INSERT', 'I', "
                         "'UPDATE_AFTER', 'U'])",
    "to_named_reordered": "SELECT * FROM TO_CHANGELOG(op_mapping => MAP['DELETE', 'D', 'UPDATE_BEFORE', "
                          "'B'], input => TABLE agg)",
    "to_mapping_grouped": "SELECT * FROM TO_CHANGELOG(input => TABLE agg, op_mapping => MAP['INSERT, "
                          "UPDATE_AFTER', 'UP', ' DELETE ', 'D'])",
    "to_mapping_same_key": "SELECT * FROM TO_CHANGELOG(input => TABLE agg, op_mapping => MAP['INSERT', "
                           "'I', 'INSERT', 'J'])",
    "to_mapping_null": "SELECT * FROM TO_CHANGELOG(input => TABLE agg, op_mapping => CAST(NULL AS "
                       "MAP<STRING, STRING>))",
    "to_count_ops": "SELECT op, COUNT(*) AS n FROM TO_CHANGELOG(input => TABLE agg) GROUP BY op",
    "to_of_from": "SELECT * FROM TO_CHANGELOG(input => TABLE (SELECT * FROM FROM_CHANGELOG(input => TABLE "
                  "ops)))",
    "to_subquery_arg": "SELECT * FROM TO_CHANGELOG(input => TABLE (SELECT k, COUNT(*) AS c FROM ev GROUP "
                       "BY k))",
    "to_cte_arg": "WITH x AS (SELECT k, COUNT(*) AS c FROM ev GROUP BY k) SELECT * FROM "
                  "TO_CHANGELOG(TABLE x)",
    "to_err_partition": "SELECT * FROM TO_CHANGELOG(input => TABLE agg PARTITION BY k)",
    "to_err_unknown_kind": "SELECT * FROM TO_CHANGELOG(input => TABLE agg, op_mapping => MAP['INSERT', "
                           "'I', 'FOO', 'F'])",
    "to_err_duplicate_kind": "SELECT * FROM TO_CHANGELOG(input => TABLE agg, op_mapping => MAP['INSERT', "
                             "'I', 'DELETE, INSERT', 'X'])",
    "to_err_descriptor_two": "SELECT * FROM TO_CHANGELOG(input => TABLE agg, op => DESCRIPTOR(a, b))",
    "to_err_op_clash": "SELECT * FROM TO_CHANGELOG(input => TABLE agg, op => DESCRIPTOR(k))",
    "to_err_mapping_not_literal": "SELECT * FROM TO_CHANGELOG(input => TABLE agg, op_mapping => "
                                  "MAP['INSERT', UPPER('i')])",
    "to_err_unknown_param": "SELECT * FROM TO_CHANGELOG(input => TABLE agg, foo => 1)",
    "to_err_no_input": "SELECT * FROM TO_CHANGELOG(op => DESCRIPTOR(o))",
    "to_err_too_many": "SELECT * FROM TO_CHANGELOG(TABLE agg, DESCRIPTOR(o), MAP['INSERT', 'I'], "
                       "DESCRIPTOR(t), 'u', 1)",
    "to_err_not_table": "SELECT * FROM TO_CHANGELOG(input => 1)",
    "describe_to": "DESCRIBE FUNCTION EXTENDED TO_CHANGELOG",
    "describe_from": "DESCRIBE FUNCTION EXTENDED from_changelog",
    "explain_to": "EXPLAIN CHANGELOG_MODE SELECT * FROM TO_CHANGELOG(input => TABLE agg)",
    # FROM_CHANGELOG
    "from_default": "SELECT * FROM FROM_CHANGELOG(input => TABLE ops)",
    "from_positional": "SELECT * FROM FROM_CHANGELOG(TABLE ops)",
    "from_group_by": "SELECT id, SUM(v) AS s, COUNT(*) AS c FROM FROM_CHANGELOG(input => TABLE ops) GROUP "
                     "BY id",
    "from_global_agg": "SELECT COUNT(*) AS n, SUM(v) AS s FROM FROM_CHANGELOG(input => TABLE ops)",
    "from_where": "SELECT id, v FROM FROM_CHANGELOG(input => TABLE ops) WHERE v > 6",
    "from_cdc_mapping": "SELECT * FROM FROM_CHANGELOG(input => TABLE cdc, op => DESCRIPTOR(code), "
                        "op_mapping => MAP['c, r', 'INSERT', 'ub', 'UPDATE_BEFORE', 'ua', 'UPDATE_AFTER', "
                        "'d', 'DELETE'])",
    "from_cdc_positional": "SELECT * FROM FROM_CHANGELOG(TABLE cdc, DESCRIPTOR(code), MAP['c,r', "
                           "'INSERT', 'ub', 'UPDATE_BEFORE', 'ua', 'UPDATE_AFTER', 'd', 'DELETE'])",
    "from_mapping_no_update": "SELECT * FROM FROM_CHANGELOG(input => TABLE ops, op_mapping => "
                              "MAP['INSERT, UPDATE_AFTER', 'INSERT', 'UPDATE_BEFORE', 'DELETE', 'DELETE', "
                              "'DELETE'])",
    "from_mapping_insert_delete": "SELECT * FROM FROM_CHANGELOG(input => TABLE cdc, op => "
                                  "DESCRIPTOR(code), op_mapping => MAP['c, r, ua', 'INSERT', 'd, ub', "
                                  "'DELETE'])",
    "from_cte_arg": "WITH x AS (SELECT * FROM cdc WHERE id > 0) SELECT * FROM FROM_CHANGELOG(TABLE x, "
                    "DESCRIPTOR(code), MAP['c, r', 'INSERT', 'd', 'DELETE', 'ub', 'UPDATE_BEFORE', 'ua', "
                    "'UPDATE_AFTER'])",
    "from_uid": "SELECT * FROM FROM_CHANGELOG(input => TABLE ops, uid => 'my-uid')",
    "explain_from": "EXPLAIN CHANGELOG_MODE SELECT id, COUNT(*) AS c FROM FROM_CHANGELOG(input => TABLE ops) "
                    "GROUP BY id",
    "from_err_unknown_code": "SELECT * FROM FROM_CHANGELOG(input => TABLE bad)",
    "from_err_null_code": "SELECT * FROM FROM_CHANGELOG(input => TABLE nullop)",
    "from_err_code_unmapped": "SELECT * FROM FROM_CHANGELOG(input => TABLE ops, op_mapping => "
                              "MAP['INSERT', 'INSERT', 'UPDATE_BEFORE', 'UPDATE_BEFORE', 'UPDATE_AFTER', "
                              "'UPDATE_AFTER'])",
    "from_err_upsert_mapping": "SELECT * FROM FROM_CHANGELOG(input => TABLE ops, op_mapping => "
                               "MAP['INSERT', 'INSERT', 'UPDATE_AFTER', 'UPDATE_AFTER'])",
    "from_err_unknown_kind": "SELECT * FROM FROM_CHANGELOG(input => TABLE ops, op_mapping => "
                             "MAP['INSERT', 'INSERT', 'X', 'UPSERT'])",
    "from_err_duplicate_kind": "SELECT * FROM FROM_CHANGELOG(input => TABLE ops, op_mapping => MAP['c', "
                               "'INSERT', 'r', 'INSERT'])",
    "from_err_no_op_column": "SELECT * FROM FROM_CHANGELOG(input => TABLE ev)",
    "from_err_op_not_string": "SELECT * FROM FROM_CHANGELOG(input => TABLE ev, op => DESCRIPTOR(v))",
    "from_err_op_case": "SELECT * FROM FROM_CHANGELOG(input => TABLE ops, op => DESCRIPTOR(OP))",
    "from_err_updating_input": "SELECT * FROM FROM_CHANGELOG(input => TABLE aggop)",
    "from_err_partition": "SELECT * FROM FROM_CHANGELOG(input => TABLE ops PARTITION BY id)",
    "from_err_descriptor_two": "SELECT * FROM FROM_CHANGELOG(input => TABLE ops, op => DESCRIPTOR(op, v))",
    "from_err_mapping_not_literal": "SELECT * FROM FROM_CHANGELOG(input => TABLE ops, op_mapping => "
                                    "MAP[LOWER('I'), 'INSERT'])",
    # out-of-order changelogs and mapping edges (break34b)
    "from_odd_rows": "SELECT * FROM FROM_CHANGELOG(input => TABLE odd)",
    "from_odd_group_by": "SELECT id, SUM(v) AS s, COUNT(*) AS c, COUNT(v) AS cv FROM FROM_CHANGELOG(input "
                         "=> TABLE odd) GROUP BY id",
    "from_odd_max": "SELECT id, MAX(v) AS m, MIN(v) AS mn FROM FROM_CHANGELOG(input => TABLE odd) GROUP "
                    "BY id",
    "from_odd_global": "SELECT COUNT(*) AS n, SUM(v) AS s, MAX(v) AS m, AVG(v) AS a FROM "
                       "FROM_CHANGELOG(input => TABLE odd)",
    "from_odd_distinct": "SELECT DISTINCT id FROM FROM_CHANGELOG(input => TABLE odd)",
    "from_odd_count_distinct": "SELECT COUNT(DISTINCT id) AS n FROM FROM_CHANGELOG(input => TABLE odd)",
    "from_odd_where": "SELECT v * 2 AS w, id FROM FROM_CHANGELOG(input => TABLE odd) WHERE id <> 9",
    "from_odd_topn": "SELECT * FROM (SELECT id, v, ROW_NUMBER() OVER (PARTITION BY id ORDER BY v DESC) AS rn "
                     "FROM FROM_CHANGELOG(input => TABLE odd)) WHERE rn = 1",
    "to_odd_from": "SELECT * FROM TO_CHANGELOG(input => TABLE oddfrom)",
    "to_odd_agg": "SELECT * FROM TO_CHANGELOG(input => TABLE oddagg)",
    "to_odd_agg_count": "SELECT op, COUNT(*) AS n FROM TO_CHANGELOG(input => TABLE oddagg) GROUP BY op",
    "from_map_same_key": "SELECT * FROM FROM_CHANGELOG(input => TABLE codes, op => DESCRIPTOR(code), "
                         "op_mapping => MAP['c', 'INSERT', 'c', 'DELETE', '', 'UPDATE_BEFORE', 'd, b', "
                         "'UPDATE_AFTER'])",
    "from_map_code_twice": "SELECT * FROM FROM_CHANGELOG(input => TABLE codes, op => DESCRIPTOR(code), "
                           "op_mapping => MAP['c, ', 'INSERT', 'c, d, b', 'DELETE'])",
    "from_map_empty_parts": "SELECT * FROM FROM_CHANGELOG(input => TABLE codes, op => DESCRIPTOR(code), "
                            "op_mapping => MAP['c,,d', 'INSERT', 'b', 'DELETE'])",
    "from_map_before_only": "SELECT * FROM FROM_CHANGELOG(input => TABLE codes, op => DESCRIPTOR(code), "
                            "op_mapping => MAP['c, , d', 'INSERT', 'b', 'UPDATE_BEFORE'])",
    "from_map_lower_target": "SELECT * FROM FROM_CHANGELOG(input => TABLE codes, op => DESCRIPTOR(code), "
                             "op_mapping => MAP['c, , d, b', 'insert'])",
    "from_map_spaced_target": "SELECT * FROM FROM_CHANGELOG(input => TABLE codes, op => DESCRIPTOR(code), "
                              "op_mapping => MAP['c, , d, b', ' INSERT '])",
    "to_map_lower_kind": "SELECT * FROM TO_CHANGELOG(input => TABLE agg, op_mapping => MAP['insert', 'I'])",
    "to_map_empty_part": "SELECT * FROM TO_CHANGELOG(input => TABLE agg, op_mapping => MAP['INSERT,', 'I'])",
    "from_err_spaced_code": "SELECT * FROM FROM_CHANGELOG(input => TABLE spaced)",
}


def _cell(value):
    """A collected value as JSON (numbers and strings as they are, anything else as its text)."""
    return value if value is None or isinstance(value, (bool, int, float, str)) else str(value)


def run(t, query: str) -> dict:
    """Flink's schema and changelog for ``query`` (its text for an EXPLAIN), or its error."""
    record: dict = {"query": query}
    if query.startswith("EXPLAIN"):
        with t.execute_sql(query).collect() as rows:
            record["explain"] = "\n".join(str(r[0]) for r in rows)
        return record
    try:
        result = t.execute_sql(query)
        schema = result.get_table_schema()
        names, types = schema.get_field_names(), schema.get_field_data_types()
        record["schema"] = [[n, str(ty)] for n, ty in zip(names, types)]
        with result.collect() as rows:
            record["changelog"] = [[str(r.get_row_kind()), *map(_cell, r)] for r in rows]
    except Exception as e:  # noqa: BLE001 - Flink's refusal is the answer
        record.pop("schema", None)
        record["flink_error"] = error_text(e)
    return record


def main(argv: list[str]) -> int:
    """Run the named scenarios (all when none), keep the others' records, write :data:`OUT`."""
    chosen = set(argv) or set(SCENARIOS)
    old = json.loads(OUT.read_text()) if OUT.exists() else {}
    out = {"tables": TABLES, "views": VIEWS, "scenarios": {}}
    with tempfile.TemporaryDirectory() as tmp:
        t = table_env(utc=True)
        for name, table in TABLES.items():
            path = Path(tmp) / f"{name}.jsonl"
            path.write_text("".join(json.dumps(r) + "\n" for r in table["rows"]))
            t.execute_sql(f"CREATE TABLE {name} ({table['columns']}) WITH ('connector' = 'filesystem', "
                          f"'path' = '{path}', 'format' = 'json')")
        for view in VIEWS:
            t.execute_sql(view)
        for name, query in SCENARIOS.items():
            record = run(t, query) if name in chosen else old["scenarios"].get(name)
            if record is None:  # a scenario not recorded yet, not asked for
                continue
            out["scenarios"][name] = record
            print(name, "error" if "flink_error" in record else len(record.get("changelog", "")), flush=True)
    OUT.write_text(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
