"""The sink of an INSERT: column matching, casts, and what the connector's spec allows.

Called from :meth:`~streamsql.plan.planner.Planner.plan_insert` by one hook, :func:`plan_sink`.
The sink is never created here: its connector's
:class:`~streamsql.core.connector.ConnectorSpec` checks the table's options and says whether it
takes an updating result, needs a primary key, and which delivery guarantee it gives (printed
by EXPLAIN with its reason).
"""

from __future__ import annotations

import re

from sqlglot import exp

from streamsql.connectors.registry import get_connector, missing_connector
from streamsql.core.catalog import TableDef
from streamsql.core.config import Config
from streamsql.core.connector import SinkGuarantee
from streamsql.core.errors import PlanError
from streamsql.core.types import SqlType, duckdb_cast, sink_assignable
from streamsql.plan import options_hint
from streamsql.plan.expressions import flink_text, quote
from streamsql.plan.nodes import INSERT_ONLY, CalcNode, PlanNode, ScanNode, SinkNode, WatermarkAssignerNode
from streamsql.plan.parallelism_options import check_sink_parallelism
from streamsql.plan.windows import plain_column, time_attributes


def plan_sink(planner, table: TableDef, node: PlanNode, cols: list[exp.Expression] | None,
              target: exp.Table, query: exp.Expression) -> SinkNode:
    """The sink of ``INSERT INTO target [(cols)] query``; errors point into that statement.

    Raises:
        SqlError: unknown target column, column count or type mismatch.
        PlanError: a sink that cannot take the query's result, or two rowtime columns
            (:func:`check_rowtimes`).
    """
    if not table.connector:
        planner._fail(target, missing_connector(table.name, reading=False), PlanError)
    spec = get_connector(table.connector)
    check_rowtimes(planner, table, node, target, query)
    if spec.create_sink is None:
        msg = (f"Table '{table.name}' uses connector '{table.connector}', which cannot be written "
               f"(source only)")
        planner._fail(target, msg, PlanError)
    writable = [c for c in table.columns if c.computed is None and not c.virtual]
    target_cols = writable if cols is None else _listed_columns(planner, table, writable, cols)
    if len(target_cols) != len(node.schema.names):
        produces = f"the query produces {len(node.schema.names)} ({', '.join(node.schema.names)})"
        listed = ", ".join(c.name for c in target_cols)
        if cols is not None:  # Calcite's validator, at the query
            msg = (f"Number of columns must match number of query columns: the column list has "
                   f"{len(target_cols)} ({listed}), {produces}")
            planner._fail(query, msg)
        msg = (f"Column types of query result and sink for '{table.name}' do not match. Cause: Different "
               f"number of columns: {produces}, the sink has {len(target_cols)} ({listed})")
        planner._fail(target, msg)
    query_types = [f.type for f in node.sql_schema]
    for i, (qt, col) in enumerate(zip(query_types, target_cols)):
        if not sink_assignable(qt, col.type) or (col.type.padded
                                                 and _varying(node, node.schema.names[i], col.type.name)):
            query_schema = ", ".join(f"{n}: {t}" for n, t in zip(node.schema.names, query_types))
            sink = ", ".join(f"{c.name}: {c.type}" for c in target_cols)
            msg = (f"Column types of query result and sink for '{table.name}' do not match: incompatible "
                   f"types for sink column '{col.name}' at position {i + 1} ({qt} into {col.type}); "
                   f"{_conversion_hint(qt, col.type)}.\n  Query schema: [{query_schema}]\n"
                   f"  Sink schema:  [{sink}]")
            planner._fail(_select_item(query, i) or target, msg)
    if target_cols is not writable:
        node = _to_table_order(planner, node, target_cols, writable)
    elif query_types != [c.type for c in writable] or node.schema.names != [c.name for c in writable]:
        node = planner._cast(node, [c.name for c in writable], [c.type for c in writable])
    options_config = planner.config.as_dict()
    options_hint.checked(target, planner.sql, lambda: spec.check_sink(table, options_config))
    if node.mode != INSERT_ONLY and not spec.sink_accepts_updates(table):
        msg = (f"Table sink '{table.name}' (connector '{table.connector}') only accepts inserts, but the "
               f"query produces an updating result ({node.mode} changelog, e.g. from GROUP BY). Use "
               f"'connector' = 'upsert-kafka' with a PRIMARY KEY for an updating result.")
        planner._fail(target, msg, PlanError)
    if table.partition_keys and not spec.sink_partitioning:
        name = table.name if "." in table.name else f"default_catalog.default_database.{table.name}"
        msg = (f"Table '{name}' is a partitioned table, but the underlying DynamicTableSink doesn't "
               f"implement the SupportsPartitioning interface.")
        planner._fail(target, msg, PlanError)
    if spec.sink_requires_primary_key and not table.primary_key:
        msg = (f"Table sink '{table.name}' (connector '{table.connector}') needs a PRIMARY KEY (...) "
               f"NOT ENFORCED")
        planner._fail(target, msg, PlanError)
    check_sink_parallelism(planner, table, node, target)
    guarantee, reason = _guarantee(planner.config, spec.sink_guarantee(table, options_config))
    return SinkNode([node], node.schema, node.mode, table=table, guarantee=guarantee,
                    guarantee_reason=reason)


def check_rowtimes(planner, table: TableDef, node: PlanNode, target: exp.Expression,
                   query: exp.Expression) -> None:
    """Refuse a query that writes more than one rowtime attribute column into a table, as Flink 2.3.

    Flink's sink takes the one rowtime column of its input as the records' event time (e.g. a
    Kafka record's timestamp), so it cannot tell which of two to use: an interval or window join
    selecting both inputs' rowtimes, or one rowtime twice (``SELECT ts, ts``). Its
    ``TableException`` names the query's columns; a CAST of all but one to TIMESTAMP(3) makes
    them plain values.

    Raises:
        PlanError: at the SELECT item of the second rowtime column (else the target table).
    """
    attrs = time_attributes(node, row_type=True)
    names = [n for n in node.schema.names if n in attrs]
    if len(names) < 2:
        return
    msg = (f"The query contains more than one rowtime attribute column [{', '.join(names)}] for writing "
           f"into table '{table.name}'. Please select the column that should be used as the event-time "
           f"timestamp for the table sink by casting all other columns to regular TIMESTAMP or "
           f"TIMESTAMP_LTZ.")
    at = _select_item(query, list(node.schema.names).index(names[1]))
    planner._fail(at if at is not None else target, msg, PlanError)


def _varying(node: PlanNode, name: str, family: str = "STRING") -> bool:
    """Whether column ``name`` of ``node`` is certainly a varying string of ``family`` in Flink.

    ``family`` STRING: a STRING or VARCHAR(n), not a CHAR; BYTES: a BYTES or VARBINARY(n), not a
    BINARY. Flink's INSERT writes only a CHAR into a CHAR(n) sink column, only a BINARY into a
    BINARY(n) one (its implicit casts lead into CHAR from CHAR only, into BINARY from BINARY only:
    ``Column types of query result and sink ... do not match``, compat case
    ``sink_varying_into_char``; PyFlink 2.3 refuses a BYTES or VARBINARY(3) column into BINARY(4)),
    while a string literal is a CHAR there (``'ab'`` is CHAR(2)), and so are expressions over
    CHARs. Our string types are coarser (a literal is a STRING), and an aggregate's binary type too
    (MAX of a BINARY(n) is BYTES here), so only what is certain is refused: a table's varying
    column passed on unchanged (through projections, filters and a watermark), or a CAST to a
    varying type. Anything else is padded into the sink as before.
    """
    cast_to = _CAST_TO_VARYING[family]
    while True:
        if isinstance(node, ScanNode):
            t = SqlType.of_field(node.schema.field(name))
            return t.name == family and not t.padded
        if isinstance(node, WatermarkAssignerNode):
            node = node.inputs[0]
            continue
        if not isinstance(node, CalcNode):
            return False
        expr = dict(node.query.items).get(name)
        src = plain_column(expr, node.query)
        if src is None:
            t = getattr(expr, "type", None)
            return t is not None and t.name == family and not t.padded and bool(
                cast_to.fullmatch(flink_text(expr)))
        node, name = node.inputs[0], src


#: A CAST to a varying type of a family, as EXPLAIN writes it (``CAST(x AS VARCHAR(3))``).
_CAST_TO_VARYING = {
    "STRING": re.compile(r"CAST\(.* AS (?:STRING|VARCHAR(?:\(\d+\))?)\)", re.IGNORECASE | re.DOTALL),
    "BYTES": re.compile(r"CAST\(.* AS (?:BYTES|VARBINARY(?:\(\d+\))?)\)", re.IGNORECASE | re.DOTALL),
}


def _listed_columns(planner, table: TableDef, writable: list, cols: list[exp.Expression]) -> list:
    """The sink columns of ``INSERT INTO t (cols)``, in the list's order.

    Raises:
        SqlError: an unknown or repeated column, or an unlisted NOT NULL / primary-key column
            (which would get NULL), as Flink's validator.
    """
    listed = []
    for ident in cols:
        c = table.column(ident.name)
        if c is None or c not in writable:
            msg = (f"Column '{ident.name}' not found in table '{table.name}'; columns: "
                   f"{', '.join(x.name for x in writable)}")
            planner._fail(ident, msg)
        if c in listed:
            planner._fail(ident, f"Target column '{c.name}' is assigned more than once")
        listed.append(c)
    for c in writable:
        if c not in listed and (not c.type.nullable or c.name in table.primary_key):
            msg = (f"Column '{c.name}' of table '{table.name}' has no default value and does not allow "
                   f"NULLs; list it in INSERT INTO {table.name} (...)")
            planner._fail(cols[0], msg)
    return listed


def _to_table_order(planner, node: PlanNode, listed: list, writable: list) -> PlanNode:
    """Reorder ``node``'s columns (one per ``listed`` sink column) into the table's column order.

    Unlisted columns are NULL, as Flink fills the columns an INSERT's column list leaves out; a
    listed one is cast as without a list (:func:`~streamsql.core.types.duckdb_cast`: cut to
    VARCHAR(n), padded to CHAR(n), timestamp digits cut, NULL past DECIMAL(p, s)).
    """
    source = {c.name: (src, f.type) for c, src, f in zip(listed, node.schema.names, node.sql_schema)}
    items = [(c.name, duckdb_cast(quote(source[c.name][0]), source[c.name][1], c.type) if c.name in source
              else f"CAST(NULL AS {c.type.duckdb()})") for c in writable]
    return planner._calc(node, items, None)


def _guarantee(config: Config, sink: SinkGuarantee) -> tuple[str, str]:
    """The effective guarantee of a sink and why, for EXPLAIN: (name, reason)."""
    interval = config.duration("execution.checkpointing.interval")
    mode = (config.get("execution.checkpointing.mode") or "").upper()
    if interval <= 0:
        return "none", ("checkpointing is off ('execution.checkpointing.interval' = 0): nothing is "
                        "replayed after a failure")
    if not sink.flushed:  # was labelled at-least-once, its reason saying rows may be lost
        return "none", sink.reason
    if sink.transactional and mode == "EXACTLY_ONCE":
        return "exactly-once", (sink.reason
                                or "writes in a Kafka transaction committed with each checkpoint")
    if sink.transactional:
        return "at-least-once", ("'execution.checkpointing.mode' = 'AT_LEAST_ONCE': barriers are not "
                                 "aligned")
    return "at-least-once", (sink.reason or "the sink is not transactional: rows replayed after a "
                                            "failure appear again")



def _select_item(query: exp.Expression, i: int) -> exp.Expression | None:
    """The SELECT item that produces column ``i`` of ``query``, or None when it cannot be told.

    With a ``*`` among the items it cannot; for a UNION it is the first SELECT's item.
    """
    while isinstance(query, (exp.Subquery, exp.SetOperation)):
        query = query.this
    if not isinstance(query, exp.Select) or i >= len(query.expressions):
        return None
    if any(isinstance(e, exp.Star) or (isinstance(e, exp.Column) and isinstance(e.this, exp.Star))
           for e in query.expressions):
        return None
    return query.expressions[i]


def _conversion_hint(query: SqlType, sink: SqlType) -> str:
    """How to write a ``query`` column into a ``sink`` column of another type (a sink type error's end)."""
    if "VARIANT" in (query.name, sink.name):  # Flink 2.3 casts a VARIANT to and from no other type
        return ("a VARIANT converts to no other type, nor another type to it (PARSE_JSON reads one from a "
                "STRING)")
    return f"use CAST(... AS {sink}) to convert"
