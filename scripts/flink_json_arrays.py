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
import tempfile
from pathlib import Path

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


def _error(e: Exception) -> str:
    """The last ``Caused by`` line of a Java exception (Flink's own reason)."""
    causes = [ln for ln in str(e).splitlines() if ln.startswith("Caused by: ")]
    return (causes[-1] if causes else str(e).splitlines()[0])[:300]


def main() -> None:
    """Run :data:`CASES` under :data:`QUERIES`; write :data:`OUT`."""
    from pyflink.table import EnvironmentSettings, TableEnvironment

    tenv = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    tenv.get_config().set("parallelism.default", "1")
    out = {}
    for name, (lines, ignore) in CASES.items():
        folder = Path(tempfile.mkdtemp(prefix="flink-json-arrays-"))
        (folder / "r.json").write_text("\n".join(lines) + "\n")
        tenv.execute_sql(f"CREATE TABLE t_{name} (a INT, b STRING) WITH ('connector' = 'filesystem', "
                         f"'path' = '{folder}', 'format' = 'json', "
                         f"'json.ignore-parse-errors' = '{str(ignore).lower()}')")
        for q, query in QUERIES.items():
            try:
                with tenv.execute_sql(query.format(t=f"t_{name}")).collect() as rows:
                    result = sorted(json.dumps(list(r)) for r in rows)
            except Exception as e:  # noqa: BLE001  (PyFlink's wrappers and Py4JJavaError)
                result = {"error": _error(e)}
            out[f"{name}-{q}"] = {"lines": lines, "ignore": ignore, "query": query, "result": result}
            print(name, q, result, flush=True)
    OUT.write_text(json.dumps({"flink": "2.3", "cases": out}, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
