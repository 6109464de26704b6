"""The random-query oracle across a stop-with-savepoint and a restore (``query_fuzz --savepoint``).

Each seed's query (:func:`tests.runtime.query_fuzz.make_query`) runs as ``CREATE TABLE `out` WITH
('connector' = 'fuzz-changelog') AS <query>`` over the same tables as the plain oracle, read by
``fuzz-gated``: the filesystem source that holds, unfinished, after the first ``GATES[path]``
lines of its file (a fraction of every table, drawn from the seed). Once every source of the job
holds there, ``STOP JOB ... WITH SAVEPOINT``; then a fresh environment (other state and
checkpoint folders, another ``pipeline.name``) runs the same statement from the savepoint
(``'execution.savepoint.path'``), its sources reading from their saved positions to the end. The
changelog both jobs wrote (``fuzz-changelog`` keeps every row it is given, with its kind, as it
is given: nothing is taken back at a restore) is folded as one and compared with DuckDB's answer
over all the input. So every operator's state crosses the savepoint mid-stream: pending windows
and sessions, the watermark, join and Top-N state, accumulators of aggregates whose input
retracts. A quarter of the seeds restore into the other state backend. With ``cuts`` > 1 the
restored job is stopped with a savepoint again at the next cut, and so on (a restored state
saved again).

    python -m tests.runtime.query_fuzz --savepoint --seeds 0:300 [--cuts 3]
"""

from __future__ import annotations

import dataclasses
import random
import time
from collections.abc import Callable
from contextlib import contextmanager
from pathlib import Path

from streamsql.connectors import filesystem
from streamsql.connectors.filesystem import FileSystemSource
from streamsql.connectors.registry import _REGISTRY, register

from streamsql.core.connector import ConnectorSpec, OptionSpec, Sink
from streamsql.core.elements import Batch, RowKind
from tests.runtime.oracle import fold, make_env
from tests.runtime.query_fuzz import Query, check_sorted, compare, create_tables, expected_rows, make_query

GATED = "fuzz-gated"
RECORDER = "fuzz-changelog"
#: path → lines a ``fuzz-gated`` source reads before it holds (absent: it reads to the end)
GATES: dict[str, int] = {}
#: the ``fuzz-gated`` sources opened since the last :func:`_reset`
OPENED: list[GatedFileSource] = []
#: every (kind, row) a ``fuzz-changelog`` sink was given since the last :func:`_reset`
WRITTEN: list[tuple[RowKind, tuple]] = []
#: the last seed's counts: changes written before and after the savepoint, the checkpoint restored
LAST: dict[str, object] = {}


class GatedFileSource(FileSystemSource):
    """The filesystem source, holding (no rows, not finished) after ``GATES[path]`` lines."""

    def __init__(self, ctx):
        super().__init__(ctx)
        self.gate = GATES.get(self.path)
        self.held = False

    def open(self, position: dict | None) -> None:
        """See :meth:`FileSystemSource.open`; then listed in :data:`OPENED`."""
        super().open(position)
        OPENED.append(self)

    def poll(self, max_rows: int, timeout_s: float) -> Batch | None:
        """At most the lines left before the gate (see :meth:`FileSystemSource.poll`)."""
        if self.gate is not None:
            left = self.gate - self._line
            if left <= 0:
                self.held = True
                time.sleep(min(timeout_s, 0.02))
                return None
            max_rows = min(max(1, max_rows), left)
        return super().poll(max_rows, timeout_s)


class ChangelogRecorder(Sink):
    """Keeps every row it is given, with its kind, in :data:`WRITTEN`."""

    accepts_updates = True

    def __init__(self, ctx):
        self.rows = WRITTEN

    def write(self, batch: Batch) -> None:
        """Record the batch's rows (see :meth:`Sink.write`)."""
        for kind, row in zip(batch.kind_array().tolist(), batch.table.to_pylist()):
            self.rows.append((RowKind(kind), tuple(row.values())))


@contextmanager
def connectors():
    """``fuzz-gated`` and ``fuzz-changelog`` registered while inside."""
    register(dataclasses.replace(filesystem.SPEC, name=GATED, create_source=GatedFileSource,
                                 create_sink=None))
    register(ConnectorSpec(name=RECORDER, options=[OptionSpec("connector", required=True)],
                           create_sink=ChangelogRecorder, sink_accepts_updates=lambda table: True))
    try:
        yield
    finally:
        for name in (GATED, RECORDER):
            _REGISTRY.pop(name, None)


@dataclasses.dataclass(frozen=True)
class Resume:
    """Where a seed's input is cut (fractions of every table, ascending), and each run's backend."""

    cuts: tuple[float, ...]
    backends: tuple[str, ...]  # one more than the cuts


def resume_plan(seed: int, q: Query, cuts: int = 1) -> Resume:
    """The seed's cuts (15% .. 85% of every table) and the backend of each run (the first the query's,
    each restore the other one 1 in 4); drawn apart from :func:`make_query`, whose queries stay those
    of the plain oracle. The first cut and restore are the same whatever ``cuts``."""
    r = random.Random(f"savepoint-{seed}")
    other = {"hashmap": "rocksdb", "rocksdb": "hashmap"}
    fractions, backends = [], [q.backend]
    for _ in range(cuts):
        fractions.append(round(r.uniform(0.15, 0.85), 3))
        backends.append(other[backends[-1]] if r.random() < 0.25 else backends[-1])
    return Resume(tuple(sorted(fractions)), tuple(backends))


def _reset(gates: dict[str, int]) -> None:
    GATES.clear()
    GATES.update(gates)
    OPENED.clear()
    WRITTEN.clear()


def _lines(path: Path) -> int:
    return sum(1 for line in path.read_bytes().splitlines() if line.strip())


def _settings(name: str, **more: str) -> dict[str, str]:
    return {"pipeline.name": name, "execution.checkpointing.interval": "300 ms", **more}


def check_savepoint(seed: int, files: dict[str, Path], work: Path, timeout: float = 120,
                    cuts: int = 1) -> Query:
    """Run seed's query up to its cut, stop with a savepoint, resume in a fresh environment to the
    end (with ``cuts`` > 1: to the next cut, stop with a savepoint again, ...); AssertionError when
    the changelog of all the runs differs from DuckDB's answer."""
    q = make_query(seed)
    plan = resume_plan(seed, q, cuts)
    what = (f"seed {seed} savepoints at {', '.join(f'{c:.0%}' for c in plan.cuts)} "
            f"({' -> '.join(plan.backends)}, batch {q.batch_size}): {q.flink}")
    expected = expected_rows(q, files)
    sql = f"CREATE TABLE `out` WITH ('connector' = '{RECORDER}') AS {q.flink}"
    runs: list[list[tuple[RowKind, tuple]]] = []
    path = None
    with connectors():
        for i, backend in enumerate(plan.backends):
            last = i == len(plan.cuts)
            _reset({} if last else {str(files[n]): max(1, int(plan.cuts[i] * _lines(files[n])))
                                    for n in ("t", "cdc", "cdx")})
            restore = {"execution.savepoint.path": path} if path else {}
            with make_env(work / f"run{i}", backend, q.batch_size, _settings(f"fuzz-{i}", **restore)) as env:
                create_tables(env, files, GATED)
                if i and q.alter == "add":  # the restored job's table gained a column it does not read
                    env.execute_sql("ALTER TABLE t ADD zz AS id + 1")
                job = env.execute_sql(sql).job
                if last:
                    status = job.wait(timeout)
                    LAST.update(restored=job.runner.restored_from)
                    if status != "FINISHED":
                        job.cancel()
                        msg = f"{what}\n  the last job did not finish within {timeout} s ({status})"
                        raise AssertionError(msg)
                else:
                    _hold(job, timeout, f"{what}\n  run {i}")
                    path = env.execute_sql(f"STOP JOB '{job.job_id}' WITH SAVEPOINT").rows[0][0]
                    assert job.status == "FINISHED", f"{what}\n  the stopped job {i} is {job.status}"
            runs.append(list(WRITTEN))
    LAST.update(changes=[len(r) for r in runs], cuts=plan.cuts)
    compare_runs(runs, expected, what)
    check_sorted([row for r in runs for _, row in r], q, what)
    return q


def compare_runs(runs: list[list[tuple[RowKind, tuple]]], expected, what: str) -> None:
    """Fold the changes of every run as one changelog and compare it with ``expected`` (DuckDB's);
    AssertionError naming ``what`` and each run's count of changes when they differ."""
    counts = f"({' + '.join(str(len(r)) for r in runs)} changes, run by run)"
    try:
        actual = fold([c for r in runs for c in r])
    except AssertionError as e:
        msg = f"{what}\n  {counts} {e}"
        raise AssertionError(msg) from None
    compare(actual, expected, f"{what}\n  {counts}")


def _hold(job, timeout: float, what: str) -> None:
    """Wait until every source of ``job`` holds at its cut."""
    wait_for(job, lambda: bool(OPENED) and all(s.held for s in OPENED), timeout, what,
             "its sources held at the cut")


def wait_for(job, ready: Callable[[], bool], timeout: float, what: str, until: str,
             poll: float = 0.02) -> None:
    """Wait until ``ready()``; AssertionError (``what``: the job ended, or ``timeout`` passed, before
    ``until``)."""
    deadline = time.monotonic() + timeout
    while not ready():
        if job.done:
            job.wait(0)  # its failure
            msg = f"{what}: the job ended ({job.status}) before {until}"
            raise AssertionError(msg)
        if time.monotonic() > deadline:
            msg = f"{what}: not {until} within {timeout} s"
            raise AssertionError(msg)
        time.sleep(poll)
