"""Shared pytest configuration for StreamSQL's tests.

Fixture modules live beside this file and are re-exported here so every test
directory sees them. Append further imports/fixtures below.
"""

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
# suite's two concurrent `streamsql run`s). Under pytest-xdist (`-n 2`) they form one scheduling
# unit, so they run one after another on one worker while the other worker takes the in-process
# tests: two of them side by side on two cores would starve their timeouts. Every other module is a
# unit of its own (as `--dist loadfile`), so a module-scoped fixture (the function conformance
# batch, say) is computed once, not once per worker. (A scheduler, not xdist_group marks: under
# pytest 9 xdist's loadgroup no longer sees the group suffix it writes into node ids.)
PROCESS_HEAVY = ("tests/integration/test_chaos.py", "tests/integration/test_parallel",
                 "tests/compat/test_compat.py", "tests/integration/test_flights.py",
                 "tests/integration/test_s3_checkpoints.py")


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """xdist's scheduling by module, with the :data:`PROCESS_HEAVY` modules as one unit."""
    from xdist.scheduler import LoadScopeScheduling

    class ModuleScheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            module = nodeid.split("::", 1)[0]
            return "processes" if module.startswith(PROCESS_HEAVY) else module

    return ModuleScheduling(config, log)


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
