"""IntIndex (int64 key → slot, vectorized open addressing) against a dict, batch by batch."""

from __future__ import annotations

import numpy as np

from streamsql.state.int_index import IntIndex


def test_lookups_and_inserts_match_a_dict_through_growth_and_collisions():
    rng = np.random.default_rng(1)
    index, ref = IntIndex(), {}
    extremes = np.array([0, -1, 1, -(2**63), 2**63 - 1], np.int64)
    for step in range(40):
        # a mix of fresh random keys, keys seen before, and keys 2**54 apart (the same home
        # position at small table sizes: long probe chains)
        keys = np.concatenate([rng.integers(-(2**63), 2**63 - 1, 300, dtype=np.int64),
                               np.arange(20, dtype=np.int64) << np.int64(54), extremes,
                               np.array(list(ref)[:50], np.int64)])
        keys = np.unique(keys)  # a batch's keys are distinct (GROUP BY partials)
        found = index.lookup(keys)
        assert found.tolist() == [ref.get(int(k), -1) for k in keys]
        new = keys[found < 0]
        slots = np.arange(len(ref), len(ref) + len(new), dtype=np.int64)
        index.insert(new, slots)
        ref.update(zip(new.tolist(), slots.tolist()))
        assert index.size == len(ref)
    everything = np.array(list(ref), np.int64)
    assert index.lookup(everything).tolist() == list(ref.values())
    assert len(ref) > 10_000  # grew well past its first 1,024 positions
