"""The ``mysql-cdc`` connector: change data capture from MySQL/MariaDB's binlog, as Flink CDC.

Modules: :mod:`.options` (Flink CDC's option names, connections, errors), :mod:`.schema`
(captured tables, type mapping), :mod:`.snapshot` (the consistent, chunked, checkpointed
snapshot), :mod:`.binlog` (the binlog reader thread), :mod:`.source` (the Source). Registered as
``'connector' = 'mysql-cdc'`` on import.
"""

from streamsql.connectors.cdc.options import OPTIONS
from streamsql.connectors.cdc.source import MySqlCdcSource, check_table_options
from streamsql.connectors.registry import register

from streamsql.core.connector import ConnectorSpec

SPEC = register(
    ConnectorSpec(
        name="mysql-cdc",
        options=OPTIONS,
        create_source=MySqlCdcSource,
        option_prefixes=("debezium.", "jdbc.properties."),
        description="a MySQL/MariaDB table's snapshot and binlog as a changelog (Flink CDC)",
        check_source=lambda table, config: check_table_options(table),
        source_changelog=lambda table: True,
    )
)
