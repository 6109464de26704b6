"""Record what Flink 2.3's filesystem sink writes, and reads back, for the filesystem cases.

The cases are ``tests/connectors/filesystem_flink_cases.py``; ``tests/connectors/
test_filesystem_flink.py`` compares StreamSQL's run of the same statements with the record.

Each case is a list of statements run in order in one streaming session at parallelism 1 (a bounded
INSERT from a JSON file or VALUES into a filesystem table under ``{out}``, then queries); the
record keeps, for each INSERT, every file under the sink table's folder (path relative to it, the
random part-file uuid replaced by ``<uuid>``) with its bytes, for each query its sorted rows, and for
a statement Flink refuses its message. ``{out}`` and ``{input}`` are filled in per run.

    /work/flinkvenv/bin/python scripts/flink_filesystem_sink.py   # rewrites the JSON
    /work/flinkvenv/bin/python scripts/flink_filesystem_sink.py CASE ...   # re-records these cases only

``--stream [CASE ...]`` records the unbounded partition-time cases (``STREAM_CASES``) instead, into
``flink_filesystem_stream.json``: each reads a one-partition Kafka topic (written first through
this project's venv, ``CLIENT_PYTHON``; broker ``$STREAMSQL_KAFKA_BOOTSTRAP``) with checkpoints
every 300 ms, and the record is the sink folder once it holds files and stayed the same for 5 s
(hidden in-progress files by name only), then the job is cancelled; or the job's failure (its Java
messages)::

    flock /tmp/flink.lock /work/flinkvenv/bin/python scripts/flink_filesystem_sink.py --stream
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "connectors" / "flink_filesystem_sink.json"
sys.path.insert(0, str(ROOT / "tests" / "connectors"))
from filesystem_flink_cases import (  # noqa: E402
    CASES,
    INPUT_ROWS,
    STREAM_CASES,
    STREAM_ROWS,
    files_under,
    stream_statements,
    visible_and_hidden,
)

STREAM_OUT = ROOT / "tests" / "connectors" / "flink_filesystem_stream.json"
STEADY_S = 5.0


def message(e: Exception) -> str:
    """Flink's own words in a Py4J error (the Validation/TableException's message, else the root cause's)."""
    text = str(e)
    for line in text.splitlines():
        m = re.search(r"(ValidationException|TableException): (.*)", line)
        if m:
            return m.group(2).strip()
    causes = [m.group(1).strip() for m in re.finditer(r"(?:Caused by|^): [\w.$]+: (.*)", text, re.M)]
    return causes[-1] if causes else text.splitlines()[0]  # a failed job's: its root cause


#: Flink's wrapping messages, which say nothing of the cause.
GENERIC = ("Unable to create a sink", "Failed to wait job finish")


def root_cause(e: Exception) -> str:
    """The message of the innermost Java cause of a PyFlink error (or :func:`message`)."""
    cause, last = getattr(e, "java_exception", None), None
    while cause is not None:
        last, cause = cause, cause.getCause()
    return str(last.getMessage()) if last is not None else message(e)


def main() -> None:
    """Run every case (or those named on the command line) in PyFlink and write :data:`OUT`."""
    from pyflink.table import EnvironmentSettings, TableEnvironment

    wanted = sys.argv[1:] or list(CASES)
    unknown = [n for n in wanted if n not in CASES]
    if unknown:
        msg = f"unknown cases: {unknown}"
        raise SystemExit(msg)
    results = json.loads(OUT.read_text()) if sys.argv[1:] and OUT.exists() else {}
    for name in wanted:
        statements = CASES[name]
        work = tempfile.mkdtemp(prefix="flinkfs-")
        inp = os.path.join(work, "input.json")
        Path(inp).write_text("".join(json.dumps(r) + "\n" for r in INPUT_ROWS))
        t = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
        t.get_config().set("parallelism.default", "1")
        t.get_config().set("table.local-time-zone", "UTC")
        steps = []
        for s in statements:
            sql = s.format(out="file://" + os.path.join(work, "out"), input="file://" + inp)
            try:
                if s.lstrip().upper().startswith("SELECT"):
                    rows = sorted(json.dumps(list(r), default=str) for r in t.execute_sql(sql).collect())
                    steps.append({"rows": rows})
                    continue
                t.execute_sql(sql).wait()
                if s.lstrip().upper().startswith("INSERT"):
                    table = re.match(r"\s*INSERT INTO (\w+)", s).group(1)
                    steps.append({"files": files_under(os.path.join(work, "out", table))})
                else:
                    steps.append({"ok": True})
            except Exception as e:  # noqa: BLE001 (Flink's refusal is the record)
                steps.append({"error": message(e)})
                if steps[-1]["error"].startswith(GENERIC):  # its root cause says why
                    steps[-1]["error"] = root_cause(e)
        results[name] = steps
        shutil.rmtree(work, ignore_errors=True)
        print(name, json.dumps(steps)[:300])
    OUT.write_text(json.dumps(results, indent=1, sort_keys=True) + "\n")


def stream_case(name: str, bootstrap: str) -> dict:
    """Run stream case ``name`` on Flink (module docstring): ``{"files": ...}`` or ``{"error": ...}``."""
    import time
    import uuid

    sys.path.insert(0, str(ROOT / "scripts"))
    from flink_session import error_text, kafka_jar, produce_json, table_env

    topic = f"fsq10-flink-{name}-{uuid.uuid4().hex[:8]}"
    produce_json(bootstrap, topic, [[r, []] for r in STREAM_ROWS])
    work = tempfile.mkdtemp(prefix="flinkfs-")
    out = os.path.join(work, "out")
    t = table_env(kafka_jar(), utc=True)
    t.get_config().set("execution.checkpointing.interval", "300 ms")
    try:
        *ddl, insert = stream_statements(name)
        for s in ddl:
            m = re.fullmatch(r"SET '([^']+)' = '([^']*)'", s)
            if m:
                t.get_config().set(m.group(1), m.group(2))
            else:
                t.execute_sql(s.format(topic=topic, bootstrap=bootstrap, out="file://" + out))
        result = t.execute_sql(insert)
        client = result.get_job_client()
        last, since, deadline = None, time.monotonic(), time.monotonic() + 120
        while time.monotonic() < deadline:
            try:
                result.wait(500)  # the job's failure raises here (TimeoutException: still running)
                return {"error": "job ended"}
            except Exception as e:  # noqa: BLE001 (the failure is the record)
                if "TimeoutException" not in str(e):
                    return {"error": error_text(e), "files": visible_and_hidden(os.path.join(out, "s"))}
            now = visible_and_hidden(os.path.join(out, "s"))
            if not now or now != last:  # steady once written: the job's start writes nothing for seconds
                last, since = now, time.monotonic()
            elif time.monotonic() - since >= STEADY_S:
                client.cancel().result()
                return {"files": now}
        client.cancel().result()
        return {"error": "no steady state within 120 s"}
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main_stream(wanted: list[str]) -> None:
    """Record the stream cases (all, or ``wanted``) into :data:`STREAM_OUT`."""
    bootstrap = os.environ.get("STREAMSQL_KAFKA_BOOTSTRAP", "127.0.0.1:9092")
    results = json.loads(STREAM_OUT.read_text()) if wanted and STREAM_OUT.exists() else {}
    for name in wanted or list(STREAM_CASES):
        results[name] = stream_case(name, bootstrap)
        print(name, json.dumps(results[name])[:400])
        STREAM_OUT.write_text(json.dumps(results, indent=1, sort_keys=True) + "\n")  # each case kept


if __name__ == "__main__":
    if sys.argv[1:2] == ["--stream"]:
        main_stream(sys.argv[2:])
    else:
        main()
