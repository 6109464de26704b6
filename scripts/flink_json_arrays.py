"""Flink 2.3's ``json`` format on records that are JSON arrays (a row per object).

Runs, in PyFlink's local mini-cluster, a filesystem table ``t (a INT, b STRING)`` in the ``json``
format over each case of :data:`CASES` (its records, one a line, and ``'json.ignore-parse-errors'``)
and records the rows of ``SELECT a, b`` and of ``SELECT a`` (the format given the projected type),
or the job's error. Writes ``tests/connectors/json_arrays_flink.json``, which
``tests/connectors/test_json_arrays.py`` compares StreamSQL with (the same filesystem
table). Run::

    flock /tmp/flink.lock /work/flinkvenv/bin/python scripts/flink_json_arrays.py
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from flink_json_lines import lines_table, rows_or_error, streaming_tenv  # noqa: E402

OUT = Path(__file__).resolve().parent.parent / "tests" / "connectors" / "json_arrays_flink.json"
#: name: (the records, ignore-parse-errors)
CASES = {
    "objects": (['[{"a":1,"b":"x"},{"a":2}]', '{"a":3,"b":"z"}'], False),
    "empty": (["[]", '{"a":3}'], False),
    "scalar_element": (['[1,{"a":2}]', '{"a":3}'], False),
    "scalar_element_ignored": (['[1,{"a":2}]', '{"a":3}'], True),
    "nested_array": (['[[{"a":1}]]', '{"a":3}'], False),
    "objects_ignored": (['[{"a":1},{"a":2.5e0,"b":[1]}]', ' [ {"a":4} ] ', '{"a":3}'], True),
    "bad_value_ignored": (['[{"a":1},{"a":"x"}]', '{"a":3}'], True),
}
QUERIES = {"all": "SELECT a, b FROM {t}", "projected": "SELECT a FROM {t}"}


def main() -> None:
    """Run :data:`CASES` under :data:`QUERIES`; write :data:`OUT`."""
    tenv = streaming_tenv()
    out = {}
    for name, (lines, ignore) in CASES.items():
        folder = Path(tempfile.mkdtemp(prefix="flink-json-arrays-"))
        lines_table(tenv, f"t_{name}", "a INT, b STRING", folder, lines, "json", ignore)
        for q, query in QUERIES.items():
            result = rows_or_error(tenv, query.format(t=f"t_{name}"), lambda r: json.dumps(list(r)))
            out[f"{name}-{q}"] = {"lines": lines, "ignore": ignore, "query": query, "result": result}
            print(name, q, result, flush=True)
    OUT.write_text(json.dumps({"flink": "2.3", "cases": out}, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
