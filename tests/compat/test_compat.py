"""The Flink compatibility suite: every case of tests/compat/cases/ run through `streamsql run`.

Each case's expected.json was produced by Apache Flink 2.3 (``scripts/flink_compat.py``; see
tests/compat/README.md). The case's script runs through the real CLI, a process of its own forked
from a server that has imported StreamSQL once (:mod:`tests.compat.forkserver`); its print sink's changelog
is folded into the final table, which must equal Flink's cell for cell as printed text. A case
Flink rejects must be rejected here too, with a clear message (no traceback) naming the case's
``expect_error`` substrings. A case listed in :data:`REFUSED_HERE` is one Flink answers and
StreamSQL knowingly refuses (its answer is Flink's table, kept for the day it is supported): it
must be refused, at planning, with the listed words, never answered differently. Where a case has
``batch.sql``, DuckDB's answer over the same input files must equal Flink's table as well (cells
compared as values).
"""

from __future__ import annotations

import datetime as dt
import json
import os
import queue
import subprocess
from concurrent.futures import Future, ThreadPoolExecutor
from decimal import Decimal, InvalidOperation
from pathlib import Path

import pytest

from tests.compat import kafka_input
from tests.compat.batch import duckdb_rows
from tests.compat.changelog import fold
from tests.compat.forkserver import ForkServer

CASES = Path(__file__).resolve().parent / "cases"
case_dirs = sorted(p for p in CASES.iterdir() if (p / "case.sql").exists())

#: Cases Flink answers that StreamSQL refuses on purpose, and the words of the refusal.
REFUSED_HERE = {
    # Flink sessions every row of the SESSION TVF together there (not per grouping key)
    "session_window_rollup": "ROLLUP and CUBE in a SESSION window aggregation are not supported yet",
    # Flink's global window phase takes the local distinct maps' values in the maps' hash order
    "listagg_distinct_tumble": "LISTAGG(DISTINCT ...) in a TUMBLE window aggregate is not supported yet",
    "listagg_distinct_cumulate": "LISTAGG(DISTINCT ...) in a CUMULATE window aggregate is not supported yet",
    "listagg_distinct_session": "LISTAGG(DISTINCT ...) in a SESSION window aggregate is not supported yet",
    "listagg_distinct_session_merge": "LISTAGG(DISTINCT ...) in a SESSION window aggregate is not supported "
                                      "yet",
    "array_agg_distinct_tumble": "ARRAY_AGG(DISTINCT ...) in a TUMBLE window aggregate is not supported yet",
    # Flink ignores IGNORE NULLS on LAG; and a column as LAG's offset answers NULL for each row there
    "lag_ignore_nulls": "LAG(...) IGNORE NULLS is not supported",
    "lag_offset_of_a_column": "The offset of LAG must be a non-negative integer literal",
}


def run_streamsql(case: Path, tmp_path: Path, servers: queue.Queue, bootstrap: str | None = None
                  ) -> subprocess.CompletedProcess:
    """Run the case's script (``${CASE_DIR}`` substituted) with ``streamsql run`` in ``tmp_path``.

    The run is forked by a free server of ``servers``. A Kafka case (:mod:`tests.compat.kafka_input`)
    reads a new topic loaded from its records on broker ``bootstrap``; the topic is deleted after
    the run.
    """
    if kafka_input.is_kafka_case(case):
        topic = kafka_input.load(bootstrap, case)
        try:
            return _run_script(case, tmp_path, servers,
                               lambda sql: kafka_input.substitute(sql, topic, bootstrap))
        finally:
            kafka_input.drop(bootstrap, topic)
    return _run_script(case, tmp_path, servers, lambda sql: sql)


def _run_script(case: Path, tmp_path: Path, servers: queue.Queue, fill) -> subprocess.CompletedProcess:
    script = tmp_path / "case.sql"
    script.write_text(fill((case / "case.sql").read_text().replace("${CASE_DIR}", str(case.resolve()))))
    server = servers.get()
    try:
        return server.run(["run", str(script)], tmp_path, timeout=180)
    finally:
        servers.put(server)


@pytest.fixture(scope="session")
def compat_runs(request, tmp_path_factory) -> dict[str, Future]:
    """The runs of every selected case, started at once two at a time (``STREAMSQL_COMPAT_JOBS``).

    Each case is a separate ``streamsql run`` process of well under a second once its imports are
    done, forked by one of as many fork servers; running two side by side halves the suite's wall
    time on CI's two cores. Results are awaited by :func:`test_case`, so a failure is still reported
    under its own case.
    """
    selected = [item.callspec.params["case"] for item in request.session.items
                if getattr(item, "originalname", None) == "test_case" and item.module.__name__ == __name__]
    kafka = any(kafka_input.is_kafka_case(c) for c in selected)
    bootstrap = request.getfixturevalue("kafka_bootstrap") if kafka else None
    jobs = int(os.environ.get("STREAMSQL_COMPAT_JOBS", "2"))
    servers: queue.Queue = queue.Queue()
    started = []
    for _ in range(jobs if selected else 0):
        started.append(ForkServer())
        servers.put(started[-1])
    pool = ThreadPoolExecutor(max_workers=jobs)

    def finish():
        pool.shutdown(cancel_futures=True)
        for server in started:
            server.close()
    request.addfinalizer(finish)
    return {c.name: pool.submit(run_streamsql, c, tmp_path_factory.mktemp(c.name), servers, bootstrap)
            for c in selected}


def _key(row) -> list:
    return [(v is None, "" if v is None else str(v)) for v in row]


def _value(cell):
    """A cell as a comparable value: numbers as Decimal, dates and timestamps as ISO text, else text."""
    if cell is None or isinstance(cell, bool):
        return None if cell is None else str(cell).lower()
    if isinstance(cell, (dt.datetime, dt.date)):
        return cell.isoformat()
    if isinstance(cell, (int, float, Decimal)):
        return Decimal(str(cell))
    try:
        return Decimal(cell)
    except InvalidOperation:
        pass
    try:  # Flink prints LocalDateTime ('2024-05-01T00:00', seconds omitted when zero)
        parse = dt.datetime.fromisoformat if "T" in cell else dt.date.fromisoformat
        return parse(cell).isoformat()
    except ValueError:
        return cell


def _same_row(a: list, b: list) -> bool:
    """Cells equal; numbers within a relative 1e-6 (FLOAT results are printed with 7 digits)."""
    def same(x, y):
        if isinstance(x, Decimal) and isinstance(y, Decimal):
            return abs(x - y) <= Decimal("1e-6") * max(Decimal(1), abs(x), abs(y))
        return x == y
    return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))


@pytest.mark.parametrize("case", case_dirs, ids=lambda p: p.name)
def test_case(case: Path, compat_runs: dict[str, Future]) -> None:
    expected = json.loads((case / "expected.json").read_text())
    p = compat_runs[case.name].result()
    said = p.stdout + p.stderr
    if case.name in REFUSED_HERE:
        assert p.returncode != 0 and REFUSED_HERE[case.name] in said and "Traceback" not in said, said
        return
    if "flink_error" in expected:
        assert p.returncode != 0, f"Flink rejects this script ({expected['flink_error']}); we ran it:\n{said}"
        assert "Traceback" not in said, said
        lacking = [w for w in expected["expect_error"] if w not in said]
        assert not lacking, f"the message lacks {lacking}:\n{said}"
        return
    assert p.returncode == 0, said
    assert sorted(fold(p.stdout.splitlines()), key=_key) == sorted(expected["rows"], key=_key), said


@pytest.mark.parametrize("case", [c for c in case_dirs if (c / "batch.sql").exists()], ids=lambda p: p.name)
def test_batch_equivalent(case: Path) -> None:
    expected = json.loads((case / "expected.json").read_text())
    duck = sorted(([_value(v) for v in r] for r in duckdb_rows(case)), key=_key)
    flink = sorted(([_value(v) for v in r] for r in expected["rows"]), key=_key)
    assert len(duck) == len(flink) and all(_same_row(a, b) for a, b in zip(duck, flink)), (duck, flink)
