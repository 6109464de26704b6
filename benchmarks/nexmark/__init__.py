"""Nexmark, the streaming benchmark, on StreamSQL and Apache Flink (benchmarks/README.md, "Nexmark").

Modules: :mod:`.sql` (the scripts: events table, views, queries with a chosen sink),
:mod:`.results` (final tables summarized alike for both engines), :mod:`.load` (the events to a
JSON-lines file or a Kafka topic), :mod:`.runner` (``python -m benchmarks.nexmark``: events/s
per query, engine and mode), :mod:`.job` (one engine's run); ``queries/`` (the Nexmark
project's q0–q22), ``nexmark_udf.py`` (q14's UDF), ``expected.json`` (Flink's final tables,
written by ``scripts/nexmark_flink.py``).
"""
