"""Run the Flink compatibility cases on Apache Flink 2.3 and record Flink's final tables.

Flink is the oracle for whole statements: every folder ``tests/compat/cases/<name>/`` holds a
``case.sql`` (``${CASE_DIR}`` stands for the folder's absolute path; sources are filesystem tables
over the folder's JSON-lines / debezium-json files; the INSERT writes to a ``'connector' =
'print'`` table). This script runs each case on PyFlink's local mini-cluster in streaming mode and
writes the case's ``expected.json``:

- ``{"columns": [...], "rows": [[...], ...], "compare": "text"}``: the print sink's changelog
  (``+I[...]``/``-U[...]``/``+U[...]``/``-D[...]``, as Flink's print connector writes it) folded
  into the final table; every cell is the text Flink printed (``null`` becomes JSON null), so the
  test compares it with StreamSQL's print sink text for text (``tests/compat/test_compat.py``);
- ``{"flink_error": "...", "expect_error": [...]}`` when Flink rejects the script (at planning or at
  run time): StreamSQL must reject it too. ``expect_error`` lists substrings StreamSQL's message
  must contain; it is the case author's and is kept when the file is regenerated.

Regenerate (one JVM for all cases, serialized with other Flink users through the shared lock)::

    flock /tmp/flink.lock /work/flinkvenv/bin/python scripts/flink_compat.py            # all
    flock /tmp/flink.lock /work/flinkvenv/bin/python scripts/flink_compat.py NAME ...   # some

How Flink's print output is captured: the JVM inherits this process's standard output (PyFlink
starts the gateway with stdout inherited), so file descriptor 1 is pointed at a scratch file before
the JVM starts; each case's lines are the ones written between the start and the end of its job.
The session runs with parallelism 1 (so print lines carry no subtask prefix) and the time zone UTC,
as StreamSQL's defaults. Statements: ``CREATE ...`` and ``SET 'key' = 'value'`` (applied to the
table config) before the single ``INSERT`` (or ``CREATE [OR REPLACE] TABLE sink ... AS SELECT``,
whose job is the case's, or an ``EXECUTE STATEMENT SET BEGIN INSERT ...; ...; END;``, one job
whose print sinks share their columns: their lines fold into one table).

A Kafka case (a ``records.json`` beside ``case.sql``, see ``tests/compat/kafka_input.py``) reads a
new topic of the broker ``$STREAMSQL_KAFKA_BOOTSTRAP`` (default ``127.0.0.1:9092``), loaded by that
module in the project's venv (``$CLIENT_PYTHON``, default ``.venv/bin/python``: PyFlink's venv has
no Kafka client), through the Kafka SQL connector jar of ``benchmarks/flink_setup.py``.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the Flink venv does not install StreamSQL: import the helpers by path

from benchmarks.flink_setup import kafka_jar  # noqa: E402
from tests.compat.changelog import INSERT, fold, join_statement_sets, split_statements  # noqa: E402
from tests.compat.kafka_input import is_kafka_case, substitute  # noqa: E402

CASES = ROOT / "tests" / "compat" / "cases"
CONFIG = {"table.local-time-zone": "UTC", "parallelism.default": "1"}
BOOTSTRAP = os.environ.get("STREAMSQL_KAFKA_BOOTSTRAP", "127.0.0.1:9092")
SET = re.compile(r"^SET\s+'([^']+)'\s*=\s*'([^']*)'$", re.IGNORECASE | re.DOTALL)


def _error_text(e: Exception) -> str:
    """Flink's own message: the last 'Caused by' of a Java exception, else its first line."""
    text = str(e)
    causes = [ln for ln in text.splitlines() if ln.startswith("Caused by: ")]
    line = causes[-1][len("Caused by: "):] if causes else next(
        (ln for ln in text.splitlines() if "Exception:" in ln), text.splitlines()[0] if text else "")
    return line.strip(" :")[:800]


class Capture:
    """The JVM's standard output, redirected to a scratch file that is read case by case."""

    def __init__(self) -> None:
        """Point fd 1 at a scratch file (before the JVM starts); keep the terminal as ``out``."""
        sys.stdout.flush()
        self.out = os.fdopen(os.dup(1), "w", buffering=1)
        self.file = tempfile.NamedTemporaryFile(prefix="flink_compat_", suffix=".out")  # noqa: SIM115
        os.dup2(self.file.fileno(), 1)
        sys.stdout = self.out

    def mark(self) -> int:
        """The scratch file's current size in bytes (the start of the next job's lines)."""
        return os.path.getsize(self.file.name)

    def since(self, offset: int) -> list[str]:
        """The lines written after ``offset``."""
        with open(self.file.name, encoding="utf-8", errors="replace") as f:
            f.seek(offset)
            return f.read().splitlines()


def _load_topic(case: Path) -> str:
    """A new topic holding the case's ``records.json``, loaded in the project's venv; its name."""
    python = os.environ.get("CLIENT_PYTHON", str(ROOT / ".venv" / "bin" / "python"))
    done = subprocess.run([python, "-m", "tests.compat.kafka_input", BOOTSTRAP, str(case)], cwd=ROOT,
                          check=True, capture_output=True, text=True)
    return done.stdout.strip()


def run_case(case: Path, capture: Capture) -> dict:
    """Run one case on Flink; its expected.json document (a table or Flink's error)."""
    from pyflink.table import EnvironmentSettings, TableEnvironment

    tenv = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    for k, v in CONFIG.items():
        tenv.get_config().set(k, v)
    sql = (case / "case.sql").read_text().replace("${CASE_DIR}", str(case.resolve()))
    if is_kafka_case(case):
        tenv.get_config().set("pipeline.jars", Path(kafka_jar()).as_uri())
        sql = substitute(sql, _load_topic(case), BOOTSTRAP)
    statements = join_statement_sets(split_statements(sql))
    jobs = [s for s in statements if isinstance(s, list) or INSERT.match(s)]
    if len(jobs) != 1:
        msg = f"{case.name}: a case has exactly one INSERT (or statement set), found {len(jobs)}"
        raise SystemExit(msg)
    job = jobs[0]
    sink = INSERT.match(job[0] if isinstance(job, list) else job).group(1)  # a set's sinks share columns
    try:
        for s in statements:
            m = SET.match(s) if isinstance(s, str) else None
            if m:
                tenv.get_config().set(m.group(1), m.group(2))
            elif s is not job:
                tenv.execute_sql(s)
        start = capture.mark()
        if isinstance(job, list):  # one job of several INSERTs, as Flink's SQL parser reads the block
            tenv.execute_sql("EXECUTE STATEMENT SET BEGIN\n" + "".join(f"{s};\n" for s in job) + "END").wait()
        else:
            tenv.execute_sql(job).wait()  # a CTAS creates the sink before its job starts
        rows = fold(capture.since(start))
        columns = list(tenv.from_path(sink).get_schema().get_field_names())
    except Exception as e:  # noqa: BLE001  (Flink's rejection is the case's expected outcome)
        return {"flink_error": _error_text(e)}
    return {"columns": columns, "rows": rows, "compare": "text"}


def main(argv: list[str]) -> int:
    """Regenerate expected.json of the named cases (all when none is named); the exit code."""
    capture = Capture()
    names = argv or sorted(p.name for p in CASES.iterdir() if (p / "case.sql").exists())
    for name in names:
        case = CASES / name
        doc = run_case(case, capture)
        path = case / "expected.json"
        old = json.loads(path.read_text()) if path.exists() else {}
        if "flink_error" in doc:
            doc["expect_error"] = old.get("expect_error", [])
            what = f"Flink rejects it: {doc['flink_error'][:120]}"
        else:
            what = f"{len(doc['rows'])} rows"
        path.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n")
        print(f"{name}: {what}", file=capture.out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
