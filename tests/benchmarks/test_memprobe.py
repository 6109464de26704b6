"""The memory A/B driver's pieces that run without a broker: the variant syntax and the probe."""

from __future__ import annotations

import platform
import sys
import time

import pytest

from benchmarks.memory_ab import parse_variant
from benchmarks.memprobe import MemoryProbe


def test_a_variant_splits_into_settings_environment_and_source_options():
    label, settings, env, source = parse_variant(
        "small:taskmanager.memory.managed.size=64mb,env.MALLOC_ARENA_MAX=2,"
        "src.properties.fetch.max.bytes=1048576,tree=/tmp/before")
    assert label == "small"
    assert settings == {"taskmanager.memory.managed.size": "64mb", "tree": "/tmp/before"}
    assert env == {"MALLOC_ARENA_MAX": "2"}
    assert source == {"properties.fetch.max.bytes": "1048576"}
    assert parse_variant("base") == ("base", {}, {}, {})


@pytest.mark.skipif(not sys.platform.startswith("linux") or platform.libc_ver()[0] != "glibc",
                    reason="/proc and glibc's mallinfo2")
def test_the_probe_notes_what_the_peak_is_made_of():
    probe = MemoryProbe(period=0.02)
    probe.start()
    held = bytearray(64 * 2**20)  # a new peak, 64 MiB above the start
    held[::4096] = b"\x01" * len(held[::4096])
    time.sleep(0.3)
    probe.halt.set()
    probe.join(5)
    note = probe.snapshot()
    assert note["rss"] >= 64
    assert note["malloc"]["in_use"] >= 64  # a bytearray this big is malloc'ed (mmapped)
    assert note["smaps"]["Rss"] > 0
    assert note["trace"] and all(len(s) == 4 for s in note["trace"])
    del held
