"""Record the bytes Apache Flink 2.3's ``json`` format writes for rows read from JSON records.

Writes ``tests/connectors/json_encode_flink.json``: per case the source and sink columns, the sink's
extra options, the ``SELECT``, the input lines and the lines Flink's filesystem sink wrote
(``tests/connectors/test_json_encode_flink.py`` runs the same statement here and compares the
bytes). The input records are written the way a producer might (fields reordered, an extra
field, whitespace, escapes, a missing field, ``1e20``, ``2.50``, ``.000`` fractions), so the
cases also show where the bytes Flink writes differ from the bytes it read — why a sink may not
forward a consumed record's value unchanged (``docs/json-pass-through.md``).

Batch mode, parallelism 1 (one output file, rows in input order), time zone UTC. Run it through
the shared Flink lock (naming cases reruns only those)::

    flock /tmp/flink.lock /work/flinkvenv/bin/python scripts/flink_json_encode.py [CASE ...]

The ``csv_*`` cases write the ``csv`` format instead (the case's ``format``).
"""

from __future__ import annotations

import glob
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "connectors" / "json_encode_flink.json"

TIMES = [
    '{"a":1,"ts":"2024-05-01 10:00:00.000"}',
    '{"a":2,"ts":"2024-05-01 10:00:00"}',
    '{"a":3,"ts":"2024-05-01 10:00:00.1"}',
    '{"a":4,"ts":"2024-05-01 10:00:00.120"}',
    '{"a":5,"ts":"2024-05-01 10:00:00.999"}',
    '{"a":6,"ts":"1969-12-31 23:59:59.010"}',
    '{"a":7,"ts":null}',
    '{"a":8,"ts":"2023-11-14 22:13:20.000"}',
]
TIME_SINK = "a BIGINT, ts TIMESTAMP(3), ltz TIMESTAMP_LTZ(3), ts6 TIMESTAMP(6)"
TIME_SELECT = "SELECT a, ts, CAST(ts AS TIMESTAMP_LTZ(3)), CAST(ts AS TIMESTAMP(6)) FROM src"
DECIMALS = [
    '{"k":1,"d2":100.00,"d18":0.000000000000000001}',
    '{"k":2,"d2":0.00,"d18":100}',
    '{"k":3,"d2":0.10,"d18":1234.5}',
    '{"k":4,"d2":1234.50,"d18":-0.5}',
    '{"k":5,"d2":-0.01,"d18":0}',
    '{"k":6,"d2":12.3,"d18":123.456}',
    '{"k":7,"d2":1500,"d18":0.000001}',
    '{"k":8,"d2":null,"d18":0.0000001}',
    '{"k":9,"d2":-20,"d18":12345678901234567890.123456789012345678}',
]
RECORDS = [
    '{"a":1,"s":"x","b":true}',
    '{"s":"reordered","a":2,"b":false}',
    '{"a":3,"s":"extra","b":true,"zz":1}',
    '{ "a" : 4 , "s" : "space", "b" : true }',
    '{"a":5,"s":"\\u00e9\\/\\u0041","b":true}',
    '{"a":6,"s":null,"b":true}',
    '{"a":7,"b":false}',
    '{"a":8,"s":"ctl\\t\\u0001\\"q\\\\ \u00e9 \u2603","b":null}',
]
FLOATS = [
    '{"k":1,"f":1.5,"x":100}',
    '{"k":2,"f":0.1,"x":1e20}',
    '{"k":3,"f":1e-5,"x":1.0E-7}',
    '{"k":4,"f":100,"x":123456789.123}',
    '{"k":5,"f":2.5e-8,"x":10000000.0}',
]
NON_BMP = ['{"a":1,"s":"clef \U0001d11e"}']
#: Java's Double.toString / Float.toString edges: the 1e-3 / 1e7 thresholds, 17-digit values, the
#: extremes, subnormals, integers beyond 2^53; NaN and the infinities come from the SELECT (k 90-93).
FLOAT_EDGES = [
    '{"k":1,"f":0.001,"x":0.001}', '{"k":2,"f":0.00099,"x":0.000999}', '{"k":3,"f":9999999,"x":9999999.999}',
    '{"k":4,"f":10000000,"x":10000000}', '{"k":5,"f":-0.0,"x":-0.0}', '{"k":6,"f":0,"x":0}',
    '{"k":7,"f":0.3,"x":0.30000000000000004}', '{"k":8,"f":123456789.123,"x":1.7976931348623157e308}',
    '{"k":9,"f":3.4028235e38,"x":4.9e-324}', '{"k":10,"f":1.4e-45,"x":2.2250738585072014e-308}',
    '{"k":11,"f":1.17549435e-38,"x":1e-320}', '{"k":12,"f":16777217,"x":9007199254740993}',
    '{"k":13,"f":-1.5e10,"x":-1234567.125}', '{"k":14,"f":0.6666667,"x":0.6666666666666666}',
    '{"k":15,"f":2e23,"x":2e23}', '{"k":16,"f":8.41e21,"x":8.41e21}',
    '{"k":17,"f":1e23,"x":2.82879384806159e17}', '{"k":18,"f":5e-5,"x":1.1e-6}',
    '{"k":19,"f":1.0E-10,"x":123456789012345680000}', '{"k":20,"f":null,"x":null}',
    '{"k":90,"f":1,"x":1}', '{"k":91,"f":1,"x":1}', '{"k":92,"f":1,"x":1}', '{"k":93,"f":1,"x":1}',
]
FLOAT_EDGE_SELECT = "SELECT k, f, x FROM src WHERE k < 90"
#: NaN and the infinities, one kind per case (a job that fails writes nothing), cast at run time
#: from text (the planner folds a constant CAST('NaN' AS DOUBLE) through BigDecimal and fails).
NAN_INPUT = ['{"k":1,"s":"NaN"}', '{"k":2,"s":"Infinity"}', '{"k":3,"s":"-Infinity"}']
NAN_SELECT = "SELECT k, CAST(NULL AS FLOAT), CAST(s AS DOUBLE) FROM src WHERE k = {v}"
NAN_FLOAT_SELECT = "SELECT k, CAST(s AS FLOAT), CAST(NULL AS DOUBLE) FROM src WHERE k = {v}"
FLOAT_CAST_SELECT = "SELECT k, CAST(f AS STRING), CAST(x AS STRING) FROM src"
#: Strings beyond the BMP and around Jackson's escaping: DEL, U+2028/U+2029, U+FFFF, an emoji.
STRINGS = [
    '{"a":1,"s":"\U0001f600 smile"}', '{"a":2,"s":"del \u007f sep \u2028 \u2029 end \uffff"}',
    '{"a":3,"s":"\\ud83d\\ude00\\u0000\\u001f/<>&\\u0027"}', '{"a":4,"s":"mix \u00e9\U0001d11e\u2603"}',
    '{"a":5,"s":""}', '{"a":6,"s":"tab\\there, \\"q\\" ;x\\ny"}',
]
TYPES = [
    '{"k":1,"d":"2024-05-01","b":"AQID","bo":true,"ti":-128,"si":32767}',
    '{"k":2,"d":"0001-01-01","b":"","bo":false,"ti":127,"si":-32768}',
    '{"k":3,"d":"9999-12-31","b":"/+8=","bo":null,"ti":0,"si":0}',
    '{"k":4,"d":null,"b":null,"bo":true,"ti":null,"si":null}',
]
TYPES_SOURCE = "k INT, d DATE, b BYTES, bo BOOLEAN, ti TINYINT, si SMALLINT"
NESTED = [
    '{"k":1,"a":[1,null,3],"s":["x",null,"\\u00e9"],"m":{"a":1.5,"b":null},"r":{"x":1,"s":"q","d":1e20},'
    '"ar":[{"x":1,"y":0.1},null,{"x":null,"y":null}],"ad":[1.50,null],"rt":{"ts":"2024-05-01 10:00:00.120",'
    '"amount":100.00}}',
    '{"k":2,"a":[],"s":[],"m":{},"r":{"x":null,"s":null,"d":null},"ar":[],"ad":[],"rt":{"ts":null,"amount":null}}',
    '{"k":3,"a":null,"s":null,"m":null,"r":null,"ar":null,"ad":null,"rt":null}',
    '{"k":4,"a":[-1],"s":["a\\"b"],"m":{"k\\u00e9":100},"r":{"x":2,"s":"","d":100},'
    '"ar":[{"x":2,"y":1e-5}],"ad":[0.10,-20],"rt":{"ts":"1969-12-31 23:59:59.010","amount":0.00}}',
]
NESTED_SOURCE = ("k INT, a ARRAY<INT>, s ARRAY<STRING>, m MAP<STRING, DOUBLE>, "
                 "r ROW<x INT, s STRING, d DOUBLE>, ar ARRAY<ROW<x INT, y DOUBLE>>, "
                 "ad ARRAY<DECIMAL(10, 2)>, rt ROW<ts TIMESTAMP(3), amount DECIMAL(10, 2)>")
MAPS = [
    '{"id":1,"m":{"b":1,"a":2,"c":3,"key10":4,"key2":5,"zz":6,"AA":7,"x1":8,"x9":9,"\u00e9":10,'
    '"hello world":11,"":12}}',
    '{"id":2,"m":{"zz":1,"b":2,"a":3}}',
    '{"id":3,"m":{"q":1,"p":2,"o":3,"n":4,"m":5,"l":6,"k":7,"j":8,"i":9,"h":10,"g":11,"f":12,"e":13,"d":14,'
    '"c":15,"b":16,"a":17}}',
]
MAP_TEXTS = [
    '{"id":1,"s":"b=1,a=2,zz=3,key10=4,key2=5","m":{"a":1,"b":2},"n":{"b":3,"c":4}}',
    '{"id":2,"s":"i=1,b=2,a=3,c=4,d=5,i=6,\u00e9=7,=8","m":{"zz":1,"key10":2},"n":{"a":4,"zz":5}}',
    '{"id":3,"s":"x,y=,q=1","m":{},"n":{"k":1}}',
]
#: ARRAY and ROW values whose text has the delimiters, the quote character, spaces, long text.
CSV_NESTED = [
    '{"k":5,"a":[7],"s":["a;b","c"],"r":{"x":1,"s":"q\\"r","d":0.5}}',
    '{"k":6,"a":[null,null],"s":["has space","z,y"],'
    '"r":{"x":null,"s":"abcdefghijklmnopqrstuvwxyz","d":null}}',
    '{"k":7,"a":[1,2],"s":["",""],"r":{"x":3,"s":"a|b","d":1e-5}}',
    '{"k":8,"a":[],"s":[null],"r":{"x":4,"s":null,"d":null}}',
]
CSV_NESTED_SOURCE = "k INT, a ARRAY<INT>, s ARRAY<STRING>, r ROW<x INT, s STRING, d DOUBLE>"
DECIMAL_EDGES = [
    '{"k":1,"d0":10000000000000000000000000000000000000,"d5":0.00001,"d8":0.0000001,"d2":123000.00}',
    '{"k":2,"d0":-99999999999999999999999999999999999999,"d5":-0.10000,"d8":-0.00000010,"d2":-0.00}',
    '{"k":3,"d0":0,"d5":0.99999,"d8":12.5,"d2":99999999.99}',
    '{"k":4,"d0":120,"d5":0,"d8":0.000001,"d2":1000000}',
]
DECIMAL_EDGES_SOURCE = "k INT, d0 DECIMAL(38, 0), d5 DECIMAL(5, 5), d8 DECIMAL(10, 8), d2 DECIMAL(10, 2)"
TIMES_FINE = [
    '{"a":1,"ts":"2024-05-01 10:00:00.123456789"}', '{"a":2,"ts":"2024-05-01 10:00:00.000001"}',
    '{"a":3,"ts":"0001-01-01 00:00:00"}', '{"a":4,"ts":"9999-12-31 23:59:59.999999999"}',
    '{"a":5,"ts":"1900-02-28 12:00:00.1"}',
]
TIMES_FINE_SINK = "a BIGINT, ts TIMESTAMP(9), ts6 TIMESTAMP(6), ltz6 TIMESTAMP_LTZ(6), ltz9 TIMESTAMP_LTZ(9)"
TIMES_FINE_SELECT = ("SELECT a, ts, CAST(ts AS TIMESTAMP(6)), CAST(ts AS TIMESTAMP_LTZ(6)), "
                     "CAST(ts AS TIMESTAMP_LTZ(9)) FROM src")
CSV_STRINGS = RECORDS + ['{"a":9,"s":"comma, \\"quote\\" and\\nnewline","b":true}',
                         '{"a":10,"s":"","b":false}']

#: base64 of 3, 1, 0 bytes and NULL, into columns shorter and longer than the values.
BINARIES = [
    '{"k":1,"s":"abc","b":"AQID","v":"AQID","y":"AQID"}',
    '{"k":2,"s":"abcdef","b":"AQ==","v":"AQ==","y":"AQ=="}',
    '{"k":3,"s":"","b":"","v":"","y":""}', '{"k":4,"s":null,"b":null,"v":null,"y":null}',
]
BINARY_SOURCE = "k INT, s STRING, b BINARY(2), v VARBINARY(2), y BYTES"
BINARY_SINK = "k INT, b4 BINARY(4), v1 VARBINARY(1), y2 BINARY(2), s3 VARBINARY(3), bs STRING"
BINARY_SELECT = ("SELECT k, b, v, CAST(y AS BINARY(2)), CAST(s AS VARBINARY(3)), "
                 "CAST(CAST(b AS BINARY(3)) AS STRING) FROM src")

CASES = [
    {"name": "timestamps", "source": "a BIGINT, ts TIMESTAMP(3)", "sink": TIME_SINK, "options": {},
     "select": TIME_SELECT, "input": TIMES},
    {"name": "timestamps_iso", "source": "a BIGINT, ts TIMESTAMP(3)", "sink": TIME_SINK,
     "options": {"json.timestamp-format.standard": "ISO-8601"}, "select": TIME_SELECT, "input": TIMES},
    {"name": "cast_timestamp0", "source": "a BIGINT, ts TIMESTAMP(3)", "sink": "a BIGINT, ts0 TIMESTAMP(0)",
     "options": {}, "select": "SELECT a, CAST(ts AS TIMESTAMP(0)) FROM src", "input": TIMES},
    {"name": "decimals", "source": "k INT, d2 DECIMAL(10, 2), d18 DECIMAL(38, 18)", "options": {},
     "input": DECIMALS},
    {"name": "decimals_plain", "source": "k INT, d2 DECIMAL(10, 2), d18 DECIMAL(38, 18)",
     "options": {"json.encode.decimal-as-plain-number": "true"}, "input": DECIMALS},
    {"name": "records", "source": "a BIGINT, s STRING, b BOOLEAN", "options": {}, "input": RECORDS},
    {"name": "floats", "source": "k INT, f FLOAT, x DOUBLE", "options": {}, "input": FLOATS},
    {"name": "non_bmp", "source": "a INT, s STRING", "options": {}, "input": NON_BMP},
    {"name": "float_edges", "source": "k INT, f FLOAT, x DOUBLE", "options": {}, "select": FLOAT_EDGE_SELECT,
     "input": FLOAT_EDGES},
    *({"name": f"{'csv_' if fmt == 'csv' else ''}float_{name}{suffix}", "format": fmt,
       "source": "k INT, s STRING",
       "sink": "k INT, f FLOAT, x DOUBLE", "options": {}, "select": select.format(v=v), "input": NAN_INPUT}
      for name, v in (("nan", 1), ("inf", 2), ("neg_inf", 3))
      for suffix, select in (("", NAN_SELECT), ("_float", NAN_FLOAT_SELECT))
      for fmt in ("json", "csv")),
    {"name": "float_cast_string", "source": "k INT, f FLOAT, x DOUBLE", "sink": "k INT, fs STRING, xs STRING",
     "options": {}, "select": FLOAT_CAST_SELECT, "input": FLOAT_EDGES},
    {"name": "strings", "source": "a INT, s STRING", "options": {}, "input": STRINGS},
    {"name": "types", "source": TYPES_SOURCE, "options": {}, "input": TYPES},
    {"name": "nested", "source": NESTED_SOURCE, "options": {}, "input": NESTED},
    {"name": "decimal_edges", "source": DECIMAL_EDGES_SOURCE, "options": {}, "input": DECIMAL_EDGES},
    {"name": "decimal_edges_plain", "source": DECIMAL_EDGES_SOURCE,
     "options": {"json.encode.decimal-as-plain-number": "true"}, "input": DECIMAL_EDGES},
    {"name": "timestamps_fine", "source": "a BIGINT, ts TIMESTAMP(9)", "sink": TIMES_FINE_SINK, "options": {},
     "select": TIMES_FINE_SELECT, "input": TIMES_FINE},
    {"name": "timestamps_fine_iso", "source": "a BIGINT, ts TIMESTAMP(9)", "sink": TIMES_FINE_SINK,
     "options": {"json.timestamp-format.standard": "ISO-8601"}, "select": TIMES_FINE_SELECT,
     "input": TIMES_FINE},
    # the debezium-json format (Flink's json serializer inside an envelope)
    {"name": "debezium_floats", "format": "debezium-json", "source": "k INT, f FLOAT, x DOUBLE",
     "options": {}, "select": FLOAT_EDGE_SELECT, "input": FLOATS + FLOAT_EDGES},
    {"name": "debezium_strings", "format": "debezium-json", "source": "a INT, s STRING", "options": {},
     "input": STRINGS},
    # the csv format, from the same JSON sources
    {"name": "csv_floats", "format": "csv", "source": "k INT, f FLOAT, x DOUBLE", "options": {},
     "select": FLOAT_EDGE_SELECT, "input": FLOATS + FLOAT_EDGES},
    {"name": "csv_strings", "format": "csv", "source": "a BIGINT, s STRING, b BOOLEAN", "options": {},
     "input": CSV_STRINGS},
    {"name": "csv_non_bmp", "format": "csv", "source": "a INT, s STRING", "options": {}, "input": STRINGS},
    {"name": "csv_types", "format": "csv", "source": TYPES_SOURCE, "options": {}, "input": TYPES},
    {"name": "csv_decimals", "format": "csv", "source": "k INT, d2 DECIMAL(10, 2), d18 DECIMAL(38, 18)",
     "options": {}, "input": DECIMALS},
    {"name": "csv_decimal_edges", "format": "csv", "source": DECIMAL_EDGES_SOURCE, "options": {},
     "input": DECIMAL_EDGES},
    {"name": "csv_timestamps", "format": "csv", "source": "a BIGINT, ts TIMESTAMP(3)", "sink": TIME_SINK,
     "options": {}, "select": TIME_SELECT, "input": TIMES},
    {"name": "csv_timestamps_fine", "format": "csv", "source": "a BIGINT, ts TIMESTAMP(9)",
     "sink": TIMES_FINE_SINK, "options": {}, "select": TIMES_FINE_SELECT, "input": TIMES_FINE},
    {"name": "csv_pipe_delimiter", "format": "csv", "source": "a BIGINT, s STRING, b BOOLEAN",
     "options": {"csv.field-delimiter": "|", "csv.quote-character": "'", "csv.null-literal": "N/A"},
     "input": CSV_STRINGS + ['{"a":11,"s":"x|y","b":true}', '{"a":12,"s":"abc","b":true}',
                             '{"a":13,"s":"~}|{z","b":true}', '{"a":14,"s":"it\'s","b":true}']},
    {"name": "csv_tab_delimiter", "format": "csv", "source": "a BIGINT, s STRING, b BOOLEAN",
     "options": {"csv.field-delimiter": "\\t"},
     "input": CSV_STRINGS + ['{"a":11,"s":"x y","b":true}', '{"a":12,"s":"a#b!c","b":true}']},
    {"name": "csv_long_strings", "format": "csv", "source": "a INT, s STRING", "options": {},
     "input": ['{"a":1,"s":"abcdefghijklmnopqrstuvwx"}', '{"a":2,"s":"abcdefghijklmnopqrstuvwxy"}',
               '{"a":3,"s":"' + "\U0001f600" * 12 + '"}', '{"a":4,"s":"' + "\U0001f600" * 13 + '"}',
               '{"a":5,"s":"' + "\u00e9" * 25 + '"}']},
    {"name": "csv_escape_character", "format": "csv", "source": "a BIGINT, s STRING, b BOOLEAN",
     "options": {"csv.escape-character": "\\"},
     "input": CSV_STRINGS + ['{"a":11,"s":"back\\\\slash","b":true}']},
    {"name": "csv_arrays", "format": "csv",
     "source": "k INT, a ARRAY<INT>, s ARRAY<STRING>, ad ARRAY<DECIMAL(10, 2)>",
     "options": {}, "input": NESTED},
    # the order of a MAP's entries: a map read from JSON is a java.util.HashMap in Flink, MAP[...] as written
    {"name": "map_order", "source": "id INT, m MAP<STRING, INT>", "sink": "id INT, m MAP<STRING, INT>, "
     "c MAP<STRING, INT>", "options": {}, "input": MAPS,
     "select": "SELECT id, m, MAP['b', id, 'a', 2, 'zz', 3, 'key10', 4, 'key2', 5] FROM src"},
    # the functions' maps: STR_TO_MAP a HashMap's order (sized for its pairs), MAP_UNION the later map's first
    {"name": "map_order_functions", "source": "id INT, s STRING, m MAP<STRING, INT>, n MAP<STRING, INT>",
     "sink": "id INT, sm MAP<STRING, STRING>, u MAP<STRING, INT>", "options": {}, "input": MAP_TEXTS,
     "select": "SELECT id, STR_TO_MAP(s), MAP_UNION(m, n) FROM src"},
    # ROW columns, the null literal and the element delimiter inside ARRAY and ROW values, quoting
    {"name": "csv_rows", "format": "csv",
     "source": "k INT, r ROW<x INT, s STRING, d DOUBLE>, rt ROW<ts TIMESTAMP(3), amount DECIMAL(10, 2)>",
     "options": {}, "input": NESTED},
    {"name": "csv_nested_null_literal", "format": "csv", "source": CSV_NESTED_SOURCE,
     "options": {"csv.null-literal": "N"}, "input": NESTED + CSV_NESTED},
    {"name": "csv_array_element_delimiter", "format": "csv", "source": CSV_NESTED_SOURCE,
     "options": {"csv.array-element-delimiter": "|"}, "input": NESTED + CSV_NESTED},
    {"name": "csv_nested_quoting", "format": "csv", "source": CSV_NESTED_SOURCE, "options": {},
     "input": CSV_NESTED},
    {"name": "csv_array_types", "format": "csv",
     "source": "k INT, ts ARRAY<TIMESTAMP(3)>, y ARRAY<BYTES>, b ARRAY<BOOLEAN>, f ARRAY<DOUBLE>, "
               "dt ARRAY<DATE>, ltz ARRAY<TIMESTAMP_LTZ(3)>",
     "options": {}, "input": [
         '{"k":1,"ts":["2024-05-01 10:00:00.120","2024-05-01 10:00:00"],"y":["AQI=",""],'
         '"b":[true,false,null],"f":[1.5,1e20,null],"dt":["2024-01-02"],"ltz":["2024-05-01 10:00:00.1Z"]}',
         '{"k":2,"ts":[null],"y":[null],"b":[],"f":[0.1],"dt":[null,"1970-01-01"],"ltz":[]}']},
    # BINARY(n) / VARBINARY(n): what a source reads past the length, what an INSERT's cast writes
    *({"name": f"{'csv_' if fmt == 'csv' else ''}binary_lengths", "format": fmt, "source": BINARY_SOURCE,
       "sink": BINARY_SINK, "options": {}, "select": BINARY_SELECT, "input": BINARIES}
      for fmt in ("json", "csv")),
    {"name": "binary_pass_through", "source": BINARY_SOURCE, "options": {}, "input": BINARIES},
]


def with_options(options: dict[str, str]) -> str:
    """``, 'k' = 'v'`` for each sink option (quotes in a value doubled)."""
    return "".join(", '{}' = '{}'".format(k, v.replace("'", "''")) for k, v in options.items())


def run_case(case: dict, scratch: Path) -> list[str]:
    """The lines Flink's filesystem sink wrote for ``case``."""
    from pyflink.table import EnvironmentSettings, TableEnvironment

    t = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
    t.get_config().set("table.local-time-zone", "UTC")
    t.get_config().set("parallelism.default", "1")
    src = scratch / f"{case['name']}.json"
    src.write_text("\n".join(case["input"]) + "\n", encoding="utf-8")
    out = scratch / f"{case['name']}_out"
    t.execute_sql(f"CREATE TABLE src ({case['source']}) WITH ('connector' = 'filesystem', "
                  f"'path' = '{src}', 'format' = 'json')")
    t.execute_sql(f"CREATE TABLE dst ({case.get('sink', case['source'])}) WITH ('connector' = 'filesystem', "
                  f"'path' = '{out}', 'format' = '{case.get('format', 'json')}'"
                  f"{with_options(case['options'])})")
    t.execute_sql(f"INSERT INTO dst {case.get('select', 'SELECT * FROM src')}").wait()
    lines: list[str] = []
    for p in sorted(glob.glob(f"{out}/*")):
        lines += Path(p).read_text(encoding="utf-8").splitlines()
    return lines


def _root_cause(e) -> str:
    """The innermost Java exception of a failed job and the frame that threw it."""
    lines = str(e).splitlines()
    caused = [i for i, ln in enumerate(lines) if ln.startswith("Caused by:")]
    i = caused[-1] if caused else 0
    frame = next((ln.strip() for ln in lines[i + 1:] if ln.strip().startswith("at ")), "")
    return f"{lines[i]} {frame}".strip()


def main(names: list[str]) -> int:
    """Run the cases (those named, or all) on Flink and write :data:`OUT` (other cases kept).

    A case Flink fails records Flink's error instead of output lines.
    """
    from py4j.protocol import Py4JJavaError

    known = {c["name"]: c for c in json.loads(OUT.read_text("utf-8"))["cases"]} if names else {}
    cases = []
    with tempfile.TemporaryDirectory(prefix="flink-json-") as d:
        for c in CASES:
            if names and c["name"] not in names:
                if c["name"] in known:
                    cases.append(known[c["name"]])
                continue
            try:
                cases.append({**c, "output": run_case(c, Path(d))})
            except Py4JJavaError as e:
                cases.append({**c, "error": _root_cause(e)})
            print(c["name"], "error" if "error" in cases[-1] else "ok", file=sys.stderr)
    OUT.write_text(json.dumps({"flink": "2.3", "cases": cases}, indent=1, ensure_ascii=False) + "\n",
                   encoding="utf-8")
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
