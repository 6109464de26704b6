"""The ``blackhole`` connector (sink only): discards every row (benchmarks, dry runs).

Delivery guarantee: exactly-once, trivially (nothing is ever made visible). Accepts updating
results.
"""

from __future__ import annotations

from streamsql.connectors.registry import register, validate_options

from streamsql.core.connector import ConnectorContext, ConnectorSpec, OptionSpec, Sink
from streamsql.core.elements import Batch


class BlackholeSink(Sink):
    """Counts and drops rows (``rows`` attribute: rows written)."""

    accepts_updates = True
    guarantee_reason = "blackhole discards all rows"

    def __init__(self, ctx: ConnectorContext):
        validate_options(SPEC, ctx.table.options, ctx.table.name)
        self.rows = 0

    def write(self, batch: Batch) -> None:
        """Write a batch (see :meth:`Sink.write`)."""
        self.rows += batch.num_rows


SPEC = register(
    ConnectorSpec(
        name="blackhole",
        options=[OptionSpec("connector", required=True, description="'blackhole'")],
        create_sink=BlackholeSink,
        description="discards all rows",
    )
)
