"""Nexmark, the streaming benchmark, on StreamSQL and Apache Flink.

Modules: :mod:`.sql` (the scripts: events table, views, queries with a chosen sink),
:mod:`.results` (final tables summarized alike for both engines), :mod:`.load` (the events to a
JSON-lines file or a Kafka topic); ``queries/`` (the Nexmark project's q0–q22),
``nexmark_udf.py`` (q14's UDF).
"""
