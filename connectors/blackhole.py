"""The ``blackhole`` connector (sink only): discards every row (benchmarks, dry runs).

Delivery guarantee: exactly-once, trivially (nothing is ever made visible). Accepts updating
results without their -U rows, as Flink's blackhole (its changelog mode drops UPDATE_BEFORE).
"""

from __future__ import annotations

from streamsql.connectors.registry import register, validate_options

from streamsql.core.catalog import TableDef
from streamsql.core.connector import ConnectorContext, ConnectorSpec, OptionSpec, Sink, SinkGuarantee
from streamsql.core.elements import Batch

_REASON = "blackhole discards all rows"


class BlackholeSink(Sink):
    """Counts and drops rows (``rows`` attribute: rows written)."""

    accepts_updates = True
    upserts = True
    guarantee_reason = _REASON

    def __init__(self, ctx: ConnectorContext):
        _check(ctx.table, ctx.config)
        self.rows = 0

    def write(self, batch: Batch) -> None:
        """Write a batch (see :meth:`Sink.write`)."""
        self.rows += batch.num_rows


def _check(table: TableDef, config: dict[str, str]) -> None:
    validate_options(SPEC, table.options, table.name)


SPEC = register(
    ConnectorSpec(
        name="blackhole",
        options=[OptionSpec("connector", required=True, description="'blackhole'")],
        create_sink=BlackholeSink,
        sink_partitioning=True,  # Flink's BlackHoleSink is SupportsPartitioning
        description="discards all rows",
        check_sink=_check,
        sink_accepts_updates=lambda table: True,
        sink_upserts=lambda table: True,  # as Flink's: -U rows are not asked for (discarded anyway)
        sink_guarantee=lambda table, config: SinkGuarantee(reason=_REASON),
    )
)
