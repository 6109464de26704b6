"""Random values (UUID, RAND, RAND_INTEGER: a new value per row) and the session's CURRENT_DATABASE().

RAND(seed) and RAND_INTEGER(seed, bound) are java.util.Random's values, as Flink's code generator
(``RandCallGen``) gives them: a literal seed makes one Random per call site and operator instance,
seeded when the operator starts (again after a restart) and advanced by each row the call is
evaluated on (:mod:`~streamsql.functions.scalars.seeded_random`); any other seed a new Random per
row, of which the call gives the first value.
"""

from __future__ import annotations

from sqlglot import exp

from streamsql.functions.scalars.registry import Call, fail_sql, fixed, scalar, session_database, template
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
