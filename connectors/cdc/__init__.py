"""The ``mysql-cdc`` connector: change data capture from MySQL/MariaDB's binlog, as Flink CDC.

Modules: :mod:`.options` (Flink CDC's option names, connections, errors), :mod:`.schema`
(captured tables, type mapping), :mod:`.snapshot` (the consistent, chunked, checkpointed
snapshot), :mod:`.binlog` (the binlog reader thread), :mod:`.source` (the Source). Registered as
``'connector' = 'mysql-cdc'`` on import.
"""

from streamsql.connectors.cdc.options import OPTIONS
from streamsql.connectors.cdc.source import MySqlCdcSource, check_table_options
from streamsql.connectors.registry import register, validate_options

from streamsql.core.connector import ConnectorSpec

SPEC = register(
    ConnectorSpec(
        name="mysql-cdc",
        options=OPTIONS,
        create_source=MySqlCdcSource,
        option_prefixes=("debezium.", "jdbc.properties."),
        description="a MySQL/MariaDB table's snapshot and binlog as a changelog (Flink CDC)",
        check_source=lambda table, config: _check(table),
        source_changelog=lambda table: True,
    )
)


def _check(table) -> None:
    """Check every option is known and its value one of its choices, then the source's own checks.

    Flink CDC's factory refuses the others ("Unsupported options found", "Invalid value for option
    'scan.startup.mode'"); here an unknown key was taken and ignored (a mistyped
    'scan.startup.mod' = 'latest-offset' read the whole snapshot, 'initial'), and a startup mode
    such as 'latest' failed the running job with "'NoneType' object is not subscriptable".
    """
    validate_options(SPEC, table.options, table.name)
    check_table_options(table)
