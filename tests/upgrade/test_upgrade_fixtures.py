"""Checkpoints written by an earlier StreamSQL restore with today's code, or are refused clearly.

``fixtures/<case>/`` (written by ``scripts/make_upgrade_fixtures.py`` at the commit in
``fixtures/MANIFEST.json``) holds a job killed right after it committed a checkpoint in the middle
of its input: its script, its checkpoint folder and what its filesystem sink had written until
then. Rerunning the unchanged script with today's code must resume that checkpoint (its summary
says ``resumed from checkpoint #n``) and leave in the sink, old lines and new ones together, the
final table of the reference version's uninterrupted run over the whole input (``expected.json``;
for ``group_agg`` also checked against DuckDB here). A lost operator state, a re-read source or a
refused checkpoint all fail it.

When the state layout changes on purpose (:data:`~streamsql.plan.fingerprint.STATE_LAYOUT`), the
fixtures' jobs must be refused with a message that says so, never started from scratch (which would
read the input again and write every row twice): the tests expect that refusal for fixtures of
another layout version, and :func:`test_a_layout_change_is_refused_not_started_afresh` checks it on
today's fixtures with the layout bumped. Regenerate the fixtures then (``make_upgrade_fixtures.py``'s
docstring), at the commit that changed the layout.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
from pathlib import Path

import duckdb
import pytest

from streamsql.plan import fingerprint, state_signature
from tests.compat.forkserver import ForkServer

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "fixtures")
_spec = importlib.util.spec_from_file_location(
    "make_upgrade_fixtures", os.path.join(HERE, "..", "..", "scripts", "make_upgrade_fixtures.py"))
_writer = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_writer)
materialize = _writer.materialize  # the writer's own reading of a sink's changelog
MANIFEST = json.load(open(os.path.join(FIXTURES, "MANIFEST.json")))
CASES = sorted(MANIFEST["cases"])


@pytest.fixture(scope="module")
def streamsql_run():
    """``streamsql run job.sql`` in a folder, as a process of its own forked from a server that has
    imported StreamSQL once (:class:`tests.compat.forkserver.ForkServer`: ~1 s of imports a run
    saved); returns the ``subprocess.CompletedProcess``."""
    server = ForkServer()
    try:
        yield lambda folder: server.run(["run", "job.sql"], Path(folder), timeout=180)
    finally:
        server.close()


def _copy(case: str, tmp_path) -> str:
    """A copy of fixture ``case`` (with the shared input files) to run in."""
    folder = str(tmp_path / case)
    shutil.copytree(os.path.join(FIXTURES, case), folder)
    shutil.copytree(os.path.join(FIXTURES, "input"), os.path.join(folder, "input"))
    return folder


def _expected(case: str) -> dict:
    with open(os.path.join(FIXTURES, case, "expected.json")) as f:
        return json.load(f)


def _recorded_layout(folder: str, job: str) -> int | None:
    with open(os.path.join(folder, "checkpoints", job, "_job")) as f:
        return json.load(f)["described"].get("state_layout")


def _assert_refused(folder: str, expected: dict, rc: int, stderr: str) -> None:
    """The job was refused, saying why, and wrote nothing: no new output, no new job folder."""
    assert rc != 0, f"a checkpoint of another state layout was not refused:\n{stderr}"
    assert "state layout" in stderr and expected["job"] in stderr, stderr
    for job in os.listdir(os.path.join(folder, "checkpoints")):  # the new name's folder: made, empty
        assert job == expected["job"] or not os.listdir(os.path.join(folder, "checkpoints", job)), job
    written = os.listdir(os.path.join(folder, "output"))
    assert written == [f"part-{expected['job']}-0.json"], written


@pytest.mark.parametrize("case", CASES)
def test_checkpoint_of_the_reference_version_resumes(case, tmp_path, streamsql_run):
    expected = _expected(case)
    folder = _copy(case, tmp_path)
    run = streamsql_run(folder)
    if _recorded_layout(folder, expected["job"]) != fingerprint.STATE_LAYOUT:
        _assert_refused(folder, expected, run.returncode, run.stderr)
        return
    assert run.returncode == 0, run.stderr
    assert f"resumed from checkpoint #{expected['checkpoint']}," in run.stderr, (
        f"the job did not resume the reference version's checkpoint:\n{run.stderr}")
    assert materialize(folder) == expected["rows"]


def test_group_agg_expectation_is_duckdbs():
    """The recorded final table of ``group_agg`` is DuckDB's answer over the input (Flink's AVG of
    an INT truncates toward zero; SUM ... FILTER of no row is NULL)."""
    ticks = os.path.join(FIXTURES, "input", "ticks", "part-0.json")
    rows = duckdb.sql(f"""
        SELECT k, COUNT(*) AS n, CAST(TRUNC(SUM(v) / COUNT(v)) AS INT) AS a, MAX(v) AS m,
               COUNT(DISTINCT v) AS d, SUM(v) FILTER (WHERE v > 50) AS big
        FROM read_json('{ticks}', columns = {{id: 'INT', k: 'INT', s: 'VARCHAR', v: 'INT', ts: 'VARCHAR'}})
        GROUP BY k""").fetchall()
    want = sorted(({"k": k, "n": n, "a": a, "m": m, "d": d, "big": big} for k, n, a, m, d, big in rows),
                  key=lambda r: json.dumps(r, sort_keys=True))
    for backend in ("hashmap", "rocksdb"):
        assert _expected(f"group_agg_{backend}")["rows"] == want


def test_a_layout_change_is_refused_not_started_afresh(tmp_path, monkeypatch, capsys):
    """With the layout bumped, the default-named job (another name: the fingerprint hashes the
    layout) would start from scratch next to the unfinished run and write its output twice; it is
    refused, naming the layout versions and the old job."""
    from streamsql.cli import main

    case = "group_agg_hashmap"
    expected = _expected(case)
    folder = _copy(case, tmp_path)
    monkeypatch.setattr(fingerprint, "STATE_LAYOUT", fingerprint.STATE_LAYOUT + 1)
    monkeypatch.setattr(state_signature, "STATE_LAYOUT", fingerprint.STATE_LAYOUT)
    monkeypatch.chdir(folder)
    rc = main(["run", "job.sql"])
    _assert_refused(folder, expected, rc, capsys.readouterr().err)


def test_a_job_that_backquoted_a_reserved_word_resumes_its_checkpoints(tmp_path, streamsql_run):
    """A job whose script backquoted a reserved word (``INSERT INTO `out```) before StreamSQL
    refused such words unquoted was hashed with the backquotes; today's fingerprint spells them
    unquoted (so that scripts quoted since resume, as the fixtures' do). Such a job keeps its name
    and checkpoints: here a fixture made into that job (its folder, ``_job`` and sink file named as
    the backquoted spelling hashed) resumes its checkpoint, not a new job from scratch."""
    from streamsql.environment import StreamEnvironment
    from streamsql.sql.parser import parse_statement

    case = "tumble_hashmap"
    expected = _expected(case)
    folder = _copy(case, tmp_path)
    with open(os.path.join(folder, "job.sql")) as f:
        statements = [s.strip() for s in f.read().split(";") if s.strip()]
    env = StreamEnvironment()
    for ddl in statements:
        if ddl.upper().startswith("CREATE"):
            env.execute_sql(ddl)
    fp = fingerprint.job_fingerprint([parse_statement(statements[-1])], env.catalog)
    assert fp.as_written is not None and fp.as_written.digest != fp.digest
    old_job = expected["job"].replace(fp.short, fp.as_written.short)
    assert old_job != expected["job"] and expected["job"].endswith(fp.short)
    checkpoints = os.path.join(folder, "checkpoints")
    os.rename(os.path.join(checkpoints, expected["job"]), os.path.join(checkpoints, old_job))
    record_path = os.path.join(checkpoints, old_job, "_job")
    with open(record_path) as f:
        record = json.load(f)
    record.update(name=old_job, fingerprint=fp.as_written.digest, described=fp.as_written.described)
    with open(record_path, "w") as f:
        json.dump(record, f)
    with open(os.path.join(checkpoints, old_job, "_tasks"), "w") as f:  # its one task: the job
        f.write(old_job)
    output = os.path.join(folder, "output")
    os.rename(os.path.join(output, f"part-{expected['job']}-0.json"),
              os.path.join(output, f"part-{old_job}-0.json"))

    run = streamsql_run(folder)
    assert run.returncode == 0, run.stderr
    assert f"resumed from checkpoint #{expected['checkpoint']}," in run.stderr, run.stderr
    assert sorted(os.listdir(checkpoints)) == [old_job], "a new job started next to the old one"
    assert materialize(folder) == expected["rows"]
