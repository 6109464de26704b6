"""The ``process-time`` partition commit counts its delay from when the committer received the
partition, as Flink 2.3's ``ProcTimeCommitTrigger`` (``addPartition``: ``putIfAbsent`` of the
processing time) and ``ProcTimeCommitPredicate`` (``delay == 0 || now > created + delay``), not
from when the partition's first file opened (read from Flink's source: flink-connector-files,
``connector/file/table/stream``).
"""

from __future__ import annotations

import pyarrow as pa
from streamsql.connectors import filesystem_sink
from streamsql.connectors.registry import get_connector

from streamsql.core.connector import ConnectorContext
from streamsql.core.elements import Batch
from tests.connectors.helpers import table_of


def test_delay_counts_from_the_checkpoint_that_hands_the_partition_over(tmp_path, monkeypatch):
    now = [0]
    monkeypatch.setattr(filesystem_sink, "_now_ms", lambda: now[0])
    out = tmp_path / "out"
    t = table_of("sink", {"connector": "filesystem", "path": str(out), "format": "json",
                          "sink.partition-commit.policy.kind": "success-file",
                          "sink.partition-commit.delay": "10 s"}, id="INT", k="STRING")
    t.partition_keys = ["k"]
    sink = get_connector("filesystem").create_sink(ConnectorContext(t, "job", {}, task_index=0))
    sink.open()
    sink.write(Batch(pa.table({"id": pa.array([1], pa.int32()), "k": ["a"]})))  # first file: t = 0
    now[0] = 5_000
    sink.pre_commit(1)
    sink.snapshot(1)
    sink.commit(1)  # the committer receives k=a at t = 5 s
    success = out / "k=a" / "_SUCCESS"
    for n, t_ms in ((2, 10_001), (3, 15_000)):  # 10 s after the file opened; then exactly 10 s after receipt
        now[0] = t_ms
        sink.pre_commit(n)
        sink.snapshot(n)
        sink.commit(n)
        assert not success.exists(), t_ms
    now[0] = 15_001  # more than the delay after receipt (Flink's '>')
    sink.pre_commit(4)
    sink.snapshot(4)
    sink.commit(4)
    assert success.exists()
    sink.close()
