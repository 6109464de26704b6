"""``trim_fraction`` (Flink's JSON timestamp text: the fraction without trailing zeros) against
its RE2 definition, on the vectorized paths: Arrow string views, and the numpy gather a pyarrow
without string views takes. Flink's own texts are checked in ``test_json_encode_flink.py``.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest
from streamsql.connectors.formats import timestamp_text
from streamsql.connectors.formats.timestamp_text import TRAILING_ZEROS, trim_fraction


def _texts(unit: str, digits: int, nulls: bool, seed: int) -> pa.Array:
    """Arrow's text of random timestamps cut to ``digits``, many fractions ending in zeros, sliced."""
    rng = np.random.default_rng(seed)
    n = 3000
    per_ms = {"ms": 1, "us": 1000, "ns": 10**6}[unit]
    v = rng.integers(0, 10**12, n) * per_ms + rng.integers(0, per_ms, n)
    v[::3] -= v[::3] % 10**digits  # whole seconds (at ms), and other runs of zeros
    v[1::4] -= v[1::4] % 100
    mask = rng.random(n) < 0.2 if nulls else None
    text = pa.array(v.astype(f"datetime64[{unit}]"), mask=mask).cast(pa.string())
    full = {"ms": 3, "us": 6, "ns": 9}[unit]
    if digits < full:
        text = pc.utf8_slice_codeunits(text, 0, -(full - digits))
    return text.slice(7)  # an offset into the buffers, as a batch's slice has


@pytest.mark.parametrize("views", [True, False])
@pytest.mark.parametrize(("unit", "digits"), [("ms", 3), ("ms", 2), ("us", 6), ("us", 1), ("ns", 9)])
@pytest.mark.parametrize("nulls", [False, True])
def test_trim_is_the_regex_replacement(monkeypatch, views, unit, digits, nulls):
    if not views:
        def no_views(*_):
            msg = "no string views"
            raise AttributeError(msg)
        monkeypatch.setattr(timestamp_text, "_prefixes", no_views)
    text = _texts(unit, digits, nulls, seed=digits * 2 + nulls)
    got = trim_fraction(text, digits)
    assert got.type == pa.string()
    assert got.equals(pc.replace_substring_regex(text, TRAILING_ZEROS, r"\1"))
    assert got.null_count == text.null_count
