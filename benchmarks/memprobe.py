"""What a contender's memory is made of at its RSS peak, sampled from inside its process (Linux).

:class:`MemoryProbe` reads ``/proc/self/statm`` every ``period`` seconds; whenever the RSS passes
its previous peak by a MiB it notes the parts it can attribute: glibc's ``mallinfo2`` (bytes in
use by ``malloc``, free inside its arenas, mapped on their own), the counters of every RocksDB
block cache the process's state backends use, pyarrow's pool, and ``/proc/self/smaps_rollup``
(anonymous vs file-backed), and, at most every 2 s, ``/proc/self/smaps`` summed by mapping
(each library file, ``[heap]``, anonymous, stacks), the threads by name and the bytes Python's
object allocator holds. ``snapshot()`` is the note of the highest peak.
"""

from __future__ import annotations

import ctypes
import os
import sys
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


def _anon_kind(span: str) -> str:
    """An anonymous mapping's likely owner, guessed from its size and alignment: glibc's heaps of
    non-main arenas start at a multiple of 64 MiB; Python's object arenas are mappings of 1 MiB."""
    lo, hi = (int(x, 16) for x in span.split("-"))
    if lo % (64 * MIB) == 0:
        return "[anon, 64 MiB-aligned: glibc arenas?]"
    if hi - lo == MIB:
        return "[anon, 1 MiB: Python arenas?]"
    return "[anon]"


def smaps_by_mapping(top: int = 14) -> dict[str, float]:
    """``/proc/self/smaps``'s RSS summed per mapping name (a library's file name, ``[heap]``,
    ``[stack]``, anonymous ones by :func:`_anon_kind`), the ``top`` largest, in MiB."""
    sums: dict[str, int] = {}
    name = "[anon]"
    try:
        with open("/proc/self/smaps") as f:
            for line in f:
                head = line.split(None, 6)
                if not head:
                    continue
                if not head[0].endswith(":"):  # a mapping's header: range perms offset dev inode [path]
                    name = head[5].strip().rsplit("/", 1)[-1] if len(head) > 5 else _anon_kind(head[0])
                elif head[0] == "Rss:":
                    sums[name] = sums.get(name, 0) + int(head[1])
    except OSError:
        return {}
    ranked = sorted(sums.items(), key=lambda kv: -kv[1])
    out = {k: round(v / 1024, 1) for k, v in ranked[:top]}
    out["(rest)"] = round(sum(v for _, v in ranked[top:]) / 1024, 1)
    return out


def thread_names() -> dict[str, int]:
    """This process's threads counted by name (``/proc/self/task/*/comm``)."""
    names: dict[str, int] = {}
    try:
        for t in os.listdir("/proc/self/task"):
            try:
                with open(f"/proc/self/task/{t}/comm") as f:
                    n = f.read().strip()
            except OSError:
                continue
            names[n] = names.get(n, 0) + 1
    except OSError:
        pass
    return names


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
        self._detailed_at = -1e9
        self.detail: dict | None = None  # the last detailed note (kept on later peaks' notes)

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
                if now - self._detailed_at >= 2.0:  # /proc/self/smaps takes a few ms to read
                    self._detailed_at = now
                    self.note["mappings"] = smaps_by_mapping()
                    self.note["threads"] = thread_names()
                    self.note["python_blocks"] = sys.getallocatedblocks()
                    self.note["detail_t"] = self.note["t"]
                elif self.detail is not None:
                    self.note.update(self.detail)
                self.detail = {k: self.note[k] for k in ("mappings", "threads", "python_blocks", "detail_t")
                               if k in self.note}

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
