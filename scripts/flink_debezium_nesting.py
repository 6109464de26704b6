"""Flink 2.3's ``debezium-json`` format on records nested 1000 to 1030 deep (Jackson's nesting limit).

Jackson's ``StreamReadConstraints`` refuse a document nested deeper than 1000 (the record's object
is depth 1). This runs, in PyFlink's local mini-cluster, a filesystem table ``t (k INT)`` in the
``debezium-json`` format whose records' ``after`` holds an unread field ``d`` of nested arrays, so
that the record is :data:`DEPTHS` deep: with ``'debezium-json.ignore-parse-errors'`` off (one file
per depth: the rows or the job's error) and on (the deep records between two plain ones). Writes
``tests/connectors/debezium_nesting_flink.json``, which ``tests/connectors/test_debezium_nesting.py``
compares StreamSQL with. Run::

    flock /tmp/flink.lock /work/flinkvenv/bin/python scripts/flink_debezium_nesting.py
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "tests" / "connectors" / "debezium_nesting_flink.json"
#: The records' nesting depths (the record's object is 1, its "after" 2).
DEPTHS = (1000, 1001, 1024, 1030)


def record(k: int, depth: int) -> str:
    """A Debezium insert of ``k`` nested ``depth`` deep (``depth`` < 3: a flat one)."""
    deep = "[" * (depth - 2) + "]" * (depth - 2) if depth > 2 else "0"
    return '{"before":null,"after":{"k":%d,"d":%s},"op":"c"}' % (k, deep)


def _error(e: Exception) -> str:
    """The last ``Caused by`` line of a Java exception (Flink's own reason)."""
    causes = [ln for ln in str(e).splitlines() if ln.startswith("Caused by: ")]
    return (causes[-1] if causes else str(e).splitlines()[0])[:300]


def main() -> None:
    """Run the cases; write :data:`OUT` (per case: depth(s), ignore, and the rows or the error)."""
    from pyflink.table import EnvironmentSettings, TableEnvironment

    root = Path(tempfile.mkdtemp(prefix="flink-debezium-nesting-"))
    tenv = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    tenv.get_config().set("parallelism.default", "1")

    def run(name: str, path: Path, ignore: bool):
        tenv.execute_sql(f"CREATE TABLE {name} (k INT) WITH ('connector' = 'filesystem', 'path' = '{path}', "
                         f"'format' = 'debezium-json', 'debezium-json.ignore-parse-errors' = "
                         f"'{str(ignore).lower()}')")
        try:
            with tenv.execute_sql(f"SELECT k FROM {name}").collect() as rows:
                return sorted(f"{r.get_row_kind()}{list(r)}" for r in rows)
        except Exception as e:  # noqa: BLE001  (PyFlink's wrappers and Py4JJavaError)
            return {"error": _error(e)}

    cases = []
    for depth in DEPTHS:
        folder = root / f"d{depth}"
        folder.mkdir()
        (folder / "r.json").write_text(record(depth, depth) + "\n")
        cases.append({"depths": [depth], "ignore": False, "result": run(f"t{depth}", folder, False)})
        print(cases[-1], flush=True)
    folder = root / "all"
    folder.mkdir()
    lines = [record(0, 0), *(record(d, d) for d in DEPTHS), record(9, 0)]
    (folder / "r.json").write_text("\n".join(lines) + "\n")
    cases.append({"depths": [0, *DEPTHS, 9], "ignore": True, "result": run("tall", folder, True)})
    print(cases[-1], flush=True)
    OUT.write_text(json.dumps({"flink": "2.3", "cases": cases}, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
