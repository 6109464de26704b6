"""Record the bytes Apache Flink 2.3's ``json`` format writes for rows read from JSON records.

Writes ``tests/connectors/json_encode_flink.json``: per case the source and sink columns, the sink's
extra options, the ``SELECT``, the input lines and the lines Flink's filesystem sink wrote
(``tests/connectors/test_json_encode_flink.py`` runs the same statement here and compares the
bytes). The input records are written the way a producer might (fields reordered, an extra
field, whitespace, escapes, a missing field, ``1e20``, ``2.50``, ``.000`` fractions), so the
cases also show where the bytes Flink writes differ from the bytes it read — why a sink may not
forward a consumed record's value unchanged (``docs/json-pass-through.md``).

Batch mode, parallelism 1 (one output file, rows in input order), time zone UTC. Run it through
the shared Flink lock::

    flock /tmp/flink.lock /work/flinkvenv/bin/python scripts/flink_json_encode.py
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
]


def with_options(options: dict[str, str]) -> str:
    """``, 'k'='v'`` for each sink option."""
    return "".join(f", '{k}' = '{v}'" for k, v in options.items())


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
                  f"'path' = '{out}', 'format' = 'json'{with_options(case['options'])})")
    t.execute_sql(f"INSERT INTO dst {case.get('select', 'SELECT * FROM src')}").wait()
    lines: list[str] = []
    for p in sorted(glob.glob(f"{out}/*")):
        lines += Path(p).read_text(encoding="utf-8").splitlines()
    return lines


def main() -> int:
    """Run every case on Flink and write :data:`OUT`."""
    with tempfile.TemporaryDirectory(prefix="flink-json-") as d:
        cases = [{**c, "output": run_case(c, Path(d))} for c in CASES]
    OUT.write_text(json.dumps({"flink": "2.3", "cases": cases}, indent=1, ensure_ascii=False) + "\n",
                   encoding="utf-8")
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
