"""What a contender's memory is made of at its RSS peak, sampled from inside its process (Linux).

:class:`MemoryProbe` reads ``/proc/self/statm`` every ``period`` seconds; whenever the RSS passes
its previous peak by a MiB it notes the parts it can attribute: glibc's ``mallinfo2`` (bytes in
use by ``malloc``, free inside its arenas, mapped on their own), the counters of every RocksDB
block cache the process's state backends use, pyarrow's pool, and ``/proc/self/smaps_rollup``
(anonymous vs file-backed). ``snapshot()`` is the note of the highest peak.
"""

from __future__ import annotations

import ctypes
import os
import threading

_PAGE = os.sysconf("SC_PAGE_SIZE")
MIB = 1 << 20


class _MallInfo2(ctypes.Structure):
    _fields_ = [(n, ctypes.c_size_t) for n in (
        "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks", "fordblks",
        "keepcost")]


def _mallinfo2_fn():
    # dlopen(NULL): the process's own symbols (glibc's among them); ctypes.util.find_library would
    # run ldconfig in a child, whose RSS (a copy of ours) the harness's tree sampler would count
    try:
        fn = ctypes.CDLL(None).mallinfo2
    except (OSError, AttributeError):
        return None
    fn.restype = _MallInfo2
    return fn


_MALLINFO2 = _mallinfo2_fn()


def mallinfo2() -> dict[str, float] | None:
    """glibc's heap counters in MiB: ``in_use``, ``free`` (inside the arenas), ``mmapped``; None off glibc."""
    if _MALLINFO2 is None:
        return None
    m = _MALLINFO2()
    return {"in_use": (m.uordblks + m.hblkhd) / MIB, "free": m.fordblks / MIB, "mmapped": m.hblkhd / MIB,
            "heap": m.arena / MIB}


def smaps_rollup() -> dict[str, float]:
    """``/proc/self/smaps_rollup`` fields that split the RSS, in MiB."""
    out = {}
    try:
        with open("/proc/self/smaps_rollup") as f:
            for line in f:
                k, _, rest = line.partition(":")
                if k in ("Rss", "Anonymous", "Shared_Clean", "Private_Clean", "Private_Dirty"):
                    out[k] = int(rest.split()[0]) / 1024
    except OSError:
        pass
    return out


def rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * _PAGE


class MemoryProbe(threading.Thread):
    """Samples this process's RSS; at each new peak notes what it is made of (module docstring)."""

    def __init__(self, period: float = 0.2):
        super().__init__(daemon=True, name="memprobe")
        self.period = period
        self.halt = threading.Event()
        self.peak = 0
        self.note: dict = {}
        # (seconds since start, RSS MiB, malloc in use MiB, malloc free MiB) every ``period``
        self.samples: list[tuple[float, float, float, float]] = []

    def run(self) -> None:
        import time

        t0 = time.monotonic()
        while not self.halt.wait(self.period):
            rss = rss_bytes()
            now = time.monotonic() - t0
            m = mallinfo2() or {"in_use": 0.0, "free": 0.0}
            self.samples.append((round(now, 2), round(rss / MIB, 1), round(m["in_use"], 1),
                                 round(m["free"], 1)))
            if rss > self.peak + MIB:
                self.peak = rss
                self.note = self._attribute(rss, now)

    @staticmethod
    def _attribute(rss: int, now: float) -> dict:
        note: dict = {"t": round(now, 1), "rss": rss / MIB, "malloc": mallinfo2(), "smaps": smaps_rollup()}
        try:
            from streamsql.state.rocksdb_memory import process_usage

            note["rocksdb"] = [{k: v / MIB for k, v in u.items()} for u in process_usage()]
        except Exception:  # noqa: BLE001  (an older tree may not have it)
            note["rocksdb"] = None
        try:
            import pyarrow as pa

            note["arrow"] = pa.total_allocated_bytes() / MIB
        except Exception:  # noqa: BLE001
            note["arrow"] = None
        return note

    def snapshot(self) -> dict:
        """The note of the highest RSS seen, the trace of samples, and the malloc trims done."""
        trims = None
        try:
            from streamsql.runtime import memory

            t = getattr(memory, "_trimmer", None)
            trims = {"trims": t.trims, "seconds": t.seconds} if t is not None else None
        except Exception:  # noqa: BLE001  (an older tree has no trimmer)
            pass
        return {**self.note, "trace": self.samples, "trims": trims}
