"""Run the Nexmark queries on Apache Flink 2.3; record their final tables in benchmarks/nexmark/expected.json.

The events are the ``nexmark`` connector's (:data:`benchmarks.nexmark.results.COMPARE`), written
to a JSON-lines file by StreamSQL (``python -m benchmarks.nexmark load``, run with the
interpreter of ``--python``, default ``$STREAMSQL_PYTHON`` or ``python3``) and read by Flink
through Nexmark's events DDL with a filesystem source; each query's ``nexmark_qN`` table becomes
a print sink, whose changelog is folded into the final table (as ``scripts/flink_compat.py``
does for the compat cases) and summarized (:func:`benchmarks.nexmark.results.summary`). A query
Flink rejects is recorded as ``{"flink_error": ...}``. The processing-time queries (q12, q13)
run too, but only whether Flink accepts them is recorded: their results depend on the wall clock.

One JVM for all queries, serialized with other Flink users::

    flock /tmp/flink.lock /work/flinkvenv/bin/python scripts/nexmark_flink.py [--python PY] [q0 q5 ...]

Another input (``--events``, ``--rate``, ``--base-time``, ``--option KEY=VALUE`` for the
connector's other options: ``seed``, the proportions, ...) is written to ``--out`` instead of the
committed expectations, for ``python -m benchmarks.nexmark compare --expected FILE`` to check
StreamSQL against; ``--rows DIR`` also keeps each query's whole final table (``DIR/qN.json``).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the Flink venv does not install StreamSQL: import the helpers by path
sys.path.insert(0, str(ROOT / "benchmarks" / "nexmark"))  # q14's nexmark_udf, for PyFlink's client

from benchmarks.nexmark import results, sql  # noqa: E402
from scripts.flink_compat import Capture, _error_text  # noqa: E402
from tests.compat.changelog import INSERT, fold, split_statements  # noqa: E402

EXPECTED = ROOT / "benchmarks" / "nexmark" / "expected.json"
SET = re.compile(r"^SET\s+'([^']+)'\s*=\s*'([^']*)'$", re.IGNORECASE | re.DOTALL)
CONFIG = {"table.local-time-zone": "UTC", "parallelism.default": "1"}


def run_query(query: str, events_file: str, side_input: str, capture: Capture, rows_dir: Path | None = None
              ) -> dict:
    """One query on Flink: its summarized final table, or Flink's error (whole table to ``rows_dir``).

    A query of ``sql.FILE_SINK_QUERIES`` (q10) writes its own filesystem table into a temporary
    folder instead of a print sink: its result is ``results.file_summary`` of the committed files.
    """
    from pyflink.table import EnvironmentSettings, TableEnvironment

    tenv = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    for k, v in CONFIG.items():
        tenv.get_config().set(k, v)
    out_dir = tempfile.mkdtemp(prefix=f"nexmark_flink_{query}_")
    statements = split_statements(sql.script(query, sql.file_options(events_file), sql.PRINT, side_input,
                                              out_dir))
    try:
        for s in statements:
            m = SET.match(s)
            if m:
                tenv.get_config().set(m.group(1), m.group(2))
            elif not INSERT.match(s):
                tenv.execute_sql(s)
        insert = next(s for s in statements if INSERT.match(s))
        columns = list(tenv.from_path(INSERT.match(insert).group(1)).get_schema().get_field_names())
        start = capture.mark()
        tenv.execute_sql(insert).wait()
        if query in sql.FILE_SINK_QUERIES:
            return results.file_summary(os.path.join(out_dir, "bid"), columns, ["dt", "hm"])
        lines = capture.since(start)
        key = results.UPSERT_KEYS.get(query)
        rows = results.fold_upsert(lines, columns, key) if key else fold(lines)
    except Exception as e:  # noqa: BLE001  (Flink's rejection is the query's expected outcome)
        return {"flink_error": _error_text(e)}
    if query in sql.PROCTIME_QUERIES:
        return {"columns": columns, "proctime": True}
    if rows_dir is not None:
        results.write_rows(rows_dir / f"{query}.json", columns, rows)
    return results.summary(columns, rows)


def run_q12_on_kafka(c: dict, events_file: Path, python: str, bootstrap: str, capture: Capture,
                     timeout_s: float = 120) -> dict:
    """q12 on Flink over an unbounded Kafka topic of the input ``c``: :func:`results.window_totals`.

    A bounded input drops the processing-time windows still open at its end (Flink 2.3), so the
    topic stays open: every window fires on the wall clock while the source idles. The print
    sink's rows are read until the windows have counted every bid of the input or ``timeout_s``
    passes; then the job is cancelled and the topic deleted.
    """
    import uuid

    from pyflink.table import EnvironmentSettings, TableEnvironment

    from benchmarks.flink_setup import kafka_jar

    topic = f"nexmark_q12_flink_{uuid.uuid4().hex[:8]}"
    admin = ("from benchmarks.common import create_topic, delete_topics\n"
             "from benchmarks.nexmark import load\nimport sys\nt, b = sys.argv[1], sys.argv[2]\n")
    load = (f"create_topic(t, partitions=1, bootstrap=b)\n"
            f"load.to_kafka(t, b, {c['events']}, {c['rate']}, {c['base_time_ms']}, {c.get('options')!r})")
    subprocess.run([python, "-c", admin + load, topic, bootstrap],
                   cwd=ROOT, check=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        tenv = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
        for k, v in {**CONFIG, "pipeline.jars": "file://" + kafka_jar()}.items():
            tenv.get_config().set(k, v)
        source = sql.kafka_options(topic, bootstrap, {"properties.group.id": topic,
                                                      "properties.isolation.level": "read_committed"},
                                   bounded=False)
        statements = split_statements(sql.script("q12", source, sql.PRINT))
        for s in statements:
            if not INSERT.match(s):
                tenv.execute_sql(s)
        insert = next(s for s in statements if INSERT.match(s))
        bids = _bids(events_file)
        start = capture.mark()
        job = tenv.execute_sql(insert).get_job_client()
        deadline = time.monotonic() + timeout_s
        while True:
            time.sleep(2)
            totals = results.window_totals(fold(capture.since(start)))
            if totals["bids"] >= bids or time.monotonic() > deadline:
                break
        job.cancel().result()
        return {**totals, "input_bids": bids}
    finally:
        subprocess.run([python, "-c", admin + "delete_topics([t], bootstrap=b)", topic, bootstrap],
                       cwd=ROOT, check=False, env={**os.environ, "PYTHONPATH": str(ROOT)})


def _bids(events_file: Path) -> int:
    """The bids among the input's events (the JSON-lines file Flink's other runs read)."""
    with open(events_file, encoding="utf-8") as f:
        return sum(json.loads(line)["event_type"] == 2 for line in f)


def main(argv: list[str]) -> int:
    """Regenerate the expectations of the named queries (all when none is named); the exit code."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("queries", nargs="*", default=sql.QUERIES)
    ap.add_argument(
        "--python",
        default=os.environ.get("STREAMSQL_PYTHON", "python3"),
        help="an interpreter that imports StreamSQL (writes the events file)",
    )
    ap.add_argument("--events", type=int, default=results.COMPARE["events"])
    ap.add_argument("--rate", type=int, default=results.COMPARE["rate"], help="first-event.rate (events/s)")
    ap.add_argument("--base-time", type=int, default=results.COMPARE["base_time_ms"],
                    help="ms since the epoch")
    ap.add_argument("--out", type=Path, default=None,
                    help="the expectations file (default: the committed one, for the committed input only)")
    ap.add_argument("--bootstrap", default=os.environ.get("STREAMSQL_KAFKA_BOOTSTRAP", "127.0.0.1:9092"),
                    help="Kafka, for q12's unbounded run")
    ap.add_argument("--rows", type=Path, default=None, help="a folder for each query's whole final table")
    ap.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                    help="another nexmark connector option (seed, bid.proportion, ...); repeatable")
    args = ap.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="nexmark_flink_"))
    events, side_input = work / "events.json", work / "side_input.csv"
    c = {"events": args.events, "rate": args.rate, "base_time_ms": args.base_time}
    options = results.options_arg(ap, args.option)
    if options:
        c["options"] = options
    out_file = args.out or EXPECTED
    if out_file == EXPECTED and c != results.COMPARE:
        ap.error("another input than results.COMPARE needs --out (the committed file is for COMPARE)")
    if args.rows:
        args.rows.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        [
            args.python,
            "-m",
            "benchmarks.nexmark",
            "load",
            "--file",
            str(events),
            "--events",
            str(c["events"]),
            "--rate",
            str(c["rate"]),
            "--base-time",
            str(c["base_time_ms"]),
            *(f"--option={k}={v}" for k, v in options.items()),
        ],
        cwd=ROOT,
        check=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    sql.write_side_input(side_input)
    capture = Capture()
    doc = json.loads(out_file.read_text()) if out_file.exists() else {}
    if doc.get("input", c) != c:
        doc = {}
    doc["input"] = c
    for q in args.queries:
        out = run_query(q, str(events), str(side_input), capture, args.rows)
        if q == "q12" and "flink_error" not in out:
            out["kafka"] = run_q12_on_kafka(c, events, args.python, args.bootstrap, capture)
        doc.setdefault("queries", {})[q] = out
        print(f"{q}: {out.get('flink_error', '')[:150] or out.get('count', 'ran')}", file=capture.out)
    doc["queries"] = {q: doc["queries"][q] for q in sql.QUERIES if q in doc["queries"]}
    out_file.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
