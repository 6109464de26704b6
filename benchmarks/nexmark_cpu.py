"""CPU-s and wall time of Nexmark queries on StreamSQL, in this process (no Kafka, no Flink).

``python -m benchmarks.nexmark_cpu --input FILE q5 q7`` runs each query over the input recorded in
an expectations file (``benchmarks/nexmark/expected_large/*.json``) into a print sink (captured);
``--events N`` instead runs N events at the default rate into a blackhole, ``rocksdb`` and 10 s
checkpoints (the engine-only benchmark's setting). ``--tree DIR`` times the StreamSQL of another
checkout (e.g. ``git worktree add /tmp/before main``), so before/after runs alternate from one
shell. Prints one JSON line per query: ``cpu`` (``time.process_time()``, every thread of the
process) and ``wall`` from the INSERT's submission to the job's end, and the captured output's
line count. Session 27's tables in benchmarks/README.md were measured this way.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import sys
import tempfile
import time
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    """Time the named queries; one JSON line each."""
    ap = argparse.ArgumentParser(prog="python -m benchmarks.nexmark_cpu",
                                 description=__doc__.splitlines()[0])
    ap.add_argument("queries", nargs="+")
    ap.add_argument("--input", type=Path, help="an expectations file: its recorded input, print sink")
    ap.add_argument("--events", type=int, help="dense input of N events instead, blackhole sink")
    ap.add_argument("--backend", default=None, help="default: hashmap with --input, rocksdb with --events")
    ap.add_argument("--tree", default=None, help="a checkout whose streamsql package to time")
    a = ap.parse_args(argv)
    if a.tree:
        sys.path.insert(0, a.tree)
    import streamsql
    from benchmarks.nexmark import sql
    from streamsql import StreamEnvironment
    from tests.compat.changelog import INSERT, split_statements

    if a.tree and not streamsql.__file__.startswith(str(Path(a.tree).resolve())):
        ap.error(f"streamsql imported from {streamsql.__file__}, not from {a.tree}")
    if a.input:
        c = json.loads(a.input.read_text())["input"]
        source = sql.nexmark_options(c["events"], c["rate"], c["base_time_ms"], c.get("options"))
        sink, backend = sql.PRINT, a.backend or "hashmap"
    else:
        source, sink, backend = sql.nexmark_options(a.events), sql.BLACKHOLE, a.backend or "rocksdb"
    for query in a.queries:
        with tempfile.TemporaryDirectory(prefix=f"nexmark_cpu_{query}_") as work:
            side_input = Path(work) / "side_input.csv"
            sql.write_side_input(side_input)
            statements = split_statements(sql.script(query, source, sink, str(side_input)))
            config = {"state.dir": f"{work}/state", "execution.checkpointing.dir": f"{work}/cp",
                      "table.local-time-zone": "UTC", "state.backend.type": backend,
                      "execution.checkpointing.interval": "10 s"}
            out = io.StringIO()
            with StreamEnvironment(config) as env, contextlib.redirect_stdout(out):
                for s in statements:
                    if not INSERT.match(s):
                        env.execute_sql(s)
                t0, c0 = time.perf_counter(), time.process_time()
                env.execute_sql(next(s for s in statements if INSERT.match(s))).job.wait()
                wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        print(json.dumps({"query": query, "cpu": round(cpu, 2), "wall": round(wall, 2),
                          "lines": out.getvalue().count("\n")}), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
