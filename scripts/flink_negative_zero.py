"""Record Flink 2.3's answers on -0.0 read by the JSON formats and on FLOAT mixed with DOUBLE.

Writes ``tests/connectors/negative_zero_flink.json``, which
``tests/connectors/test_negative_zero_flink.py`` compares StreamSQL with:

- ``formats``: for each of ``json``, ``debezium-json``, ``canal-json``, ``maxwell-json``, without
  and with a DECIMAL column (Flink's node-based deserializer reads floats as BigDecimal when the
  row type holds a DECIMAL, which has no -0), the rows
  (row kind, then the columns) Flink's filesystem source reads from messages
  whose numbers are the JSON texts of :data:`ZEROS` (``-0.0`` and its spellings, at top level, in
  a ROW, an ARRAY and a MAP; inserts, an update's before/after images, a delete);
- ``float_double``: for each query of :data:`FLOAT_DOUBLE` over a ``json`` table ``fd (f FLOAT,
  d DOUBLE)`` holding 0.1 / 0.1, the result type (Flink's ``TYPEOF``) and the rows: how Flink types
  FLOAT with DOUBLE in UNION ALL, CASE, COALESCE, IN and VALUES (session 35's queryfuzz35 finding);
- ``float_order``: for each comparison of :data:`FLOAT_ORDER` (``<``, ``<=``, ``>``, ``>=``,
  BETWEEN, ``=``, ``<>`` of a FLOAT with a DOUBLE, columns and literals) over a ``json`` table
  ``fo (id INT, f FLOAT, d DOUBLE)`` of the pairs :data:`ORDER_ROWS` (values where comparing in FLOAT
  or in DOUBLE differ: 0.1, 16777217, past FLOAT's range, NaN, -0.0), the rows ``[id, v]``;
- ``projected``: for ``debezium-json``, ``canal-json`` and ``maxwell-json`` tables with a DECIMAL
  column and a ROW holding a DECIMAL, the rows of queries (:data:`PROJECTED`) that read the DECIMAL or
  leave it out: the BigDecimal mode follows the projected row type (session 36);
- ``json_functions``: for each query of :data:`JSON_FUNCTIONS` over a ``json`` table ``js (id INT,
  s STRING)`` of the documents :data:`JSON_DOCS` (a member ``-0``, ``-0.0`` ...), the rows: where a
  JSON number is read by a function (JSON_VALUE RETURNING DOUBLE / FLOAT / DECIMAL, JSON_QUERY,
  PARSE_JSON), each value also as Flink's ``CAST(... AS STRING)``.

Run (naming grids reruns only those, the others kept from the file)::

    flock /tmp/flink.lock /work/flinkvenv/bin/python scripts/flink_negative_zero.py [GRID ...]
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from flink_json_lines import lines_table, rows_or_error, streaming_tenv  # noqa: E402

OUT = Path(__file__).resolve().parent.parent / "tests" / "connectors" / "negative_zero_flink.json"
COLUMNS = "id INT, f DOUBLE, r FLOAT, w ROW<a DOUBLE, b FLOAT>, arr ARRAY<DOUBLE>, m MAP<STRING, FLOAT>"
#: JSON number texts of a zero (and a control), one row each: id, then the text used for every field.
ZEROS = {1: "-0.0", 2: "-0", 3: "-0.0e0", 4: "-0E-5", 5: '"-0.0"', 6: "-1.5", 7: "0.0"}


def row(i: int) -> str:
    """Row ``i`` as a JSON object text, every number field written as ``ZEROS[i]``."""
    z = ZEROS[i]
    return f'{{"id":{i},"f":{z},"r":{z},"w":{{"a":{z},"b":{z}}},"arr":[{z},2.5],"m":{{"k":{z}}}}}'


def messages(fmt: str) -> list[str]:
    """Each row of :data:`ZEROS` inserted; row 1 then updated to row 2 and row 3 deleted, in ``fmt``."""
    ids = list(ZEROS)
    if fmt == "json":
        return [row(i) for i in ids]
    if fmt == "debezium-json":
        out = [f'{{"before":null,"after":{row(i)},"op":"c"}}' for i in ids]
        return [*out, f'{{"before":{row(1)},"after":{row(2)},"op":"u"}}',
                f'{{"before":{row(3)},"after":null,"op":"d"}}']
    meta = '"database":"db","table":"t"'
    if fmt == "canal-json":
        out = [f'{{"data":[{row(i)}],"old":null,"type":"INSERT",{meta}}}' for i in ids]
        return [*out, f'{{"data":[{row(2)}],"old":[{row(1)}],"type":"UPDATE",{meta}}}',
                f'{{"data":[{row(3)}],"old":null,"type":"DELETE",{meta}}}']
    out = [f'{{"data":{row(i)},"type":"insert",{meta}}}' for i in ids]  # maxwell-json
    return [*out, f'{{"data":{row(2)},"old":{row(1)},"type":"update",{meta}}}',
            f'{{"data":{row(3)},"type":"delete",{meta}}}']


def as_json(r) -> list:
    """A collected row as a JSON-able list: the row kind's short string, then the values."""
    def val(v):
        if hasattr(v, "as_dict"):
            return [val(x) for x in v]
        if isinstance(v, (list, tuple)):
            return [val(x) for x in v]
        if isinstance(v, dict):
            return {k: val(x) for k, x in v.items()}
        return v
    return [str(r.get_row_kind()), *(val(v) for v in r)]


#: Queries over ``fd (f FLOAT, d DOUBLE)``; each is also asked as ``SELECT TYPEOF(v) ...``.
FLOAT_DOUBLE = {
    "union_float_first": "SELECT f AS v FROM fd UNION ALL SELECT d FROM fd",
    "union_double_first": "SELECT d AS v FROM fd UNION ALL SELECT f FROM fd",
    "case_float_else_double": "SELECT CASE WHEN f > 0 THEN f ELSE d END AS v FROM fd",
    "case_double_else_float": "SELECT CASE WHEN f > 0 THEN d ELSE f END AS v FROM fd",
    "coalesce_float_double": "SELECT COALESCE(f, d) AS v FROM fd",
    "coalesce_double_float": "SELECT COALESCE(d, f) AS v FROM fd",
    "values_rows": "SELECT * FROM (VALUES (CAST(0.1 AS FLOAT)), (CAST(0.1 AS DOUBLE))) AS x(v)",
    "values_rows_double_first": "SELECT * FROM (VALUES (CAST(0.1 AS DOUBLE)), (CAST(0.1 AS FLOAT))) AS x(v)",
    "union_values": "SELECT CAST(0.1 AS FLOAT) AS v UNION ALL SELECT CAST(0.1 AS DOUBLE)",
    "float_eq_double_plus": "SELECT f = d + 0 AS v FROM fd",
    "in_list": "SELECT f IN (d, CAST(2 AS DOUBLE)) AS v FROM fd",
    "in_list_double": "SELECT d IN (f, CAST(2 AS FLOAT)) AS v FROM fd",
    "equal": "SELECT f = d AS v FROM fd",
}


#: ``fo``'s rows: id -> (f, d), as the JSON texts written (``"NaN"``: Flink's json format reads the string).
ORDER_ROWS = {1: ("0.1", "0.1"), 2: ("16777217", "16777217"), 3: ("16777216", "16777217"),
              4: ("3.4028235e38", "3.5e38"), 5: ('"Infinity"', "3.5e38"), 6: ("-3.4028235e38", "-3.5e38"),
              7: ('"NaN"', '"NaN"'), 8: ("1", '"NaN"'), 9: ("-0.0", "0.0"), 10: ("0.0", "-0.0"),
              11: ("0.1", "0.10000000149011612"), 12: ("null", "1"), 13: ("1.5", "2.5")}
#: Comparisons of a FLOAT with a DOUBLE over ``fo``: name -> the boolean expression ``v``.
FLOAT_ORDER = {
    "lt": "f < d", "le": "f <= d", "gt": "f > d", "ge": "f >= d",
    "d_lt": "d < f", "d_le": "d <= f", "d_gt": "d > f", "d_ge": "d >= f",
    "eq": "f = d", "ne": "f <> d", "distinct": "f IS DISTINCT FROM d",
    "between": "f BETWEEN d AND d", "not_between": "f NOT BETWEEN d AND d",
    "d_between": "d BETWEEN f AND f", "between_mixed": "f BETWEEN d AND CAST(3.5e38 AS DOUBLE)",
    "lt_expr": "f < d + 0", "lt_double_literal": "f < CAST(0.1 AS DOUBLE)",
    "ge_double_literal": "f >= CAST(16777217 AS DOUBLE)", "gt_e_literal": "f > 0.1E0",
    "lt_decimal_literal": "f < 0.1", "d_lt_float_literal": "d < CAST(0.1 AS FLOAT)",
    "case_lt": "CASE WHEN f < d THEN 1 WHEN f >= d THEN 2 ELSE 3 END = 1",
}
#: ``js``'s documents: id -> JSON text (a member ``a``).
JSON_DOCS = {1: '{"a":-0}', 2: '{"a":-0.0}', 3: '{"a":-0e0}', 4: '{"a":"-0"}', 5: '{"a":0}',
             6: '{"a":[-0,-0.0]}', 7: '{"a":-0.00}', 8: '{"a":-1}'}
#: Queries over ``js``; each row is ``[id, value ...]``.
JSON_FUNCTIONS = {
    "value_double": "SELECT id, JSON_VALUE(s, '$.a' RETURNING DOUBLE), "
                    "CAST(JSON_VALUE(s, '$.a' RETURNING DOUBLE) AS STRING) FROM js",
    "value_double_fractions": "SELECT id, JSON_VALUE(s, '$.a' RETURNING DOUBLE), "
                              "CAST(JSON_VALUE(s, '$.a' RETURNING DOUBLE) AS STRING) FROM js "
                              "WHERE id IN (2, 3, 7)",
    "value_float": "SELECT id, JSON_VALUE(s, '$.a' RETURNING FLOAT), "
                   "CAST(JSON_VALUE(s, '$.a' RETURNING FLOAT) AS STRING) FROM js",
    "value_decimal": "SELECT id, CAST(JSON_VALUE(s, '$.a' RETURNING DECIMAL(10, 2)) AS STRING) FROM js",
    "value_string": "SELECT id, JSON_VALUE(s, '$.a') FROM js",
    "value_cast_double": "SELECT id, CAST(CAST(JSON_VALUE(s, '$.a') AS DOUBLE) AS STRING) FROM js",
    "value_element_double": "SELECT id, CAST(JSON_VALUE(s, '$.a[0]' RETURNING DOUBLE) AS STRING), "
                            "CAST(JSON_VALUE(s, '$.a[1]' RETURNING DOUBLE) AS STRING) FROM js WHERE id = 6",
    "query": "SELECT id, JSON_QUERY(s, '$.a'), JSON_QUERY(s, '$') FROM js",
    "variant": "SELECT id, JSON_STRING(TRY_PARSE_JSON(s)), JSON_STRING(TRY_PARSE_JSON(s)['a']) FROM js",
}


def _float_order(tenv, root: Path) -> dict:
    """The grid ``float_order`` (see the module docstring)."""
    lines = [f'{{"id":{i},"f":{f},"d":{d}}}' for i, (f, d) in ORDER_ROWS.items()]
    lines_table(tenv, "fo", "id INT, f FLOAT, d DOUBLE", root / "fo", lines, "json", False)
    grid = {}
    for key, expr in FLOAT_ORDER.items():
        sql = f"SELECT id, {expr} AS v FROM fo"
        grid[key] = {"sql": sql, "rows": rows_or_error(tenv, sql, lambda r: json.dumps(list(r)))}
        print(key, grid[key], flush=True)
    return {"rows": ORDER_ROWS, "lines": lines, "queries": grid}


def _json_functions(tenv, root: Path) -> dict:
    """The grid ``json_functions`` (see the module docstring)."""
    lines = [json.dumps({"id": i, "s": s}) for i, s in JSON_DOCS.items()]
    lines_table(tenv, "js", "id INT, s STRING", root / "js", lines, "json", False)
    grid = {}
    for key, sql in JSON_FUNCTIONS.items():
        grid[key] = {"sql": sql, "rows": rows_or_error(tenv, sql, lambda r: json.dumps(list(r)))}
        print(key, grid[key], flush=True)
    return {"lines": lines, "queries": grid}


#: ``projected``: queries over ``{t}`` (a changelog format's table with a DECIMAL column ``dm``, and
#: a ROW ``w2`` holding a DECIMAL field) that read the DECIMAL or leave it out (Flink's filesystem
#: source pushes its projection into the format, whose row type then decides the BigDecimal mode).
PROJECTED = {
    "no_decimal": "SELECT id, f, r, w, arr, m FROM {t}",
    "decimal": "SELECT id, f, dm FROM {t}",
    "row_field_plain": "SELECT id, f, w2.a FROM {t}",
    "row_field_decimal": "SELECT id, f, w2.x FROM {t}",
    "row_whole": "SELECT id, f, w2 FROM {t}",
}
PROJECTED_COLUMNS = COLUMNS + ", dm DECIMAL(10, 2), w2 ROW<a DOUBLE, x DECIMAL(10, 2)>"


def _projected(tenv, root: Path) -> dict:
    """The grid ``projected`` (see :data:`PROJECTED`), for each changelog JSON format."""
    grid = {}
    for fmt in ("debezium-json", "canal-json", "maxwell-json"):
        name = "p_" + fmt.replace("-", "_")
        lines_table(tenv, name, PROJECTED_COLUMNS, root / name, messages(fmt), fmt, False)
        for key, sql in PROJECTED.items():
            q = sql.format(t=name)
            grid[f"{name}/{key}"] = {"format": fmt, "sql": q, "messages": messages(fmt),
                                     "rows": rows_or_error(tenv, q, lambda r: json.dumps(as_json(r)))}
            print(name, key, grid[f"{name}/{key}"]["rows"], flush=True)
    return {"columns": PROJECTED_COLUMNS, "queries": grid}


def main(grids: list[str]) -> None:
    """Run the grids (those named; the others kept from :data:`OUT`); write :data:`OUT`."""
    root = Path(tempfile.mkdtemp(prefix="flink-negative-zero-"))
    tenv = streaming_tenv()
    out = json.loads(OUT.read_text(encoding="utf-8")) if grids else {"flink": "2.3", "columns": COLUMNS}
    if not grids or "float_order" in grids:
        out["float_order"] = _float_order(tenv, root)
    if not grids or "json_functions" in grids:
        out["json_functions"] = _json_functions(tenv, root)
    if not grids or "projected" in grids:
        out["projected"] = _projected(tenv, root)
    if grids and not {"formats", "float_double"} & set(grids):
        OUT.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
        return
    formats = {}
    for fmt in ("json", "debezium-json", "canal-json", "maxwell-json"):
        for cols in (COLUMNS, COLUMNS + ", dm DECIMAL(10, 2)"):
            name = "t_" + fmt.replace("-", "_") + ("_dec" if cols != COLUMNS else "")
            lines_table(tenv, name, cols, root / name, messages(fmt), fmt, False)
            rows = rows_or_error(tenv, f"SELECT * FROM {name}", lambda r: json.dumps(as_json(r)))
            formats[name] = {"format": fmt, "columns": cols, "messages": messages(fmt), "rows": rows}
            print(name, formats[name]["rows"], flush=True)
    lines_table(tenv, "fd", "f FLOAT, d DOUBLE", root / "fd", ['{"f":0.1,"d":0.1}'], "json", False)
    grid = {}
    for key, sql in FLOAT_DOUBLE.items():
        rows = rows_or_error(tenv, sql, lambda r: json.dumps(list(r)))
        types = rows_or_error(tenv, f"SELECT TYPEOF(v) FROM ({sql})", lambda r: r[0])
        grid[key] = {"sql": sql, "rows": rows, "types": types}
        print(key, grid[key], flush=True)
    out.update({"formats": formats, "float_double": grid})
    OUT.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv[1:])
