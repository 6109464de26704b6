"""Wall time of a small bounded ``streamsql run`` at parallelism 2 (docs/parallelism.md).

The chaos campaign's ``agg`` query (two stages, 4 tasks) over 2,000 records on a 4-partition
topic, exactly-once, 300 ms checkpoints: its time is the run's fixed costs (starting the driver
and the workers, their group's rebalances, the end), not its input. Each run's output is checked
against DuckDB's answer (none lost, none twice). Usage, with the brokers of
``STREAMSQL_KAFKA_BOOTSTRAP`` (default 127.0.0.1:9092)::

    python scripts/parallel_small_run.py [RUNS]     # prints each run's seconds and the median
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid

from streamsql.testing import chaos


def run_once(bootstrap: str) -> float:
    """One run: its wall time (s). Raises SystemExit when it fails or its output is wrong."""
    run = uuid.uuid4().hex[:8]
    src, out, job = f"par_small_in_{run}", f"par_small_out_{run}", f"par-small-{run}"
    a = argparse.Namespace(query="agg", mode="EXACTLY_ONCE", backend="rocksdb", interval="300 ms", set=[],
                           bootstrap=bootstrap)
    chaos.create_topics(bootstrap, [(src, 4, {}), *chaos.output_topics("agg", out)])
    records = chaos.make_records(2000)
    chaos.produce(bootstrap, src, records, 0.5, threading.Event(), partitions=4)
    work = tempfile.mkdtemp(prefix="par-small-")
    _, bounded = chaos.write_scripts(a, work, job, src, out, "SET 'parallelism.default' = '2';\n")
    start = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "streamsql", "run", bounded], cwd=work,
                          capture_output=True, text=True)
    took = time.monotonic() - start
    lost, duplicated = chaos.compare(a, records, chaos.read_committed(bootstrap, out))
    if done.returncode != 0 or lost or duplicated:
        msg = f"run failed (exit {done.returncode}, {lost} lost, {duplicated} twice):\n{done.stderr[-3000:]}"
        raise SystemExit(msg)
    return took


def main() -> None:
    """Run it RUNS times (default 3); print each time and the median."""
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    bootstrap = os.environ.get("STREAMSQL_KAFKA_BOOTSTRAP", "127.0.0.1:9092")
    times = []
    for i in range(runs):
        times.append(run_once(bootstrap))
        print(f"run {i}: {times[-1]:.2f} s", flush=True)
    print(f"median {statistics.median(times):.2f} s")


if __name__ == "__main__":
    main()
