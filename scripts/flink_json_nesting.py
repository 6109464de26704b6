"""Flink 2.3's ``json`` format on deeply nested values, read and unread (session 33).

Jackson's ``StreamReadConstraints`` limit a document's nesting depth (1000 by default; the root
object is depth 1). This runs, in PyFlink's local mini-cluster, a filesystem table ``t (a INT, s
STRING)`` whose ``s`` holds ``k`` nested arrays inside the record's object (depth ``k + 1``), for
``k`` in :data:`DEPTHS`, with the query reading ``s`` or not (the format is then given the
projected type, as the Kafka connector's projection pushdown does) and with
``'json.ignore-parse-errors'`` off (one file per record: the job fails or gives the row) and on
(all records in one file, between two plain ones). ``tests/connectors/test_json_nesting.py``
holds what it printed. Run::

    flock /tmp/flink.lock /work/flinkvenv/bin/python scripts/flink_json_nesting.py
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from flink_json_lines import lines_table, rows_or_error, streaming_tenv  # noqa: E402

#: The nested arrays inside ``s`` (the document's depth is one more: its object).
DEPTHS = (998, 999, 1000, 5000)
QUERIES = {"unread": "SELECT a FROM t", "read": "SELECT a, CHAR_LENGTH(s) FROM t"}


def record(a: int, k: int) -> str:
    """The record ``a`` whose ``s`` is ``k`` nested arrays (``k = 0``: the string ``"x"``)."""
    return json.dumps({"a": a, "s": "x"}) if k == 0 else '{"a":%d,"s":%s}' % (a, "[" * k + "]" * k)


def main() -> None:
    """Print one JSON line per case: depth, query, ignore, and Flink's rows or error."""
    root = Path(tempfile.mkdtemp(prefix="flink-json-nesting-"))
    tenv = streaming_tenv()

    def run(name: str, k: int | list[int], lines: list[str], ignore: bool) -> None:
        lines_table(tenv, name, "a INT, s STRING", root / name, lines, "json", ignore)
        for what, query in QUERIES.items():
            out = rows_or_error(tenv, query.replace(" t", f" {name}"))
            print(json.dumps({"k": k, "query": what, "ignore": ignore, "result": out}), flush=True)

    for k in DEPTHS:
        run(f"t{k}", k, [record(1, k)], False)
    run("tall", list(DEPTHS), [record(0, 0), *(record(k, k) for k in DEPTHS), record(9, 0)], True)


if __name__ == "__main__":
    main()
