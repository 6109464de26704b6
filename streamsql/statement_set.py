"""Several INSERTs planned one by one and submitted as one job (Flink's ``StatementSet``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sqlglot import exp

from streamsql.core.errors import SqlError
from streamsql.plan.planner import Planner
from streamsql.sql.parser import parse_statement
from streamsql.table_result import TableResult

if TYPE_CHECKING:
    from streamsql.environment import StreamEnvironment


class StatementSet:
    """Several INSERTs run as one job with one checkpoint cycle (Flink's ``StatementSet``).

    The same as ``EXECUTE STATEMENT SET BEGIN ... END``.

    Create one with :meth:`StreamEnvironment.create_statement_set`::

        stmts = env.create_statement_set()
        stmts.add_insert_sql("INSERT INTO a SELECT ...")
        stmts.add_insert_sql("INSERT INTO b SELECT ...")
        result = stmts.execute()      # kind "job"; result.job is the JobHandle
    """

    def __init__(self, env: StreamEnvironment):
        self._env = env
        self._sqls: list[str] = []

    def add_insert_sql(self, statement: str) -> StatementSet:
        """Add one ``INSERT INTO ... SELECT ...``; it is parsed and planned now, so errors show here.

        Returns:
            self, to chain calls.

        Raises:
            SqlError: bad SQL, or a statement that is not an INSERT.
            PlanError: an INSERT that cannot run as asked.
        """
        tree = parse_statement(statement)
        if not isinstance(tree, exp.Insert):
            msg = f"A statement set takes only INSERT statements, not {type(tree).__name__}"
            raise SqlError(msg, statement)
        Planner(self._env.catalog, self._env.config, statement).plan_insert(tree)
        self._sqls.append(statement.strip().rstrip(";").rstrip())
        return self

    def _text(self) -> str:
        if not self._sqls:
            msg = "The statement set is empty: add INSERTs with add_insert_sql() first"
            raise SqlError(msg)
        body = "".join(f"{s};\n" for s in self._sqls)
        return f"EXECUTE STATEMENT SET\nBEGIN\n{body}END"

    def explain(self) -> str:
        """EXPLAIN text of the job the statement set would run."""
        text = self._text()
        return self._env.explain(parse_statement(text), text)

    def execute(self) -> TableResult:
        """Submit every added INSERT as one job, then empty the set.

        Returns:
            A :class:`TableResult` of kind ``"job"``; ``result.job`` is the :class:`JobHandle`.
        """
        text = self._text()
        result = self._env.execute_sql(text)
        self._sqls.clear()
        return result
