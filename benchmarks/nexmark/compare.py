"""StreamSQL's final tables of the Nexmark queries, and their comparison with Flink's.

``python -m benchmarks.nexmark compare --expected FILE [--rows DIR] [q0 q5 ...]`` runs each query
on StreamSQL over the ``nexmark`` connector with the input recorded in ``FILE`` (written by
``scripts/nexmark_flink.py --out FILE`` on Flink 2.3), folds its print sink's changelog into the
final table and compares it, summarized (:func:`benchmarks.nexmark.results.summary`), with
Flink's: the same table, or an error for a query Flink refuses. The processing-time queries
(:data:`benchmarks.nexmark.sql.PROCTIME_QUERIES`) are only run. ``--rows DIR`` writes each
table whole (``DIR/qN.json``, as the Flink script's ``--rows``) to diff a difference. Exit code 1
when any query differs.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import tempfile
from pathlib import Path

from benchmarks.nexmark import results, sql
from tests.compat.changelog import INSERT, fold, split_statements


def run(query: str, events: int, rate: int, base_time_ms: int, workdir: Path,
        options: dict[str, str] | None = None, files: bool = True) -> tuple[list[str], list[list]]:
    """The query's columns and final table on StreamSQL (print sink captured and folded).

    ``options``: more nexmark connector options (the ``"options"`` of an expectations file's input);
    ``files``: a query of :data:`~benchmarks.nexmark.sql.FILE_SINK_QUERIES` writes its own table
    under ``<workdir>/out`` (:func:`file_result` reads it; the rows returned are then none), else
    into the print sink too (an expectation recorded before q10 kept its filesystem table).

    Raises:
        StreamSQLError: the query is refused or fails.
    """
    from streamsql import StreamEnvironment

    side_input = workdir / "side_input.csv"
    sql.write_side_input(side_input)
    source = sql.nexmark_options(events, rate, base_time_ms, options)
    text = sql.script(query, source, sql.PRINT, str(side_input), str(workdir / "out") if files else None)
    statements = split_statements(text)
    config = {"state.dir": str(workdir / "state"), "execution.checkpointing.dir": str(workdir / "cp"),
              "table.local-time-zone": "UTC", "state.backend.type": "hashmap"}
    out = io.StringIO()
    with StreamEnvironment(config) as env, contextlib.redirect_stdout(out):
        for s in statements:
            if not INSERT.match(s):
                env.execute_sql(s)
        insert = next(s for s in statements if INSERT.match(s))
        columns = [r[0] for r in env.execute_sql(f"DESCRIBE {INSERT.match(insert).group(1)}").rows]
        env.execute_sql(insert).job.wait()
    return columns, fold(out.getvalue().splitlines())


def file_result(query: str, columns: list[str], workdir: Path) -> dict:
    """What a query of :data:`~benchmarks.nexmark.sql.FILE_SINK_QUERIES` left in its table (after ``run``).

    :func:`~benchmarks.nexmark.results.file_summary` of ``<workdir>/out/bid`` (q10's table, its
    partition keys ``dt, hm`` last).
    """
    return results.file_summary(str(workdir / "out" / "bid"), columns, ["dt", "hm"])


def compare(query: str, expected: dict, c: dict, rows_dir: Path | None) -> str:
    """``"same"``, ``"DIFFERENT: ..."`` or ``"ran"`` (a processing-time query) for one query."""
    from streamsql.core.errors import StreamSQLError

    with tempfile.TemporaryDirectory(prefix=f"nexmark_{query}_") as work:
        try:
            files = "partitions" in expected  # recorded from the query's own filesystem table
            columns, rows = run(query, c["events"], c["rate"], c["base_time_ms"], Path(work),
                                c.get("options"), files)
            if query in sql.FILE_SINK_QUERIES and files:
                got = file_result(query, columns, Path(work))
                return f"same ({got['count']} rows)" if got == expected else \
                    f"DIFFERENT: {got['count']} rows here, {expected.get('count')} on Flink"
        except StreamSQLError as e:
            if "flink_error" in expected:
                return "same (refused by both)"
            return f"DIFFERENT: refused here: {str(e).splitlines()[0]}"
    if "flink_error" in expected:
        return f"DIFFERENT: Flink refuses it ({expected['flink_error'][:200]})"
    if expected.get("proctime"):
        return f"ran ({len(rows)} rows; processing time, not compared)"
    if rows_dir is not None:
        results.write_rows(rows_dir / f"{query}.json", columns, rows)
    got = results.summary(columns, rows)
    if got == expected:
        return f"same ({got['count']} rows)"
    return f"DIFFERENT: {got['count']} rows here, {expected.get('count')} on Flink"


def main(argv: list[str]) -> int:
    """Compare the named queries (all in the file when none is named); the exit code."""
    ap = argparse.ArgumentParser(prog="python -m benchmarks.nexmark compare",
                                 description=__doc__.splitlines()[0])
    ap.add_argument("queries", nargs="*")
    ap.add_argument("--expected", type=Path, default=sql.HERE / "expected.json")
    ap.add_argument("--rows", type=Path, default=None, help="a folder for each query's whole final table")
    a = ap.parse_args(argv)
    doc = json.loads(a.expected.read_text())
    if a.rows:
        a.rows.mkdir(parents=True, exist_ok=True)
    differ = 0
    for q in a.queries or list(doc["queries"]):
        verdict = compare(q, doc["queries"][q], doc["input"], a.rows)
        differ += verdict.startswith("DIFFERENT")
        print(f"{q}: {verdict}", flush=True)
    return 1 if differ else 0
