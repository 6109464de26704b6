"""Start-up of a small Kafka job: CPU-ms and wall-ms from process start to its first output row.

``python -m benchmarks.startup [--runs 5] [--rows 200] TREE [TREE ...]`` runs one job, a TUMBLE
window aggregate and a regular join of two bounded Kafka topics into two ``print`` sinks (one
``EXECUTE STATEMENT SET``), as ``python -m streamsql run`` of each source tree TREE (a checkout:
its folder goes first on ``PYTHONPATH``), the trees alternating run by run. A run's numbers are
taken when the first row (``+I[...]``) reaches the harness on the child's stdout
(``PYTHONUNBUFFERED=1``: the print sink's writes are not held in a buffer until a checkpoint):

- **wall ms**: from just before the child is started to that line;
- **CPU ms**: user + system time of the child and its descendants at that moment, read from
  ``/proc`` (:func:`benchmarks.proctree.tree_cpu_seconds`; clock ticks, 10 ms each here).

Prints one line per run and the medians per tree. Imports, planning, the Kafka clients' start and
the first batch are all in the numbers; bytecode is compiled first (:func:`compile_bytecode`) so
that no run compiles sources. The two topics (4 partitions, ``startup-`` prefix) are deleted at
the end.

Raises:
    SystemExit: a run exited before printing a row (its stderr's last lines).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.common import BOOTSTRAP, create_topic, delete_topics, unique
from benchmarks.proctree import tree_cpu_seconds

JOB = """
CREATE TABLE orders (id BIGINT, cust INT, amount INT, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector' = 'kafka', 'topic' = '{orders}',
  'properties.bootstrap.servers' = '{bs}', 'format' = 'json', 'scan.startup.mode' = 'earliest-offset',
  'scan.bounded.mode' = 'latest-offset');
CREATE TABLE customers (cust INT, name STRING) WITH ('connector' = 'kafka', 'topic' = '{customers}',
  'properties.bootstrap.servers' = '{bs}', 'format' = 'json', 'scan.startup.mode' = 'earliest-offset',
  'scan.bounded.mode' = 'latest-offset');
CREATE TABLE per_window (ws TIMESTAMP(3), cust INT, n BIGINT, s BIGINT) WITH ('connector' = 'print');
CREATE TABLE joined (id BIGINT, name STRING, amount INT) WITH ('connector' = 'print');
EXECUTE STATEMENT SET BEGIN
INSERT INTO per_window SELECT window_start, cust, COUNT(*), SUM(amount)
  FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(ts), INTERVAL '10' SECOND))
  GROUP BY window_start, window_end, cust;
INSERT INTO joined SELECT o.id, c.name, o.amount FROM orders o JOIN customers c ON o.cust = c.cust;
END;
"""


def _fill(orders: str, customers: str, rows: int) -> None:
    """``rows`` orders over 10 customers, one a second from 2024-05-01 00:00, and the 10 customers."""
    from confluent_kafka import Producer

    p = Producer({"bootstrap.servers": BOOTSTRAP})
    for i in range(rows):
        ts = f"2024-05-01 {i // 3600:02d}:{i // 60 % 60:02d}:{i % 60:02d}.000"
        p.produce(orders, json.dumps({"id": i, "cust": i % 10, "amount": i % 97, "ts": ts}).encode())
    for c in range(10):
        p.produce(customers, json.dumps({"cust": c, "name": f"c{c}"}).encode())
    if p.flush(30):
        msg = "startup: the input was not all written to Kafka in 30 s"
        raise SystemExit(msg)


def run_once(tree: Path, script: Path, work: Path) -> tuple[float, float]:
    """One run of ``script`` with ``tree``'s streamsql: (CPU ms, wall ms) to its first output row."""
    env = {**os.environ, "PYTHONPATH": str(tree), "PYTHONUNBUFFERED": "1"}
    work.mkdir()
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "streamsql", "run", str(script)], cwd=work, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        for line in proc.stdout:
            if line.startswith("+I["):
                wall = time.perf_counter() - start
                cpu = tree_cpu_seconds(proc.pid)
                proc.stdout.read()  # the rest, so the job is not blocked on a full pipe
                break
        else:
            proc.wait(60)
            msg = f"startup: {tree} printed no row: {proc.stderr.read()[-2000:]}"
            raise SystemExit(msg)
        if proc.wait(120) != 0:
            msg = f"startup: {tree} failed: {proc.stderr.read()[-2000:]}"
            raise SystemExit(msg)
    finally:
        if proc.poll() is None:
            proc.kill()
    return cpu * 1000, wall * 1000


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("trees", nargs="+", type=Path, help="source checkouts to compare (each on PYTHONPATH)")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--rows", type=int, default=200)
    args = ap.parse_args(argv)
    for tree in args.trees:  # as an installed package leaves them (benchmarks.common.compile_bytecode)
        # in the tree: ``-c`` puts the working folder before PYTHONPATH
        subprocess.run([sys.executable, "-c", "from benchmarks.common import compile_bytecode as c; c()"],
                       cwd=tree, env={**os.environ, "PYTHONPATH": str(tree)}, check=True)
    orders, customers = create_topic(unique("startup-orders")), create_topic(unique("startup-customers"))
    results: dict[Path, list[tuple[float, float]]] = {t: [] for t in args.trees}
    try:
        _fill(orders, customers, args.rows)
        with tempfile.TemporaryDirectory(prefix="streamsql-startup-") as tmp:
            script = Path(tmp) / "job.sql"
            script.write_text(JOB.format(orders=orders, customers=customers, bs=BOOTSTRAP))
            for r in range(args.runs):
                for i, tree in enumerate(args.trees):
                    cpu, wall = run_once(tree.resolve(), script, Path(tmp) / f"run{r}-{i}")
                    results[tree].append((cpu, wall))
                    print(f"run {r + 1} {tree}: CPU {cpu:.0f} ms, wall {wall:.0f} ms", flush=True)
    finally:
        delete_topics([orders, customers])
    for tree, runs in results.items():
        print(f"median {tree}: CPU {statistics.median(c for c, _ in runs):.0f} ms, "
              f"wall {statistics.median(w for _, w in runs):.0f} ms ({len(runs)} runs)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
