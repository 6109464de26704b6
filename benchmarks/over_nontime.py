"""CPU per row of the non-time OVER operator against the size of its partition (no Kafka, no job).

``python -m benchmarks.over_nontime [--rows 10000,100000] [--backends hashmap,rocksdb]`` opens
:class:`~streamsql.runtime.operators.over_nontime.NonTimeOverOperator` on a real state backend
(the tests' harness), fills one partition with ``N`` rows (1,000-row batches, not timed), then
times ``--batches`` batches of ``--batch-rows`` more rows on it, with a checkpoint write-back
(``snapshot_state``) every ``--checkpoint-every`` batches:

- ``append``: inserts with ascending ORDER BY values (each lands last; one output row each);
- ``middle``: inserts with random ORDER BY values under MIN/MAX (a row changes few results);
- ``update-last``: ``-U``/``+U`` of the partition's last row (an updating input's usual change).

Prints µs of CPU (``time.process_time``) per probe row in ``process_batch`` and in the
write-backs, and the changelog rows emitted per probe row. Ties under RANGE are left out: every
peer's shared result changes, so the output itself grows with the peer group. Results:
benchmarks/README.md, session 27.
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa

from streamsql.core.elements import Batch, RowKind
from streamsql.core.types import SqlType
from streamsql.functions.aggregates import AggSpec
from streamsql.plan.specs import OverSpec
from streamsql.runtime.operators.over_nontime import NonTimeOverOperator
from tests.runtime.harness import open_operator

IN_SCHEMA = pa.schema([("k", pa.string()), ("p", pa.int64()), ("v", pa.int64()), ("id", pa.int64())])
OUT_SCHEMA = pa.schema(list(IN_SCHEMA) + [("a", pa.int64()), ("b", pa.int64())])
SCENARIOS = ("append", "middle", "update-last")


def _operator(scenario: str) -> NonTimeOverOperator:
    if scenario == "middle":  # MIN/MAX: an insert in the middle changes few later results
        aggs = [AggSpec("min", 2, SqlType("BIGINT")), AggSpec("max", 2, SqlType("BIGINT"))]
    else:
        aggs = [AggSpec("count_star", None, SqlType("BIGINT")), AggSpec("sum", 2, SqlType("BIGINT"))]
    return NonTimeOverOperator(OverSpec("ROWS"), 1, 1, aggs, IN_SCHEMA, OUT_SCHEMA)


def _batch(rows: list[tuple], kinds: list[int]) -> Batch:
    cols = list(zip(*rows))
    table = pa.Table.from_arrays([pa.array(c, f.type) for c, f in zip(cols, IN_SCHEMA)], schema=IN_SCHEMA)
    return Batch(table, np.array(kinds, np.int8))


def _rows(scenario: str, n: int, rnd: random.Random) -> list[tuple]:
    if scenario == "append":
        return [("k", i, rnd.randrange(100), i) for i in range(n)]
    if scenario == "middle":
        return [("k", rnd.randrange(10**9), rnd.randrange(10**6), i) for i in range(n)]
    return [("k", i, rnd.randrange(100), i) for i in range(n)]  # update-last


def _probe(scenario: str, n: int, steps: int, per_batch: int, rnd: random.Random) -> list[Batch]:
    if scenario == "update-last":  # the fill's last row is ("k", n - 1, 0, n - 1)
        olds = [("k", n - 1, s, n - 1) for s in range(steps * per_batch + 1)]
        pairs = [r for s in range(steps * per_batch) for r in (olds[s], olds[s + 1])]
        kinds = [RowKind.UPDATE_BEFORE, RowKind.UPDATE_AFTER] * per_batch
        return [_batch(pairs[a:a + 2 * per_batch], kinds) for a in range(0, len(pairs), 2 * per_batch)]
    more = _rows(scenario, n + steps * per_batch, rnd)[n:]
    kinds = [RowKind.INSERT] * per_batch
    return [_batch(more[a:a + per_batch], kinds) for a in range(0, len(more), per_batch)]


def measure(scenario: str, n: int, backend: str, batches: int, per_batch: int, checkpoint_every: int,
            workdir: Path) -> tuple[float, float, float]:
    """On a partition of ``n`` rows: µs of CPU per probe row in ``process_batch``, in checkpoint
    write-backs (``snapshot_state``), and changelog rows emitted per probe row."""
    rnd = random.Random(n)
    op, be = open_operator(_operator(scenario), backend, workdir / f"{scenario}-{n}-{backend}", "over-1")
    try:
        rows = _rows(scenario, n, rnd)
        if scenario == "update-last":  # the row the probe's first -U retracts
            rows[-1] = ("k", n - 1, 0, n - 1)
        for a in range(0, n, 1000):
            op.process_batch(_batch(rows[a:a + 1000], [RowKind.INSERT] * len(rows[a:a + 1000])), 0)
        op.snapshot_state(1)
        probe = _probe(scenario, n, batches, per_batch, rnd)
        emitted, work, snap = 0, 0.0, 0.0
        for i, b in enumerate(probe):
            t0 = time.process_time()
            for el in op.process_batch(b, 0):
                emitted += el.table.num_rows
            t1 = time.process_time()
            work += t1 - t0
            if (i + 1) % checkpoint_every == 0:
                op.snapshot_state(2 + i)
                snap += time.process_time() - t1
        steps = batches * per_batch
        return work / steps * 1e6, snap / steps * 1e6, emitted / steps
    finally:
        be.close()


def main(argv: list[str] | None = None) -> int:
    """Print one line per (scenario, partition size, backend)."""
    ap = argparse.ArgumentParser(prog="python -m benchmarks.over_nontime",
                                 description=__doc__.splitlines()[0])
    ap.add_argument("--rows", default="10000,100000", help="partition sizes")
    ap.add_argument("--backends", default="hashmap,rocksdb")
    ap.add_argument("--scenarios", default=",".join(SCENARIOS))
    ap.add_argument("--batches", type=int, default=20, help="probe batches timed per measurement")
    ap.add_argument("--batch-rows", type=int, default=100,
                    help="probe rows per batch (update-last: -U/+U pairs)")
    ap.add_argument("--checkpoint-every", type=int, default=10, help="probe batches between write-backs")
    a = ap.parse_args(argv)
    print("scenario\trows\tbackend\tus_cpu_per_row_batch\tus_cpu_per_row_checkpoint\tout_rows_per_row",
          flush=True)
    with tempfile.TemporaryDirectory(prefix="over_nontime_bench_") as work:
        for scenario in a.scenarios.split(","):
            for n in (int(x) for x in a.rows.split(",")):
                for backend in a.backends.split(","):
                    us, snap, out = measure(scenario, n, backend, a.batches, a.batch_rows, a.checkpoint_every,
                                            Path(work))
                    print(f"{scenario}\t{n}\t{backend}\t{us:.1f}\t{snap:.1f}\t{out:.1f}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
