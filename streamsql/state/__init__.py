"""Keyed state behind one backend interface: ``hashmap`` (memory) and ``rocksdb`` (rocksdict).

See :mod:`streamsql.state.base` for the contract and the key layout (operator id, key group,
key), which keeps each operator's state — and each key group within it — a contiguous range.
"""
