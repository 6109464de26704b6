"""The Flink driver of the differential fuzzer (scripts/flink_difffuzz.py) keeps what it finished.

Its workers (one JVM each) are replaced here by a fake worker that answers each item at once but
dies on an item named POISON, and that stops after ``--recycle`` items as a real one does: the
driver must resume from its journal, recycle workers, record the poison as skipped (not as an
answer of Flink's), and stop within its budget. No Flink needed.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import pytest

from tests.fuzz_driver_fixtures import driver_with_fake_worker

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "flink_difffuzz.py"

FAKE_WORKER = r'''
import json, os, sys, time
items = json.load(open(sys.argv[1]))
args = dict(zip(sys.argv[2::2], sys.argv[3::2]))
with open(args["--journal"], "a") as out:
    for n, it in enumerate(items):
        if n == int(args["--recycle"]) or time.time() > float(args["--deadline"]):
            break
        if "POISON" in it["expr"]:
            os._exit(1)  # a JVM dying on this case: nothing more written
        if "SLOW" in it["expr"]:
            time.sleep(60)
        out.write(json.dumps({**it, "type": "INT", "rows": {"1": it["expr"]}}) + "\n")
        out.flush()
'''


@pytest.fixture
def driver(tmp_path, monkeypatch):
    """The driver module, its workers replaced by :data:`FAKE_WORKER`."""
    return driver_with_fake_worker(SCRIPT, FAKE_WORKER, tmp_path, monkeypatch)


def _args(**kw) -> argparse.Namespace:
    return argparse.Namespace(**{"budget": 120.0, "recycle": 3, "stall": 30.0, **kw})


def test_resumes_recycles_and_skips_a_poisonous_case(driver, tmp_path):
    items = [{"expr": f"e{n}"} for n in range(7)] + [{"expr": "POISON"}, {"expr": "x", "aggregate": True}]
    journal = tmp_path / "out.json.journal.jsonl"
    journal.write_text(json.dumps({"expr": "e0", "type": "INT", "rows": {}}) + "\n{\"expr\": \"e1\", \"ty")
    done = driver.drive(items, journal, _args())
    assert set(done) == {driver._line(it) for it in items}
    assert done["e0"]["rows"] == {}, "a case already in the journal is not run again"
    assert done["POISON"]["skipped"].startswith("the Flink worker died on this case alone (exit 1")
    assert done["AGG x"] == {"expr": "x", "aggregate": True, "type": "INT", "rows": {"1": "x"}}


def test_stops_at_its_budget_and_keeps_what_it_finished(driver, tmp_path):
    items = [{"expr": "a"}, {"expr": "SLOW"}, {"expr": "b"}]
    journal = tmp_path / "out.json.journal.jsonl"
    started = time.monotonic()
    done = driver.drive(items, journal, _args(budget=4.0, recycle=10))
    assert time.monotonic() - started < 15
    assert set(done) == {"a"}
    assert driver.read_journal(journal) == done
