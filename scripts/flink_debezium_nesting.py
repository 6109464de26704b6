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
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from flink_json_lines import lines_table, rows_or_error, streaming_tenv  # noqa: E402

OUT = Path(__file__).resolve().parent.parent / "tests" / "connectors" / "debezium_nesting_flink.json"
#: The records' nesting depths (the record's object is 1, its "after" 2).
DEPTHS = (1000, 1001, 1024, 1030)


def record(k: int, depth: int) -> str:
    """A Debezium insert of ``k`` nested ``depth`` deep (``depth`` < 3: a flat one)."""
    deep = "[" * (depth - 2) + "]" * (depth - 2) if depth > 2 else "0"
    return '{"before":null,"after":{"k":%d,"d":%s},"op":"c"}' % (k, deep)


def main() -> None:
    """Run the cases; write :data:`OUT` (per case: depth(s), ignore, and the rows or the error)."""
    root = Path(tempfile.mkdtemp(prefix="flink-debezium-nesting-"))
    tenv = streaming_tenv()
    cases = []

    def run(name: str, depths: list[int], lines: list[str], ignore: bool) -> None:
        lines_table(tenv, name, "k INT", root / name, lines, "debezium-json", ignore)
        result = rows_or_error(tenv, f"SELECT k FROM {name}", lambda r: f"{r.get_row_kind()}{list(r)}")
        cases.append({"depths": depths, "ignore": ignore, "result": result})
        print(cases[-1], flush=True)

    for depth in DEPTHS:
        run(f"t{depth}", [depth], [record(depth, depth)], False)
    run("tall", [0, *DEPTHS, 9], [record(0, 0), *(record(d, d) for d in DEPTHS), record(9, 0)], True)
    OUT.write_text(json.dumps({"flink": "2.3", "cases": cases}, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
