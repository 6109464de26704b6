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
import tempfile
from pathlib import Path

#: The nested arrays inside ``s`` (the document's depth is one more: its object).
DEPTHS = (998, 999, 1000, 5000)
QUERIES = {"unread": "SELECT a FROM t", "read": "SELECT a, CHAR_LENGTH(s) FROM t"}


def record(a: int, k: int) -> str:
    """The record ``a`` whose ``s`` is ``k`` nested arrays (``k = 0``: the string ``"x"``)."""
    return json.dumps({"a": a, "s": "x"}) if k == 0 else '{"a":%d,"s":%s}' % (a, "[" * k + "]" * k)


def _error(e: Exception) -> str:
    """The last ``Caused by`` line of a Java exception (Flink's own reason)."""
    causes = [ln for ln in str(e).splitlines() if ln.startswith("Caused by: ")]
    return (causes[-1] if causes else str(e).splitlines()[0])[:300]


def main() -> None:
    """Print one JSON line per case: depth, query, ignore, and Flink's rows or error."""
    from pyflink.table import EnvironmentSettings, TableEnvironment

    root = Path(tempfile.mkdtemp(prefix="flink-json-nesting-"))
    tenv = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    tenv.get_config().set("parallelism.default", "1")

    def run(name: str, path: Path, ignore: bool, query: str):
        tenv.execute_sql(f"DROP TABLE IF EXISTS {name}")
        tenv.execute_sql(f"CREATE TABLE {name} (a INT, s STRING) WITH ('connector' = 'filesystem', "
                         f"'path' = '{path}', 'format' = 'json', "
                         f"'json.ignore-parse-errors' = '{str(ignore).lower()}')")
        try:
            with tenv.execute_sql(query.replace(" t", f" {name}")).collect() as rows:
                return sorted(list(r) for r in rows)
        except Exception as e:
            return {"error": _error(e)}

    for k in DEPTHS:
        folder = root / f"k{k}"
        folder.mkdir()
        (folder / "r.json").write_text(record(1, k) + "\n")
        for what, query in QUERIES.items():
            out = run(f"t{k}", folder, False, query)
            print(json.dumps({"k": k, "query": what, "ignore": False, "result": out}), flush=True)
    folder = root / "all"
    folder.mkdir()
    lines = [record(0, 0), *(record(k, k) for k in DEPTHS), record(9, 0)]
    (folder / "r.json").write_text("\n".join(lines) + "\n")
    for what, query in QUERIES.items():
        out = run("tall", folder, True, query)
        print(json.dumps({"k": list(DEPTHS), "query": what, "ignore": True, "result": out}), flush=True)


if __name__ == "__main__":
    main()
