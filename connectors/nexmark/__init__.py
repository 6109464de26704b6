"""The ``nexmark`` connector (source only): the Nexmark benchmark's events, as its Flink connector.

Modules: :mod:`.generator` (the event model, vectorized and deterministic), :mod:`.source` (the
options, the Source, the registration as ``'connector' = 'nexmark'`` on import).
"""

from streamsql.connectors.nexmark.source import DDL_COLUMNS, SPEC, NexmarkSource  # noqa: F401
