"""Process-wide memory settings the engine applies before a job's threads start."""

from __future__ import annotations

import ctypes
import functools
import logging
import os
import sys
import threading

import numpy as np
import pyarrow as pa

log = logging.getLogger(__name__)

_done = threading.Event()
_arenas_done = threading.Event()
_pandas_done = threading.Event()

#: glibc's ``mallopt`` parameter number of ``M_ARENA_MAX`` (``<malloc.h>``).
M_ARENA_MAX = -8
#: The arena cap a job sets when ``MALLOC_ARENA_MAX`` is not in the environment.
DEFAULT_ARENA_MAX = 4


def use_system_allocator() -> None:
    """Give Arrow's buffers to the C library's ``malloc``, unless ``ARROW_DEFAULT_MEMORY_POOL`` is set.

    pyarrow defaults to mimalloc, which keeps freed pages for reuse; a job allocates and frees
    Arrow buffers for every batch, and large-state jobs count peak RSS. Measured with
    ``benchmarks/`` (AGG1M, 1M keys, RocksDB): 458 → 432 MiB peak RSS at the same throughput.
    Process-wide and applied once; an application that chose a pool by the environment variable
    keeps it.
    """
    if _done.is_set():
        return
    _done.set()
    if "ARROW_DEFAULT_MEMORY_POOL" not in os.environ:
        pa.set_memory_pool(pa.system_memory_pool())


#: The switch of :func:`keep_pandas_unloaded` (``true`` by default; a StreamSQL key, Flink has none).
PANDAS_KEY = "streamsql.exec.memory.keep-pandas-unloaded"


def keep_pandas_unloaded() -> bool:
    """Stop pyarrow from importing pandas for its own checks; True if it was stopped.

    pyarrow looks for pandas at its first ``pa.array`` of anything but a numpy array (planning's
    empty tables) and at its first ``to_numpy`` (every operator), and imports it if installed:
    ~30-37 MiB of RSS a job never uses (``benchmarks/README.md``, *Issue 15's memory bars, a
    third time*). Here both checks run once with ``import pandas`` refused on this thread, so
    pyarrow remembers "no pandas", and a one-shot import hook tells pyarrow's Python side when
    anyone imports pandas later: ``pa.array`` of a pandas Series or Categorical converts as
    pandas' own again, and ``to_pandas`` / ``Table.from_pandas`` import pandas themselves.
    What stays off for the process is pyarrow's C++ knowledge of pandas' scalars: in a list of
    Python objects given to ``pa.array``, a ``pd.Timedelta`` converts at microseconds and
    ``pd.NA`` / ``pd.NaT`` are not nulls. A process that needs those creates its first
    environment with ``'streamsql.exec.memory.keep-pandas-unloaded' = 'false'`` or imports
    pandas first.

    A no-op when pandas is already imported (nothing to save; pyarrow keeps it); applied once
    per process. Another thread importing pandas meanwhile imports it as usual.
    """
    if _pandas_done.is_set():
        return False
    _pandas_done.set()
    shim = getattr(pa.lib, "_pandas_api", None)
    if "pandas" in sys.modules or shim is None:
        return False
    refuse = _RefusePandas(threading.get_ident())
    sys.meta_path.insert(0, refuse)
    try:
        if shim.have_pandas:  # pragma: no cover - pyarrow had already imported it
            return False
        pa.array(np.zeros(1, np.int64)).to_numpy()  # its C++ side's check (asked once per process)
    finally:
        sys.meta_path.remove(refuse)
    sys.meta_path.insert(0, _TellPyarrowOnImport())
    return True


class _RefusePandas:
    """A meta path finder that makes ``import pandas`` fail on one thread."""

    def __init__(self, thread: int):
        self.thread = thread

    def find_spec(self, name: str, path=None, target=None):
        if name == "pandas" and threading.get_ident() == self.thread:
            msg = "pandas is not imported for pyarrow's type checks (streamsql.runtime.memory)"
            raise ModuleNotFoundError(msg, name=name)
        return None


class _TellPyarrowOnImport:
    """A one-shot meta path finder: after ``pandas`` is imported, pyarrow takes it up."""

    def find_spec(self, name: str, path=None, target=None):
        if name != "pandas":
            return None
        try:
            sys.meta_path.remove(self)
        except ValueError:  # pragma: no cover - another thread's import came first
            return None
        import importlib.util

        spec = importlib.util.find_spec(name)
        loader = getattr(spec, "loader", None)
        if loader is None or not hasattr(loader, "exec_module"):  # pragma: no cover - a namespace
            return spec
        run = loader.exec_module

        def exec_module(module):
            run(module)
            pa.lib._pandas_api.is_array_like(None)  # pyarrow imports pandas (loaded by now)

        loader.exec_module = exec_module  # this loader serves pandas alone; its type is kept
        return spec


@functools.lru_cache(maxsize=1)
def _glibc() -> ctypes.CDLL | None:
    """The process's C library if it is glibc, else None (musl, or not Linux).

    ``dlopen(NULL)`` (the process's own symbols) rather than ``ctypes.util.find_library``, which
    runs ``ldconfig`` in a child process: a fork of a large job, counted in its process tree's RSS.
    """
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(None)
    except OSError:
        return None
    return libc if hasattr(libc, "gnu_get_libc_version") else None


def limit_malloc_arenas(limit: int = DEFAULT_ARENA_MAX) -> bool:
    """Cap glibc's malloc arenas at ``limit``, as ``MALLOC_ARENA_MAX`` would; True if applied.

    glibc gives a thread that allocates while the others hold their arenas an arena of its own,
    up to 8 per core, and each arena keeps the memory its thread freed for that thread's next
    allocations. A job's pipeline (fetch, decode, sink and commit threads) beside librdkafka's,
    RocksDB's and DuckDB's threads so holds freed memory in up to 17 arenas. Measured
    (``benchmarks/README.md``, *Where the 10M-key memory went*; AGG 2M keys, pipeline on,
    alternating): 514-562 MiB peak RSS without a cap, 499-507 with 4 at the same events/s and
    CPU per event, 479-491 with 2 but 10-20 % more CPU per event (threads wait for each other's
    arena). So 4 by default; ``MALLOC_ARENA_MAX=2`` for a job bound by memory rather than CPU.

    glibc reads the cap when it first needs a ninth arena and keeps it, so this must run before
    the process has more than 8 (before a job's threads start): the environment calls it when it
    is created, a job again when it starts (a no-op the second time). Applied once per process;
    a ``MALLOC_ARENA_MAX`` in the environment wins (glibc has applied it), and a C library other
    than glibc is left alone.
    """
    if _arenas_done.is_set():
        return False
    _arenas_done.set()
    if "MALLOC_ARENA_MAX" in os.environ or not sys.platform.startswith("linux"):
        return False
    libc = _glibc()
    if libc is None:
        return False  # musl: no arenas to cap
    applied = bool(libc.mallopt(M_ARENA_MAX, limit))
    if not applied:
        log.debug("mallopt(M_ARENA_MAX, %d) was refused", limit)
    return applied


#: The switch of :class:`MallocTrimmer` (``true`` by default; a StreamSQL key, Flink has none).
TRIM_KEY = "streamsql.exec.memory.trim-after-checkpoint"


class MallocTrimmer:
    """Gives the free memory inside glibc's arenas back to the system after each checkpoint.

    A job's threads free most of what they allocate for a batch (Arrow buffers, decoded JSON,
    RocksDB's multi-get results) within the batch; glibc keeps those chunks in the arena of the
    thread that freed them, and gives pages back only from the top of a heap, so the free memory
    inside the arenas counts in the RSS. Measured at the peak of a 10M-key GROUP BY
    (``benchmarks/README.md``, *Where the 10M-key memory went*): 106 MiB free in 4 arenas beside
    230 MiB in use. ``malloc_trim(0)`` releases every whole free page of every arena
    (``madvise(MADV_DONTNEED)``); the chunks stay free for reuse, and a page touched again costs
    one page fault.

    :meth:`request` is called on the job thread when a checkpoint completes and only sets an
    event: the trim runs on a daemon thread of its own (one per process, started on first use),
    at most once per ``min_interval_s`` however often checkpoints complete, so the job thread
    never waits for it; the arenas are locked one at a time while the trim walks them. On a C
    library other than glibc (musl), or off Linux, it does nothing.

    Attributes:
        trims: trims done so far (tests read it).
        seconds: time spent trimming so far.
    """

    def __init__(self, min_interval_s: float = 0.5):
        self.min_interval_s = min_interval_s
        self.trims = 0
        self.seconds = 0.0
        self._wanted = threading.Event()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._trim = _malloc_trim()

    @property
    def available(self) -> bool:
        """True where there is a ``malloc_trim`` to call (glibc)."""
        return self._trim is not None

    def request(self) -> None:
        """Ask for a trim soon (a checkpoint completed); returns at once."""
        if self._trim is None:
            return
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="malloc-trim", daemon=True)
                self._thread.start()
        self._wanted.set()

    def _run(self) -> None:
        import time

        trim = self._trim
        while True:
            self._wanted.wait()
            self._wanted.clear()
            t0 = time.monotonic()
            trim(0)
            took = time.monotonic() - t0
            self.trims += 1
            self.seconds += took
            time.sleep(max(0.0, self.min_interval_s - took))


def _malloc_trim():
    """The C library's ``malloc_trim`` on glibc (ctypes releases the GIL while it runs), else None."""
    libc = _glibc()
    fn = getattr(libc, "malloc_trim", None)
    if fn is None:
        return None
    fn.argtypes = [ctypes.c_size_t]
    fn.restype = ctypes.c_int
    return fn


_trimmer: MallocTrimmer | None = None
_trimmer_lock = threading.Lock()


def malloc_trimmer() -> MallocTrimmer:
    """The process's :class:`MallocTrimmer` (created on first use)."""
    global _trimmer
    with _trimmer_lock:
        if _trimmer is None:
            _trimmer = MallocTrimmer()
        return _trimmer
