"""The random-query oracle over Kafka sources: parallel jobs, rescaling through a savepoint, and a
restore with another batch size (``query_fuzz --parallel`` / ``--rescale`` / ``--kafka``).

Each seed's query (:func:`tests.runtime.query_fuzz.make_query`) reads ``t``, ``cdc``, ``cdx`` and
``tw`` from Kafka topics of :data:`PARTITIONS` partitions (each table's file, one record per line,
a row's events in partition ``id % PARTITIONS``: a debezium row's changes stay in order) and runs
as ``CREATE TABLE `out` WITH ('connector' = 'fuzz-changelog') AS <query>``, the recorder of
:mod:`tests.runtime.query_fuzz_savepoint`, which keeps every change each task gives it. A plan
is a sequence of runs, each ``(parallelism, batch size, state backend)``:

- one run (``--parallel P``): every record is in the topics, the job reads them bounded
  (``'scan.bounded.mode' = 'latest-offset'``) at parallelism P, as tasks in threads of this process
  (the embedding API's path: the same tasks, exchanges and transactions as ``streamsql run``'s
  worker processes, without the group membership);
- two runs (``--rescale P1,P2``, ``--kafka``): the topics hold the seed's cut (15–85% of every
  table's records); the first run reads them unbounded and is stopped WITH SAVEPOINT — once its
  sources read everything (no lag), or for one seed in three while it still reads (a cut wherever
  the sources are) — then the rest is produced and the second run restores the savepoint at its
  parallelism, bounded. Its batch size always differs from the first run's, and one restore in four
  is into the other state backend. ``--kafka`` is P1 = P2 = 1 (the single-process job: the Kafka
  reader's offsets in a ``chk-<n>`` savepoint).

The changes of all runs are folded as one changelog (a -U/-D of a row that is not there fails:
each key's changes come from the task owning it, in order) and compared with DuckDB over all the
input. A query the planner refuses at parallelism > 1 (``NOT IN``, ...) is counted, not failed.

    python -m tests.runtime.query_fuzz --parallel 2 --seeds 0:200 -v
    python -m tests.runtime.query_fuzz --rescale 2,3 --seeds 0:200 -v    # or 3,2, 2,3,2; "mix": a pair of MIX
    python -m tests.runtime.query_fuzz --kafka --seeds 0:200 -v
"""

from __future__ import annotations

import dataclasses
import json
import os
import random
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient, NewTopic

from streamsql.core.elements import RowKind
from streamsql.core.errors import PlanError
from tests.runtime.oracle import COLUMNS, make_env, stream_rows
from tests.runtime.query_fuzz import TS_FLINK, Query, check_sorted, compare, expected_rows, make_query
from tests.runtime.query_fuzz_savepoint import RECORDER, WRITTEN, compare_runs, connectors, wait_for

PARTITIONS = 4
TABLES = ("t", "cdc", "cdx")
#: rescale pairs ``--rescale mix`` draws from (1 -> N: a single-process savepoint split into tasks)
MIX = ((2, 3), (3, 2), (2, 2), (2, 1), (1, 2), (1, 3))
#: the last seed's counts (what ``-v`` prints)
LAST: dict[str, object] = {}


class Refused(Exception):  # noqa: N818  (a count, not an error)
    """The planner refused the query at the run's parallelism (a documented limit, not a finding)."""


@dataclasses.dataclass(frozen=True)
class Run:
    """One run of a seed: parallelism, ``execution.batch-size`` (None: the default), state backend."""

    parallelism: int
    batch_size: int | None
    backend: str


@dataclasses.dataclass(frozen=True)
class KafkaPlan:
    """A seed's runs; between two runs a cut (ascending fractions of every table: the records in the
    topics when the run before is stopped with a savepoint), and whether each stop comes while the
    sources still read."""

    runs: tuple[Run, ...]
    cuts: tuple[float, ...] = ()
    early: bool = False
    #: into an exactly-once ``debezium-json`` Kafka topic (read back at the end), not the recorder
    kafka_sink: bool = False


def kafka_plan(seed: int, q: Query, parallelism: tuple[int, ...]) -> KafkaPlan:
    """The seed's runs at ``parallelism`` (one per number; ``()``: a pair from :data:`MIX`), drawn
    apart from :func:`make_query` (the query stays the plain oracle's). Each restore has another
    batch size than the run before (batch size 1 only in one task), and one in four the other
    state backend."""
    r = random.Random(f"kafka-{seed}")
    if not parallelism:
        parallelism = r.choice(MIX)
    runs = [Run(parallelism[0], q.batch_size, q.backend)]
    if len(parallelism) == 1:
        return KafkaPlan(tuple(runs))
    other = {"hashmap": "rocksdb", "rocksdb": "hashmap"}
    for p in parallelism[1:]:
        last = runs[-1]
        sizes = [b for b in (1, 7, 50, None) if b != last.batch_size and (b != 1 or p == 1)]
        runs.append(Run(p, r.choice(sizes), other[last.backend] if r.random() < 0.25 else last.backend))
    cuts, early = [round(r.uniform(0.15, 0.85), 3)], r.random() < 1 / 3
    sink = r.random() < 1 / 3
    cuts += [round(r.uniform(0.15, 0.85), 3) for _ in parallelism[2:]]
    return KafkaPlan(tuple(runs), tuple(sorted(cuts)), early, kafka_sink=sink)


class Topics:
    """A seed's input topics (``t``, ``cdc``, ``cdx``; ``tw`` reads ``t``), produced line by line."""

    def __init__(self, bootstrap: str, files: dict[str, Path]):
        self.bootstrap = bootstrap
        self.admin = AdminClient({"bootstrap.servers": bootstrap, "allow.auto.create.topics": False})
        tag = uuid.uuid4().hex[:10]
        self.names = {n: f"fuzzq-{n}-{tag}" for n in TABLES}
        self.lines = {n: [ln for ln in files[n].read_bytes().splitlines() if ln.strip()] for n in TABLES}
        self.sent = dict.fromkeys(TABLES, 0)
        new = [NewTopic(t, num_partitions=PARTITIONS, replication_factor=1) for t in self.names.values()]
        for f in self.admin.create_topics(new, operation_timeout=30).values():
            f.result(timeout=60)
        deadline = time.monotonic() + 30
        while not all(self._ready(t) for t in self.names.values()):
            if time.monotonic() > deadline:
                msg = f"topics {sorted(self.names.values())} not ready after 30 s"
                raise TimeoutError(msg)
            time.sleep(0.1)

    def _ready(self, topic: str) -> bool:
        md = self.admin.list_topics(topic=topic, timeout=10).topics.get(topic)
        return (md is not None and md.error is None and len(md.partitions) == PARTITIONS
                and all(p.leader >= 0 for p in md.partitions.values()))

    def output(self) -> str:
        """A new output topic of one partition (deleted with the others)."""
        out = f"fuzzq-out-{uuid.uuid4().hex[:10]}"
        self.admin.create_topics([NewTopic(out, num_partitions=1, replication_factor=1)],
                                 operation_timeout=30)[out].result(timeout=60)
        self.names["out"] = out
        return out

    diagnosis = ""

    def diagnose_output(self) -> None:
        """Count the output topic's records read_uncommitted and read_committed (:attr:`diagnosis`)."""
        from confluent_kafka import Consumer, TopicPartition

        counts = {}
        for level in ("read_uncommitted", "read_committed"):
            c = Consumer({"bootstrap.servers": self.bootstrap, "group.id": f"diag-{uuid.uuid4().hex}",
                          "isolation.level": level, "enable.auto.commit": False,
                          "enable.partition.eof": True})
            c.assign([TopicPartition(self.names["out"], 0, 0)])
            n, deadline = 0, time.monotonic() + 20
            while time.monotonic() < deadline:
                m = c.poll(1.0)
                if m is None:
                    continue
                if m.error():
                    break  # the partition's end (EOF) for this isolation level
                n += 1
            lo, hi = c.get_watermark_offsets(TopicPartition(self.names["out"], 0), timeout=10)
            counts[level] = (n, c.position([TopicPartition(self.names["out"], 0)])[0].offset, hi)
            c.close()
        self.diagnosis = ("output topic: (records, position at the end, high watermark) "
                          + ", ".join(f"{k}: {v}" for k, v in counts.items()) + "\n  " + self._input_order())

    def _input_order(self) -> str:
        """Whether each partition of ``t`` holds its ids in rising order, once each (the order
        ``tw``'s watermark assumes: a partition out of order makes rows late, by the query's rules)."""
        from confluent_kafka import Consumer, TopicPartition

        c = Consumer({"bootstrap.servers": self.bootstrap, "group.id": f"diag-{uuid.uuid4().hex}",
                      "enable.auto.commit": False, "enable.partition.eof": True})
        c.assign([TopicPartition(self.names["t"], p, 0) for p in range(PARTITIONS)])
        ids: dict[int, list[int]] = {p: [] for p in range(PARTITIONS)}
        at_end: set[int] = set()
        deadline = time.monotonic() + 20
        while len(at_end) < PARTITIONS and time.monotonic() < deadline:
            m = c.poll(1.0)
            if m is None:
                continue
            if m.error():
                at_end.add(m.partition())
                continue
            ids[m.partition()].append(json.loads(m.value())["id"])
        c.close()
        bad = {p: v for p, v in ids.items() if v != sorted(set(v))}
        return (f"input topic t: {sum(map(len, ids.values()))} records, every partition in id order"
                if not bad else f"input topic t OUT OF ORDER (or repeated) in partitions: {bad}")

    def produce(self, fraction: float) -> None:
        """Produce every table's lines up to ``fraction`` of them (from where the last call stopped)."""
        # idempotent: a retried request neither repeats nor reorders records of a partition (the
        # watermark of ``tw`` relies on each partition's order)
        p = Producer({"bootstrap.servers": self.bootstrap, "linger.ms": 5, "enable.idempotence": True})
        for n in TABLES:
            upto = len(self.lines[n]) if fraction >= 1 else max(1, int(fraction * len(self.lines[n])))
            for line in self.lines[n][self.sent[n]:upto]:
                rec = json.loads(line)
                row = rec.get("after") or rec.get("before") if n != "t" else rec
                p.produce(self.names[n], line, partition=row["id"] % PARTITIONS)
            self.sent[n] = max(self.sent[n], upto)
        assert p.flush(60) == 0, "records left unsent"

    def delete(self) -> None:
        for f in self.admin.delete_topics(list(self.names.values()), operation_timeout=30).values():
            try:
                f.result(timeout=60)
            except Exception:  # noqa: BLE001, S110  (best effort: a test topic left behind)
                pass


def create_kafka_tables(env, topics: Topics, bounded: bool) -> None:
    """``t``, ``cdc``, ``cdx`` and ``tw`` over ``topics`` (see :func:`.query_fuzz.create_tables`)."""
    cols = ", ".join(f"{c} {t}" for c, t, _ in COLUMNS)
    end = ", 'scan.bounded.mode' = 'latest-offset'" if bounded else ""

    def opts(name: str, fmt: str) -> str:
        return (f"'connector' = 'kafka', 'topic' = '{topics.names[name]}', 'properties.bootstrap.servers' = "
                f"'{topics.bootstrap}', 'format' = '{fmt}', 'scan.startup.mode' = 'earliest-offset'{end}")

    for name, fmt in (("t", "json"), ("cdc", "debezium-json"), ("cdx", "debezium-json")):
        env.execute_sql(f"CREATE TABLE {name} ({cols}) WITH ({opts(name, fmt)})")
    env.execute_sql(f"CREATE TABLE tw ({cols}, ts AS {TS_FLINK}, "
                    f"WATERMARK FOR ts AS ts - INTERVAL '5' SECOND) WITH ({opts('t', 'json')})")
    # t's topic with its metadata (query_fuzz.TM_DUCK: partition id % 4, offset id // 4)
    env.execute_sql(f"CREATE TABLE tm ({cols}, part INT METADATA FROM 'partition' VIRTUAL, "
                    f"off BIGINT METADATA FROM 'offset' VIRTUAL) WITH ({opts('t', 'json')})")


def alter_tables(env, q: Query) -> None:
    """What ``q.alter`` changes between a stop and the restore: every table made bounded by
    ``ALTER TABLE ... SET`` (created unbounded, as the stopped run's were), and with ``"add"`` a
    computed column ``t`` gains that the query does not read."""
    for name in ("t", "cdc", "cdx", "tw", "tm"):
        env.execute_sql(f"ALTER TABLE {name} SET ('scan.bounded.mode' = 'latest-offset')")
    if q.alter == "add":
        env.execute_sql("ALTER TABLE t ADD zz AS id + 1")


def _settings(name: str, run: Run, savepoint: str | None) -> dict[str, str]:
    s = {"pipeline.name": name, "execution.checkpointing.interval": "300 ms",
         "parallelism.default": str(run.parallelism), "restart-strategy.type": "none"}
    if savepoint:
        s["execution.savepoint.path"] = savepoint
    return s


def check_kafka(seed: int, files: dict[str, Path], work: Path, bootstrap: str,
                parallelism: tuple[int, ...] = (2,), timeout: float = 180) -> Query:
    """Run seed's query over Kafka as :func:`kafka_plan` says; AssertionError when the changelog of
    its runs differs from DuckDB's answer, :class:`Refused` when it cannot run at the parallelism."""
    q = make_query(seed)
    plan = kafka_plan(seed, q, parallelism)
    runs = " -> ".join(f"p{r.parallelism}/batch {r.batch_size}/{r.backend}" for r in plan.runs)
    early = " while reading" if plan.early else ""
    cut = f", savepoints at {', '.join(f'{c:.0%}' for c in plan.cuts)}{early}" if plan.cuts else ""
    what = f"seed {seed} over Kafka ({runs}{cut}): {q.flink}"
    if plan.kafka_sink:
        what = what.replace(" over Kafka (", " over Kafka into an exactly-once debezium-json topic (", 1)
    expected = expected_rows(q, files)
    sql = f"CREATE TABLE `out` WITH ('connector' = '{RECORDER}') AS {q.flink}"
    name = f"fuzzk-{seed}-{uuid.uuid4().hex[:6]}"
    topics = Topics(bootstrap, files)
    changes: list[list[tuple[RowKind, tuple]]] = []
    savepoint = sink = None
    try:
        if plan.kafka_sink:
            schema, sink = output_schema(topics, q, work), sink_options(bootstrap, topics.output())
            sql = f"INSERT INTO `out` {q.flink}"
        with connectors():
            for i, run in enumerate(plan.runs):
                last = i == len(plan.runs) - 1
                topics.produce(1.0 if last else plan.cuts[i])
                WRITTEN.clear()
                # with a parallel run, every run is the same job (the documented rescale: a restore
                # resets the stopped run); in one task each run is another job, in another folder
                parallel = any(r.parallelism > 1 for r in plan.runs)
                folder = work if parallel else work / f"run{i}"
                settings = _settings(name if parallel else f"{name}-{i}", run, savepoint)
                settings["state.dir"] = str(work / f"state{i}")  # every run on a fresh local state
                with make_env(folder, run.backend, run.batch_size, settings) as env:
                    altered = last and bool(q.alter)  # bounded by ALTER TABLE, not at CREATE
                    create_kafka_tables(env, topics, bounded=last and not altered)
                    if altered:
                        alter_tables(env, q)
                    if sink:
                        env.execute_sql(f"CREATE TABLE `out` ({schema}) WITH ({sink})")
                    try:
                        job = env.execute_sql(sql).job
                    except PlanError as e:
                        if run.parallelism > 1 and "parallelism" in str(e):
                            raise Refused(str(e)) from None
                        raise
                    if last:
                        status = job.wait(timeout)
                        if status != "FINISHED":
                            job.cancel()
                            msg = f"{what}\n  run {i} did not finish within {timeout} s ({status})"
                            raise AssertionError(msg)
                    else:
                        _read(job, run, plan.early, timeout, f"{what}\n  run {i}")
                        savepoint = env.execute_sql(f"STOP JOB '{job.job_id}' WITH SAVEPOINT").rows[0][0]
                        assert job.status == "FINISHED", f"{what}\n  the stopped run {i} is {job.status}"
                changes.append(list(WRITTEN))
        if sink:
            actual = read_back(topics, schema, sink, work, what)
    finally:
        topics.delete()
    LAST.clear()
    LAST.update(changes=[len(c) for c in changes], runs=runs, cuts=plan.cuts, early=plan.early,
                kafka_sink=plan.kafka_sink)
    if sink:
        LAST.update(changes=None, rows=sum(actual.values()))  # the topic's rows, folded
        compare_diff(actual, expected, what)
    else:
        compare_runs(changes, expected, what)
        check_sorted([row for c in changes for _, row in c], q, what)
    return q


def _lags(job, run: Run) -> list[int | None]:
    if run.parallelism > 1:
        return [t["input_lag"] for t in job.tasks]
    return job.runner.ask(lambda g: [s.source.lag() for s in g.sources], 2) or [None]


def _rows_in(job) -> int:
    """Rows the job's tasks read so far (counters only: no broker request, no call on a task thread)."""
    tasks = getattr(job.runner, "tasks", None)
    if tasks:
        return sum(t.counts()["rows_in"] for t in tasks)
    return job.metrics.get("rows_in", 0)


def _read(job, run: Run, early: bool, timeout: float, what: str) -> None:
    """Wait until the job's sources read everything (no task has input lag, twice in a row), or with
    ``early`` until rows flow, then a little (0-0.3 s) more.

    The input lag is asked only once the rows read stopped moving for a second: asking it takes
    the task's thread and a broker request, and asked every 0.1 s it starved a job at batch size 1
    (seed 44 --kafka read a row a second and missed its cut by far).
    """
    seen = {"rows": -1, "since": time.monotonic(), "quiet": 0}

    def ready() -> bool:
        rows = _rows_in(job)
        if early and rows > 0:
            return True
        # (early too: a restored run whose cut added no record reads none, and waited for rows for
        # ever: seed 339 at 1,3,2, cuts 57% and 57%)
        now = time.monotonic()
        if rows != seen["rows"]:
            seen.update(rows=rows, since=now, quiet=0)
            return False
        if now - seen["since"] < 1.0:
            return False
        lags = _lags(job, run)
        seen["quiet"] = seen["quiet"] + 1 if lags and all(lag == 0 for lag in lags) else 0
        return seen["quiet"] >= 2

    wait_for(job, ready, timeout, what, "the savepoint's cut", poll=0.25)
    if early:
        time.sleep(random.uniform(0, 0.3))  # noqa: S311  (where the sources are then is the cut)


def check_workers(seed: int, files: dict[str, Path], work: Path, bootstrap: str, parallelism: int = 2,
                  timeout: float = 300) -> Query:
    """Run seed's query with ``streamsql run`` at ``parallelism`` (that many worker processes, its
    tasks shared through the group protocol) into an exactly-once ``debezium-json`` Kafka topic of
    one partition; read the topic back (``read_committed``), fold it and compare with DuckDB.

    Raises:
        AssertionError: a difference, or the run failed.
        Refused: the planner refused the query at ``parallelism``.
    """
    q = make_query(seed)
    run = Run(parallelism, q.batch_size, q.backend)
    what = f"seed {seed} on {parallelism} worker processes (batch {run.batch_size}, {run.backend}): {q.flink}"
    expected = expected_rows(q, files)
    topics = Topics(bootstrap, files)
    try:
        sink = sink_options(bootstrap, topics.output())
        topics.produce(1.0)
        schema = output_schema(topics, q, work)
        script = work / "job.sql"
        settings = {**_settings(f"fuzzw-{seed}-{uuid.uuid4().hex[:6]}", run, None),
                    "state.backend.type": run.backend, "state.dir": str(work / "state"),
                    "execution.checkpointing.dir": str(work / "chk")}
        if run.batch_size is not None:
            settings["execution.batch-size"] = str(run.batch_size)
        with make_env(work / "script") as env:  # the tables' DDL, as create_kafka_tables writes it
            ddl = _ddl(env, topics, q)
        script.write_text("".join(f"SET '{k}' = '{v}';\n" for k, v in settings.items()) + ddl
                          + f"CREATE TABLE `out` ({schema}) WITH ({sink});\nINSERT INTO `out` {q.flink};\n",
                          encoding="utf-8")
        proc = subprocess.run([sys.executable, "-m", "streamsql", "run", str(script)], cwd=work,
                              capture_output=True, text=True, timeout=timeout, check=False,
                              env={**os.environ, "STREAMSQL_LOG": os.environ.get("STREAMSQL_LOG", "INFO")})
        if proc.returncode != 0:
            if "'parallelism.default' = '1'" in proc.stderr:
                raise Refused(proc.stderr.strip().splitlines()[-1])
            msg = f"{what}\n  streamsql run exited {proc.returncode}: {proc.stderr[-2000:]}"
            raise AssertionError(msg)
        actual = read_back(topics, schema, sink, work, what)
        if sum(actual.values()) != sum(expected.values()):
            topics.diagnose_output()
    finally:
        topics.delete()
    LAST.clear()
    LAST.update(rows=sum(actual.values()))
    try:
        compare_diff(actual, expected, what)
    except AssertionError as e:
        log = Path(tempfile.gettempdir()) / f"query-fuzz-workers-{seed}-{uuid.uuid4().hex[:6]}.log"
        log.write_text(proc.stderr, encoding="utf-8")
        summary = "\n".join(ln for ln in (proc.stdout + proc.stderr).splitlines() if "] Job '" in ln
                             or "]   task " in ln)
        msg = f"{e}\n  the run's log (STREAMSQL_LOG=INFO): {log}\n  {topics.diagnosis}\n{summary}"
        raise AssertionError(msg) from None
    return q


def compare_diff(actual, expected, what: str) -> None:
    """:func:`~tests.runtime.query_fuzz.compare`, its message led by the rows missing and the rows
    extra (exactly equal rows; floats that differ in the last digits show in both)."""
    try:
        compare(actual, expected, what)
    except AssertionError as e:
        missing, extra = sorted((expected - actual).elements()), sorted((actual - expected).elements())
        msg = (f"{what}\n  missing ({len(missing)}): {missing[:30]}\n  extra ({len(extra)}): {extra[:30]}\n"
               f"{str(e).split(chr(10), 1)[-1]}")
        raise AssertionError(msg) from None


def output_schema(topics: Topics, q: Query, work: Path) -> str:
    """The columns of ``q``'s result, as a CREATE TABLE lists them."""
    with make_env(work / "describe") as env:
        create_kafka_tables(env, topics, bounded=True)
        env.execute_sql(f"CREATE VIEW v AS {q.flink}")
        return ", ".join(f"`{n}` {t.split(' *')[0]}"  # the type without *ROWTIME*
                         for n, t, *_ in env.execute_sql("DESCRIBE v").rows)


def sink_options(bootstrap: str, topic: str) -> str:
    """The WITH options of an exactly-once ``debezium-json`` Kafka table over ``topic``."""
    return (f"'connector' = 'kafka', 'topic' = '{topic}', 'properties.bootstrap.servers' = '{bootstrap}', "
            "'format' = 'debezium-json', 'sink.delivery-guarantee' = 'exactly-once', "
            f"'sink.transactional-id-prefix' = 'fz-{uuid.uuid4().hex[:8]}'")


def read_back(topics: Topics, schema: str, sink: str, work: Path, what: str):
    """The committed changes of the output topic, read by a bounded StreamSQL job and folded."""
    with make_env(work / "read") as env:
        env.execute_sql(f"CREATE TABLE `out` ({schema}) WITH ({sink}, 'scan.startup.mode' = "
                        "'earliest-offset', 'scan.bounded.mode' = 'latest-offset', "
                        "'properties.isolation.level' = 'read_committed')")
        try:
            return stream_rows(env, "SELECT * FROM `out`", timeout=60)
        except AssertionError as e:
            msg = f"{what}\n  the output topic, read back: {e}"
            raise AssertionError(msg) from None


def _ddl(env, topics: Topics, q: Query | None = None) -> str:
    """The statements :func:`create_kafka_tables` runs (bounded: at CREATE, or with ``q.alter`` by
    :func:`alter_tables`), as a script's text."""
    statements: list[str] = []

    class Recorder:
        def execute_sql(self, sql: str):
            statements.append(sql)
            return env.execute_sql(sql)

    altered = q is not None and bool(q.alter)
    create_kafka_tables(Recorder(), topics, bounded=not altered)
    if altered:
        alter_tables(Recorder(), q)
    return "".join(f"{s};\n" for s in statements)
