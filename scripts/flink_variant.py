"""Record Apache Flink 2.3's answers about VARIANT (PARSE_JSON, TRY_PARSE_JSON, access) and OBJECT_OF.

Writes ``tests/functions/variant_flink.json``: the source rows (``k INT, s STRING``, JSON lines
read by the filesystem connector), then per case its statement and either the lines Flink's
``print`` sink wrote for it (``"lines"``; a VARIANT cannot be collected by PyFlink, so every case is
an ``INSERT INTO`` a print table whose columns the case names) or Flink's error (``"error"``: the
messages of the Java exception and its causes, joined by `` / ``). ``"ddl"`` cases record a
statement's error or ``ok`` (the JSON format refusing a VARIANT column), ``"rows"`` cases the rows
collected (``DESCRIBE``). ``tests/functions/test_variant.py`` runs the same statements here.

How the print lines are captured: as ``scripts/flink_compat.py`` (fd 1 pointed at a scratch file
before the JVM starts). Streaming mode, parallelism 1, time zone UTC::

    flock /tmp/flink.lock /work/flinkvenv/bin/python scripts/flink_variant.py [CASE ...]

Naming cases reruns only those (the others are kept from the file; the DDL steps always run).
``OBJECTS`` are records whose ``doc`` is a JSON object read into a STRING column (table ``obj``).
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the Flink venv does not install StreamSQL: import the helpers by path
sys.path.insert(0, str(ROOT / "scripts"))

from flink_compat import Capture  # noqa: E402
from flink_session import error_text  # noqa: E402

OUT = ROOT / "tests" / "functions" / "variant_flink.json"

#: The documents PARSE_JSON reads: (k, s). Numbers of each kind, key order, duplicate keys, escapes,
#: JSON null, text that is not JSON, whitespace and trailing text.
DOCS = [
    (1, '{"b":1,"a":[1,2.5,"x",true,null],"c":{"d":1e10,"e":"q\\"\\\\n\\u00e9"}}'),
    (2, "[1, 2.50, 1e2, 12345678901234567890, 1.0E-7, -0.0, 3.14159265358979323846, 100.00, -5, 0.1, "
        "123456789012345678901234567890123456789, 9223372036854775807, -9223372036854775808, "
        "9223372036854775808, 0.000000000000000000000000000000000000001, 1E+2, 10.0, -0.5]"),
    (3, None),
    (4, '"str"'),
    (5, '{"b":1,"a":2,"b":3}'),
    (6, "{bad"),
    (7, "  42  "),
    (8, "1 2"),
    (9, '{"a":null,"B":true,"\u00e9":1,"Z":[],"aa":{},"A":"x"}'),
    (10, "null"),
    (11, ""),
    (12, '{"a":{"b":{"c":[10,{"d":"deep"}]}}}'),
    (13, "[1.5e400, -1e400, 1e-400]"),
    (14, '"ctl\\t\\u0001 \u2028 / \\/ \U0001f600"'),
    (15, '{"a":1}'),
    (16, '{ "a" : 1 }'),
    (17, "1"),
    (18, "1.0"),
    (19, "1e0"),
    (20, "[1,]"),
    (21, '{"b":1,"a":{"d":[],"c":null}}'),
    (22, "[1" + "0" * 38 + ", 1" + "0" * 37 + ", 0." + "0" * 37 + "1, 1." + "0" * 37 + "]"),
    (23, "[1, 1.0, 1e0, 1.00, 2, 10, \"1\", \"b\", \"a\", true, false, null]"),
]
#: Records whose ``doc`` is a JSON object read into a STRING column (``id INT, doc STRING``): the
#: JSON format gives its text, PARSE_JSON reads it (also the Kafka end-to-end test's records).
OBJECTS = [
    {"id": 1, "doc": {"user": {"name": "ann", "id": 7}, "tags": ["a", "b"], "n": 2.50}},
    {"id": 2, "doc": {"user": {"name": "bob"}, "tags": [], "n": 1e3}},
    {"id": 3, "doc": None},
    {"id": 4, "doc": {"n": 0.5, "user": {"id": 7, "name": "ann"}, "tags": ["c"]}},
]
OBJECTS_SOURCE = "id INT, doc STRING"
SOURCE = "k INT, s STRING"
V = "(SELECT k, TRY_PARSE_JSON(s) AS v FROM src)"
USER = "STRUCTURED<'com.example.User', name STRING, age INT>"
OBJ = "OBJECT_OF('com.example.User', 'name', s, 'age', k)"

#: name -> (print table columns, query), or (None, statement) for a statement Flink refuses before
#: it runs (the INSERT is still formed with a one-column sink).
CASES = {
    "parse_all": ("k INT, v VARIANT", "SELECT k, TRY_PARSE_JSON(s) FROM src"),
    "parse_ok": ("k INT, v VARIANT",
                 "SELECT k, PARSE_JSON(s) FROM src WHERE k IN (1, 2, 3, 4, 7, 9, 10, 12, 14)"),
    "parse_trailing": ("k INT, v VARIANT", "SELECT k, PARSE_JSON(s) FROM src WHERE k = 8"),
    "parse_overflow": ("k INT, v VARIANT", "SELECT k, PARSE_JSON(s) FROM src WHERE k = 13"),
    "parse_dup_allowed": ("k INT, v VARIANT, w VARIANT",
                          "SELECT k, PARSE_JSON(s, TRUE), TRY_PARSE_JSON(s, TRUE) FROM src WHERE k = 5"),
    "parse_dup_false": ("k INT, v VARIANT", "SELECT k, TRY_PARSE_JSON(s, FALSE) FROM src WHERE k = 5"),
    "parse_dup_fails": ("k INT, v VARIANT", "SELECT k, PARSE_JSON(s) FROM src WHERE k = 5"),
    "parse_bad_fails": ("k INT, v VARIANT", "SELECT k, PARSE_JSON(s) FROM src WHERE k = 6"),
    "parse_empty_fails": ("k INT, v VARIANT", "SELECT k, PARSE_JSON(s) FROM src WHERE k = 11"),
    "parse_comma_fails": ("k INT, v VARIANT", "SELECT k, PARSE_JSON(s) FROM src WHERE k = 20"),
    "parse_literal": ("v VARIANT, w VARIANT",
                      "SELECT PARSE_JSON('{\"y\":1,\"x\":[2]}'), TRY_PARSE_JSON('{bad')"),
    "access_object": ("k INT, a VARIANT, e VARIANT, a2 VARIANT, zz VARIANT, a0 VARIANT, a9 VARIANT, "
                      "cd VARIANT",
                      f"SELECT k, v['a'], v['c']['e'], v['a'][2], v['zz'], v['a'][0], v['a'][9], v['c']['d'] "
                      f"FROM {V} WHERE k = 1"),
    "access_array": ("k INT, x1 VARIANT, x4 VARIANT, x18 VARIANT, x19 VARIANT, xm VARIANT",
                     f"SELECT k, v[1], v[4], v[18], v[19], v[-1] FROM {V} WHERE k = 2"),
    "access_null_member": ("k INT, a VARIANT, n BOOLEAN, bb VARIANT, bu VARIANT, z1 VARIANT",
                           f"SELECT k, v['a'], v['a'] IS NULL, v['b'], v['B'], v['Z'] FROM {V} WHERE k = 9"),
    "access_sql_null": ("k INT, a VARIANT, i VARIANT", f"SELECT k, v['a'], v[1] FROM {V} WHERE k IN (3, 6)"),
    "access_deep": ("k INT, d VARIANT, c VARIANT",
                    f"SELECT k, v['a']['b']['c'][2]['d'], v['a']['b'] FROM {V} "
                    "WHERE k = 12"),
    "access_key_on_array_fails": ("k INT, a VARIANT", f"SELECT k, v['a'] FROM {V} WHERE k = 2"),
    "access_index_on_object_fails": ("k INT, a VARIANT", f"SELECT k, v[1] FROM {V} WHERE k = 1"),
    "access_key_on_scalar_fails": ("k INT, a VARIANT", f"SELECT k, v['a'] FROM {V} WHERE k = 4"),
    "access_key_on_json_null_fails": ("k INT, a VARIANT", f"SELECT k, v['a'] FROM {V} WHERE k = 10"),
    "access_column_key": ("k INT, a VARIANT", f"SELECT k, v[k - 1] FROM {V} WHERE k = 2"),
    "access_string_column_key": ("k INT, a VARIANT",
                                 f"SELECT k, v[CAST(k AS STRING)] FROM {V} WHERE k = 1"),
    "access_bigint_index": ("k INT, a VARIANT", f"SELECT k, v[CAST(2 AS BIGINT)] FROM {V} WHERE k = 2"),
    "typeof": ("k INT, t1 STRING, t2 STRING, t3 STRING, t4 STRING, t5 STRING",
               "SELECT k, TYPEOF(TRY_PARSE_JSON(s)), TYPEOF(PARSE_JSON(s)), TYPEOF(TRY_PARSE_JSON(s)['a']), "
               "TYPEOF(PARSE_JSON('1')), TYPEOF(TRY_PARSE_JSON('1', TRUE)) FROM src WHERE k = 1"),
    "typeof_index": ("k INT, t STRING", "SELECT k, TYPEOF(PARSE_JSON(s)[1]) FROM src WHERE k = 2"),
    "json_functions": ("k INT, b STRING, a STRING, c BOOLEAN, d DOUBLE, w STRING",
                       f"SELECT k, JSON_VALUE(v, '$.b'), JSON_QUERY(v, '$.a'), JSON_EXISTS(v, '$.c'), "
                       f"JSON_VALUE(v, '$.c.d' RETURNING DOUBLE), JSON_QUERY(v, '$') FROM {V} "
                       "WHERE k IN (1, 2, 3)"),
    "json_value": ("k INT, b STRING, d DOUBLE",
                   f"SELECT k, JSON_VALUE(v, '$.b'), JSON_VALUE(v, '$.c.d' RETURNING "
                   f"DOUBLE) FROM {V} WHERE k IN (1, 2, 3)"),
    "json_value_decimal": ("k INT, b STRING", f"SELECT k, JSON_VALUE(v, '$[1]') FROM {V} WHERE k = 2"),
    "json_query": ("k INT, a STRING, w STRING",
                   f"SELECT k, JSON_QUERY(v, '$.a'), JSON_QUERY(v, '$') FROM {V} "
                   "WHERE k IN (1, 2, 3)"),
    "json_string_null": ("k INT, n BOOLEAN", f"SELECT k, JSON_STRING(v) IS NULL FROM {V} WHERE k IN (3, 10)"),
    "json_object": ("k INT, j STRING", f"SELECT k, JSON_OBJECT('v' VALUE v) FROM {V} WHERE k IN (1, 4, 10)"),
    "json_array": ("k INT, j STRING", f"SELECT k, JSON_ARRAY(v) FROM {V} WHERE k IN (1, 4)"),
    "is_json": ("k INT, j BOOLEAN", f"SELECT k, v IS JSON FROM {V} WHERE k IN (1, 4)"),
    "equal_kinds": ("k INT, a BOOLEAN, b BOOLEAN, c BOOLEAN, d BOOLEAN, e BOOLEAN",
                    f"SELECT k, v[1] = v[2], v[2] = v[4], v[1] = v[3], v[1] = v[7], v[1] <> v[5] FROM {V} "
                    "WHERE k = 23"),
    "order_kinds": ("k INT, a BOOLEAN, b BOOLEAN, c BOOLEAN, d BOOLEAN, e BOOLEAN, f BOOLEAN",
                    f"SELECT k, v[1] < v[5], v[5] < v[6], v[6] < v[7], v[8] < v[9], v[1] < v[8], "
                    "v[10] < v[11] "
                    f"FROM {V} WHERE k = 23"),
    "order_nested": ("k INT, a BOOLEAN, b BOOLEAN",
                     f"SELECT k, v['a'] < v['b'], v['b'] < v['a'] FROM {V} WHERE k = 21"),
    "objects": ("id INT, v VARIANT, name VARIANT, t2 VARIANT, n VARIANT",
                "SELECT id, v, v['user']['name'], v['tags'][2], v['n'] "
                "FROM (SELECT id, PARSE_JSON(doc) AS v FROM obj)"),
    "objects_group": ("u VARIANT, c BIGINT, f VARIANT",
                      "SELECT v['user'], COUNT(*), FIRST_VALUE(v['tags']) "
                      "FROM (SELECT id, PARSE_JSON(doc) AS v FROM obj) GROUP BY v['user']"),
    "in_list": ("k INT, b BOOLEAN", f"SELECT k, v IN (v, v) FROM {V} WHERE k = 15"),
    # structured types (OBJECT_OF, OBJECT_UPDATE) over src's rows 3 (s NULL) and 4
    "object_of": (f"k INT, u {USER}", f"SELECT k, {OBJ} FROM src WHERE k IN (3, 4)"),
    "object_into_row": ("k INT, u ROW<name STRING, age INT>", f"SELECT k, {OBJ} FROM src WHERE k IN (3, 4)"),
    "object_field": ("k INT, n STRING, a INT",
                     f"SELECT k, {OBJ}.name, {OBJ}.age FROM src WHERE k IN (3, 4)"),
    "object_update": (f"k INT, u {USER}",
                      f"SELECT k, OBJECT_UPDATE({OBJ}, 'age', k + 1) FROM src WHERE k IN (3, 4)"),
    "object_typeof": ("k INT, t STRING, u STRING",
                      f"SELECT k, TYPEOF({OBJ}), TYPEOF(OBJECT_UPDATE({OBJ}, 'age', 1)) FROM src "
                      "WHERE k = 4"),
    "object_update_unknown_refused": (f"k INT, u {USER}",
                                      f"SELECT k, OBJECT_UPDATE({OBJ}, 'zz', 1) FROM src WHERE k = 4"),
    "object_update_type_refused": (f"k INT, u {USER}",
                                   f"SELECT k, OBJECT_UPDATE({OBJ}, 'age', 'x') FROM src WHERE k = 4"),
    "object_duplicate_refused": (f"k INT, u {USER}",
                                 "SELECT k, OBJECT_OF('com.example.User', 'name', s, 'name', k) FROM src"),
    "object_equal": ("k INT, b BOOLEAN", f"SELECT k, {OBJ} = {OBJ} FROM src WHERE k IN (3, 4)"),
    "object_json_string": ("k INT, j STRING", f"SELECT k, JSON_STRING({OBJ}) FROM src WHERE k IN (3, 4)"),
    "object_cast_string": ("k INT, j STRING", f"SELECT k, CAST({OBJ} AS STRING) FROM src WHERE k IN (3, 4)"),
    "object_short_class": ("k INT, u STRUCTURED<'User', name STRING>",
                           "SELECT k, OBJECT_OF('User', 'name', s) FROM src WHERE k = 4"),
    "json_string": ("k INT, j STRING", f"SELECT k, JSON_STRING(v) FROM {V} WHERE k IN (1, 4, 10)"),
    "is_null": ("k INT, n BOOLEAN, nn BOOLEAN",
                f"SELECT k, v IS NULL, v IS NOT NULL FROM {V} WHERE k IN (3, 6, 10)"),
    "equal_self": ("k INT, e BOOLEAN, d BOOLEAN", f"SELECT k, v = v, v IS NOT DISTINCT FROM v FROM {V} "
                   "WHERE k IN (1, 3)"),
    "equal_other": ("k INT, e BOOLEAN", f"SELECT k, v = PARSE_JSON('1') FROM {V} WHERE k IN (17, 18)"),
    "equal_columns": ("k INT, e BOOLEAN", "SELECT k, TRY_PARSE_JSON(s) = PARSE_JSON(s, TRUE) FROM src "
                      "WHERE k IN (15, 16)"),
    "less_than": ("k INT, e BOOLEAN", f"SELECT k, v < v FROM {V} WHERE k = 1"),
    "order_self": ("k INT, a BOOLEAN, b BOOLEAN, c BOOLEAN, d BOOLEAN",
                   f"SELECT k, v < v, v <= v, v > v, v >= v FROM {V} WHERE k IN (1, 3)"),
    "coalesce": ("k INT, c VARIANT", f"SELECT k, COALESCE(v, PARSE_JSON('0')) FROM {V} WHERE k IN (3, 4)"),
    "case_when": ("k INT, c VARIANT", f"SELECT k, CASE WHEN k = 4 THEN v END FROM {V} WHERE k IN (3, 4)"),
    "where_access": ("k INT", f"SELECT k FROM {V} WHERE k IN (15, 16, 17) AND v IS NOT NULL"),
    "group_by": ("v VARIANT, c BIGINT", f"SELECT v, COUNT(*) FROM {V} WHERE k >= 15 AND k <= 19 GROUP BY v"),
    "distinct": ("v VARIANT", f"SELECT DISTINCT v FROM {V} WHERE k >= 15 AND k <= 19"),
    "first_last": ("p INT, f VARIANT, l VARIANT",
                   f"SELECT k % 2, FIRST_VALUE(v), LAST_VALUE(v) FROM {V} WHERE k IN (1, 2, 4, 7, 9) "
                   "GROUP BY k % 2"),
    "count_variant": ("c BIGINT, d BIGINT", f"SELECT COUNT(v), COUNT(DISTINCT v) FROM {V} WHERE k >= 15"),
    "max_refused": ("v VARIANT", f"SELECT MAX(v) FROM {V}"),
    "min_refused": ("v VARIANT", f"SELECT MIN(v) FROM {V}"),
    "cast_to_string": ("s STRING", f"SELECT CAST(v AS STRING) FROM {V}"),
    "cast_to_int": ("i INT", f"SELECT CAST(v AS INT) FROM {V}"),
    "cast_from_string": ("v VARIANT", "SELECT CAST(s AS VARIANT) FROM src"),
    "cast_from_int": ("v VARIANT", "SELECT CAST(k AS VARIANT) FROM src"),
    "try_cast_to_string": ("s STRING", f"SELECT TRY_CAST(v AS STRING) FROM {V}"),
    "compare_other_refused": ("b BOOLEAN", f"SELECT v <> PARSE_JSON('1') FROM {V}"),
    "upper_refused": ("s STRING", f"SELECT UPPER(v) FROM {V}"),
    "concat_refused": ("s STRING", f"SELECT v || 'x' FROM {V}"),
    "plus_refused": ("i INT", f"SELECT v + 1 FROM {V}"),
    "parse_int_refused": ("v VARIANT", "SELECT PARSE_JSON(k) FROM src"),
    "parse_flag_string_refused": ("v VARIANT", "SELECT PARSE_JSON(s, 'x') FROM src"),
    "parse_flag_column": ("k INT, v VARIANT",
                          "SELECT k, TRY_PARSE_JSON(s, k = 5) FROM src WHERE k IN (5, 15)"),
    "parse_three_refused": ("v VARIANT", "SELECT PARSE_JSON(s, TRUE, TRUE) FROM src"),
    "access_double_refused": ("v VARIANT", f"SELECT v[1.5] FROM {V}"),
    "access_boolean_refused": ("v VARIANT", f"SELECT v[TRUE] FROM {V}"),
    "order_by_topn": ("k INT",
                      f"SELECT k FROM (SELECT k, ROW_NUMBER() OVER (PARTITION BY v ORDER BY k) AS rn "
                      f"FROM {V} WHERE k >= 15 AND k <= 19) WHERE rn = 1"),
    # a number's kind (integer, DECIMAL of a scale, DOUBLE) where Flink shows it: output and equality
    "kinds_json_string": ("k INT, j STRING",
                          f"SELECT k, JSON_STRING(v) FROM {V} WHERE k IN (2, 17, 18, 19, 22, 23)"),
    "kinds_json_value": ("k INT, a STRING, b STRING, c STRING, d STRING",
                         f"SELECT k, JSON_VALUE(v, '$[0]'), JSON_VALUE(v, '$[1]'), JSON_VALUE(v, '$[2]'), "
                         f"JSON_VALUE(v, '$[3]') FROM {V} WHERE k = 23"),
    "kinds_json_query": ("k INT, j STRING", f"SELECT k, JSON_QUERY(v, '$') FROM {V} WHERE k IN (2, 23)"),
    "kinds_json_object": ("k INT, j STRING, a STRING",
                          f"SELECT k, JSON_OBJECT('a' VALUE v[2], 'b' VALUE v[3], 'c' VALUE v[4]), "
                          f"JSON_ARRAY(v[1], v[2], v[3]) FROM {V} WHERE k = 23"),
    "kinds_equal_parsed": ("k INT, a BOOLEAN, b BOOLEAN, c BOOLEAN, d BOOLEAN, e BOOLEAN, f BOOLEAN",
                           f"SELECT k, v[2] = TRY_PARSE_JSON('1.0'), v[4] = TRY_PARSE_JSON('1.00'), "
                           f"v[3] = TRY_PARSE_JSON('1e0'), v[1] = TRY_PARSE_JSON('1'), "
                           f"v[3] = TRY_PARSE_JSON('1.0E0'), "
                           f"v[6] = TRY_PARSE_JSON('10') FROM {V} WHERE k = 23"),
    "kinds_equal_literals": ("a BOOLEAN, b BOOLEAN, c BOOLEAN, d BOOLEAN, e BOOLEAN, f BOOLEAN, g BOOLEAN, "
                             "h BOOLEAN",
                             "SELECT PARSE_JSON('2.50') = PARSE_JSON('2.5'), "
                             "PARSE_JSON('-0.0') = PARSE_JSON('0.0'), "
                             "PARSE_JSON('-0') = PARSE_JSON('0'), PARSE_JSON('-0e0') = PARSE_JSON('0e0'), "
                             "PARSE_JSON('100') = PARSE_JSON('1E+2'), "
                             "PARSE_JSON('1e2') = PARSE_JSON('100.0E0'), "
                             "PARSE_JSON('12345678901234567890') = PARSE_JSON('12345678901234567890.0'), "
                             "PARSE_JSON('[1.0]') = PARSE_JSON('[1]')"),
    "dictionary_equal": ("a BOOLEAN, b BOOLEAN, c BOOLEAN, d BOOLEAN, e BOOLEAN",
                         "SELECT PARSE_JSON('{\"a\":1}') = PARSE_JSON('{\"x\":{\"a\":1}}')['x'], "
                         "PARSE_JSON('{\"a\":1}')['a'] = PARSE_JSON('1'), "
                         "PARSE_JSON('{\"a\":1,\"b\":2}') = PARSE_JSON('{\"b\":2,\"a\":1}'), "
                         "PARSE_JSON('[{\"a\":1}]')[1] = PARSE_JSON('{\"a\":1}'), "
                         "PARSE_JSON('{\"y\":{\"a\":1}}')['y'] = PARSE_JSON('{\"x\":{\"a\":1}}')['x']"),
    "kinds_group_double": ("v VARIANT, c BIGINT",
                           "SELECT v, COUNT(*) FROM (SELECT TRY_PARSE_JSON(s)[3] AS v FROM src WHERE k = 23 "
                           "UNION ALL SELECT TRY_PARSE_JSON('1.0E0') FROM src WHERE k = 23) GROUP BY v"),
    # an accessed value's origin: its document and position (the same DOUBLE 100.0 at two places)
    "equal_positions": ("k INT, a BOOLEAN, b BOOLEAN, c BOOLEAN",
                        f"SELECT k, v[3] = v[16], v[3] = v[3], v[3] IS NOT DISTINCT FROM v[16] FROM {V} "
                        "WHERE k = 2"),
    "group_positions": ("v VARIANT, c BIGINT",
                        "SELECT v, COUNT(*) FROM (SELECT TRY_PARSE_JSON(s)[3] AS v FROM src WHERE k = 2 "
                        "UNION ALL SELECT TRY_PARSE_JSON(s)[16] FROM src WHERE k = 2) GROUP BY v"),
    "to_string_column_refused": ("s STRING", f"SELECT v FROM {V}"),
    "to_variant_column_refused": ("v VARIANT", "SELECT s FROM src"),
}

#: Statements run in order in one session of their own (a table's DDL, then what uses it).
DDL = [
    "CREATE TABLE jv (k INT, v VARIANT) WITH ('connector' = 'filesystem', 'path' = '{dir}/jv', "
    "'format' = 'json')",
    "INSERT INTO jv SELECT k, TRY_PARSE_JSON(s) FROM src",
    "SELECT * FROM jv",
    "CREATE TABLE cv (k INT, v VARIANT) WITH ('connector' = 'filesystem', 'path' = '{dir}/cv', "
    "'format' = 'csv')",
    "INSERT INTO cv SELECT k, TRY_PARSE_JSON(s) FROM src",
    "CREATE TABLE pv (k INT, v VARIANT NOT NULL, w VARIANT) WITH ('connector' = 'print')",
    "DESCRIBE pv",
    "CREATE TABLE bad (v VARIANT(3)) WITH ('connector' = 'print')",
    "CREATE TABLE pk (v VARIANT, PRIMARY KEY (v) NOT ENFORCED) WITH ('connector' = 'print')",
    "CREATE TABLE ps (k INT, u STRUCTURED<'com.example.User', name STRING, age INT NOT NULL>, "
    "a ARRAY<STRUCTURED<'x', b ROW<c INT>>>) WITH ('connector' = 'print')",
    "DESCRIBE ps",
]


def main(names: list[str]) -> int:
    """Run :data:`CASES` (those named; others kept) and :data:`DDL`; write :data:`OUT`."""
    from pyflink.table import EnvironmentSettings, TableEnvironment

    capture = Capture()
    with tempfile.TemporaryDirectory(prefix="flink-variant-") as d:
        src = Path(d) / "src.json"
        src.write_text("".join(json.dumps({"k": k, "s": s}) + "\n" for k, s in DOCS), encoding="utf-8")
        obj = Path(d) / "obj.json"
        obj.write_text("".join(json.dumps(r) + "\n" for r in OBJECTS), encoding="utf-8")

        def session():
            t = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
            t.get_config().set("parallelism.default", "1")
            t.get_config().set("table.local-time-zone", "UTC")
            t.execute_sql(f"CREATE TABLE src ({SOURCE}) WITH ('connector' = 'filesystem', 'path' = '{src}', "
                          "'format' = 'json')")
            t.execute_sql(f"CREATE TABLE obj ({OBJECTS_SOURCE}) WITH ('connector' = 'filesystem', "
                          f"'path' = '{obj}', 'format' = 'json')")
            return t

        known = json.loads(OUT.read_text("utf-8"))["cases"] if names else {}
        cases = {}
        for i, (name, (columns, query)) in enumerate(CASES.items()):
            if names and name not in names:
                if name in known:
                    cases[name] = known[name]
                continue
            t = session()
            t.execute_sql(f"CREATE TABLE p{i} ({columns}) WITH ('connector' = 'print')")
            start = capture.mark()
            try:
                t.execute_sql(f"INSERT INTO p{i} {query}").wait()
                cases[name] = {"columns": columns, "query": query, "lines": capture.since(start)}
            except Exception as e:  # noqa: BLE001  (PyFlink raises its own wrappers and Py4JJavaError)
                cases[name] = {"columns": columns, "query": query, "error": error_text(e)}
            print(name, cases[name].get("lines", cases[name].get("error", ""))[:300], file=capture.out)
        t = session()
        ddl = []
        for statement in DDL:
            s = statement.format(dir=d)
            try:
                result = t.execute_sql(s)
                if s.startswith("INSERT"):
                    result.wait()
                    ddl.append({"statement": statement, "flink": "ok"})
                elif s.startswith(("SELECT", "DESCRIBE")):
                    with result.collect() as rows:
                        ddl.append({"statement": statement, "flink": "ok", "rows": [[str(c) for c in r]
                                                                                    for r in rows]})
                else:
                    ddl.append({"statement": statement, "flink": "ok"})
            except Exception as e:  # noqa: BLE001
                ddl.append({"statement": statement, "flink": "error", "error": error_text(e)})
            print(ddl[-1], file=capture.out)
    OUT.write_text(json.dumps({"flink": "2.3", "source": SOURCE, "docs": DOCS,
                               "objects_source": OBJECTS_SOURCE, "objects": OBJECTS, "cases": cases,
                               "ddl": ddl},
                              indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {OUT}", file=capture.out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
