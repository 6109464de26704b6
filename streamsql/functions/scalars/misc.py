"""Random values (UUID, RAND, RAND_INTEGER: a new value per row) and the session's CURRENT_DATABASE().

The unseeded forms only; RAND(seed) and RAND_INTEGER(seed, n) replay java.util.Random's sequence
in Flink, which StreamSQL does not reproduce (refused as not supported yet).
"""

from __future__ import annotations

from sqlglot import exp

from streamsql.functions.scalars.registry import Call, fail_sql, fixed, scalar, session_database, template


@scalar("UUID", group="misc", sig=((),), result=fixed("STRING"), deterministic=False, nulls="never NULL")
def uuid(c: Call) -> exp.Expression:
    """A random (version 4) UUID as 36 characters."""
    return template("CAST(uuid() AS VARCHAR)")


@scalar("RAND", group="misc", sig=((),), result=fixed("DOUBLE"), deterministic=False, nulls="never NULL",
        differences="RAND(seed) is not supported yet (Flink replays java.util.Random's sequence).")
def rand(c: Call) -> exp.Expression:
    """A uniformly distributed DOUBLE in [0, 1)."""
    return template("random()")


@scalar("RAND_INTEGER", group="misc", sig=(("INTEGER",),), result=fixed("INT"), deterministic=False,
        nulls="NULL if the bound is NULL",
        differences="RAND_INTEGER(seed, bound) is not supported yet (Flink replays java.util.Random's "
                    "sequence).")
def rand_integer(c: Call) -> exp.Expression:
    """A uniformly distributed INT in [0, bound) (Flink fails the job for a bound <= 0)."""
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
