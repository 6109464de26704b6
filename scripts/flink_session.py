"""What the scripts that record Apache Flink's answers share: a session, its jars, its errors.

The ``scripts/flink_*.py`` oracles run statements on PyFlink 2.3 (``/work/flinkvenv/bin/python``,
under the shared Flink lock) and write Flink's answers as JSON the tests compare with. The Flink
venv does not install StreamSQL: a script imports this module as ``flink_session`` (the folder of
the script run is ``sys.path[0]``), and this module imports nothing of the engine.

- :func:`table_env`: a new streaming ``TableEnvironment`` at parallelism 1, with connector jars;
- :func:`kafka_jar` / :func:`maven_jar`: ``file:`` URIs of the Kafka SQL connector jar (as
  ``benchmarks/flink_setup.py`` caches it) or of a jar in Maven's local repository;
- :func:`collect`: a query's rows as lists (with their row kinds if asked); :func:`answers`: the
  changelogs (or errors) of several queries;
- :func:`file_table`: a filesystem table over records written as JSON lines;
- :func:`explained`: Flink's EXPLAIN text of statements, after some DDL;
- :func:`java_messages` / :func:`error_text`: what a PyFlink exception says;
- :func:`read_journal`: the finished records of a driver's journal (JSON lines), by a key;
- :func:`drive_workers`: a fuzz driver's loop: worker processes in turn until every case is in
  the journal (or the budget is spent), a stalled one killed, a case that kills them skipped;
  :func:`add_driver_arguments`: that loop's command-line options;
- :func:`rerun_scenarios`: the main loop of the scenario recorders (``flink_proctime_sort.py``,
  ``flink_over_changelog.py``): the named scenarios run again, the others' records kept;
- :func:`record_scripts`: the main loop of the script recorders (``flink_bitmap.py``, ...): each
  named script run in a new session at zone UTC, its answers merged into a JSON file;
- :func:`run_client`: a Kafka client snippet run in this project's venv (the Flink venv has no
  confluent-kafka); :func:`produce_json`: a new topic with JSON records (headers, keys, tombstones) written.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def table_env(*jars: str, utc: bool = False):
    """A new streaming ``TableEnvironment``: ``'parallelism.default'`` 1, ``jars`` (URIs) loaded.

    ``utc``: the session time zone (``'table.local-time-zone'``) is UTC, not the machine's.
    """
    from pyflink.table import EnvironmentSettings, TableEnvironment

    t = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    config = t.get_config()
    config.set("parallelism.default", "1")
    if utc:
        config.set("table.local-time-zone", "UTC")
    if jars:
        config.set("pipeline.jars", ";".join(jars))
    return t


def kafka_jar() -> str:
    """URI of ``flink-sql-connector-kafka`` 5.0.0-2.2, downloaded once by ``benchmarks/flink_setup.py``."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from benchmarks.flink_setup import kafka_jar as cached_jar

    return Path(cached_jar()).as_uri()


def maven_jar(group: str, artifact: str, version: str) -> str:
    """URI of a jar in Maven's local repository, fetched with ``mvn dependency:get`` when missing."""
    path = (Path.home() / ".m2" / "repository" / group.replace(".", "/") / artifact / version
            / f"{artifact}-{version}.jar")
    if not path.exists():
        subprocess.run(["mvn", "-q", "dependency:get", f"-Dartifact={group}:{artifact}:{version}",
                        "-Dtransitive=false"], check=True)
    return path.as_uri()


def collect(t, sql: str, *, kinds: bool = False) -> list[list]:
    """The rows ``sql`` gives on ``t``, each as a list (led by its row kind, ``+I`` ..., if ``kinds``)."""
    with t.execute_sql(sql).collect() as rows:
        return [[str(r.get_row_kind()), *r] if kinds else list(r) for r in rows]


def answers(t, queries: list[str]) -> dict[str, dict]:
    """Each query's ``{"rows": changelog}`` (:func:`collect` with row kinds) on ``t``, or ``{"error": text}``.

    A failure (Flink's refusal or a failed job) is the query's answer (:func:`error_text`).
    """
    out: dict[str, dict] = {}
    for q in queries:
        try:
            out[q] = {"rows": collect(t, q, kinds=True)}
        except Exception as e:  # noqa: BLE001 - Flink's refusal or job failure is the answer
            out[q] = {"error": error_text(e)}
    return out


def file_table(t, name: str, columns: str, records: list, path: Path, fmt: str) -> None:
    """Write ``records`` to ``path`` as JSON lines and create filesystem table ``name (columns)`` over it.

    ``fmt``: the table's ``'format'`` (``'json'``, ``'debezium-json'``, ...); ``columns`` is the
    text between the parentheses (a ``PRIMARY KEY`` clause too, if any).
    """
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    t.execute_sql(f"CREATE TABLE {name} ({columns}) WITH ('connector' = 'filesystem', 'path' = '{path}', "
                  f"'format' = '{fmt}')")


def java_messages(e: Exception) -> list[str]:
    """The messages of a PyFlink exception's Java exception and its causes, outermost first.

    Empty when ``e`` carries no Java exception (a Python error).
    """
    cause, chain = getattr(e, "java_exception", None), []
    while cause is not None:
        chain.append(str(cause.getMessage()))
        cause = cause.getCause()
    return chain


def error_text(e: Exception) -> str:
    """:func:`java_messages` joined by `` / ``, or ``str(e)`` for an exception without them."""
    return " / ".join(java_messages(e)) or str(e)


def run_step(t, statement: str, with_rows: Callable[[str], bool], drained: tuple[str, ...]) -> dict:
    """One statement of a recorded scenario on Flink: ``{"statement", "flink": "ok"|"error", ...}``.

    ``with_rows(statement)``: its rows are recorded (``"rows"``); a statement starting with one of
    ``drained`` has its result collected and dropped (Flink checks some only then); a failure is
    recorded as ``"flink_error"`` (:func:`error_text`).
    """
    try:
        if with_rows(statement):
            return {"statement": statement, "flink": "ok", "rows": collect(t, statement)}
        result = t.execute_sql(statement)
        if statement.startswith(drained):
            result.collect().close()
        return {"statement": statement, "flink": "ok"}
    except Exception as e:  # noqa: BLE001  (PyFlink raises its own wrappers and Py4JJavaError)
        return {"statement": statement, "flink": "error", "flink_error": error_text(e)}


def record_scripts(out: Path, scripts: dict[str, list[str]], names: list[str], run: Callable, capture, *,
                   label: str, prepare: Callable[[Path], None] | None = None) -> None:
    """Run the scripts ``names`` (default: all of ``scripts``) and merge their answers into ``out``.

    The loop of the script recorders (``flink_bitmap.py``, ``flink_funcs33.py``,
    ``flink_map_null_keys.py``). Script ``name`` runs as ``run(factory, scripts[name], folder,
    capture)``: ``factory()`` a new session (:func:`table_env`, zone UTC), ``folder`` a new
    temporary folder (prefix ``{label}_{name}_``, given to ``prepare(folder)`` first if set),
    ``capture`` the JVM's stdout (``flink_compat.Capture``, made before the JVM starts). Its answers
    (JSON) replace ``name``'s in ``out``, which keeps the other scripts' and is rewritten after each
    script (``indent=1``); a line ``{name} done`` goes to ``capture.out``.
    """
    old = json.loads(out.read_text()) if out.exists() else {}
    for name in names or list(scripts):
        folder = Path(tempfile.mkdtemp(prefix=f"{label}_{name}_"))
        if prepare is not None:
            prepare(folder)
        old[name] = run(lambda: table_env(utc=True), scripts[name], folder, capture)
        out.write_text(json.dumps(old, indent=1) + "\n")
        print(name, "done", file=capture.out, flush=True)


def rerun_scenarios(scenarios: list[dict], names: list[str], old: dict, run: Callable[[dict, Path], dict],
                    summary: Callable[[dict], object]) -> dict[str, dict]:
    """The records of ``scenarios`` by name: those named in ``names`` (all when empty) run again, others kept.

    ``run(scenario, folder)`` records one scenario (``folder`` a temporary folder shared by the
    run); ``old`` holds the records kept (by name); a line ``name summary(record)`` is printed
    after each scenario.
    """
    chosen = set(names) or {s["name"] for s in scenarios}
    out: dict[str, dict] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for s in scenarios:
            out[s["name"]] = run(s, Path(tmp)) if s["name"] in chosen else old[s["name"]]
            print(s["name"], summary(out[s["name"]]), flush=True)
    return out


def run_client(snippet: str, *args: str) -> str:
    """Run Python ``snippet`` with ``args`` in this project's venv (``CLIENT_PYTHON`` overrides); its stdout.

    Raises:
        subprocess.CalledProcessError: the snippet failed (its stderr went to ours).
    """
    py = os.environ.get("CLIENT_PYTHON", str(ROOT / ".venv" / "bin" / "python"))
    return subprocess.run([py, "-c", snippet, *args], check=True, stdout=subprocess.PIPE, text=True).stdout


_PRODUCE_JSON = r'''
import json, sys
from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient, NewTopic
bootstrap, topic, records = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
admin = AdminClient({"bootstrap.servers": bootstrap})
for f in admin.create_topics([NewTopic(topic, 1, 1)]).values():
    f.result(60)
p = Producer({"bootstrap.servers": bootstrap})
for value, headers, *key in records:
    extra = {"headers": [(k, None if v is None else v.encode()) for k, v in headers]} if headers else {}
    if key:
        extra["key"] = json.dumps(key[0]).encode()
    p.produce(topic, None if value is None and key else json.dumps(value).encode(), **extra)
p.flush(30)
'''


def produce_json(bootstrap: str, topic: str, records: list) -> None:
    """Create ``topic`` (1 partition) and write ``records`` to it, in order.

    Each record is ``[value, headers]`` or ``[value, headers, key]``: ``value`` is written as
    JSON; ``headers`` is a list of ``[key, text or None]`` (empty: none); ``key``, when given, is
    the message key written as JSON, and a None ``value`` beside a key is a tombstone (no value,
    as an upsert-kafka table's delete); without a key, None is the JSON text ``null``.
    """
    run_client(_PRODUCE_JSON, bootstrap, topic, json.dumps(records))


def explained(ddl: list[str], statements: list[str]) -> dict[str, str]:
    """``{statement: Flink's whole output}`` of EXPLAIN ``statements``, run after ``ddl`` in a new session."""
    t = table_env()
    for d in ddl:
        t.execute_sql(d)
    plans = {}
    for q in statements:
        with t.execute_sql(q).collect() as rows:
            plans[q] = "\n".join(str(row[0]) for row in rows)
    return plans


def read_journal(journal: Path, key: Callable[[dict], object]) -> dict:
    """The records of ``journal`` (one JSON object per line) by ``key(record)``.

    A torn last line, from a killed worker, is dropped; a missing journal is empty.
    """
    done: dict = {}
    if journal.exists():
        for ln in journal.read_text(encoding="utf-8").splitlines():
            try:
                record = json.loads(ln)
            except json.JSONDecodeError:
                continue
            done[key(record)] = record
    return done


def add_driver_arguments(p, recycle: int, stall: float, unit: str) -> None:
    """Add the options of :func:`drive_workers`' loop to argparse parser ``p``.

    ``--budget`` (s, default 540: the Flink lock is kept at most 10 min), ``--recycle`` (``unit``,
    e.g. ``"cases"``, per worker process, default ``recycle``), ``--stall`` (s, default ``stall``),
    and the internal ``--worker``, ``--journal``, ``--deadline`` a driver gives its workers.
    """
    import argparse

    p.add_argument("--budget", type=float, default=540, help="seconds to run before stopping (the journal "
                   "keeps what is done: rerun the same command to resume); keep the Flink lock <= 10 min")
    p.add_argument("--recycle", type=int, default=recycle,
                   help=f"{unit} per worker process (a fresh JVM each)")
    p.add_argument("--stall", type=float, default=stall, help="kill a worker that finishes nothing this long")
    p.add_argument("--worker", type=Path, help=argparse.SUPPRESS)  # internal: a worker's cases (JSON)
    p.add_argument("--journal", type=Path, help=argparse.SUPPRESS)
    p.add_argument("--deadline", type=float, default=float("inf"), help=argparse.SUPPRESS)


def drive_workers(cases: list[dict], journal: Path, key: Callable[[dict], object],
                  payload: Callable[[list[dict]], object], command: Callable[[str, float], list[str]],
                  retry: Callable[[bool], bool], *, budget: float, stall: float, grace: float, poll: float,
                  label: str, quiet: bool = False) -> dict:
    """Run worker processes (fresh ones: fresh JVMs) until every case is in ``journal``; its records.

    The loop of the fuzz drivers (``flink_difffuzz.py``, ``flink_queryfuzz.py``). Each round writes
    ``payload(pending cases)`` as JSON into a temporary file and starts ``command(that file,
    deadline)`` in a session of its own; the worker appends each case it finished to ``journal``
    (one JSON line, read by ``key`` as :func:`read_journal` does) and stops starting work at the
    deadline (``grace`` s before the budget ends). A worker whose journal does not grow for
    ``stall`` s, or that runs ``grace`` s past the budget, is killed with its process group.

    After a round, ``retry(progressed)`` says whether the driver may try the first pending case
    again (True), e.g. in a smaller group; False records it as ``{**case, "skipped": why}`` (not
    Flink's answer: a replay leaves it out), so that one poisonous case cannot stop a campaign. A
    round cut short by the budget skips nothing.

    Args:
        cases: every case; those whose ``key`` the journal holds are done.
        journal: the JSON-lines journal (made by the first worker).
        key: a case's (and its record's) key.
        payload: what the worker reads from its file, given the pending cases.
        command: the worker's command line, given its file and its deadline (time.time()).
        retry: given whether the round finished a case: try again (True) or skip the first pending.
        budget: seconds from now; then the journal's records are returned, whatever is pending.
        stall: seconds a worker may go without finishing a case.
        grace: seconds before the budget's end no round starts (and the workers stop starting
            work), and after it a running worker is killed.
        poll: seconds between looks at the journal.
        label: the driver's name in its progress lines on stderr (``[label] worker exit ...``).
        quiet: the workers' stdout goes to /dev/null.
    """
    end = time.time() + budget
    while True:
        done = read_journal(journal, key)
        pending = list({key(c): c for c in cases if key(c) not in done}.values())
        if not pending or time.time() > end - grace:
            return done
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            json.dump(payload(pending), f, ensure_ascii=False)
        proc = subprocess.Popen(command(f.name, end - grace), start_new_session=True,
                                stdout=subprocess.DEVNULL if quiet else None)
        size, quiet_since, why = journal.stat().st_size if journal.exists() else 0, time.time(), ""
        while proc.poll() is None:
            time.sleep(poll)
            now_size = journal.stat().st_size if journal.exists() else 0
            if now_size != size:
                size, quiet_since = now_size, time.time()
            elif time.time() - quiet_since > stall or time.time() > end + grace:
                why = f"no case finished in {time.time() - quiet_since:.0f} s"
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        os.unlink(f.name)
        now = read_journal(journal, key)
        print(f"[{label}] worker exit {proc.returncode}: {len(now)} of {len(cases)} cases done, "
              f"{time.time() - end + budget:.0f} s", file=sys.stderr, flush=True)
        if retry(len(now) > len(done)) or time.time() > end - grace:  # the budget cut it short
            continue
        skipped = {**pending[0], "skipped": "the Flink worker died on this case alone "
                   f"(exit {proc.returncode}{'; ' + why if why else ''})"}
        with journal.open("a", encoding="utf-8") as out:
            out.write(json.dumps(skipped, ensure_ascii=False) + "\n")
