"""Record Apache Flink 2.3's TRY_PARSE_JSON, IS JSON and JSON_* over texts at the edges of Jackson's grammar.

Writes ``tests/functions/variant_text_flink.json``: per query of :data:`QUERIES`, over the texts
(``k INT, s STRING`` read by the filesystem connector as JSON lines), the lines Flink's ``print``
sink wrote (TRY_PARSE_JSON is NULL where PARSE_JSON fails the job). The texts: leading zeros,
a number or literal followed by other characters, a lone surrogate, nesting 1000 and 1001 deep
(Jackson's ``StreamReadConstraints`` maximum nesting depth), trailing commas and NaN.
``tests/functions/test_variant_text.py`` runs the same statements here. Streaming mode, parallelism 1::

    flock /tmp/flink.lock /work/flinkvenv/bin/python scripts/flink_variant_text.py
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))

from flink_compat import Capture  # noqa: E402

OUT = ROOT / "tests" / "functions" / "variant_text_flink.json"
#: name: (the print table's columns, the query)
QUERIES = {
    "variant": ("k INT, v VARIANT", "SELECT k, TRY_PARSE_JSON(s) FROM src"),
    "json": ("k INT, a STRING, b BOOLEAN, c STRING, e BOOLEAN, o BOOLEAN, r BOOLEAN, sc BOOLEAN",
             "SELECT k, JSON_VALUE(s, '$'), s IS JSON, JSON_QUERY(s, '$' WITH WRAPPER), JSON_EXISTS(s, '$'), "
             "s IS JSON OBJECT, s IS JSON ARRAY, s IS JSON SCALAR FROM src"),
}
TEXTS = ["01", "-01", "00", "1x", "1,2", "truex", "nullx", "1.", "1.5x", "[1]x", '{"a":1}x', "1e", "0x10",
         "1 x", "-", '"\\ud800"', '"a\\ud83d\\ude00b"', "\f1", "1\f", "[1]]", "\u00a01",
         "[" * 1000 + "]" * 1000, "[" * 1001 + "]" * 1001, '{"a":' * 1000 + "1" + "}" * 1000,
         '{"a":' * 1001 + "1" + "}" * 1001, "[" * 1001 + "1", "[1,]", '{"a":1,}', "NaN", "-Infinity",
         '"a"x', "{}", "[1] // c", '"\\ud800"x', "\ufeff1", '\ufeff{"a":1}', "-0", "1E400", "1\u0000",
         "true]", "null}", "false,", "true\u00e9", "true$", "true_", "true\u0085", "1\u00a0", "tru",
         '{"a":1}{']


def main() -> int:
    """Run :data:`QUERIES` over :data:`TEXTS`; write :data:`OUT`."""
    from pyflink.table import EnvironmentSettings, TableEnvironment

    capture = Capture()
    with tempfile.TemporaryDirectory(prefix="flink-variant-text-") as d:
        src = Path(d) / "src.json"
        src.write_text("".join(json.dumps({"k": k, "s": s}) + "\n" for k, s in enumerate(TEXTS)), "utf-8")
        t = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
        t.get_config().set("parallelism.default", "1")
        t.execute_sql(f"CREATE TABLE src (k INT, s STRING) WITH ('connector' = 'filesystem', "
                      f"'path' = '{src}', 'format' = 'json')")
        lines = {}
        for name, (columns, query) in QUERIES.items():
            t.execute_sql(f"CREATE TABLE sink_{name} ({columns}) WITH ('connector' = 'print')")
            start = capture.mark()
            t.execute_sql(f"INSERT INTO sink_{name} {query}").wait()
            lines[name] = capture.since(start)
    OUT.write_text(json.dumps({"flink": "2.3", "queries": QUERIES, "texts": TEXTS, "lines": lines},
                              indent=1) + "\n", encoding="utf-8")
    print(f"wrote {OUT}", file=capture.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
