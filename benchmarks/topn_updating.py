"""Time of a Top-3 over a GROUP BY (an updating input: Flink's ``RetractableTopNFunction`` changelog).

``python -m benchmarks.topn_updating [--rows 50000] [--groups 100] [--keys 2000] [--repeat 3]
[--batch-size N] [--source groupby|changelog] [--profile]`` writes ``--rows`` JSON rows (``g`` one
of ``--groups`` partitions, ``k`` one of ``--keys`` keys, seeded), then runs, in process, ``SELECT
g, k, c, rn FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY g ORDER BY c DESC) AS rn FROM (SELECT
g, k, COUNT(*) AS c FROM t GROUP BY g, k)) WHERE rn <= 3`` and collects its changelog. With
``--source changelog`` the GROUP BY's changelog is the input itself, a debezium-json file (each row
an insert of ``c`` 1 or an update ``c - 1`` to ``c``): the Top-N's input no longer depends on how
the GROUP BY's batches fell, so the digest is a check that a change of the operator kept its
changelog. Prints the best wall and CPU seconds over ``--repeat`` runs, the changelog's length and
its digest. ``--profile``: cProfile's top functions under the Top-N operator, one more run.
Results: benchmarks/README.md (session 36, topnsort36).
"""

from __future__ import annotations

import argparse
import cProfile
import hashlib
import json
import pstats
import random
import tempfile
import time
from pathlib import Path

from streamsql.environment import StreamEnvironment

QUERY = ("SELECT g, k, c, rn FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY g ORDER BY c DESC) AS rn "
         "FROM (SELECT g, k, COUNT(*) AS c FROM t GROUP BY g, k)) WHERE rn <= 3")


CHANGELOG_QUERY = ("SELECT g, k, c, rn FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY g ORDER BY c DESC) "
                   "AS rn FROM t) WHERE rn <= 3")


def write_rows(path: Path, rows: int, groups: int, keys: int, changelog: bool) -> None:
    """``rows`` JSON lines ``{"g", "k"}`` (seeded), or their GROUP BY's changelog as debezium-json."""
    rnd = random.Random(36)
    pairs = [(rnd.randrange(groups), rnd.randrange(keys)) for _ in range(rows)]
    if not changelog:
        path.write_text("".join(json.dumps({"g": g, "k": k}) + "\n" for g, k in pairs))
        return
    counts: dict = {}
    lines = []
    for g, k in pairs:
        c = counts[g, k] = counts.get((g, k), 0) + 1
        after = {"g": g, "k": k, "c": c}
        before = {"g": g, "k": k, "c": c - 1} if c > 1 else None
        lines.append(json.dumps({"before": before, "after": after, "op": "u" if before else "c"}) + "\n")
    path.write_text("".join(lines))


def run_once(path: Path, work: Path, batch_size: int | None, changelog: bool) -> tuple[float, float, list]:
    """Wall and CPU seconds of one collect of :data:`QUERY`, and its changelog."""
    cfg = {"state.dir": str(work / "state"), "execution.checkpointing.dir": str(work / "cp")}
    if batch_size:
        cfg["execution.batch-size"] = str(batch_size)
    env = StreamEnvironment(cfg)
    try:
        columns, fmt = ("g INT, k INT, c BIGINT", "debezium-json") if changelog else ("g INT, k INT", "json")
        env.execute_sql(f"CREATE TABLE t ({columns}) WITH ('connector' = 'filesystem', 'path' = '{path}', "
                        f"'format' = '{fmt}')")
        wall, cpu = time.perf_counter(), time.process_time()
        query = CHANGELOG_QUERY if changelog else QUERY
        out = [(kind.short, tuple(row)) for kind, row in env.execute_sql(query)]
        return time.perf_counter() - wall, time.process_time() - cpu, out
    finally:
        env.close()


def profile_topn(run) -> None:
    """cProfile's top functions under ``TopNOperator.process_batch`` (the job's thread) during ``run()``."""
    from streamsql.runtime.operators import rank

    prof = cProfile.Profile()
    original = rank.TopNOperator.process_batch

    def profiled(self, batch, input_index):
        prof.enable()
        try:
            return original(self, batch, input_index)
        finally:
            prof.disable()

    rank.TopNOperator.process_batch = profiled
    try:
        run()
    finally:
        rank.TopNOperator.process_batch = original
    pstats.Stats(prof).sort_stats("tottime").print_stats(25)


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark (module docstring)."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=50_000)
    ap.add_argument("--groups", type=int, default=100)
    ap.add_argument("--keys", type=int, default=2000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--batch-size", type=int)
    ap.add_argument("--source", choices=("groupby", "changelog"), default="groupby")
    ap.add_argument("--profile", action="store_true")
    a = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "t.json"
        cl = a.source == "changelog"
        write_rows(path, a.rows, a.groups, a.keys, cl)
        best = None
        for n in range(a.repeat):
            wall, cpu, changelog = run_once(path, Path(tmp) / f"run{n}", a.batch_size, cl)
            best = (wall, cpu) if best is None or wall < best[0] else best
        digest = hashlib.sha256(json.dumps(changelog).encode()).hexdigest()[:16]
        print(f"rows {a.rows}: best wall {best[0]:.3f} s, cpu {best[1]:.3f} s; changelog {len(changelog)} "
              f"rows, digest {digest}")
        if a.profile:
            profile_topn(lambda: run_once(path, Path(tmp) / "profile", a.batch_size, cl))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
