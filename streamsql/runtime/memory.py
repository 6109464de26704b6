"""Process-wide memory settings the engine applies before a job's threads start."""

from __future__ import annotations

import ctypes
import ctypes.util
import logging
import os
import sys
import threading

import pyarrow as pa

log = logging.getLogger(__name__)

_done = threading.Event()
_arenas_done = threading.Event()

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
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        if not hasattr(libc, "gnu_get_libc_version"):
            return False  # musl: no arenas to cap
        applied = bool(libc.mallopt(M_ARENA_MAX, limit))
    except OSError:
        return False
    if not applied:
        log.debug("mallopt(M_ARENA_MAX, %d) was refused", limit)
    return applied
