"""Random values (UUID, RAND, RAND_INTEGER: a new value per row) and the session's CURRENT_DATABASE().

RAND(seed) and RAND_INTEGER(seed, bound) are java.util.Random's values, as Flink's code generator
(``RandCallGen``) gives them: a literal seed makes one Random per call site and operator instance,
seeded when the operator starts (again after a restart) and advanced by each row the call is
evaluated on (:mod:`~streamsql.functions.scalars.seeded_random`); any other seed a new Random per
row, of which the call gives the first value.
"""

from __future__ import annotations

from sqlglot import exp

from streamsql.functions.scalars.registry import (
    Call,
    fail_sql,
    fixed,
    scalar,
    session_database,
    sql_string,
    template,
)
from streamsql.functions.scalars.seeded_random import seeded


@scalar("UUID", group="misc", sig=((),), result=fixed("STRING"), deterministic=False, nulls="never NULL")
def uuid(c: Call) -> exp.Expression:
    """A random (version 4) UUID as 36 characters."""
    return template("CAST(uuid() AS VARCHAR)")


@scalar("RAND", group="misc", sig=((), ("INTEGER",)), result=fixed("DOUBLE"), deterministic=False,
        nulls="never NULL without a seed; NULL if the seed is NULL")
def rand(c: Call) -> exp.Expression:
    """A uniformly distributed DOUBLE in [0, 1); with a seed, java.util.Random's ``nextDouble()``."""
    if c.args:
        return seeded(c)
    return template("random()")


@scalar("RAND_INTEGER", group="misc", sig=(("INTEGER",), ("INTEGER", "INTEGER")), result=fixed("INT"),
        deterministic=False, nulls="NULL if an argument is NULL")
def rand_integer(c: Call) -> exp.Expression:
    """A uniformly distributed INT in [0, bound) (Flink fails the job for a bound <= 0).

    With a seed, java.util.Random's ``nextInt(bound)``; the job fails with Java's "bound must be
    positive".
    """
    if len(c.args) == 2:
        return seeded(c)
    failed = fail_sql("'RAND_INTEGER: bound must be positive, got ' || {0}")
    return template(f"CASE WHEN {{0}} > 0 THEN CAST(floor(random() * {{0}}) AS INTEGER) ELSE {failed} END",
                    *c.args)


@scalar("CURRENT_DATABASE", group="misc", sig=((),), result=fixed("STRING"), nulls="never NULL")
def current_database(c: Call) -> exp.Expression:
    """The session's current database when the statement is planned (``USE``), as Flink 2.3's.

    A constant of the plan: a running job keeps the name it was started under. Inside a view it is
    the database of the query reading the view, not the view's own (``db1.v`` read after ``USE db2``
    gives ``db2``, temporary or catalog view alike, as Flink 2.3: ``tests/sql/test_flink_query_gaps.py``).
    """
    return exp.Literal.string(session_database())


SOURCE_WATERMARK_MESSAGE = (
    "SOURCE_WATERMARK() is a declarative marker function and doesn't have concrete runtime implementation. "
    "It can only be used as a single expression in a WATERMARK FOR clause in the CREATE TABLE DDL. The "
    "declaration will be pushed down into a table source that implements the "
    "'org.apache.flink.table.connector.source.abilities.SupportsSourceWatermark' interface. The source will "
    "emit system-defined watermarks afterwards. Please check the documentation whether the connector "
    "supports source watermarks.")
"""Flink 2.3's error of SOURCE_WATERMARK() evaluated (``SourceWatermarkFunction``), word for word."""


@scalar("SOURCE_WATERMARK", group="misc", sig=((),), result=fixed("TIMESTAMP_LTZ", 3), deterministic=False,
        nulls="never evaluated: fails the job",
        differences="no connector here has watermarks of its own (Flink's SupportsSourceWatermark: "
                    "neither has datagen, filesystem nor Kafka), so a table declaring it fails the job "
                    "reading it at its first row, with Flink's message")
def source_watermark(c: Call) -> exp.Expression:
    """The watermark a source emits itself, as Flink 2.3.

    Accepted in a WATERMARK FOR clause and in EXPLAIN, but evaluating it fails the job with
    :data:`SOURCE_WATERMARK_MESSAGE`, as Flink's datagen, filesystem and Kafka tables do (none
    implements ``SupportsSourceWatermark``; checked on PyFlink by
    ``scripts/flink_source_watermark.py``).
    """
    failed = fail_sql(sql_string(SOURCE_WATERMARK_MESSAGE))
    # random() keeps DuckDB from folding the failure while the query is planned
    return template(f"CAST(CASE WHEN random() >= 0 THEN {failed} END AS TIMESTAMPTZ)")
