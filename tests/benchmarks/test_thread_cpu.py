"""benchmarks.thread_cpu: the per-thread CPU it reads and how it groups it (no Kafka)."""

from __future__ import annotations

import threading
import time

from benchmarks.thread_cpu import report, thread_cpu


def test_thread_cpu_sees_a_busy_thread():
    done = threading.Event()
    seen: dict = {}

    def spin():
        end = time.thread_time() + 0.3  # 0.3 s of this thread's own CPU
        while time.thread_time() < end:
            pass
        seen.update(thread_cpu())
        done.set()

    t = threading.Thread(target=spin)
    t.start()
    done.wait(30)
    t.join()
    name, cpu, sys_s = seen[str(t.native_id)]
    assert cpu >= 0.25 and 0 <= sys_s <= cpu  # clock ticks of 10 ms
    assert name  # the kernel's comm of the thread


def test_report_puts_librdkafka_threads_apart():
    rep = {"events": 1_000_000, "wall_s": 4.0, "startup_cpu_s": 0.5,
           "threads": {"10": ("python", 3.0, 0.2), "12": ("rdk:broker1", 0.8, 0.4), "11": ("python", 1.0, 0),
                       "13": ("rdk:broker1", 0.3, 0.1), "14": ("rdk:main", 0.001, 0.0)}}
    line = report("streamsql", "Q0", rep)
    assert line.startswith("streamsql Q0: 250,000 ev/s, 5.10 CPU-µs/event (sys 0.70), start-up 0.50 CPU-s;")
    assert "Python threads 4.00, rdk:broker1#12 0.80, rdk:broker1#13 0.30" in line
    assert "rdk:main" not in line  # under 0.01 µs per event
