"""Keyed state behind one backend interface: ``hashmap`` (memory) and ``rocksdb`` (rocksdict).

:mod:`~streamsql.state.base` is the contract, :mod:`~streamsql.state.layout` the layout of keys
and values every operator writes (operator id, key group, key; tagged values), and
:mod:`~streamsql.state.factory` picks the backend of a job. Each operator's state — and each key
group within it — is a contiguous key range.
"""
