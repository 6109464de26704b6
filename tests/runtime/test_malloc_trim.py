"""Free arena memory goes back to the system after each checkpoint (runtime/memory.MallocTrimmer).

The trimmer only sets an event on the job thread; ``malloc_trim(0)`` runs on a thread of its own,
at most once per interval. A job calls it from a commit listener unless
``'streamsql.exec.memory.trim-after-checkpoint'`` is false.
"""

from __future__ import annotations

import ctypes
import platform
import sys
import threading
import time

import pytest

from streamsql.runtime import builder
from streamsql.runtime.memory import MallocTrimmer

glibc = pytest.mark.skipif(
    not sys.platform.startswith("linux") or platform.libc_ver()[0] != "glibc", reason="glibc's malloc_trim"
)


def _wait(cond, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


class _FakeTrim:
    """Stands in for ``malloc_trim``: counts calls and the threads they ran on."""

    def __init__(self, block: threading.Event | None = None):
        self.calls: list[tuple[int, str]] = []
        self.block = block

    def __call__(self, pad: int) -> int:
        self.calls.append((pad, threading.current_thread().name))
        if self.block is not None:
            self.block.wait(5)
        return 1


def test_a_request_returns_at_once_and_trims_on_the_trimmer_thread():
    release = threading.Event()
    t = MallocTrimmer(min_interval_s=0)
    t._trim = fake = _FakeTrim(block=release)
    t0 = time.monotonic()
    t.request()
    assert time.monotonic() - t0 < 0.5  # the job thread never waits for the trim
    _wait(lambda: fake.calls)
    release.set()
    _wait(lambda: t.trims == 1)
    assert fake.calls == [(0, "malloc-trim")]  # malloc_trim(0): every arena, no padding kept


def test_requests_while_one_runs_are_coalesced_and_spaced():
    release = threading.Event()
    t = MallocTrimmer(min_interval_s=0.3)
    t._trim = fake = _FakeTrim(block=release)
    t.request()
    _wait(lambda: fake.calls)  # the first trim runs (held here) ...
    for _ in range(20):  # ... while checkpoints complete faster than the interval
        t.request()
    release.set()
    _wait(lambda: t.trims == 1)
    time.sleep(0.15)
    assert len(fake.calls) == 1  # not before the interval has passed
    _wait(lambda: len(fake.calls) == 2)  # then one trim for all the requests made meanwhile
    time.sleep(0.5)
    assert len(fake.calls) == 2


@glibc
def test_malloc_trim_gives_free_arena_memory_back():
    """The real call: 64 MiB freed below a live chunk stay resident until the trim."""
    libc = ctypes.CDLL(None)
    libc.malloc.restype = ctypes.c_void_p
    libc.malloc.argtypes = [ctypes.c_size_t]
    libc.free.argtypes = [ctypes.c_void_p]

    def rss_mib() -> float:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * 4096 / 2**20

    chunk = 32 * 1024  # below the mmap threshold: from the arena's heap
    ptrs = [libc.malloc(chunk) for _ in range(2048)]
    for p in ptrs:
        ctypes.memset(p, 1, chunk)
    keep = libc.malloc(chunk)  # on top of the heap: a plain free cannot shrink it
    ctypes.memset(keep, 1, chunk)
    for p in ptrs:
        libc.free(p)
    before = rss_mib()
    t = MallocTrimmer(min_interval_s=0)
    assert t.available
    t.request()
    _wait(lambda: t.trims == 1)
    after = rss_mib()
    libc.free(keep)
    assert before - after > 32, (before, after)


class _CountingTrimmer:
    available = True

    def __init__(self):
        self.requests = 0

    def request(self) -> None:
        self.requests += 1


@pytest.mark.parametrize("setting,trimmed", [(None, True), ("false", False)])
def test_a_job_asks_for_a_trim_when_a_checkpoint_completes(tmp_path, monkeypatch, setting, trimmed):
    from streamsql.environment import StreamEnvironment

    fake = _CountingTrimmer()
    monkeypatch.setattr(builder, "malloc_trimmer", lambda: fake)
    config = {"state.dir": str(tmp_path / "state"), "execution.checkpointing.dir": str(tmp_path / "cp"),
              "restart-strategy.type": "none"}
    if setting is not None:
        config["streamsql.exec.memory.trim-after-checkpoint"] = setting
    env = StreamEnvironment(config)
    env.execute_sql("CREATE TABLE out_t (x INT) WITH ('connector' = 'blackhole')")
    job = env.execute_sql("INSERT INTO out_t VALUES (1), (2)").job
    assert job.wait(30) == "FINISHED"
    assert job.last_checkpoint["status"] == "committed"
    assert (fake.requests >= 1) is trimmed
