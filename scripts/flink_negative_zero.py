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
  FLOAT with DOUBLE in UNION ALL, CASE, COALESCE, IN and VALUES (session 35's queryfuzz35 finding).

Run::

    flock /tmp/flink.lock /work/flinkvenv/bin/python scripts/flink_negative_zero.py
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


def main() -> None:
    """Run both grids; write :data:`OUT`."""
    root = Path(tempfile.mkdtemp(prefix="flink-negative-zero-"))
    tenv = streaming_tenv()
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
    OUT.write_text(json.dumps({"flink": "2.3", "columns": COLUMNS, "formats": formats, "float_double": grid},
                              indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
