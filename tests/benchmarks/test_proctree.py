"""The harness's process-tree accounting (/proc): the CPU and memory of live descendants count."""

from __future__ import annotations

import os
import subprocess
import sys
import time

from benchmarks.proctree import descendants, live_cpu_seconds, tree_rss_bytes


def test_a_running_grandchild_counts():
    # a child that starts a busy grandchild and waits: both are live descendants of this process
    code = ("import subprocess, sys; subprocess.run([sys.executable, '-c', "
            "'import time\\nt = time.time()\\nwhile time.time() - t < 30: pass'])")
    child = subprocess.Popen([sys.executable, "-c", code])
    try:
        deadline = time.time() + 20
        while len(descendants(os.getpid())) < 2 and time.time() < deadline:
            time.sleep(0.05)
        assert len(descendants(os.getpid())) >= 2
        while live_cpu_seconds(os.getpid()) < 0.2 and time.time() < deadline + 20:
            time.sleep(0.1)  # the grandchild's busy loop (slow on a loaded machine)
        assert live_cpu_seconds(os.getpid()) >= 0.2
        assert tree_rss_bytes(os.getpid()) > tree_rss_bytes(child.pid) > 0
    finally:
        for pid in descendants(child.pid):
            os.kill(pid, 9)
        child.kill()
        child.wait()
