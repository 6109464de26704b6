"""CPU per row of a workload's Calc (the projection, in DuckDB) and JSON encoding, without Kafka.

``python -m benchmarks.calc_cost [--only Q1,FN] [--rows 10000]``: plans the workload's INSERT as
the benchmark runs it (``contenders.SQL``), builds one batch of the benchmark's bids
(``datagen.BidGenerator``) with the Calc's input schema, and times the Calc's
:class:`~streamsql.runtime.evaluator.BatchQuery` and the sink's vectorized JSON encoder on it
(process CPU time, the least of 7 repetitions of 10 runs, so other processes on a shared machine
move it far less than wall-clock rates). What differs between Q1 and FN in a Kafka run is these
two steps: decoding, consuming and producing are the same work for both.
"""

from __future__ import annotations

import argparse
import io
import time

import pyarrow.json as pj
from streamsql.connectors.formats.json_encode import encode_vectorized

from benchmarks.contenders import SQL, workload_sql
from benchmarks.datagen import BidGenerator
from streamsql import StreamEnvironment
from streamsql.core.elements import Batch
from streamsql.core.types import Schema
from streamsql.plan.nodes import CalcNode, walk
from streamsql.plan.planner import Planner
from streamsql.runtime.evaluator import BatchQuery
from streamsql.sql.parser import parse_statement


def _cpu_per_row(run, rows: int) -> float:
    """Least CPU µs per row of ``run()`` over 7 repetitions of 10 runs."""
    run()
    best = float("inf")
    for _ in range(7):
        start = time.process_time()
        for _ in range(10):
            run()
        best = min(best, (time.process_time() - start) / 10 / rows * 1e6)
    return best


def measure(workload: str, rows: int) -> tuple[float, float]:
    """(Calc µs/row, JSON encode µs/row) of ``workload`` over ``rows`` bids."""
    spec = {"workload": workload, "engine": True, "events": rows, "keys": 10_000}
    source, sink, inserts = workload_sql(spec)
    with StreamEnvironment() as env:
        env.execute_sql(source)
        env.execute_sql(sink)
        root = Planner(env.catalog, env.config, inserts[0]).plan_insert(parse_statement(inserts[0]))
    calc = next(n for n in walk([root]) if isinstance(n, CalcNode)).query
    lines = b"\n".join(value for _, _, value, _, _ in BidGenerator(10_000).batch(0, rows))
    table = pj.read_json(io.BytesIO(lines)).select(calc.input_schema.names).cast(calc.input_schema)
    query = BatchQuery(calc)
    out = query.run(Batch(table)).table
    schema = Schema.from_arrow(out.schema)
    return (_cpu_per_row(lambda: query.run(Batch(table)), rows),
            _cpu_per_row(lambda: encode_vectorized(out, schema, {}), rows))


def main() -> None:
    """Print the table: workload, Calc, encode and their sum in CPU µs per row."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", default="Q1,FN", help=f"workloads ({', '.join(w for w in SQL if w != 'AGG')})")
    ap.add_argument("--rows", type=int, default=10_000, help="rows per batch (execution.batch-size)")
    a = ap.parse_args()
    print("| workload | Calc µs/row | JSON encode µs/row | sum |\n|---|--:|--:|--:|")
    for w in a.only.split(","):
        calc, encode = measure(w, a.rows)
        print(f"| {w} | {calc:.3f} | {encode:.3f} | {calc + encode:.3f} |")


if __name__ == "__main__":
    main()
