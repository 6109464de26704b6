"""A savepoint of StreamSQL f3e00a5a, which computed GROUP BY calls nobody reads, restores pruned.

Since the fuzz31 merge a GROUP BY computes only the calls read above it (streamsql/plan/agg_prune.py,
as Flink's PruneAggregateCallRule): its state signature lost the unread calls and the operators above
it read renumbered columns, so a savepoint of f3e00a5a (the commit before) was refused. Now a restore
accepts a recorded signature equal to the plan's before pruning and drops the pruned calls'
accumulators (streamsql/plan/agg_prune_upgrade.py, streamsql/runtime/operators/group_agg_upgrade.py).

``pruned_calls/`` holds the savepoints f3e00a5a wrote after 203 of 400 input rows, with the changes
its sinks took before them (``scripts/pruned_calls_savepoint.py``, run with that version). The
changes of both runs, folded as one changelog, must be DuckDB's answer over all the rows: every
kept accumulator restored into its call (by identity: the kept calls sit at other positions now),
nothing lost or duplicated across the savepoint.
"""

from __future__ import annotations

import json
import re
import shutil
from collections import Counter
from pathlib import Path

import duckdb
import pytest

from streamsql.checkpoint.operators import BEFORE_PRUNING, StateMappingError
from streamsql.core.elements import RowKind
from tests.runtime import query_fuzz_savepoint as fuzz
from tests.runtime.oracle import fold, make_env

FIXTURE = Path(__file__).parent / "pruned_calls"
JOB = json.loads((FIXTURE / "job.json").read_text())
KINDS = {k.short: k for k in RowKind}
#: DuckDB's answer to each INSERT over all the input (Flink's AVG of an INT truncates, as Java).
DUCK = {
    "objects": "SELECT 'objects', k, count(*), string_agg(CAST(v AS VARCHAR), '-' ORDER BY ts), min(v) "
               "FROM t GROUP BY k",
    "objects2": "SELECT 'objects2', k, min(v), string_agg(CAST(v AS VARCHAR), '-' ORDER BY ts), count(*) "
                "FROM t GROUP BY k",
    "fixed": "SELECT 'fixed', k, CAST(trunc(avg(v)) AS INTEGER), min(v), count(*) FROM t GROUP BY k",
    "chain": "SELECT 'chain', mn, count(*) FROM (SELECT k, min(v) AS mn FROM t GROUP BY k) GROUP BY mn",
    "having": "SELECT 'having', k, count(*) FROM t GROUP BY k HAVING max(v) < 200",
    "converted": "SELECT 'converted', k, count(*), CAST(trunc(avg(v)) AS INTEGER) FROM t GROUP BY k",
    "top": "SELECT 'top', k, c FROM (SELECT k, count(*) AS c, row_number() OVER (ORDER BY sum(v) DESC) AS rn "
           "FROM t GROUP BY k) WHERE rn <= 2",
}


def _duck() -> dict[str, Counter]:
    con = duckdb.connect()
    con.execute(f"CREATE TABLE t AS SELECT * FROM read_json('{FIXTURE / 't.json'}', columns = "
                "{'k': 'VARCHAR', 'g': 'INTEGER', 'v': 'INTEGER', 'ts': 'TIMESTAMP'})")
    return {q: Counter(tuple(r) for r in con.execute(sql).fetchall()) for q, sql in DUCK.items()}


def _ddl(statement: str) -> str:
    """A statement of the fixture's DDL for this run: the test connectors, the input file."""
    return statement.format(source=JOB["source"], sink=JOB["sink"], path=FIXTURE / "t.json")


def _run(tmp_path: Path, backend: str, inserts: dict[str, str], savepoint: str | None,
         ddl: list[str] | None = None, gate: int | None = None, more: dict[str, str] | None = None,
         extra: tuple[str, str] | None = None) -> tuple[object, list, str | None]:
    """Run ``inserts`` as one statement set over the fixture's input, from ``savepoint`` (a copy);
    to the end, or to ``gate`` rows and a savepoint. The job, the changes it wrote, its savepoint.

    ``more``: settings of the job; ``extra``: a table's DDL and an INSERT into it, after the others.
    """
    settings = {"pipeline.name": f"pruned-calls-{tmp_path.name}", **(more or {})}
    if savepoint:
        copy = tmp_path / "savepoint"
        shutil.copytree(FIXTURE / Path(savepoint).parent, copy)  # a restore leaves its claim in the folder
        settings["execution.savepoint.path"] = str(copy / Path(savepoint).name)
    statements = list(inserts.values()) + ([extra[1]] if extra else [])
    sql = "EXECUTE STATEMENT SET BEGIN " + " ".join(f"{s};" for s in statements) + " END"
    with fuzz.connectors():
        fuzz.GATES.clear()
        if gate:
            fuzz.GATES[str(FIXTURE / "t.json")] = gate
        fuzz.OPENED.clear()
        fuzz.WRITTEN.clear()
        with make_env(tmp_path / "run", backend, None, settings) as env:
            for statement in ddl or JOB["ddl"]:
                env.execute_sql(_ddl(statement))
            if extra:
                env.execute_sql(extra[0])
            job = env.execute_sql(sql).job
            saved = None
            if gate:
                fuzz.wait_for(job, lambda: bool(fuzz.OPENED) and all(s.held for s in fuzz.OPENED), 120,
                              "the job", "its source held at the cut")
                saved = env.execute_sql(f"STOP JOB '{job.job_id}' WITH SAVEPOINT").rows[0][0]
            try:
                job.wait(240)
            finally:
                written = list(fuzz.WRITTEN)
    return job, written, saved


def _before_savepoint(job: str) -> list[tuple[RowKind, tuple]]:
    """The changes f3e00a5a's job wrote before its savepoint."""
    written = json.loads((FIXTURE / job / "written.json").read_text())
    return [(KINDS[kind], tuple(row)) for kind, row in written]


@pytest.mark.parametrize("backend", ["hashmap", "rocksdb"])
def test_the_unchanged_job_restores_f3e00a5as_savepoint_and_answers_as_duckdb(tmp_path, backend):
    assert JOB["written_by"].startswith("f3e00a5")
    job, written, _ = _run(tmp_path, backend, JOB["jobs"]["kept"], JOB["savepoints"]["kept"])
    assert job.status == "FINISHED"
    assert job.runner.restored_from is not None
    # the plan did prune (else this restore tests nothing new): objects' and fixed's aggregates
    kept = [sig[BEFORE_PRUNING]["kept"] for sig in job.runner.coordinator.operators.values()
            if (sig.get(BEFORE_PRUNING) or {}).get("kept")]
    assert sorted(kept) == [[0, 1], [0, 3, 4], [2], [2, 3, 4]]  # top, objects, chain, fixed
    check_both_runs("kept", written)


def check_both_runs(job: str, written: list) -> None:
    """The changes of f3e00a5a's run of ``job`` and of the restored run, folded per INSERT, are DuckDB's
    answer over all the input: nothing lost or written twice across the savepoint."""
    before = _before_savepoint(job)
    expected = _duck()
    for q in JOB["jobs"][job]:
        old = [(kind, row) for kind, row in before if row[0] == q]
        new = [(kind, row) for kind, row in written if row[0] == q]
        assert old and new, q
        assert fold(old + new) == expected[q], q


@pytest.mark.parametrize("backend", ["hashmap", "rocksdb"])
def test_a_group_by_two_inserts_share_and_read_alike_restores_f3e00a5as_savepoint(tmp_path, backend):
    """Pruned alike, v_objects's GROUP BY is still shared (sub-plan reuse), now read by two Calcs."""
    job, written, _ = _run(tmp_path, backend, JOB["jobs"]["same"], JOB["savepoints"]["same"])
    assert job.status == "FINISHED"
    kept = [sig[BEFORE_PRUNING]["kept"] for sig in job.runner.coordinator.operators.values()
            if (sig.get(BEFORE_PRUNING) or {}).get("kept")]
    assert kept == [[0, 3, 4]]
    check_both_runs("same", written)


@pytest.mark.parametrize("backend", ["hashmap", "rocksdb"])
def test_objects_converted_to_fixed_width_records_restore_f3e00a5as_savepoint(tmp_path, backend):
    """LISTAGG pruned: COUNT(*) and AVG(v) keep a fixed-width record now, the savepoint holds objects."""
    job, written, _ = _run(tmp_path, backend, JOB["jobs"]["converted"], JOB["savepoints"]["converted"])
    assert job.status == "FINISHED"
    kept = [sig[BEFORE_PRUNING]["kept"] for sig in job.runner.coordinator.operators.values()
            if (sig.get(BEFORE_PRUNING) or {}).get("kept")]
    assert kept == [[0, 2]]
    check_both_runs("converted", written)


def test_a_call_that_changed_form_and_does_not_convert_is_refused_naming_the_operator(tmp_path):
    """Read for MIN(v) alone, v_objects's GROUP BY keeps a fixed-width record now; the savepoint holds
    objects, and a MIN's do not convert."""
    with pytest.raises(StateMappingError) as err:
        _run(tmp_path, "hashmap", JOB["jobs"]["refused"], JOB["savepoints"]["refused"])
    text = str(err.value)
    assert "Cannot map checkpoint/savepoint state for operator group-agg-" in text
    assert "LISTAGG(CAST(v AS STRING), '-') are read by nothing" in text
    assert "without them the calls MIN(v) keep fixed-width accumulators" in text
    assert "start this job afresh" in text


def test_a_group_by_two_inserts_shared_and_now_prune_apart_is_refused_with_why(tmp_path):
    """f3e00a5a shared v_fixed's GROUP BY between two INSERTs (sub-plan reuse); each prunes other calls
    now, so each has its own operator and the later operators other ids: refused, saying why."""
    with pytest.raises(StateMappingError) as err:
        _run(tmp_path, "hashmap", JOB["jobs"]["shared"], JOB["savepoints"]["shared"])
    text = str(err.value)
    assert "Cannot map checkpoint/savepoint state for operator group-agg-" in text
    # the shared GROUP BY, named, and the two operators in its place (session 33)
    assert re.search(r"The checkpoint's operator group-agg-\d+ \(GroupAggregate\(groupBy=\[k\], select=\[k, "
                     r"SUM\(v\) AS sv, MAX\(g\) AS mg, COUNT\(\*\) AS c, AVG\(v\) AS av, MIN\(v\) AS mn\].*"
                     r"is the GROUP BY that the INSERTs into 'out_chain', 'out_fixed' shared", text), text
    assert re.search(r"this program has 2 operators in its place: "
                     r"group-agg-\d+ \(GroupAggregate\(groupBy=\[k\], select=\[k, COUNT\(\*\) AS c, "
                     r"AVG\(v\) AS av, MIN\(v\) AS mn\].* for 'out_fixed'; "
                     r"group-agg-\d+ \(GroupAggregate\(groupBy=\[k\], select=\[k, MIN\(v\) AS mn\].* for "
                     r"'out_chain'", text), text


#: Changes of the savepoint's query: another job, each refused (the GROUP BY as planned differs).
CHANGED = {
    "kept call's argument": ("AVG(v) AS av", "AVG(g) AS av"),
    "pruned call's argument": ("MAX(g) AS mg, COUNT(*) AS c, AVG(v)", "MAX(v) AS mg, COUNT(*) AS c, AVG(v)"),
    "a call added": ("MIN(v) AS mn FROM t GROUP BY k", "MIN(v) AS mn, MAX(v) AS mx FROM t GROUP BY k"),
    "calls swapped": ("AVG(v) AS av, MIN(v) AS mn", "MIN(v) AS mn, AVG(v) AS av"),
}


@pytest.mark.parametrize("change", list(CHANGED))
def test_f3e00a5as_savepoint_refuses_another_group_by(tmp_path, change):
    before, after = CHANGED[change]
    ddl = [d.replace(before, after) if d.startswith("CREATE VIEW v_fixed") else d for d in JOB["ddl"]]
    assert ddl != JOB["ddl"]
    refused = "Cannot map checkpoint/savepoint state for operator group-agg-"
    with pytest.raises(StateMappingError, match=refused):
        _run(tmp_path, "hashmap", JOB["jobs"]["kept"], JOB["savepoints"]["kept"], ddl)


@pytest.mark.parametrize("backend", ["hashmap", "rocksdb"])
def test_a_savepoint_with_a_call_pruned_refuses_a_query_that_reads_it(tmp_path, backend):
    """Today's savepoint of v_objects read for COUNT(*) and MIN(v) kept no SUM(v): a query that reads
    it must be refused, not restored with that call started from zero."""
    first = {"objects": "INSERT INTO out_objects SELECT 'objects', k, c, l, mn FROM v_objects"}
    _, _, saved = _run(tmp_path / "first", backend, first, None, gate=JOB["cut"])
    assert saved
    reads = {"objects": "INSERT INTO out_objects SELECT 'objects', k, c, l, sv FROM v_objects"}
    copy = tmp_path / "copy"
    shutil.copytree(saved, copy / "savepoint" / Path(saved).name)
    with pytest.raises(StateMappingError) as err:
        with fuzz.connectors(), make_env(tmp_path / "second", backend, None, {
                "pipeline.name": "pruned-calls-second",
                "execution.savepoint.path": str(copy / "savepoint" / Path(saved).name)}) as env:
            for statement in JOB["ddl"]:
                env.execute_sql(_ddl(statement))
            env.execute_sql(reads["objects"]).job.wait(120)
    text = str(err.value)
    assert "operator group-agg-" in text
    assert "the checkpoint's operator did not compute SUM(v)" in text
    assert "pruned (as Flink's PruneAggregateCallRule)" in text
