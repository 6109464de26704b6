"""The Flink driver of the query fuzzer (scripts/flink_queryfuzz.py) keeps what it answered.

Its loop is the one the expression fuzzer's driver runs (``flink_session.drive_workers``, tested
with that driver in tests/functions/test_difffuzz_driver.py); here with the query driver's own
payload (the cases and the DDL), key (the seed) and skip rule (a worker that answered nothing
skips the first pending seed). Its workers (one JVM each) are replaced by a fake worker that
answers each seed at once but dies on seed 13, and stops after ``--recycle`` seeds as a real one
does. No Flink needed.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import pytest

from tests.fuzz_driver_fixtures import driver_with_fake_worker

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "flink_queryfuzz.py"

FAKE_WORKER = r'''
import json, os, sys, time
given = json.load(open(sys.argv[1]))
args = dict(zip(sys.argv[2::2], sys.argv[3::2]))
assert given["ddl"] == ["CREATE TABLE t (a INT)"], given["ddl"]
with open(args["--journal"], "a") as out:
    for n, case in enumerate(given["cases"]):
        if n == int(args["--recycle"]) or time.time() > float(args["--deadline"]):
            break
        if case["seed"] == 13:
            os._exit(1)  # a JVM dying on this query: nothing more written
        if case["seed"] == 99:
            time.sleep(60)
        out.write(json.dumps({**case, "rows": [[case["seed"]]]}) + "\n")
        out.flush()
'''


@pytest.fixture
def driver(tmp_path, monkeypatch):
    """The driver module, its workers replaced by :data:`FAKE_WORKER`."""
    return driver_with_fake_worker(SCRIPT, FAKE_WORKER, tmp_path, monkeypatch)


def _args(**kw) -> argparse.Namespace:
    return argparse.Namespace(**{"budget": 120.0, "recycle": 3, "stall": 30.0, "together": 8, "alone": [],
                                 "defaults": {}, **kw})


def test_resumes_recycles_and_skips_a_seed_that_kills_the_worker(driver, tmp_path):
    cases = [{"seed": n, "query": f"q{n}"} for n in (1, 2, 3, 4, 5, 13, 6, 7)]
    journal = tmp_path / "q.json.journal.jsonl"
    journal.write_text(json.dumps({"seed": 1, "rows": []}) + "\n{\"seed\": 2, \"ro")  # a torn last line
    done = driver.drive(cases, ["CREATE TABLE t (a INT)"], journal, _args())
    assert set(done) == {c["seed"] for c in cases}
    assert done[1]["rows"] == [], "a seed already in the journal is not run again"
    assert done[13]["skipped"].startswith("the Flink worker died on this case alone (exit 1")
    assert done[7] == {"seed": 7, "query": "q7", "rows": [[7]]}


def test_stops_at_its_budget_and_skips_nothing_it_cut_short(driver, tmp_path):
    cases = [{"seed": 5, "query": "a"}, {"seed": 99, "query": "slow"}, {"seed": 6, "query": "b"}]
    journal = tmp_path / "q.json.journal.jsonl"
    started = time.monotonic()
    done = driver.drive(cases, ["CREATE TABLE t (a INT)"], journal, _args(budget=4.0, recycle=10))
    assert time.monotonic() - started < 15
    assert set(done) == {5}  # seed 99 was cut short by the budget, not skipped
    assert driver.read_journal(journal) == done
