"""FLOAT/DOUBLE text is Java's ``Float.toString`` / ``Double.toString`` (JDK 17, Flink 2.3's JVM here).

``java_float_text.json`` holds the JDK's own text for 7,080 values (``scripts/java_float_text.py``);
the cases of ``json_encode_flink.json`` show Flink writing the same text through Jackson and CAST.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from streamsql.core.float_text import java_float_text

_JDK = json.loads(Path(__file__).with_name("java_float_text.json").read_text("utf-8"))

#: Where JDK 17 does not write the shortest digits and we do (module docstring of float_text):
#: powers of two, subnormals, some values above 2**63. Bits → JDK 17's text.
KNOWN = {
    ("d", "3d20000000000000"): "2.8421709430404007E-14",  # 2**-45
    ("d", "3d30000000000000"): "5.6843418860808015E-14",
    ("d", "3e00000000000000"): "4.6566128730773926E-10",  # 2**-31
    ("d", "3e70000000000000"): "5.9604644775390625E-8",
    ("d", "4440000000000000"): "5.9029581035870565E20",  # 2**69
    ("d", "2"): "1.0E-323",  # subnormals
    ("d", "14"): "1.0E-322",
    ("d", "20"): "1.58E-322",
    ("f", "2c800000"): "3.6379788E-12",
    ("f", "2d000000"): "7.2759576E-12",
    ("f", "32000000"): "7.4505806E-9",
    ("f", "60000000"): "3.6893488E19",
    ("f", "60800000"): "7.3786976E19",
    ("f", "10"): "2.24E-44",
}


def _values(kind: str) -> tuple[np.ndarray, list[list[str]]]:
    rows = [r for r in _JDK["values"] if r[0] == kind]
    bits = [int(r[1], 16) for r in rows]
    if kind == "d":
        return np.array(bits, np.uint64).view(np.float64), rows
    return np.array(bits, np.uint32).view(np.float32), rows


@pytest.mark.parametrize("kind", ["d", "f"])
def test_java_text_of_7080_values(kind):
    vals, rows = _values(kind)
    got = java_float_text(pa.array(vals), single=kind == "f").to_pylist()
    wrong = [(r[1], g, r[2]) for r, g in zip(rows, got) if g != r[2] and (kind, r[1]) not in KNOWN]
    assert wrong == []
    known = {(kind, r[1]): g for r, g in zip(rows, got) if (kind, r[1]) in KNOWN}
    assert all(g != KNOWN[k] for k, g in known.items()), "a known difference is gone: update KNOWN"


def test_whole_numbers_are_written_from_their_integer_digits():
    # JDK 17 (not the shortest digits, which JDK 19+ writes: 1.5E10, 2.82879384806159E17)
    f = java_float_text(pa.array([1.5e10, 123456789.123, 16777217.0], pa.float32()), single=True)
    assert f.to_pylist() == ["1.50000005E10", "1.23456792E8", "1.6777216E7"]
    d = java_float_text(pa.array([2.82879384806159e17, 9007199254740993.0, 1.7e18]))
    assert d.to_pylist() == ["2.82879384806159008E17", "9.007199254740992E15", "1.7E18"]


def test_nulls_specials_and_chunks():
    col = pa.chunked_array([[1.0, None, float("nan")], [float("-inf"), -0.0, 1e-320, -1e20]])
    want = ["1.0", None, "NaN", "-Infinity", "-0.0", "1.0E-320", "-1.0E20"]
    assert java_float_text(col).to_pylist() == want
    assert java_float_text(pa.array([], pa.float64())).to_pylist() == []
    assert java_float_text(pa.array([None, None], pa.float64())).to_pylist() == [None, None]


def test_no_python_per_value():
    """10k values of every kind cost a bounded number of Python calls (vectorized, not per value)."""
    rng = np.random.default_rng(0)
    x = np.concatenate([rng.uniform(0, 1000, 4000), rng.lognormal(0, 20, 4000),
                        1.7e12 + rng.uniform(0, 1e9, 1000), -rng.uniform(2**53, 2**62, 1000)])
    col = pa.array(x)
    calls = 0

    def count(frame, event, arg):
        nonlocal calls
        if event in ("call", "c_call"):
            calls += 1

    sys.setprofile(count)
    try:
        java_float_text(col)
        java_float_text(col, single=True)
    finally:
        sys.setprofile(None)
    assert calls < 1500


def test_positional_range_is_pythons_shortest_repr_on_random_doubles():
    """In Java's positional range (1e-3 <= |x| < 1e7) the text is the shortest round-trip digits,
    i.e. Python's ``repr``: checked on 200k random doubles (with NULLs) through the numpy-fed path."""
    rng = np.random.default_rng(26)
    x = rng.uniform(1e-3, 1e7, 200_000) * rng.choice([-1.0, 1.0], 200_000)
    x[::7] = np.round(x[::7], 3)  # Q1's prices: a few decimals, as price * 0.908
    null = rng.random(len(x)) < 0.05
    got = java_float_text(pa.array(x, mask=null)).to_pylist()
    assert got == [None if n else repr(float(v)) for v, n in zip(x, null)]
    assert java_float_text(pa.array(x)).to_pylist() == [repr(float(v)) for v in x]
