"""Shared pytest configuration for StreamSQL's tests.

Fixture modules live beside this file and are re-exported here so every test
directory sees them. Append further imports/fixtures below.
"""

import re
import zlib

import pytest

from tests.db_fixtures import mariadb, mariadb_db, postgres, postgres_db  # noqa: F401
from tests.kafka_fixtures import *  # noqa: F403  (kafka_bootstrap, kafka_admin, kafka_topic_factory)
from tests.s3_fixtures import s3_endpoint, s3_settings  # noqa: F401


@pytest.fixture
def bad_json(tmp_path):
    """A JSON-lines file whose second record cannot be read as INT (``<path>:2``)."""
    path = tmp_path / "bad.json"
    path.write_text('{"id": 1}\n{"id": "x"}\n{"id": 3}\n')
    return path


# Modules whose tests run several processes at once (worker processes, crash campaigns, the compat
# suite's two concurrent `streamsql run`s). Under pytest-xdist they are dealt first, as the longest
# units, and never more than two of them run at once: with two workers (`-n 2`) they form one
# scheduling unit, run one after another on one worker while the other takes the in-process tests;
# with more workers (the README's `-n 4`) they form the two units of :data:`PROCESS_HEAVY_SPLIT`, of
# about equal time, on two workers. (Two of them side by side beside in-process tests would starve
# their timeouts on two cores; the other workers wait on Kafka most of the time: the integration
# modules use ~0.1–0.3 CPU-s a second.) Every other module is a unit of its own (as `--dist
# loadfile`), so a module-scoped fixture (the function conformance batch, say) is computed once, not
# once per worker. (A scheduler, not xdist_group marks: under pytest 9 xdist's loadgroup no longer
# sees the group suffix it writes into node ids.)
PROCESS_HEAVY = ("tests/integration/test_chaos.py", "tests/integration/test_parallel",
                 "tests/compat/test_compat.py", "tests/integration/test_flights.py",
                 "tests/integration/test_s3_checkpoints.py")
#: With three workers or more, the :data:`PROCESS_HEAVY` modules as two units (~400 s each on a quiet
#: 2-core machine, session 34's CI): the parallel-job modules, and the rest.
PROCESS_HEAVY_SPLIT = {"processes-parallel": ("tests/integration/test_parallel",)}
#: Folders whose modules wait on Kafka or on processes more than they compute (~0.1–0.3 CPU-s a
#: second): dealt alternately with the in-process modules, so that the cores have work while these
#: wait, and none of them (a few take a minute) is left to the end with the other workers idle.
WAITING = ("tests/integration/", "tests/e2e/", "tests/shell/", "tests/connectors/", "tests/cdc/")


def _interleaved(first: list, second: list) -> list:
    """``first[0], second[0], first[1], second[1], ...``, then what is left of the longer list."""
    out = [u for pair in zip(first, second) for u in pair]
    n = min(len(first), len(second))
    return out + first[n:] + second[n:]


def scheduling_unit(nodeid: str, workers: int) -> str:
    """The xdist scheduling unit of a test: its module, or one of the process-heavy units."""
    module = nodeid.split("::", 1)[0]
    if not module.startswith(PROCESS_HEAVY):
        return module
    if workers >= 3:
        for unit, prefixes in PROCESS_HEAVY_SPLIT.items():
            if module.startswith(prefixes):
                return unit
    return "processes"


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """xdist's scheduling by module, with the :data:`PROCESS_HEAVY` modules as one or two units
    (:func:`scheduling_unit`), dealt first, then the :data:`WAITING` modules alternately with the others."""
    from xdist.scheduler import LoadScopeScheduling

    class ModuleScheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            # the workers asked for (-n), not len(self.nodes): xdist asks again as each test ends,
            # when the workers that finished are gone
            return scheduling_unit(nodeid, self.numnodes)

        def _assign_work_unit(self, node) -> None:
            # xdist orders units by their number of tests; the process-heavy ones, the longest, go
            # first (each worker takes its first unit in turn: no worker gets two of them), then the
            # waiting-bound and the in-process modules alternately, each in xdist's order.
            if not getattr(self, "_reordered", False):
                self._reordered = True
                units = list(self.workqueue.items())
                heavy = [u for u in units if u[0].startswith("processes")]
                waiting = [u for u in units if u[0].startswith(WAITING) and not u[0].startswith("processes")]
                computing = [u for u in units if not u[0].startswith(("processes", *WAITING))]
                self.workqueue.clear()
                self.workqueue.update(heavy + _interleaved(waiting, computing))
            super()._assign_work_unit(node)

    return ModuleScheduling(config, log)


def _machine_cpu() -> tuple[int, int]:
    """The machine's CPU time since boot from ``/proc/stat``: (all, idle and iowait), in clock ticks."""
    try:
        with open("/proc/stat") as f:
            ticks = [int(v) for v in f.readline().split()[1:]]
    except (OSError, ValueError):
        return 0, 0
    return sum(ticks), ticks[3] + ticks[4]


def _cpu_seconds() -> float:
    """This process's CPU time (user and system, all threads) and that of its children it waited for."""
    import resource

    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


class _WorkerTimes:
    """Under pytest-xdist, each worker's share of the run, for the end of the terminal report: its
    tests' time (setup, call and teardown, seconds), that of the :data:`PROCESS_HEAVY` units, its CPU
    time (seconds, its own and its waited-for children's: the ``streamsql`` processes its tests ran),
    and when its last report came (seconds since the first report anywhere): a worker that ends much
    earlier than the others idled while they finished (the suite's wall time is the latest). Then how
    busy the machine's cores were meanwhile (``/proc/stat``, every process's: the broker's too): far
    below 100 %, the suite waits more than it computes, and more workers would end it sooner."""

    def __init__(self) -> None:
        self.start: float | None = None
        self.busy: dict[str, float] = {}
        self.heavy: dict[str, float] = {}
        self.last: dict[str, float] = {}
        self.cpu: dict[str, float] = {}
        self.machine = _machine_cpu()

    def pytest_runtest_logreport(self, report) -> None:
        import time

        node = getattr(report, "node", None)
        if node is None:  # not a report a worker sent
            return
        now = time.monotonic()
        self.start = now if self.start is None else self.start
        worker = node.gateway.id
        self.busy[worker] = self.busy.get(worker, 0.0) + report.duration
        if report.nodeid.startswith(PROCESS_HEAVY):
            self.heavy[worker] = self.heavy.get(worker, 0.0) + report.duration
        self.last[worker] = now - self.start

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node, error) -> None:
        cpu = getattr(node, "workeroutput", {}).get("cpu_seconds")
        if cpu is not None:
            self.cpu[node.gateway.id] = cpu

    def pytest_terminal_summary(self, terminalreporter) -> None:
        import os

        if self.busy:
            each = "; ".join(f"{w} {self.busy[w]:.0f} s, {self.heavy.get(w, 0.0):.0f} s, "
                             f"CPU {self.cpu.get(w, float('nan')):.0f} s, at {self.last[w]:.0f} s"
                             for w in sorted(self.busy))
            terminalreporter.write_line(f"xdist workers (tests' time, process-heavy units', CPU time, last "
                                        f"report): {each}")
            (total0, idle0), (total1, idle1) = self.machine, _machine_cpu()
            if total1 > total0:
                terminalreporter.write_line(f"machine: {os.cpu_count()} cores, "
                                            f"{100 * (1 - (idle1 - idle0) / (total1 - total0)):.0f}% busy")


def pytest_configure(config):
    """Register :class:`_WorkerTimes` on the controller of a pytest-xdist run."""
    if getattr(config.option, "numprocesses", None) and not hasattr(config, "workerinput"):
        config.pluginmanager.register(_WorkerTimes(), "streamsql-worker-times")


@pytest.hookimpl(tryfirst=True)
def pytest_sessionfinish(session):
    """On a pytest-xdist worker, hand its CPU time to the controller (:class:`_WorkerTimes`); xdist
    sends ``workeroutput`` in its own ``pytest_sessionfinish``, after this one."""
    if hasattr(session.config, "workeroutput"):
        from tests.cli_runner import close_servers

        close_servers()  # their runs' CPU time then counts in this process's children's
        session.config.workeroutput["cpu_seconds"] = _cpu_seconds()


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    """Say how a crashed pytest-xdist worker process ended; xdist says only "Not properly terminated".

    A fatal signal that faulthandler catches (SIGSEGV, SIGABRT, ...) has its threads' stacks
    printed above, on the worker's stderr, which is the controller's; the exit status tells the
    other ends apart: SIGKILL (the OOM killer, or another process), SIGTERM, a SIGSEGV with no
    stack printed (a C stack overflow in a thread other than the main one), an exit code (137: a
    fault injection's ``os._exit``).
    """
    import signal
    import subprocess

    popen = getattr(getattr(getattr(node, "gateway", None), "_io", None), "popen", None)
    if not error or popen is None:
        return
    try:
        rc = popen.wait(10)
    except subprocess.TimeoutExpired:
        return
    try:
        how = f"killed by {signal.Signals(-rc).name}" if rc < 0 else f"exit code {rc}"
    except ValueError:
        how = f"killed by signal {-rc}"
    reporter = node.config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None:
        reporter.write_line(f"[{node.gateway.id}] worker process {popen.pid} ended: {how}")


#: The two state backends a test may be parametrized over (a parameter whose value is one of them).
STATE_BACKENDS = ("hashmap", "rocksdb")
#: Test files whose point is the state backend: their cases run on both backends by default.
BACKEND_IS_THE_POINT = ("tests/state/", "tests/checkpoint/", "tests/upgrade/",
                        "tests/integration/test_chaos.py", "tests/integration/test_s3_checkpoints.py",
                        "tests/runtime/test_job_state.py", "tests/runtime/test_join_state.py")
#: Words of a test's name that say its point is the state backend (what it writes, keeps, restores).
BACKEND_WORDS = ("snapshot", "restore", "rescale", "savepoint", "checkpoint", "key_group", "crash", "kill",
                 "memory", "state")
_BACKEND_ID = re.compile(r"(?<![A-Za-z0-9_])(?:hashmap|rocksdb)(?![A-Za-z0-9_])")


def _backend_param(item) -> str | None:
    """The backend the item runs on, if exactly one of its parameters is a state backend's name."""
    params = getattr(getattr(item, "callspec", None), "params", {})
    named = [v for v in params.values() if isinstance(v, str) and v in STATE_BACKENDS]
    return named[0] if len(named) == 1 else None


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """Run a case parametrized over both state backends on one of them by default, where the backend
    is incidental to what the test checks (SQL semantics); the other backend's case is marked
    ``slow`` and ``other_backend`` (``-m "not slow or other_backend"`` runs the default suite on both).

    The kept backend is a stable hash of the node id with the backend left out, so a case keeps its
    backend however the tests are selected and xdist's workers agree, and each operator family's
    cases are spread over both backends. Files of :data:`BACKEND_IS_THE_POINT` and tests named with
    :data:`BACKEND_WORDS` keep both; a pair one of whose cases is already ``slow`` (a pairwise cut of a
    matrix) is left as it is.
    """
    pairs: dict[str, list] = {}
    for item in items:
        backend = _backend_param(item)
        path = item.nodeid.replace("\\", "/")
        if (backend is None or path.startswith(BACKEND_IS_THE_POINT)
                or any(w in getattr(item, "originalname", item.name) for w in BACKEND_WORDS)):
            continue
        pairs.setdefault(_BACKEND_ID.sub("*", path), []).append((backend, item))
    _keep_one_by_hash(pairs, STATE_BACKENDS, [pytest.mark.slow, pytest.mark.other_backend])
    # tests/integration/test_parallel.py: each query family at parallelism 1 and one of 2 and 4
    wider: dict[str, list] = {}
    for item in items:
        params = getattr(getattr(item, "callspec", None), "params", {})
        if (item.nodeid.replace("\\", "/").startswith(PARALLELISM_SPLIT)
                and params.get("parallelism") in OTHER_PARALLELISMS):
            rest = sorted((k, repr(v)) for k, v in params.items() if k != "parallelism")
            wider.setdefault(f"{item.nodeid.split('[')[0]}{rest}", []).append((params["parallelism"], item))
    _keep_one_by_hash(wider, OTHER_PARALLELISMS, [pytest.mark.slow, pytest.mark.other_parallelism])


#: Files whose cases run at parallelism 1, 2 and 4: 1 and one of the others by default.
PARALLELISM_SPLIT = ("tests/integration/test_parallel.py",)
OTHER_PARALLELISMS = (2, 4)


def _keep_one_by_hash(groups: dict[str, list], choices: tuple, moved: list) -> None:
    """Of each group's cases (``key -> [(choice, item)]``, one per choice), mark all but one ``moved``.

    The kept choice is a stable hash (CRC-32) of the group's key, so a case keeps its choice however
    the tests are selected and xdist's workers agree. A group without exactly the ``choices``, or one
    of whose cases is already ``slow`` (a pairwise cut of a matrix), is left as it is.
    """
    for key, group in groups.items():
        if (sorted(c for c, _ in group) != sorted(choices)
                or any(i.get_closest_marker("slow") for _, i in group)):
            continue
        keep = choices[zlib.crc32(key.encode()) % len(choices)]
        for choice, item in group:
            if choice != keep:
                for mark in moved:
                    item.add_marker(mark)
