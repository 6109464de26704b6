"""A checkpoint restored into a job of the other state backend ('state.backend.type' changed).

Before, the restore failed on the snapshot's format ("... holds no RocksDB snapshot (no CURRENT
file)") and the job restarted for ever (the restart strategy cannot help: the snapshot stays what
it is). As Flink restores a savepoint into another state backend, the snapshot is now converted
(streamsql/state/convert.py): the job resumes with every record counted once, DuckDB's answer,
a regular join's map state (RocksDB's map markers) included.
"""

from __future__ import annotations

import uuid
from collections import Counter

import pytest

from streamsql.state.layout import StateFormatError
from tests.integration.test_parallel import PARTITIONS, _duck, _load, _rows
from tests.integration.test_state_signatures import _counts, _env, _savepoint

JOIN = ("INSERT INTO agg SELECT a.k, COUNT(*) FROM (SELECT * FROM src WHERE MOD(id, 2) = 0) a "
        "LEFT JOIN (SELECT * FROM src WHERE MOD(id, 2) = 1 AND v > 100) b ON a.k = b.k GROUP BY a.k")
DUCK = ("SELECT a.k, COUNT(*) FROM (SELECT * FROM src WHERE id % 2 = 0) a "
        "LEFT JOIN (SELECT * FROM src WHERE id % 2 = 1 AND v > 100) b ON a.k = b.k GROUP BY a.k")


@pytest.mark.parametrize(("before", "after"), [("hashmap", "rocksdb"), ("rocksdb", "hashmap")])
def test_a_savepoint_restores_into_the_other_state_backend(kafka_bootstrap, kafka_topic_factory, tmp_path,
                                                           before, after):
    src, first, out = (kafka_topic_factory("bk_src", PARTITIONS), kafka_topic_factory("bk_agg"),
                       kafka_topic_factory("bk_agg"))
    rows = _rows(37, 1200)
    _load(kafka_bootstrap, src, rows[:600])
    name = f"bk-{uuid.uuid4().hex[:8]}"
    savepoint = _savepoint(_env(tmp_path, name, kafka_bootstrap, src, first, bounded=False,
                                **{"state.backend.type": before}), JOIN, 600)
    _load(kafka_bootstrap, src, rows[600:])
    env = _env(tmp_path, f"{name}-{after}", kafka_bootstrap, src, out, bounded=True,
               **{"execution.savepoint.path": savepoint, "state.backend.type": after})
    job = env.execute_sql(JOIN).job
    assert job.wait(180) == "FINISHED" and job.runner.restored_from is not None
    assert job.metrics["restarts"] == 0
    assert _counts(kafka_bootstrap, out) == Counter(_duck(DUCK, src=rows))


def test_state_ttl_switched_on_since_the_savepoint_fails_the_job_once_saying_so(
        kafka_bootstrap, kafka_topic_factory, tmp_path):
    """A join's rows were written without state TTL; restored with 'table.exec.state.ttl' set, they are
    read as TTL-wrapped values. Flink fails such a restore too (the TTL serializer is incompatible).
    Before, StateFormatError ("expected 'state-ttl/value' v1, found 'join/row' v1") restarted the job
    for ever under the default restart strategy: the same snapshot is restored each time."""
    src, first, out = (kafka_topic_factory("bk_src", PARTITIONS), kafka_topic_factory("bk_agg"),
                       kafka_topic_factory("bk_agg"))
    rows = _rows(38, 1200)
    _load(kafka_bootstrap, src, rows[:600])
    name = f"ttl-{uuid.uuid4().hex[:8]}"
    savepoint = _savepoint(_env(tmp_path, name, kafka_bootstrap, src, first, bounded=False), JOIN, 600)
    _load(kafka_bootstrap, src, rows[600:])
    env = _env(tmp_path, f"{name}-ttl", kafka_bootstrap, src, out, bounded=True,
               **{"execution.savepoint.path": savepoint, "table.exec.state.ttl": "1 h"})
    job = env.execute_sql(JOIN).job
    with pytest.raises(StateFormatError, match="'table.exec.state.ttl' or a STATE_TTL hint was switched on"):
        job.wait(60)
    assert job.metrics["restarts"] == 0
