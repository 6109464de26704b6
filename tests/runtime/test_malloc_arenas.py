"""glibc's malloc arenas are capped when an environment is created (runtime/memory.py).

Each case runs in a fresh interpreter: the cap is process-wide and glibc fixes it when the
process first needs a ninth arena. The arenas are counted from glibc's own ``malloc_info``.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys

import pytest

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux") or platform.libc_ver()[0] != "glibc", reason="glibc's arenas"
)

# 12 threads alive at once, each allocating natively (a bytearray beyond pymalloc's 512 bytes),
# then glibc's count of arenas ("<heap nr=...>" in malloc_info's XML).
PROBE = r"""
import ctypes, json, sys, tempfile, threading
if sys.argv[1] == "env":
    from streamsql import StreamEnvironment
    StreamEnvironment()
elif sys.argv[1] == "call":
    from streamsql.runtime.memory import limit_malloc_arenas
    print(json.dumps({"applied": limit_malloc_arenas(3)}))
barrier = threading.Barrier(13)
held = []
def work():
    held.append(bytearray(200_000))
    barrier.wait()
    barrier.wait()
threads = [threading.Thread(target=work) for _ in range(12)]
for t in threads:
    t.start()
barrier.wait()
libc = ctypes.CDLL("libc.so.6")
libc.fopen.restype = ctypes.c_void_p
with tempfile.NamedTemporaryFile(suffix=".xml") as f:
    fp = libc.fopen(f.name.encode(), b"w")
    libc.malloc_info(0, ctypes.c_void_p(fp))
    libc.fclose(ctypes.c_void_p(fp))
    xml = open(f.name).read()
barrier.wait()
for t in threads:
    t.join()
print(json.dumps({"arenas": xml.count("<heap nr=")}))
"""


def _probe(mode: str, **env: str) -> dict:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("MALLOC_")}
    out = subprocess.run([sys.executable, "-c", PROBE, mode], capture_output=True, text=True,
                         env={**clean, **env}, timeout=120, check=True).stdout
    merged: dict = {}
    for line in out.splitlines():
        merged.update(json.loads(line))
    return merged


def test_without_a_cap_each_thread_gets_an_arena():
    # The control: the probe does see glibc's per-thread arenas (1 main + up to 8 per core).
    assert _probe("none")["arenas"] > 4


def test_an_environment_caps_the_arenas_at_four():
    assert _probe("env")["arenas"] <= 4


def test_the_cap_is_applied_once_and_the_callers_limit_is_kept():
    got = _probe("call")
    assert got["applied"] is True
    assert got["arenas"] <= 3


def test_malloc_arena_max_in_the_environment_wins():
    got = _probe("call", MALLOC_ARENA_MAX="6")
    assert got["applied"] is False  # glibc applied the variable itself
    assert 3 < got["arenas"] <= 6
