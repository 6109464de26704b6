"""The embedding API: a :class:`StreamEnvironment` runs SQL statements, as Flink's
TableEnvironment does.

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

import queue
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from sqlglot import exp

from streamsql.catalog import Catalog, TableDef, ViewDef
from streamsql.config import Config
from streamsql.errors import SqlError
from streamsql.plan.nodes import walk
from streamsql.plan.planner import Planner, assign_ids, explain
from streamsql.runtime.collect import END, CollectNode, CollectSink
from streamsql.runtime.elements import RowKind
from streamsql.runtime.job import JobHandle, JobRunner
from streamsql.sql import nodes as n

from streamsql.sql.parser import parse_statement


@dataclass
class TableResult:
    """What :meth:`StreamEnvironment.execute_sql` returns.

    Attributes:
        kind: ``"ok"`` (DDL, SET), ``"rows"`` (SHOW/DESCRIBE: rows ready), ``"query"`` (a SELECT:
            iterate :meth:`collect`), ``"job"`` (INSERT: see :attr:`job`), ``"text"`` (EXPLAIN).
        columns: column names for rows and queries.
        rows: ready rows for ``"rows"``.
        job: the job handle for ``"job"`` and ``"query"``.
        message: a one-line message (``"[INFO] Table has been created."``) or the text.
    """

    kind: str
    columns: list[str] = field(default_factory=list)
    rows: list[tuple] = field(default_factory=list)
    job: JobHandle | None = None
    message: str = ""
    _sink: CollectSink | None = None

    def collect(self, timeout: float | None = None) -> Iterator[tuple[RowKind, tuple]]:
        """Iterate ``(row kind, row)`` pairs: a query's changelog until it ends (bounded) or
        forever (unbounded; cancel the job or stop iterating). For ``"rows"``, yields +I rows.

        Args:
            timeout: give up after this many seconds without a row (None: wait).

        Raises:
            StreamSQLError: when the query's job fails.
        """
        if self.kind == "rows":
            yield from ((RowKind.INSERT, r) for r in self.rows)
            return
        if self._sink is None:
            return
        q = self._sink.queue
        last = time.monotonic()
        try:
            while True:
                try:
                    item = q.get(timeout=0.1)
                except queue.Empty:
                    if self.job.done:
                        if q.empty():
                            self.job.wait(0)
                            return
                        continue
                    if timeout is not None and time.monotonic() - last > timeout:
                        return
                    continue
                if item is END:
                    self.job.wait(5)
                    return
                last = time.monotonic()
                yield item
        finally:
            if not self.job.done:
                self.job.cancel()


class StreamEnvironment:
    """Runs Flink SQL statements: DDL into the catalog, queries and INSERT jobs on the runtime.

    Args:
        config: initial settings (Flink keys, string values), e.g.
            ``{"execution.checkpointing.interval": "1 s"}``.
    """

    def __init__(self, config: dict[str, str] | None = None):
        self.catalog = Catalog()
        self.config = Config(config)
        self.jobs: dict[str, JobHandle] = {}

    # -- statements ---------------------------------------------------------------------------
    def execute_sql(self, statement: str) -> TableResult:
        """Parse and run one statement.

        Returns:
            A :class:`TableResult` (see its ``kind``).

        Raises:
            SqlError: bad SQL, with line:column and a caret.
            PlanError: a statement that cannot run as asked.
            ConfigError: bad options.
        """
        tree = parse_statement(statement)
        return self.execute_parsed(tree, statement)

    def execute_parsed(self, tree: exp.Expression, sql: str) -> TableResult:
        """Run an already-parsed statement (``sql`` is its text, for errors)."""
        if isinstance(tree, exp.Create):
            return self._create(tree, sql)
        if isinstance(tree, exp.Drop):
            kind = TableDef if (tree.args.get("kind") or "").upper() == "TABLE" else ViewDef
            self.catalog.drop(tree.args["tables"][0].name, bool(tree.args.get("exists")), kind)
            return TableResult("ok", message=f"[INFO] {kind.__name__[:-3]} has been removed.")
        if isinstance(tree, exp.Insert):
            return self._submit([tree], sql)
        if isinstance(tree, n.StatementSet):
            return self._submit(list(tree.expressions), sql)
        if isinstance(tree, exp.Query):
            return self._query(tree, sql)
        if isinstance(tree, n.SetOption):
            if tree.option is None:
                all_ = self.config.as_dict()
                return TableResult("rows", ["key", "value"], sorted(all_.items()))
            self.config.settings[tree.option] = tree.value
            return TableResult("ok", message="[INFO] Execute statement succeeded.")
        if isinstance(tree, n.ResetOption):
            if tree.option is None:
                self.config.settings.clear()
            else:
                self.config.settings.pop(tree.option, None)
            return TableResult("ok", message="[INFO] Execute statement succeeded.")
        if isinstance(tree, n.ShowTables):
            return TableResult("rows", ["table name"], [(t.name,) for t in self.catalog.tables()])
        if isinstance(tree, n.ShowViews):
            views = [o for o in (self.catalog.get(x) for x in self.catalog.names()) if isinstance(o, ViewDef)]
            return TableResult("rows", ["view name"], [(v.name,) for v in views])
        if isinstance(tree, n.ShowCreateTable):
            from streamsql.sql.ddl import show_create_table

            obj = self.catalog.get(tree.this.name)
            text = show_create_table(obj) if isinstance(obj, TableDef) else (obj.sql or "")
            return TableResult("text", message=text)
        if isinstance(tree, n.DescribeTable):
            return self._describe(tree.this.name)
        if isinstance(tree, n.Explain):
            return TableResult("text", message=self.explain(tree.this, sql))
        if isinstance(tree, n.ShowJobs):
            return TableResult("rows", ["job id", "name", "status", "started", "rows in", "rows out",
                                        "last checkpoint"], [self._job_row(j) for j in self.jobs.values()])
        if isinstance(tree, n.StopJob):
            job = self.jobs.get(tree.this.name)
            if job is None:
                msg = f"No job with id '{tree.this.name}'; SHOW JOBS lists them"
                raise SqlError(msg)
            job.stop()
            return TableResult("ok", message=f"[INFO] Job {job.job_id} stopped ({job.status}).")
        msg = f"Statement {type(tree).__name__} is not supported here"
        raise SqlError(msg, sql)

    def _create(self, tree: exp.Create, sql: str) -> TableResult:
        from streamsql.sql.ddl import table_def_from_create, view_def_from_create

        kind = (tree.args.get("kind") or "").upper()
        replace = bool(tree.args.get("replace"))
        exists = bool(tree.args.get("exists"))
        if kind == "TABLE":
            td = table_def_from_create(tree, sql)
            from streamsql.connectors.registry import get_connector

            get_connector(td.connector or "<missing 'connector' option>")
            self.catalog.add(td, exists, replace)
            return TableResult("ok", message="[INFO] Execute statement succeeded.")
        if kind == "VIEW":
            vd = view_def_from_create(tree, sql)
            Planner(self.catalog, self.config, sql).plan_query(vd.query)  # validate now, not at use
            self.catalog.add(vd, exists, replace)
            return TableResult("ok", message="[INFO] Execute statement succeeded.")
        msg = f"CREATE {kind} is not supported"
        raise SqlError(msg, sql)

    def _describe(self, name: str) -> TableResult:
        obj = self.catalog.get(name)
        if isinstance(obj, ViewDef):
            node = Planner(self.catalog, self.config).plan_query(obj.query)
            return TableResult("rows", ["name", "type", "null", "key", "extras", "watermark"],
                               [(f.name, str(f.type), True, None, None, None) for f in node.sql_schema])
        rows = []
        for c in obj.columns:
            extras = (f"AS {c.computed.sql()}" if c.computed is not None else
                      f"METADATA FROM '{c.metadata_key}'" if c.metadata_key else None)
            wm = obj.watermark.expr.sql() if obj.watermark and obj.watermark.column.lower() == c.name.lower() else None
            typ = str(c.type) if c.type is not None else "(computed)"
            key = "PRI" if c.name in obj.primary_key else None
            rows.append((c.name, typ, c.type.nullable if c.type else True, key, extras, wm))
        return TableResult("rows", ["name", "type", "null", "key", "extras", "watermark"], rows)

    def explain(self, stmt: exp.Expression, sql: str) -> str:
        """EXPLAIN text for a query, INSERT or statement set (plan + sink guarantees)."""
        planner = Planner(self.catalog, self.config, sql)
        if isinstance(stmt, exp.Insert):
            roots = [planner.plan_insert(stmt)]
        elif isinstance(stmt, n.StatementSet):
            roots = [planner.plan_insert(i) for i in stmt.expressions]
            assign_ids(roots)
        else:
            roots = [planner.plan_query(stmt)]
        return explain(roots)

    # -- jobs ---------------------------------------------------------------------------------
    def _job_name(self, inserts: list[exp.Insert]) -> str:
        name = self.config.get("pipeline.name")
        if name:
            return name
        sinks = "_".join(_target_name(i) for i in inserts)
        return f"insert-into_{sinks}"

    def _submit(self, inserts: list[exp.Insert], sql: str) -> TableResult:
        name = self._job_name(inserts)
        planner = Planner(self.catalog, self.config, sql, job_name=name)
        roots = [planner.plan_insert(i) for i in inserts]
        for node in walk(roots):  # ids unique across the statement set, stable across restarts
            node.id = ""
        assign_ids(roots)
        handle = JobHandle(JobRunner(name, roots, self.config.copy())).start()
        self.jobs[handle.job_id] = handle
        if self.config.boolean("table.dml-sync"):
            handle.wait()
        return TableResult("job", job=handle, message=f"[INFO] Submitting SQL update statement to the cluster...\n"
                                                      f"[INFO] SQL update statement has been successfully submitted.\n"
                                                      f"Job ID: {handle.job_id}")

    def _query(self, query: exp.Expression, sql: str) -> TableResult:
        name = f"collect-{uuid.uuid4().hex[:8]}"
        root = Planner(self.catalog, self.config, sql, job_name=name).plan_query(query)
        sink = CollectSink()
        node = CollectNode([root], root.schema, root.mode, sink=sink)
        assign_ids([node])
        cfg = self.config.copy()
        cfg.settings.setdefault("execution.checkpointing.interval", "0")  # a query commits nothing
        handle = JobHandle(JobRunner(name, [node], cfg)).start()
        return TableResult("query", columns=list(root.schema.names), job=handle, _sink=sink)

    def _job_row(self, j: JobHandle) -> tuple:
        cp = j.last_checkpoint
        last = f"#{cp['checkpoint_id']} ({cp['duration_ms']} ms)" if cp else "-"
        started = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(j.started))
        m = j.metrics
        return (j.job_id, j.name, j.status, started, m.get("rows_in", 0), m.get("rows_out", 0), last)

    def execute_script(self, script: str, file: str | None = None) -> list[TableResult]:
        """Run every statement of ``script`` in order; INSERT jobs run concurrently and are
        waited for at the end (as ``streamsql run`` does).

        Raises:
            SqlError: the first failing statement, positioned in the script (file:line:column).
        """
        from streamsql.sql.parser import error_in_script, split_statements

        results = []
        for st in split_statements(script):
            try:
                results.append(self.execute_sql(st.text))
            except SqlError as e:
                raise error_in_script(e, st, script, file) from None
        return results

    def wait_all(self) -> None:
        """Wait for every submitted job; raises the first failure."""
        for j in list(self.jobs.values()):
            j.wait()

    def close(self) -> None:
        """Cancel running jobs."""
        for j in self.jobs.values():
            if not j.done:
                j.cancel()


def _target_name(insert: exp.Insert) -> str:
    t = insert.this
    return (t.this if isinstance(t, exp.Schema) else t).name

