"""Connectors: where rows come from (sources) and go to (sinks), by Flink's connector names.

Each connector module registers a :class:`~streamsql.connectors.base.ConnectorSpec` with
:func:`~streamsql.connectors.registry.register`; the planner finds it by the table's
``'connector'`` option. Formats (json, csv, raw, debezium-json) live in :mod:`.formats`.

Writing a connector: subclass :class:`~streamsql.connectors.base.Source` and/or
:class:`~streamsql.connectors.base.Sink`, declare its options, and register it.
"""

from streamsql.connectors.registry import get_connector, known_connectors, register  # noqa: F401
