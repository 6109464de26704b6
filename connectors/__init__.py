"""Connectors: where rows come from (sources) and go to (sinks), by Flink's connector names.

Each connector module registers a :class:`~streamsql.core.connector.ConnectorSpec` with
:func:`~streamsql.connectors.registry.register`; the planner finds it by the table's
``'connector'`` option. Formats (json, csv, raw, debezium-json) live in :mod:`.formats`.

Writing a connector: subclass :class:`~streamsql.core.connector.Source` and/or
:class:`~streamsql.core.connector.Sink`, declare its options, and register it.
"""

from streamsql.connectors.registry import get_connector, known_connectors, register  # noqa: F401
