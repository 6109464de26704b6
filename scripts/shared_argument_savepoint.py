"""Write the savepoint fixture of aggregate calls over one argument, with an older StreamSQL.

Until 735568b the Calc before an aggregate gave every call a column of its own (``AVG(v),
MAX(v)`` read two columns of v) and the operators' state signatures named arguments by those
positions; now the calls share one column, as Flink's Calc, and signatures name arguments by
what they compute. An unchanged job must restore a checkpoint written before:
``tests/checkpoint/test_shared_argument_savepoint.py`` restores the savepoint this script writes.

Run it with the StreamSQL that writes the savepoint installed (a clone at 735568b with its own
venv); it reads the restore machinery (the gated filesystem source, the changelog recorder) from
that clone's ``tests/runtime/query_fuzz_savepoint.py``::

    git clone -q /work/main /tmp/old && git -C /tmp/old checkout -q 735568b
    python3 -m venv /tmp/old/.venv && /tmp/old/.venv/bin/pip install -q -e /tmp/old
    /tmp/old/.venv/bin/python scripts/shared_argument_savepoint.py

Writes ``tests/checkpoint/shared_arguments/``: ``t.json`` (the input, 400 rows), ``job.json`` (the
tables, the statement set, the cut, the commit that wrote the savepoint) and ``savepoint/chk-<n>``
(the job's STOP JOB ... WITH SAVEPOINT after the first :data:`CUT` rows, hashmap state backend).
"""

from __future__ import annotations

import json
import random
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "tests" / "checkpoint" / "shared_arguments"
ROWS = 400
CUT = 203  # inside the tumbling window [100 s, 110 s): a window pending at the savepoint
START = datetime(2026, 1, 1, tzinfo=timezone.utc)
#: ``{path}`` is the input file (t.json), ``{sink}`` the recording connector.
DDL = [
    "CREATE TABLE t (k STRING, g INT, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) "
    "WITH ('connector' = '{source}', 'path' = '{path}', 'format' = 'json')",
    "CREATE TABLE out_group (q STRING, k STRING, a INT, m INT) WITH ('connector' = '{sink}')",
    "CREATE TABLE out_wide (q STRING, k STRING, c BIGINT, a INT, m INT, md INT, sp INT, cp BIGINT, "
    "cd BIGINT, sd INT, mk STRING, ck BIGINT) WITH ('connector' = '{sink}')",
    "CREATE TABLE out_rollup (q STRING, k STRING, g INT, c BIGINT, a INT, m INT, mg INT) "
    "WITH ('connector' = '{sink}')",
    "CREATE TABLE out_window (q STRING, k STRING, ws TIMESTAMP(3), a INT, m INT, mk STRING) "
    "WITH ('connector' = '{sink}')",
    "CREATE TABLE out_over (q STRING, k STRING, v INT, ts TIMESTAMP(3), a INT, m INT) "
    "WITH ('connector' = '{sink}')",
    "CREATE TABLE out_rowwise (q STRING, k STRING, w BIGINT, m INT, w2 BIGINT, l STRING, mg INT) "
    "WITH ('connector' = '{sink}')",
]
#: Python aggregates of the job: name -> (module, class, result type, argument types). The module
#: is the same in the version that writes the savepoint (a Python aggregate is named in state
#: signatures by its module and class).
FUNCTIONS = {"wavg": ("tests.functions.udf_flink.udfs", "WeightedAvg", "BIGINT", ["INT", "INT"])}
#: One job: each INSERT's rows carry its name first (one recorder gets them all).
INSERTS = {
    "group": "INSERT INTO out_group SELECT 'group', k, AVG(v), MAX(v) FROM t GROUP BY k",
    "wide": "INSERT INTO out_wide SELECT 'wide', k, COUNT(*), AVG(v), MAX(v), MAX(DISTINCT v), "
            "SUM(v) FILTER (WHERE v > 0), COUNT(v) FILTER (WHERE v > 0), COUNT(DISTINCT v), SUM(DISTINCT v), "
            "MAX(k), COUNT(DISTINCT k) FROM t GROUP BY k",
    "rollup": "INSERT INTO out_rollup SELECT 'rollup', k, g, COUNT(*), AVG(v), MAX(v), MIN(g) FROM t "
              "GROUP BY ROLLUP (k, g)",
    "window": "INSERT INTO out_window SELECT 'window', k, window_start, AVG(v), MAX(v), MAX(k) FROM "
              "TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND)) "
              "GROUP BY k, window_start, window_end",
    "over": "INSERT INTO out_over SELECT 'over', k, v, ts, AVG(v) OVER w, MAX(v) OVER w FROM t "
            "WINDOW w AS (PARTITION BY k ORDER BY ts ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)",
    # calls of several argument columns (a Python aggregate's, LISTAGG's) next to calls of one
    "rowwise": "INSERT INTO out_rowwise SELECT 'rowwise', k, wavg(v, g), MAX(v), wavg(g, COALESCE(v, 1)), "
               "LISTAGG(CAST(v AS STRING), '-'), MIN(g) FROM t GROUP BY k",
}


def rows() -> list[dict]:
    """The input: keys cycling (each in both halves), v with NULLs and negatives, ts every 0.5 s."""
    r = random.Random(24)
    out = []
    for i in range(ROWS):
        ts = START + timedelta(milliseconds=500 * i)
        v = None if r.random() < 0.1 else r.randint(-50, 200)
        out.append({"k": "abcd"[i % 4], "g": r.randint(0, 2), "v": v,
                    "ts": ts.strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]})
    return out


def declare_functions(env) -> None:
    """Declare :data:`FUNCTIONS` in ``env`` (the module imported from the running version's tests)."""
    import importlib

    from streamsql.functions.udf import udaf

    for name, (module, cls, result, inputs) in FUNCTIONS.items():
        impl = getattr(importlib.import_module(module), cls)()
        env.create_temporary_function(name, udaf(impl, result_type=result, input_types=inputs))


def statement_set() -> str:
    """The job: every INSERT of :data:`INSERTS` in one statement set (one scan of ``t``)."""
    return "EXECUTE STATEMENT SET BEGIN " + " ".join(f"{s};" for s in INSERTS.values()) + " END"


def main() -> int:
    """Run the job to :data:`CUT` with the installed StreamSQL; savepoint, input and SQL to :data:`OUT`."""
    import streamsql

    clone = Path(streamsql.__file__).resolve().parent.parent
    sys.path.insert(0, str(clone))  # its tests package: the gated source of its own version
    from tests.runtime import query_fuzz_savepoint as fuzz
    from tests.runtime.oracle import make_env

    commit = subprocess.run(["git", "-C", str(clone), "rev-parse", "HEAD"], capture_output=True, text=True,
                            check=True).stdout.strip()
    if OUT.exists():
        shutil.rmtree(OUT)
    OUT.mkdir(parents=True)
    data = OUT / "t.json"
    data.write_text("".join(json.dumps(row) + "\n" for row in rows()))
    with tempfile.TemporaryDirectory() as work, fuzz.connectors():
        fuzz.GATES.clear()
        fuzz.GATES[str(data)] = CUT
        fuzz.OPENED.clear()
        env = make_env(Path(work), "hashmap", None, {"pipeline.name": "shared-arguments",
                                                     "execution.checkpointing.interval": "300 ms"})
        declare_functions(env)
        for ddl in DDL:
            env.execute_sql(ddl.format(source=fuzz.GATED, sink=fuzz.RECORDER, path=data))
        job = env.execute_sql(statement_set()).job
        fuzz.wait_for(job, lambda: bool(fuzz.OPENED) and all(s.held for s in fuzz.OPENED), 120, "the job",
                      "its source held at the cut")
        time.sleep(1)  # the watermark of the last rows reaches the operators
        path = env.execute_sql(f"STOP JOB '{job.job_id}' WITH SAVEPOINT").rows[0][0]
        env.close()
        saved = Path("savepoint") / Path(path).name  # a restore names a chk-<n> folder
        shutil.copytree(path, OUT / saved)
    (OUT / "job.json").write_text(json.dumps({
        "written_by": commit, "rows": ROWS, "cut": CUT, "savepoint": str(saved), "ddl": DDL,
        "inserts": INSERTS, "functions": FUNCTIONS, "statement_set": statement_set(), "source": fuzz.GATED,
        "sink": fuzz.RECORDER}, indent=1) + "\n")
    print(f"{OUT}: savepoint of {commit[:7]} after {CUT} of {ROWS} rows ({path})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
