"""tests/conftest.py's pytest-xdist scheduler, driven with stand-in workers: which worker gets which
module, and a run to the end while workers that finished leave."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from tests.conftest import pytest_xdist_make_scheduler, scheduling_unit

COLLECTION = [
    "tests/compat/test_compat.py::test_case[a]", "tests/compat/test_compat.py::test_case[b]",
    "tests/compat/test_compat.py::test_case[c]", "tests/integration/test_chaos.py::test_crash",
    "tests/integration/test_parallel.py::test_tumble[1]",
    "tests/integration/test_parallel.py::test_tumble[2]",
    "tests/integration/test_parallel_workers.py::test_kill",
    "tests/integration/test_kafka_a.py::test_1", "tests/integration/test_kafka_a.py::test_2",
    "tests/integration/test_kafka_b.py::test_1", "tests/e2e/test_c.py::test_1",
    "tests/functions/test_d.py::test_1", "tests/functions/test_d.py::test_2",
    "tests/functions/test_d.py::test_3",
    "tests/runtime/test_e.py::test_1", "tests/runtime/test_e.py::test_2", "tests/plan/test_f.py::test_1",
]


class _Worker:
    """What the scheduler uses of xdist's WorkerController."""

    def __init__(self, name: str) -> None:
        self.gateway = SimpleNamespace(id=name)
        self.shutting_down = False
        self.sent: list[int] = []

    def send_runtest_some(self, indices: list[int]) -> None:
        self.sent += indices

    def shutdown(self) -> None:
        self.shutting_down = True


def _start(workers: int):
    config = SimpleNamespace(getvalue=lambda name: [f"{workers}*popen"] if name == "tx" else None,
                             option=SimpleNamespace(loadscopereorder=True))
    sched = pytest_xdist_make_scheduler(config, None)
    nodes = [_Worker(f"gw{i}") for i in range(workers)]
    for node in nodes:
        sched.add_node(node)
        sched.add_node_collection(node, list(COLLECTION))
    sched.schedule()
    return sched, nodes


def _modules(node: _Worker) -> list[str]:
    return [COLLECTION[i].split("::")[0] for i in node.sent]


def test_units_at_two_workers_and_more():
    heavy = ["tests/compat/test_compat.py", "tests/integration/test_chaos.py",
             "tests/integration/test_parallel.py", "tests/integration/test_parallel_workers.py"]
    assert {scheduling_unit(m, 2) for m in heavy} == {"processes"}
    assert [scheduling_unit(m, 4) for m in heavy] == ["processes", "processes", "processes-parallel",
                                                      "processes-parallel"]
    assert scheduling_unit("tests/integration/test_kafka_a.py", 4) == "tests/integration/test_kafka_a.py"


@pytest.mark.parametrize("workers", [2, 4])
def test_process_heavy_units_go_first_each_to_one_worker(workers):
    _, nodes = _start(workers)
    first = [_modules(n)[0] for n in nodes]
    heavy = {"tests/compat/test_compat.py", "tests/integration/test_chaos.py",
             "tests/integration/test_parallel.py", "tests/integration/test_parallel_workers.py"}
    if workers == 2:
        assert set(_modules(nodes[0])[:7]) == heavy
        assert not heavy & set(_modules(nodes[1]))
    else:
        assert first[:2] == ["tests/compat/test_compat.py", "tests/integration/test_parallel.py"]
        assert "tests/integration/test_chaos.py" in _modules(nodes[0])
        assert "tests/integration/test_parallel_workers.py" in _modules(nodes[1])
        # then a waiting module and an in-process one, alternately
        assert first[2:] == ["tests/integration/test_kafka_a.py", "tests/functions/test_d.py"]


def test_a_run_ends_while_finished_workers_leave():
    """Each test runs once; a worker that is done leaves (xdist then asks each ending test's unit
    again, with fewer workers: the process-heavy units must keep their names)."""
    sched, nodes = _start(4)
    done: list[int] = []
    for _ in range(10 * len(COLLECTION)):
        for node in list(sched.nodes):  # the workers that finished leave first
            if node.shutting_down and set(node.sent) <= set(done):
                sched.remove_node(node)
        if not sched.nodes:
            break
        pending = [(node, i) for node in sched.nodes for i in node.sent if i not in done]
        assert pending, f"workers with nothing to do that do not leave: {sched.nodes}"
        # the process-heavy tests are the slow ones: they end last, when two workers have left
        node, i = min(pending, key=lambda p: "processes" in scheduling_unit(COLLECTION[p[1]], 4))
        done.append(i)
        sched.mark_test_complete(node, i, 0.1)
    assert sorted(done) == list(range(len(COLLECTION)))
