"""The embedding API: a :class:`StreamEnvironment` runs SQL statements.

It plays the part of Flink's TableEnvironment: the one dispatcher of every statement kind (DDL,
SET/RESET, SHOW/DESCRIBE/EXPLAIN, queries, INSERT and statement sets). What a statement returns
is a :class:`~streamsql.table_result.TableResult`; several INSERTs make a
:class:`~streamsql.statement_set.StatementSet`. The work itself is in ``sql``, ``plan`` and
``runtime``.

Example::

    from streamsql import StreamEnvironment

    env = StreamEnvironment()
    env.execute_sql("CREATE TABLE src (...) WITH ('connector' = 'datagen', 'number-of-rows' = '10')")
    for kind, row in env.execute_sql("SELECT ... FROM src").collect():
        print(kind.short, row)
    job = env.execute_sql("INSERT INTO sink SELECT ...").job
    job.wait()
"""

from __future__ import annotations

import logging
import os
import shutil
import tempfile
import uuid
from dataclasses import replace as dc_replace
from functools import partial

from sqlglot import exp

from streamsql.checkpoint.identity import (
    RECOVERY_KEYS,
    JobIdentity,
    JobIdentityError,
    job_record,
    superseded_notice,
)
from streamsql.checkpoint.storage import CheckpointStorage, peek_job_file
from streamsql.connectors import registry  # noqa: F401  (on import it installs the judge of unknown option keys, core.secrets)
from streamsql.core.catalog import Catalog, TableDef, ViewDef, table_parts
from streamsql.core.config import KNOWN_KEYS, Config, check_mini_batch
from streamsql.core.errors import (
    ConfigError,
    ExecutionError,
    OptionError,
    OptionWarning,
    SqlError,
    StatementError,
    StreamSQLError,
)
from streamsql.core.secrets import mask_options, redact, remember
from streamsql.core.values import parse_bool
from streamsql.functions import udf
from streamsql.jobs import JOB_COLUMNS, describe_job, job_rows
from streamsql.plan import describe
from streamsql.plan.fingerprint import JobFingerprint, changes, job_fingerprint
from streamsql.plan.parallelism_options import parallelism_notes
from streamsql.plan.planner import Planner, assign_ids, explain
from streamsql.plan.stages import cut_stages, explain_stages
from streamsql.plan.unsupported import reject_hints
from streamsql.runtime.collect import CollectNode, CollectSink
from streamsql.runtime.job import JobHandle, JobRunner
from streamsql.runtime.memory import PANDAS_KEY, keep_pandas_unloaded, limit_malloc_arenas
from streamsql.runtime.parallel import ParallelJobRunner, ParallelRole, reset_parallel_run
from streamsql.sql import nodes as n
from streamsql.sql.parser import error_at, parse_statement, too_deep
from streamsql.statement_set import StatementSet
from streamsql.table_result import TableResult, wait_job_async

log = logging.getLogger(__name__)

#: How many ended query (SELECT) jobs SHOW JOBS goes on listing, the most recent (running ones
#: are all listed); INSERT jobs are all kept, as before.
ENDED_QUERIES_KEPT = 100


class StreamEnvironment:
    """Runs Flink SQL statements: DDL into the catalog, queries and INSERT jobs on the runtime.

    Args:
        config: initial settings (Flink keys, string values), e.g.
            ``{"execution.checkpointing.interval": "1 s"}``.
    """

    def __init__(self, config: dict[str, str] | None = None):
        limit_malloc_arenas()  # before any job's threads start (process-wide, once)
        self.catalog = Catalog()
        # upper-case names of the functions CREATE FUNCTION made without TEMPORARY (DESCRIBE FUNCTION)
        self._persistent_functions: set[str] = set()
        self.config = Config(config)
        if parse_bool(self.config.get(PANDAS_KEY), PANDAS_KEY):
            keep_pandas_unloaded()  # before planning's first Arrow table (process-wide, once)
        remember(self.config.settings)
        self.jobs: dict[str, JobHandle] = {}
        self._query_jobs: list[JobHandle] = []  # SELECTs' jobs: running, and the last ended ones
        self._scratch_dir: str | None = None  # where SELECTs' jobs keep state (see _query)
        #: ``'pipeline.name'`` -> ``[fingerprint, job handle]`` of this session's jobs given that
        #: name, in order of submission: the k-th (k > 1) is named ``<name>-<k>`` (:meth:`_job_name`).
        self._named: dict[str, list[list]] = {}
        #: How parallel jobs run here (the CLI sets it; default: every task in this process).
        self.parallel_role = ParallelRole()

    def __enter__(self) -> StreamEnvironment:
        """``with StreamEnvironment() as env:`` — :meth:`close` at the end of the block."""
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- statements ---------------------------------------------------------------------------
    def execute_sql(self, statement: str) -> TableResult:
        """Parse and run one statement.

        Returns:
            A :class:`TableResult` (see its ``kind``).

        Raises:
            SqlError: bad SQL, with line:column and a caret; a shell command (HELP, QUIT, EXIT,
                CLEAR, PRINT TOPIC), which only the shell and ``streamsql run`` run.
            PlanError: a statement that cannot run as asked.
            ConfigError: bad options.
        """
        tree = parse_statement(statement)
        return self.execute_parsed(tree, statement)

    def execute_parsed(self, tree: exp.Expression, sql: str) -> TableResult:
        """Run an already-parsed statement (``sql`` is its text, for errors).

        Raises:
            SqlError: as :meth:`execute_sql`; also for a statement nested too deeply to plan.
            OptionError: a table's bad WITH option, found where the table is read or written,
                positioned at the key in that table's CREATE statement (its ``sql``).
        """
        try:
            return self._execute(tree, sql)
        except RecursionError:
            raise too_deep(sql) from None
        except ConfigError as e:
            positioned = self._at_option(e)
            if positioned is e:
                raise
            raise positioned from None

    def _at_option(self, error: ConfigError) -> ConfigError:
        """``error`` as an :class:`OptionError` at its option's key in the table's DDL, if found."""
        from streamsql.sql.ddl import metadata_position, option_position

        if isinstance(error, StatementError) or not (error.table and (error.option or error.column)):
            return error
        try:
            table = self.catalog.get(error.table)
        except SqlError:  # e.g. a table of a statement set that its CREATE TABLE did not add
            return error
        ddl = table.sql if isinstance(table, TableDef) else None
        where = None
        if ddl and error.option:
            where = option_position(ddl, error.option)
        elif ddl:
            where = metadata_position(ddl, error.column)
        if where is None:
            return error
        e = OptionError(str(error), ddl, *where)
        e.table, e.option, e.column = error.table, error.option, error.column
        return e

    def _execute(self, tree: exp.Expression, sql: str) -> TableResult:
        if not isinstance(tree, (exp.Query, exp.Insert, n.StatementSet, n.Explain)) and not (
                isinstance(tree, exp.Create) and (tree.expression is not None or
                                                   (tree.kind or "").upper() == "VIEW")):
            reject_hints(sql)  # only queries take hints (a view's or CTAS's: checked where planned)
        if isinstance(tree, (exp.Use, exp.Drop, n.ShowNamespace, n.CreateCatalog, n.DropCatalog,
                             n.DescribeCatalog, n.UseModules, n.ShowNone)) or (
                isinstance(tree, exp.Create) and (tree.kind or "").upper() == "DATABASE"):
            return self._namespace_statement(tree, sql)
        if isinstance(tree, exp.Create):
            return self._create(tree, sql)
        if isinstance(tree, exp.Insert):
            return self._submit([tree], sql)
        if isinstance(tree, n.StatementSet):
            return self._submit(list(tree.expressions), sql)
        if isinstance(tree, exp.Query):
            return self._query(tree, sql)
        if isinstance(tree, n.SetOption):
            if tree.option is None:
                all_ = self.config.as_dict()  # a key StreamSQL does not read may be a misspelt secret
                all_ = mask_options(all_, unknown=[k for k in all_ if k not in KNOWN_KEYS])
                return TableResult("rows", ["key", "value"], sorted(all_.items()))
            remember({tree.option: tree.value})
            warning = self._check_setting(tree.option, tree.value, sql)
            self.config.settings[tree.option] = tree.value
            return TableResult("ok", message=warning or "[INFO] Execute statement succeeded.")
        if isinstance(tree, n.ResetOption):
            if tree.option is None:
                self.config.settings.clear()
            else:
                self.config.settings.pop(tree.option, None)
            return TableResult("ok", message="[INFO] Execute statement succeeded.")
        if isinstance(tree, (n.ShowTables, n.ShowViews)):
            return self._namespace_statement(tree, sql)
        if isinstance(tree, n.AlterTable):
            return self._alter_table(tree, sql)
        if isinstance(tree, n.AlterView):
            return self._alter_view(tree, sql)
        if isinstance(tree, n.ShowCreateTable):
            from streamsql.sql.ddl import show_create_table

            obj = self._get(tree.this, sql)
            text = show_create_table(obj, unknown=self._unknown_options(obj)) if isinstance(obj, TableDef) \
                else redact(obj.sql or "")  # a view's hints: their secrets and unknown keys masked
            return TableResult("text", message=text)
        if isinstance(tree, n.DescribeTable):  # and SHOW COLUMNS, its rows filtered by name
            return self._describe(tree, sql)
        if isinstance(tree, n.Explain):
            details = {d.name.upper() for d in tree.expressions}
            return TableResult("text", message=self.explain(tree.this, sql, "CHANGELOG_MODE" in details))
        if isinstance(tree, n.ShowJobs):
            jobs = sorted([*self.jobs.values(), *self._query_jobs], key=lambda j: j.started)  # as submitted
            return TableResult("rows", JOB_COLUMNS, [row for j in jobs for row in job_rows(j)])
        if isinstance(tree, n.DescribeJob):
            text = describe_job(self._job(tree.this.name), self.config.boolean("sql-client.verbose"))
            return TableResult("text", message=text)
        if isinstance(tree, (n.CreateFunction, n.DropFunction, n.ShowFunctions, n.DescribeFunction)):
            return self._function_statement(tree, sql)
        if isinstance(tree, n.StopJob):
            return self._stop_job(tree, sql)
        if isinstance(tree, (n.ClientCommand, n.PrintTopic)):  # the shell's (streamsql.shell.commands)
            what = tree.this.name.upper() if isinstance(tree, n.ClientCommand) else "PRINT TOPIC"
            msg = (f"{what} is a shell command: it runs in 'streamsql shell' and 'streamsql run' (and "
                   f"'shell -f'), not through execute_sql or execute_script")
            raise SqlError(msg, sql)
        msg = f"Statement {type(tree).__name__} is not supported here"
        raise SqlError(msg, sql)

    def _namespace_statement(self, tree: exp.Expression, sql: str) -> TableResult:
        """Catalogs and databases (Flink's CatalogManager): USE, SHOW, CREATE/DROP; DROP TABLE|VIEW.

        Errors are Flink's, positioned at the statement's name.
        """
        from streamsql.sql import namespace

        try:
            result = namespace.execute(self.catalog, tree)
        except SqlError as e:
            if e.line is not None:
                raise
            from streamsql.sql.parser import error_at

            # SHOW DATABASES FROM c, SHOW MODELS FROM db: at the name
            anchor = tree.args.get("catalog") or tree.args.get("database") or tree.this or tree
            raise error_at(anchor, e.message, sql) from None
        if isinstance(result, str):
            return TableResult("ok", message=result)
        return TableResult("rows", *result)

    def _get(self, name: exp.Expression, sql: str) -> TableDef | ViewDef:
        """The catalog object ``name`` (a ``Table``) names; an unknown one fails positioned at it."""
        from streamsql.sql.parser import error_at

        try:
            return self.catalog.get(table_parts(name))
        except SqlError as e:
            raise error_at(name, e.message, sql) from None

    def _stop_job(self, tree: n.StopJob, sql: str) -> TableResult:
        """``STOP JOB 'id' [WITH SAVEPOINT]`` (Flink's syntax and meaning).

        Without a savepoint the job is cancelled, as Flink's SQL gateway does
        (``OperationExecutor.callStopJobOperation`` calls ``ClusterClient.cancel``): no final
        checkpoint, the open transactions are aborted, and the job ends CANCELED; a restart of
        the same job resumes its last committed checkpoint. With a savepoint it stops after a
        final checkpoint and ends FINISHED (Flink's stop-with-savepoint), and the result is
        Flink's one row ``savepoint path``: the final checkpoint's ``chk-<n>`` folder, for
        ``SET 'execution.savepoint.path'``; it is marked a savepoint, so the job's pruning never
        deletes it. A parallel job's is a ``savepoint-<n>`` folder holding every task's final
        checkpoint (:mod:`streamsql.runtime.savepoint`).
        """
        if tree.args.get("drain"):
            msg = "STOP JOB ... WITH DRAIN is not supported; use STOP JOB ... WITH SAVEPOINT"
            raise SqlError(msg, sql)
        job = self._job(tree.this.name)
        kind = (job.runner.config.get("execution.checkpointing.storage") or "").lower()
        if tree.args.get("savepoint") and job.job_id not in self.jobs:
            msg = ("STOP JOB ... WITH SAVEPOINT stops INSERT jobs: a query's job keeps its checkpoints in a "
                   "scratch folder removed when the session ends; STOP JOB 'id' cancels it")
            raise SqlError(msg, sql)
        if tree.args.get("savepoint") and kind == "jobmanager":
            msg = ("STOP JOB ... WITH SAVEPOINT needs 'execution.checkpointing.storage' = 'filesystem': "
                   "this job keeps its checkpoints in the memory of this process")
            raise SqlError(msg, sql)
        if tree.args.get("savepoint") and job.done:
            # Flink stops only a running job; an ended one may have no checkpoint (or coordinator) at all.
            msg = (f"Job '{job.name}' (id {job.job_id}) is not running ({job.status}): there is nothing to "
                   "stop and no savepoint to take")
            raise ExecutionError(msg)
        if not tree.args.get("savepoint") and job.done:
            # "stopped (FINISHED)" read as if this statement had stopped it.
            return TableResult("ok", message=f"[INFO] Job {job.job_id} had already ended ({job.status}); "
                                             "nothing to stop.")
        if not tree.args.get("savepoint"):
            job.cancel()
            return TableResult("ok", message=f"[INFO] Job {job.job_id} stopped ({job.status}).")
        timeout_ms = self.config.duration("client.timeout")
        job.stop(timeout_ms / 1000)
        if not job.done:  # the last completed checkpoint is an earlier one: no savepoint (yet)
            msg = (f"Job '{job.name}' did not stop within {timeout_ms / 1000:g} s ('client.timeout'): its "
                   "final checkpoint is still being taken (a slow sink flushing its rows). The job stops "
                   "once it commits (SHOW JOBS), and started again under the same 'pipeline.name' it "
                   "resumes from there; no savepoint path is returned. SET 'client.timeout' to wait longer")
            raise ExecutionError(msg)
        if isinstance(job.runner, ParallelJobRunner):
            if job.status == "FAILED":
                msg = f"Job '{job.name}' stopped without a savepoint: it failed"
                raise ExecutionError(msg) from job.error
            return TableResult("rows", ["savepoint path"], [(_absolute(job.runner.savepoint()),)])
        done = job.runner.coordinator.last_completed
        if job.status == "FAILED" or done is None:
            msg = f"Job '{job.name}' stopped without a savepoint: its final checkpoint did not complete"
            raise ExecutionError(msg) from job.error
        storage = job.runner.coordinator.storage
        storage.keep_as_savepoint(done.checkpoint_id)
        return TableResult("rows", ["savepoint path"], [(_absolute(storage.location(done.checkpoint_id)),)])

    def _create(self, tree: exp.Create, sql: str) -> TableResult:
        from streamsql.sql.ddl import (
            check_view_columns,
            table_def_from_create,
            view_def_from_create,
        )

        kind = (tree.args.get("kind") or "").upper()
        replace = bool(tree.args.get("replace"))
        exists = bool(tree.args.get("exists"))
        if kind == "TABLE" and tree.expression is not None:
            return self._create_as(tree, sql)
        if kind == "TABLE":
            td = table_def_from_create(tree, sql, self._like_base(tree, sql))
            remember(td.options)  # masked in messages and logs from now on
            self._check_connector(td, sql)
            if td.watermark is not None or any(c.computed is not None for c in td.columns):
                Planner(self.catalog, self.config, sql).table_node(td)  # validate now, not at use
            self._add(td, tree, exists, replace, sql)
            warnings = self._option_warnings(td, sql)
            message = "\n".join([*(f"[WARNING] {w}" for w in warnings),
                                  "[INFO] Execute statement succeeded."])
            return TableResult("ok", message=message, warnings=warnings)
        if kind == "VIEW":
            vd = view_def_from_create(tree, sql)
            vd.namespace = (self.catalog.current_catalog, self.catalog.current_database)
            node = Planner(self.catalog, self.config, sql).plan_query(vd.query)  # validate now
            check_view_columns(tree, vd, node.schema.names, sql)
            self._add(vd, tree, exists, replace, sql)
            return TableResult("ok", message="[INFO] Execute statement succeeded.")
        msg = f"CREATE {kind} is not supported"
        raise SqlError(msg, sql)

    def _alter_table(self, tree: n.AlterTable, sql: str) -> TableResult:
        """``ALTER TABLE``: the table created anew from its altered DDL (:mod:`streamsql.sql.alter`).

        Raises:
            SqlError: an unknown table (unless IF EXISTS) or a view, an action Flink refuses, or
                an altered schema that CREATE TABLE refuses (the table is then left as it was).
        """
        from streamsql.sql.alter import alter
        from streamsql.sql.ddl import show_create_table

        parts = table_parts(tree.this)
        obj = self.catalog.find(parts)
        if obj is None and tree.args.get("exists"):
            return TableResult("ok", message="[INFO] Execute statement succeeded.")
        obj = self._get(tree.this, sql)
        if not isinstance(obj, TableDef):
            msg = f"ALTER TABLE for a view is not allowed: '{obj.name}' is a view; use CREATE OR REPLACE VIEW"
            raise error_at(tree.this, msg, sql)
        path = ".".join(f"`{p}`" for p in self.catalog.qualify(parts))
        ddl, new_name = alter(show_create_table(obj, mask=False), tree, sql)
        if new_name is not None:
            if self.catalog.find((*self.catalog.qualify(parts)[:2], new_name)) is not None:
                msg = f"Table '{new_name}' already exists"
                raise error_at(tree.this, msg, sql)
            self.catalog.drop(parts)
            renamed = dc_replace(obj, name=new_name)
            self.catalog.add(renamed, name=(*self.catalog.qualify(parts)[:2], new_name))
            return TableResult("ok", message="[INFO] Execute statement succeeded.")
        ddl = ddl.replace(f"TABLE {self._created_name(ddl)}", f"TABLE {path}", 1)
        self.catalog.drop(parts)
        try:
            self._create(parse_statement(ddl), ddl)
        except Exception:
            self.catalog.add(obj, name=tuple(self.catalog.qualify(parts)))
            raise
        return TableResult("ok", message="[INFO] Execute statement succeeded.")

    @staticmethod
    def _check_ctas_key(tree: exp.Create, names: list[str], certain: list, sql: str) -> None:
        """A CTAS's PRIMARY KEY on a query column Flink types nullable fails, as Flink's.

        Only where the column's type is certain (``certain``: ``Planner.view_column_types``); a
        key column declared in the CREATE part is made NOT NULL there, as in a CREATE TABLE.

        Raises:
            SqlError: Flink's "Invalid primary key 'PK_id'. Column 'id' is nullable.", at the key.
        """
        schema = tree.this if isinstance(tree.this, exp.Schema) else None
        items = schema.expressions if schema is not None else []
        declared = {i.this.name.lower() for i in items if isinstance(i, exp.ColumnDef)}
        for key in (i for i in items if isinstance(i, exp.PrimaryKey)):
            columns = [ident.name for ident in key.expressions]
            for name in columns:
                found = [t for c, t in zip(names, certain, strict=True) if c.lower() == name.lower()]
                if name.lower() not in declared and found and found[0] is not None and found[0].nullable:
                    msg = f"Invalid primary key 'PK_{'_'.join(columns)}'. Column '{name}' is nullable."
                    raise error_at(key, msg, sql)

    def _alter_view(self, tree: n.AlterView, sql: str) -> TableResult:
        """``ALTER VIEW v RENAME TO v2`` or ``ALTER VIEW v AS <query>``, as Flink's SqlAlterView*.

        RENAME TO stays in the view's database; AS replaces the view's query (planned now; its
        column list dropped).

        Raises:
            SqlError: an unknown view, a table (use ALTER TABLE), a new name that exists or is in
                another database, or a query that does not plan.
        """
        parts = table_parts(tree.this)
        obj = self._get(tree.this, sql)
        if not isinstance(obj, ViewDef):
            msg = f"ALTER VIEW for a table is not allowed: '{obj.name}' is a table; use ALTER TABLE"
            raise error_at(tree.this, msg, sql)
        path = self.catalog.qualify(parts)
        new = tree.args.get("rename")
        if new is not None:
            target = self.catalog.qualify(table_parts(new))
            if target[:2] != path[:2]:
                msg = (f"The new name of view '{obj.name}' must be in its database "
                       f"`{path[0]}`.`{path[1]}`")
                raise error_at(new, msg, sql)
            if self.catalog.find(target) is not None:
                msg = f"Table or view '{target[2]}' already exists in database `{path[0]}`.`{path[1]}`"
                raise error_at(new, msg, sql)
            self.catalog.drop(parts)
            self.catalog.add(dc_replace(obj, name=target[2]), name=target)
            return TableResult("ok", message="[INFO] Execute statement succeeded.")
        create = exp.Create(this=tree.this, kind="VIEW", expression=tree.expression, replace=True)
        self._create(create, sql)
        ddl = f"CREATE VIEW {'.'.join(f'`{p}`' for p in path)} AS\n{sql[tree.args['start']:].strip()}"
        altered = self.catalog.get(parts)
        self.catalog.add(dc_replace(altered, sql=ddl, temporary=obj.temporary), replace=True, name=path)
        return TableResult("ok", message="[INFO] Execute statement succeeded.")

    @staticmethod
    def _created_name(ddl: str) -> str:
        """The table name of a generated CREATE TABLE statement, as written there."""
        head = ddl.split("(", 1)[0].split()
        return head[-1]

    @staticmethod
    def _check_setting(key: str, value: str, sql: str) -> str | None:
        """``check_setting`` of ``SET 'key' = 'value'``: its warning, or its error at the key.

        Raises:
            OptionError: a known key's bad value, positioned at the quoted key in ``sql`` (a
                plain ConfigError when the key is not written quoted).
        """
        from streamsql.core.config import check_setting
        from streamsql.sql.ddl import option_position

        try:
            return check_setting(key, value)
        except ConfigError as e:
            where = option_position(sql, key)
            if where is None:
                raise
            raise OptionError(str(e), sql, *where) from None

    @staticmethod
    def _check_connector(td: TableDef, sql: str) -> None:
        """A table's 'connector' names a known connector (else OptionError at the key)."""
        from streamsql.connectors.registry import get_connector
        from streamsql.sql.ddl import option_position

        try:  # without a 'connector' option the table is fine until used, as in Flink
            if td.connector:
                get_connector(td.connector)
        except ConfigError as e:  # at the 'connector' key, as any other bad option
            where = option_position(sql, "connector")
            if where is None:
                raise
            raise OptionError(str(e), sql, *where) from None

    @staticmethod
    def _ignored_options(td: TableDef) -> list[tuple[str, str]]:
        """``(key, warning)`` of each option the table's connector ignores.

        See ``ConnectorSpec.option_warnings`` (Kafka's ``'properties.*'`` keys no client knows).
        """
        from streamsql.connectors.registry import get_connector

        return get_connector(td.connector).option_warnings(td.options) if td.connector else []

    def _unknown_options(self, td: TableDef) -> frozenset[str]:
        """The option keys of ``td`` its connector does not know.

        Their values are hidden as secrets' are (:func:`streamsql.core.secrets.hidden`).
        """
        return frozenset(key for key, _ in self._ignored_options(td))

    def _option_warnings(self, td: TableDef, sql: str) -> list[StatementError]:
        """The connector's warnings about options it ignores, each at its key in ``sql``.

        Each an :class:`OptionWarning`: its excerpt masks the key's value (a misspelt key's value
        may be a secret) and the sensitive options' values.
        """
        from streamsql.sql.ddl import option_position

        found = self._ignored_options(td)
        unknown = frozenset(key for key, _ in found)
        return [OptionWarning(text, sql, *(option_position(sql, key) or (None, None)), unknown=unknown)
                for key, text in found]

    def _create_as(self, tree: exp.Create, sql: str) -> TableResult:
        """``CREATE TABLE t WITH (...) AS SELECT ...`` (CTAS), as Flink's.

        The table gets the query's columns (names and types of its result), merged with the
        columns the statement declares as Flink 2.x's (:func:`streamsql.sql.ddl._ctas_columns`:
        new ones first, written NULL; redeclared ones keep their place with the declared type),
        then the job of ``INSERT INTO t (query's columns) SELECT ...`` starts. The query is planned
        before the table exists (an error leaves the catalog as it was); a job that fails to start
        drops the table again (a table that was there before, ``IF NOT EXISTS`` or
        ``OR REPLACE``, stays or comes back). A query column is NOT NULL where Flink's type is
        certain here (``Planner.view_column_types``: a SELECT over one table) and NOT NULL; its type
        stays the plan's. Unlike Flink's, a PRIMARY KEY over a column the query may leave NULL
        is taken (Flink: "Column is nullable").
        """
        from streamsql.core.catalog import ColumnDef
        from streamsql.sql.ddl import check_ctas, table_def_from_create
        from streamsql.sql.parser import error_at

        query = tree.expression
        # before planning: a ';' missing after a CREATE TABLE whose next statement reads that
        # table was reported as "Table ... not found" at the query, not as the missing AS / ';'
        check_ctas(tree, sql)
        planner = Planner(self.catalog, self.config, sql)
        node = planner.plan_query(query)
        columns = [ColumnDef(f.name, f.type) for f in node.sql_schema.fields]
        certain = planner.view_column_types(query) or []
        if len(certain) == len(columns):  # NOT NULL where Flink's planner derives it (COALESCE(x, 0) ...)
            columns = [ColumnDef(c.name, c.type.with_nullable(False)) if t is not None and not t.nullable
                       else c for c, t in zip(columns, certain)]
            self._check_ctas_key(tree, [c.name for c in columns], certain, sql)
        for name, renamed, earlier in planner.case_renames:
            if any(c.name == renamed for c in columns):  # Flink's table would have both names
                msg = (f"Columns '{earlier}' and '{name}' differ only in case: Flink's table would have "
                       f"both, StreamSQL's names are case-insensitive (it would name the second "
                       f"'{renamed}'); rename one with AS")
                raise error_at(query, msg, sql)
        td = table_def_from_create(tree, sql, None, query_columns=columns)
        remember(td.options)  # masked in messages and logs from now on
        self._check_connector(td, sql)
        target = tree.this.this if isinstance(tree.this, exp.Schema) else tree.this
        before = self.catalog.find(table_parts(target))  # IF NOT EXISTS / OR REPLACE: a table already there
        self._add(td, tree, bool(tree.args.get("exists")), bool(tree.args.get("replace")), sql)
        listed = None  # the query's columns by name, when the table's are others or in another order
        if [c.name for c in td.columns] != [c.name for c in columns]:
            listed = [exp.to_identifier(c.name, quoted=True) for c in columns]
        try:
            return self._submit([exp.insert(query.copy(), target.copy(), columns=listed)], sql)
        except BaseException:  # the catalog as before the statement: never drop a table it did not create
            if before is None:
                self.catalog.drop(table_parts(target), if_exists=True)
            else:
                self.catalog.add(before, replace=True, name=table_parts(target))
            raise

    def _add(self, obj: TableDef | ViewDef, tree: exp.Create, exists: bool, replace: bool, sql: str) -> None:
        """Register a created table or view under its (qualified) name; errors at the name."""
        from streamsql.sql.parser import error_at

        target = tree.this.this if isinstance(tree.this, exp.Schema) else tree.this
        try:
            self.catalog.add(obj, exists, replace, table_parts(target))
        except SqlError as e:
            raise error_at(target, e.message, sql) from None

    def _like_base(self, tree: exp.Create, sql: str) -> TableDef | None:
        """The table of a CREATE TABLE's LIKE clause, or None without one.

        Raises:
            SqlError: Flink's "Source table '`c`.`db`.`t`' of the LIKE clause not found in the
                catalog" or "... can not be a VIEW", at the name.
        """
        from streamsql.sql.ddl import like_source
        from streamsql.sql.parser import error_at

        like = like_source(tree)
        if like is None:
            return None
        path = ".".join(f"`{p}`" for p in self.catalog.qualify(table_parts(like.this)))
        obj = self.catalog.find(table_parts(like.this))
        if obj is None:
            msg = f"Source table '{path}' of the LIKE clause not found in the catalog"
            raise error_at(like.this, msg, sql)
        if isinstance(obj, ViewDef):
            raise error_at(like.this, f"Source table '{path}' of the LIKE clause can not be a VIEW", sql)
        return obj

    def _function_statement(self, tree: exp.Expression, sql: str) -> TableResult:
        """CREATE / DROP [TEMPORARY] [SYSTEM] FUNCTION, SHOW [USER] FUNCTIONS (see functions.udf)."""
        functions = self.catalog.functions
        if isinstance(tree, n.ShowFunctions):
            from streamsql.sql.namespace import shown

            rows = udf.show(functions, bool(tree.args.get("user")))
            return TableResult("rows", ["function name"], [r for r in rows if shown(tree, r[0])])
        if isinstance(tree, n.DescribeFunction):
            from streamsql.functions.describe import describe_function

            try:
                rows = describe_function(functions, table_parts(tree.this), bool(tree.args.get("extended")),
                                         self._persistent_functions,
                                         (self.catalog.current_catalog, self.catalog.current_database))
            except SqlError as e:
                raise error_at(tree.this, e.message, sql) from None
            return TableResult("rows", ["info name", "info value"], rows)
        name = tree.this.name
        if isinstance(tree, n.DropFunction):
            udf.drop(functions, name, bool(tree.args.get("exists")))
            self._persistent_functions.discard(name.upper())
            return TableResult("ok", message="[INFO] Execute statement succeeded.")
        language = tree.args.get("language")
        if language is None or language.name.upper() != "PYTHON":
            msg = (f"CREATE FUNCTION {name}: only LANGUAGE PYTHON is supported (Java and Scala functions "
                   "need a JVM)")
            raise error_at(language if language is not None else tree.expression, msg, sql)
        path = tree.expression.name
        try:
            fn = udf.load(path, self.config.get("python.files"))
            declared = udf.declare(name, fn, bool(tree.args.get("system")), path)
        except SqlError as e:  # positioned at the 'module.function' literal
            raise error_at(tree.expression, e.message, sql) from None
        if functions.get(name.upper()) is None and not tree.args.get("temporary"):
            self._persistent_functions.add(name.upper())  # a catalog function (DESCRIBE FUNCTION)
        udf.add(functions, declared, bool(tree.args.get("exists")))
        return TableResult("ok", message="[INFO] Execute statement succeeded.")

    def create_temporary_function(self, name: str, fn) -> None:
        """Register the Python callable ``fn`` as the function ``name`` (as PyFlink's).

        Its types come from :func:`streamsql.functions.udf.udf` or its annotations; a built-in
        of the same name takes precedence (use :meth:`create_temporary_system_function`).

        Raises:
            SqlError: a function of that name exists, or ``fn`` declares no result type.
        """
        udf.add(self.catalog.functions, udf.declare(name, fn))

    def create_temporary_system_function(self, name: str, fn) -> None:
        """As :meth:`create_temporary_function`, shadowing a built-in of the same name."""
        udf.add(self.catalog.functions, udf.declare(name, fn, system=True))

    def drop_temporary_function(self, name: str) -> None:
        """Remove the user function ``name``.

        Raises:
            SqlError: when there is none.
        """
        udf.drop(self.catalog.functions, name)

    def _describe(self, tree: n.DescribeTable, sql: str) -> TableResult:
        """DESCRIBE [EXTENDED] t and SHOW COLUMNS FROM t [[NOT] LIKE 'p']: Flink 2.3's rows."""
        from streamsql.sql.namespace import shown

        obj = self._get(tree.this, sql)
        if isinstance(obj, ViewDef):
            with self.catalog.within(obj.namespace):
                planner = Planner(self.catalog, self.config)
                node = planner.plan_query(obj.query)
                types = planner.view_column_types(obj.query)
            columns, rows = describe.COLUMNS, describe.view_rows(node, types)
            if obj.columns:  # CREATE VIEW v (a, b): the view's names for the query's columns
                rows = [(name, *row[1:]) for name, row in zip(obj.columns, rows)]
        else:
            columns, rows = describe.describe_table(obj)
        return TableResult("rows", columns, [r for r in rows if shown(tree, r[0])])

    def explain(self, stmt: exp.Expression, sql: str, changelog: bool = False) -> str:
        """EXPLAIN text for a query, INSERT or statement set (plan + sink guarantees).

        ``changelog``: ``EXPLAIN CHANGELOG_MODE``, each node's row kinds as Flink's.
        """
        check_mini_batch(self.config)
        planner = Planner(self.catalog, self.config, sql)
        if isinstance(stmt, exp.Insert):
            roots = [planner.plan_insert(stmt)]
        elif isinstance(stmt, n.StatementSet):
            roots = planner.plan_statement_set(stmt.expressions)
        else:
            return explain([planner.plan_query(stmt)], changelog)
        parallelism = self.config.integer("parallelism.default")
        if parallelism <= 1:
            return explain(roots, changelog)
        if isinstance(stmt, exp.Insert):
            assign_ids(roots)
        stages = cut_stages(self._job_name(_inserts(stmt), job_fingerprint(_inserts(stmt), self.catalog)),
                            roots, parallelism)
        return explain(roots, changelog) + "\n\n" + explain_stages(stages)

    # -- jobs ---------------------------------------------------------------------------------
    def _job_name(self, inserts: list[exp.Insert], fingerprint: JobFingerprint, submit: bool = False) -> str:
        """``'pipeline.name'``, or ``insert-into_<sinks>-<fingerprint's 8 hex digits>``.

        Several INSERTs of a session under one ``'pipeline.name'`` (Flink runs them all, jobs of
        one name, each checkpointing under its own job id): the first is named so, the k-th
        ``<name>-<k>``, which names its checkpoint folder and Kafka transactional ids, so that a
        rerun of the script resumes each from its own folder. An INSERT submitted again (same
        fingerprint) takes the name of its earlier run once that run has ended (it resumes it),
        a new one while it runs. ``submit``: record the name as taken (else only look).
        """
        name = self.config.get("pipeline.name")
        if not name:
            sinks = "_".join(_target_name(i) for i in inserts)
            return f"insert-into_{sinks}-{fingerprint.short}"
        taken = self._named.setdefault(name, [])
        for k, (digest, handle) in enumerate(taken):
            if digest == fingerprint.digest and (handle is None or handle.done):
                return _nth(name, k)
        if submit:
            taken.append([fingerprint.digest, None])
            return _nth(name, len(taken) - 1)
        return _nth(name, len(taken))

    def _resumed_spelling(self, inserts: list[exp.Insert], fingerprint: JobFingerprint) -> JobFingerprint:
        """``fingerprint``, or its :attr:`~JobFingerprint.as_written` form if that job wrote the folder.

        A job whose INSERTs backquote a reserved word (```out```), started before StreamSQL refused
        such words unquoted, keeps its name and checkpoints (the hash now spells them unquoted, so
        that a script quoted since resumes too).
        """
        old = fingerprint.as_written
        if old is None:
            return fingerprint
        root = self.config.get("execution.checkpointing.dir")
        record = job_record(peek_job_file(root, self._job_name(inserts, old), "_job", self.config.as_dict()))
        return old if record is not None and record.get("fingerprint") == old.digest else fingerprint

    def _bind_name(self, name: str, handle: JobHandle) -> None:
        """Record the job that now runs under ``name`` (a name :meth:`_job_name` gave)."""
        for k, entry in enumerate(self._named.get(self.config.get("pipeline.name") or "", [])):
            if _nth(self.config.get("pipeline.name"), k) == name:
                entry[1] = handle

    def _shared_name_note(self, name: str) -> list[str]:
        """The [INFO] line saying where a job sharing its ``'pipeline.name'`` checkpoints."""
        shared = self.config.get("pipeline.name")
        if not shared or name == shared:
            return []
        return [f"[INFO] 'pipeline.name' = '{shared}' already names another INSERT of this session: this "
                f"job is named '{name}', its checkpoints and Kafka transactional ids too, so both run "
                "(Flink runs both under one name). A rerun of the script resumes each job from its own "
                "checkpoints as long as the INSERTs under that name keep their order."]

    def _reset_parallel_run(self, name: str, inserts: list[exp.Insert], sql: str, parallelism: int) -> None:
        """Reset job ``name``'s unfinished parallel run of ``parallelism`` tasks.

        The stages are cut from a plan of their own, not from the one that runs.
        """
        roots = Planner(self.catalog, self.config, sql).plan_statement_set(inserts)
        reset_parallel_run(name, roots, self.config.copy(), parallelism)

    def _submit(self, inserts: list[exp.Insert], sql: str) -> TableResult:
        fingerprint = self._resumed_spelling(inserts, job_fingerprint(inserts, self.catalog))
        name = self._job_name(inserts, fingerprint, submit=True)
        recovery_key = next((k for k in RECOVERY_KEYS if self.config.get(k)), RECOVERY_KEYS[0])
        recovery = self.config.get(recovery_key) or None
        identity = JobIdentity(name, fingerprint.digest, fingerprint.sql, recovery, fingerprint.described,
                               changes, recovery_key)
        check_mini_batch(self.config)
        planner = Planner(self.catalog, self.config, sql)
        roots = planner.plan_statement_set(inserts)
        if self.config.integer("parallelism.default") > 1:
            runner = ParallelJobRunner(name, roots, self.config.copy(), identity, self.parallel_role)
        elif self.parallel_role.worker_id is not None:
            msg = (f"Job '{name}' has 'parallelism.default' = 1: it runs in one process "
                   "('streamsql run'), not on workers")
            raise ConfigError(msg)
        else:
            runner = JobRunner(name, roots, self.config.copy(), identity)
            if recovery is not None:  # a parallel job's savepoint replaces its unfinished run
                runner.reset_parallel_run = partial(self._reset_parallel_run, name, inserts, sql)
        notes = parallelism_notes(roots, self.config.integer("parallelism.default"))
        notes += self._shared_name_note(name)
        if not self.config.get("pipeline.name") and recovery is None and self.parallel_role.worker_id is None:
            notes += self._superseded(identity, len(fingerprint.short))
        if recovery is not None and self.parallel_role.worker_id is None:
            notes += self._restore_notice(identity)
        handle = JobHandle(runner)
        self._bind_name(name, handle)
        self.jobs[handle.job_id] = handle  # before it starts: close() then always cancels it
        handle.start()
        if self.config.boolean("table.dml-sync"):
            handle.wait()
        message = "\n".join(["[INFO] Submitting SQL update statement to the cluster...", *notes,
                             "[INFO] SQL update statement has been successfully submitted.",
                             f"Job ID: {handle.job_id}"])
        return TableResult("job", job=handle, message=message)

    def _superseded(self, identity: JobIdentity, digest_chars: int) -> list[str]:
        """The warning that a default-named job does not resume an older version of itself.

        See :func:`~streamsql.checkpoint.identity.superseded_notice`; a checkpoint store that
        cannot be listed (S3 down) leaves the job to fail, or not, on its own.
        """
        try:
            storage = CheckpointStorage(self.config.get("execution.checkpointing.dir"), identity.name,
                                        self.config.as_dict())
            notice = superseded_notice(storage, identity, digest_chars)
        except JobIdentityError:
            raise  # the same job under another state layout: refused, not started afresh
        except (OSError, StreamSQLError) as e:
            log.debug("job %s: earlier versions not looked for: %s", identity.name, e)
            return []
        return [notice] if notice else []

    def _restore_notice(self, identity: JobIdentity) -> list[str]:
        """The warning that the job restores another job's checkpoint or savepoint on purpose.

        See :meth:`~streamsql.checkpoint.identity.JobIdentity.restore_notice`; a store that cannot
        be read leaves the job to fail, or not, on its own.
        """
        try:
            storage = CheckpointStorage(self.config.get("execution.checkpointing.dir"), identity.name,
                                        self.config.as_dict())
            notice = identity.restore_notice(storage)
        except (OSError, StreamSQLError) as e:
            log.debug("job %s: the restored checkpoint's writer not looked up: %s", identity.name, e)
            return []
        return [notice] if notice else []

    def _query(self, query: exp.Expression, sql: str) -> TableResult:
        # Flink names a SELECT's job 'pipeline.name', else "collect" (TableEnvironmentImpl's
        # executeQueryOperation), and SHOW JOBS tells such jobs apart by id; so does ours.
        name = self.config.get("pipeline.name") or "collect"
        check_mini_batch(self.config)
        root = Planner(self.catalog, self.config, sql).plan_query(query)
        sink = CollectSink(types=[f.type for f in root.sql_schema])
        node = CollectNode([root], root.schema, root.mode, sink=sink)
        assign_ids([node])
        cfg = self.config.copy()
        cfg.settings.setdefault("execution.checkpointing.interval", "0")  # a query commits nothing
        # ... and leaves nothing behind: its state and final checkpoint go to a scratch folder
        # of its own (queries may share a name) that close() removes, not to the INSERT jobs'.
        scratch = os.path.join(self._scratch(), uuid.uuid4().hex)
        cfg.settings["execution.checkpointing.dir"] = os.path.join(scratch, "checkpoints")
        cfg.settings["state.dir"] = os.path.join(scratch, "state")
        handle = JobHandle(JobRunner(name, [node], cfg))
        # Registered before it starts: an interrupt between the two (streamsql run's SIGINT when
        # another job fails) must not leave an unbounded query running that close() never sees.
        ended = [j for j in self._query_jobs if j.done]
        forget = {id(j) for j in ended[: max(0, len(ended) - ENDED_QUERIES_KEPT)]}
        self._query_jobs = [j for j in self._query_jobs if id(j) not in forget] + [handle]
        handle.start()
        return TableResult("query", columns=list(root.schema.names), job=handle, _sink=sink,
                           column_types=[f.type for f in root.sql_schema],
                           time_zone=self.config.get("table.local-time-zone"))

    def _job(self, job_id: str) -> JobHandle:
        job = self.jobs.get(job_id) or next((j for j in self._query_jobs if j.job_id == job_id), None)
        if job is None:
            msg = f"No job with id '{job_id}'; SHOW JOBS lists them"
            raise SqlError(msg)
        return job

    def execute_script(self, script: str, file: str | None = None) -> list[TableResult]:
        """Run every statement of ``script`` (statements separated by ``;``) in order.

        Returns as soon as the last statement has run: INSERT jobs run in the background,
        concurrently; :meth:`wait_all` waits for them, as ``streamsql run`` does at the end of its
        script.

        Args:
            script: the SQL text, as a ``.sql`` file holds it.
            file: the file's name, shown in errors (``file: message (line L, column C)``).

        Returns:
            each statement's :class:`TableResult`, in order.

        Raises:
            SqlError: the first failing statement, positioned in the script (file:line:column);
                a PlanError likewise, and an OptionError (a table's option, metadata key or
                column its format cannot carry) at the earlier CREATE TABLE it points into.
        """
        from streamsql.sql.parser import error_in_script, split_statements

        results = []
        statements = split_statements(script)
        for i, st in enumerate(statements):
            try:
                results.append(self.execute_sql(st.text))
            except StatementError as e:  # a SqlError, PlanError, or OptionError at a CREATE TABLE's option
                raise error_in_script(e, st, script, file, statements[:i]) from None
        return results

    def wait_all(self) -> None:
        """Wait for every submitted job.

        Raises:
            StreamSQLError: the first failure, as soon as any job fails (even while another,
                unbounded job runs on).
        """
        while True:
            jobs = list(self.jobs.values())
            for j in jobs:
                if j.done:
                    j.wait()  # raises the failure of a failed job
            running = [j for j in jobs if not j.done]
            if not running:
                return
            running[0].wait(0.2)

    def create_statement_set(self) -> StatementSet:
        """A :class:`StatementSet`: add INSERTs, then run them all as one job (Flink's API)."""
        return StatementSet(self)

    async def wait_async(self, job: JobHandle | TableResult, timeout: float | None = None) -> str:
        """``await`` the end of a job (a :class:`JobHandle` or a result with one), loop unblocked.

        Returns:
            The job's status: ``FINISHED``, ``CANCELED`` (``RUNNING`` after a timeout).

        Raises:
            StreamSQLError: the job's failure, if it failed.
        """
        handle = job.job if isinstance(job, TableResult) else job
        if handle is None:
            msg = "This result has no job to wait for"
            raise ValueError(msg)
        return await wait_job_async(handle, timeout)

    def _scratch(self) -> str:
        """The environment's scratch folder for queries (created on first use)."""
        if self._scratch_dir is None:
            self._scratch_dir = tempfile.mkdtemp(prefix="streamsql-queries-")
        return self._scratch_dir

    def close(self) -> None:
        """Cancel running jobs (INSERTs, statement sets and queries); remove the queries' scratch folder."""
        for j in [*self.jobs.values(), *self._query_jobs]:
            if not j.done:
                j.cancel()
        if self._scratch_dir is not None and all(j.done for j in self._query_jobs):
            shutil.rmtree(self._scratch_dir, ignore_errors=True)
            self._scratch_dir = None


def _nth(name: str, k: int) -> str:
    """The name of the (k+1)-th job of a session under ``'pipeline.name'`` = ``name``."""
    return name if k == 0 else f"{name}-{k + 1}"


def _target_name(insert: exp.Insert) -> str:
    t = insert.this
    return (t.this if isinstance(t, exp.Schema) else t).name



def _inserts(stmt: exp.Expression) -> list[exp.Insert]:
    """The INSERTs of an INSERT or a statement set."""
    return [stmt] if isinstance(stmt, exp.Insert) else list(stmt.expressions)


def _absolute(location: str) -> str:
    """A savepoint's location as Flink prints it: absolute (a URI such as ``s3://...`` as it is).

    The default checkpoint folder is relative to the session's working directory, and a script
    run from another folder could not restore the relative path.
    """
    return location if "://" in location else os.path.abspath(location)
