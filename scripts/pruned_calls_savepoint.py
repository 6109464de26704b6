"""Write the savepoint fixture of GROUP BYs whose unread calls StreamSQL computed, with an older StreamSQL.

Up to f3e00a5a (the commit before the fuzz31 merge) StreamSQL computed every call of a GROUP BY;
since then the calls nothing reads above the aggregate are pruned (streamsql/plan/agg_prune.py,
as Flink's PruneAggregateCallRule), which changes the aggregate's state signature and the column
origins of the operators above it. An unchanged job must restore a savepoint written before:
``tests/checkpoint/test_pruned_calls_savepoint.py`` restores the savepoints this script writes.

Run it with the StreamSQL that writes the savepoints first on the path (a clone at f3e00a5a; the
venv of this repository will do, its editable install is shadowed by PYTHONPATH); it reads the
restore machinery (the gated filesystem source, the changelog recorder) from that clone's
``tests/runtime/query_fuzz_savepoint.py``::

    git clone -q /work/main /tmp/old && git -C /tmp/old checkout -q f3e00a5a
    PYTHONPATH=/tmp/old .venv/bin/python scripts/pruned_calls_savepoint.py

Writes ``tests/checkpoint/pruned_calls/``: ``t.json`` (the input, 400 rows), ``job.json`` (the
tables, views, each job's INSERTs, the cut, the commit that wrote the savepoints) and per job
``<job>/savepoint/chk-<n>`` (its STOP JOB ... WITH SAVEPOINT after the first :data:`CUT` rows,
hashmap state backend) with ``<job>/written.json``, the changes its sink took before the savepoint
(kind, row), to fold with the restored job's.
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

OUT = Path(__file__).resolve().parent.parent / "tests" / "checkpoint" / "pruned_calls"
ROWS = 400
CUT = 203
START = datetime(2026, 1, 1, tzinfo=timezone.utc)
#: ``{source}``/``{sink}``: the gated source and the recording sink; ``{path}``: the input (t.json).
DDL = [
    "CREATE TABLE t (k STRING, g INT, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) "
    "WITH ('connector' = '{source}', 'path' = '{path}', 'format' = 'json')",
    "CREATE TABLE out_objects (q STRING, k STRING, c BIGINT, l STRING, mn INT) WITH ('connector' = '{sink}')",
    "CREATE TABLE out_fixed (q STRING, k STRING, av INT, mn INT, c BIGINT) WITH ('connector' = '{sink}')",
    "CREATE TABLE out_chain (q STRING, mn INT, n BIGINT) WITH ('connector' = '{sink}')",
    "CREATE TABLE out_having (q STRING, k STRING, c BIGINT) WITH ('connector' = '{sink}')",
    "CREATE TABLE out_top (q STRING, k STRING, c BIGINT) WITH ('connector' = '{sink}')",
    "CREATE TABLE out_count (q STRING, k STRING, c BIGINT, a INT) WITH ('connector' = '{sink}')",
    "CREATE TABLE out_min (q STRING, k STRING, mn INT) WITH ('connector' = '{sink}')",
    "CREATE TABLE out_objects2 (q STRING, k STRING, mn INT, l STRING, c BIGINT) "
    "WITH ('connector' = '{sink}')",
    # the views: calls the INSERTs above do not all read
    "CREATE VIEW v_objects AS SELECT k, COUNT(*) AS c, SUM(v) AS sv, MAX(g) AS mg, "
    "LISTAGG(CAST(v AS STRING), '-') AS l, MIN(v) AS mn FROM t GROUP BY k",
    "CREATE VIEW v_fixed AS SELECT k, SUM(v) AS sv, MAX(g) AS mg, COUNT(*) AS c, AVG(v) AS av, MIN(v) AS mn "
    "FROM t GROUP BY k",
    "CREATE VIEW v_chain AS SELECT k, SUM(v) AS sv, MAX(g) AS mg, MIN(v) AS mn FROM t GROUP BY k",
    "CREATE VIEW v_top AS SELECT k, COUNT(*) AS c, SUM(v) AS sv, MIN(g) AS mg FROM t GROUP BY k",
    "CREATE VIEW v_count AS SELECT k, COUNT(*) AS c, LISTAGG(CAST(v AS STRING), '-') AS l, AVG(v) AS a "
    "FROM t GROUP BY k",
]
#: Each job's INSERTs; each INSERT's rows carry its name first (one recorder gets them all).
JOBS = {
    # calls pruned now: SUM(v), MAX(g) of v_objects (objects before and after: LISTAGG kept) and of
    # v_fixed (fixed-width records before and after), SUM(v), MAX(g) under an aggregate of an
    # aggregate (the outer one reads the inner's column 3, now 1), MIN(g) under a Top-N that orders by
    # a call it does not output; nothing pruned where a call is read by HAVING only. Each INSERT has
    # a GROUP BY of its own (f3e00a5a shared equal ones between INSERTs: see "shared")
    "kept": {
        "objects": "INSERT INTO out_objects SELECT 'objects', k, c, l, mn FROM v_objects",
        "fixed": "INSERT INTO out_fixed SELECT 'fixed', k, av, mn, c FROM v_fixed",
        "chain": "INSERT INTO out_chain SELECT 'chain', mn, COUNT(*) FROM v_chain GROUP BY mn",
        "having": "INSERT INTO out_having SELECT 'having', k, COUNT(*) FROM t GROUP BY k HAVING MAX(v) < 200",
        "top": "INSERT INTO out_top SELECT 'top', k, c FROM (SELECT k, c, ROW_NUMBER() OVER "
               "(ORDER BY sv DESC) AS rn FROM v_top) WHERE rn <= 2",
    },
    # v_objects's GROUP BY shared by two INSERTs that read the same calls (in another order): pruned
    # alike, still one operator, read by two Calcs
    "same": {
        "objects": "INSERT INTO out_objects SELECT 'objects', k, c, l, mn FROM v_objects",
        "objects2": "INSERT INTO out_objects2 SELECT 'objects2', k, mn, l, c FROM v_objects",
    },
    # one GROUP BY of v_fixed shared by two INSERTs (sub-plan reuse) that read other calls of it: pruned
    # apart now, two operators where the savepoint has one
    "shared": {
        "fixed": "INSERT INTO out_fixed SELECT 'fixed', k, av, mn, c FROM v_fixed",
        "chain": "INSERT INTO out_chain SELECT 'chain', mn, COUNT(*) FROM v_fixed GROUP BY mn",
    },
    # LISTAGG pruned: COUNT(*) and AVG(v) keep a fixed-width record now, the savepoint holds objects
    # (they convert); MIN(v) alone likewise, which does not convert
    "converted": {"converted": "INSERT INTO out_count SELECT 'converted', k, c, a FROM v_count"},
    "refused": {"refused": "INSERT INTO out_min SELECT 'refused', k, mn FROM v_objects"},
}


def rows() -> list[dict]:
    """The input: keys cycling (each in both halves), v with NULLs and negatives, ts every 0.5 s."""
    r = random.Random(32)
    out = []
    for i in range(ROWS):
        ts = START + timedelta(milliseconds=500 * i)
        v = None if r.random() < 0.1 else r.randint(-50, 200)
        out.append({"k": "abcd"[i % 4], "g": r.randint(0, 2), "v": v,
                    "ts": ts.strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]})
    return out


def statement_set(inserts: dict[str, str]) -> str:
    """A job: its INSERTs in one statement set (one scan of ``t``)."""
    return "EXECUTE STATEMENT SET BEGIN " + " ".join(f"{s};" for s in inserts.values()) + " END"


def main() -> int:
    """Run each job to :data:`CUT` with the StreamSQL on the path; savepoints, input, SQL to :data:`OUT`."""
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
    saved = {}
    for name, inserts in JOBS.items():
        with tempfile.TemporaryDirectory() as work, fuzz.connectors():
            fuzz.GATES.clear()
            fuzz.GATES[str(data)] = CUT
            fuzz.OPENED.clear()
            fuzz.WRITTEN.clear()
            env = make_env(Path(work), "hashmap", None, {"pipeline.name": f"pruned-calls-{name}",
                                                         "execution.checkpointing.interval": "300 ms"})
            for ddl in DDL:
                env.execute_sql(ddl.format(source=fuzz.GATED, sink=fuzz.RECORDER, path=data))
            job = env.execute_sql(statement_set(inserts)).job
            fuzz.wait_for(job, lambda: bool(fuzz.OPENED) and all(s.held for s in fuzz.OPENED), 120, "the job",
                          "its source held at the cut")
            time.sleep(1)  # the last rows reach every operator
            path = env.execute_sql(f"STOP JOB '{job.job_id}' WITH SAVEPOINT").rows[0][0]
            env.close()
            saved[name] = str(Path(name) / "savepoint" / Path(path).name)  # a restore names a chk-<n> folder
            shutil.copytree(path, OUT / saved[name])
            written = [[kind.short, list(row)] for kind, row in fuzz.WRITTEN]
            (OUT / name / "written.json").write_text(json.dumps(written) + "\n")
    (OUT / "job.json").write_text(json.dumps({
        "written_by": commit, "rows": ROWS, "cut": CUT, "savepoints": saved, "ddl": DDL, "jobs": JOBS,
        "source": fuzz.GATED, "sink": fuzz.RECORDER}, indent=1) + "\n")
    print(f"{OUT}: savepoints of {commit[:7]} after {CUT} of {ROWS} rows ({', '.join(saved.values())})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
