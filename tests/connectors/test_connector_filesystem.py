"""filesystem: bounded source (files, directories, resume from a position, bad records located by
line), append sink (visible at pre_commit), round trip."""

from __future__ import annotations

import json
from decimal import Decimal

import numpy as np
import pyarrow as pa
import pytest
from streamsql.connectors.registry import get_connector

from streamsql.core.connector import ConnectorContext
from streamsql.core.elements import Batch, RowKind
from streamsql.core.errors import BadRecordError, ConfigError, PlanError  # noqa: F401
from tests.connectors.helpers import table_of


def src_of(path, fmt="json", extra=None, **cols):
    cols = cols or {"id": "INT", "name": "STRING"}
    t = table_of(
        "files", {"connector": "filesystem", "path": str(path), "format": fmt, **(extra or {})}, **cols
    )
    ctx = ConnectorContext(t, "job", {})
    return get_connector("filesystem").create_source(ctx), ctx


def read_all(src, max_rows=1000):
    out = []
    while not src.finished():
        b = src.poll(max_rows, 0.1)
        if b is not None:
            out.extend(b.table.to_pylist())
    return out


def write_json(path, ids):
    path.write_text("".join(json.dumps({"id": i, "name": f"n{i}"}) + "\n" for i in ids))


def test_reads_a_file_in_chunks(tmp_path):
    f = tmp_path / "a.jsonl"
    write_json(f, range(25))
    src, _ = src_of(f)
    assert src.bounded and not src.changelog
    src.open(None)
    sizes = []
    rows = []
    while not src.finished():
        b = src.poll(10, 0.1)
        if b is not None:
            sizes.append(b.num_rows)
            rows.extend(b.table.to_pylist())
    assert sizes == [10, 10, 5]
    assert [r["id"] for r in rows] == list(range(25))
    assert src.position() == {"done": True}


def test_directory_sorted_recursive_skips_hidden(tmp_path):
    write_json(tmp_path / "b.json", [3, 4])
    write_json(tmp_path / "a.json", [1, 2])
    (tmp_path / "sub").mkdir()
    write_json(tmp_path / "sub" / "c.json", [5])
    write_json(tmp_path / ".hidden.json", [99])
    write_json(tmp_path / "_SUCCESS", [98])
    src, _ = src_of(tmp_path)
    src.open(None)
    assert [r["id"] for r in read_all(src, 3)] == [1, 2, 3, 4, 5]


def test_resume_from_position_reads_exactly_the_rest(tmp_path):
    write_json(tmp_path / "a.json", range(0, 7))
    (tmp_path / "b.json").write_bytes(
        b'{"id": 7, "name": "n7"}\r\n\r\n{"id": 8, "name": "n8"}\r\n{"id": 9, "name": "n9"}'
    )
    expected = list(range(10))
    for k in range(1, 10):
        src, _ = src_of(tmp_path)
        src.open(None)
        seen = []
        while len(seen) < k:
            b = src.poll(min(3, k - len(seen)), 0.1)
            seen.extend(r["id"] for r in b.table.to_pylist())
        pos = json.loads(json.dumps(src.position()))  # JSON-serializable
        src.close()
        again, _ = src_of(tmp_path)
        again.open(pos)
        assert seen + [r["id"] for r in read_all(again, 2)] == expected, (k, pos)


def test_position_offsets_are_byte_exact(tmp_path):
    f = tmp_path / "a.json"
    f.write_bytes(b'{"id": 1, "name": "\xc3\xa9"}\n{"id": 2, "name": "x"}\n{"id": 3, "name": "y"}')
    src, _ = src_of(f)
    src.open(None)
    src.poll(2, 0.1)
    pos = src.position()
    assert pos == {
        "file": "a.json",
        "offset": len(b'{"id": 1, "name": "\xc3\xa9"}\n{"id": 2, "name": "x"}\n'),
        "line": 2,
    }
    src.poll(5, 0.1)  # the last rows: the source is finished with them, its position says so
    assert src.position() == {"done": True}
    assert src.finished()


def test_bad_record_names_file_and_line(tmp_path):
    f = tmp_path / "a.json"
    f.write_text('{"id": 1}\n\n{"id": 2}\n{"id": "two"}\n')
    src, ctx = src_of(f)
    src.open(None)
    with pytest.raises(BadRecordError, match=rf"{f}:4: field 'id'"):
        src.poll(100, 0.1)
    src, ctx = src_of(f, extra={"json.ignore-parse-errors": "true"})
    src.open(None)
    assert [r["id"] for r in read_all(src)] == [1, 2, None]  # Flink: the value is NULL, the row kept
    assert ctx.metrics.get("bad_records", 0) == 0


def test_csv_and_debezium_sources(tmp_path):
    f = tmp_path / "a.csv"
    f.write_text('1,"x, y",799.929496989092949698\n2,,0.5\n')
    src, _ = src_of(f, "csv", id="INT", name="STRING", v="DECIMAL(38, 18)")
    src.open(None)
    assert read_all(src) == [
        {"id": 1, "name": "x, y", "v": Decimal("799.929496989092949698")},
        {"id": 2, "name": "", "v": Decimal("0.5")},
    ]
    d = tmp_path / "cdc.json"
    d.write_text(
        '{"before": null, "after": {"id": 1, "name": "a"}, "op": "c"}\n'
        '{"before": {"id": 1, "name": "a"}, "after": {"id": 1, "name": "b"}, "op": "u"}\n'
    )
    src, _ = src_of(d, "debezium-json")
    assert src.changelog
    src.open(None)
    b = src.poll(10, 0.1)
    assert b.kinds.tolist() == [RowKind.INSERT, RowKind.UPDATE_BEFORE, RowKind.UPDATE_AFTER]


def _visible(out):
    return sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()
                  and not p.name.startswith("."))


def test_sink_part_files_commit_with_checkpoints_and_round_trip(tmp_path):
    """As Flink's file sink (row formats): a hidden in-progress file, not rolled by a checkpoint,
    rolled at the end of input and renamed to part-<uuid>-<task>-<n> when that checkpoint completes."""
    out = tmp_path / "out"
    t = table_of(
        "sink",
        {"connector": "filesystem", "path": str(out) + "/", "format": "json"},
        id="INT",
        price="DECIMAL(10, 6)",
    )
    sink = get_connector("filesystem").create_sink(ConnectorContext(t, "my job", {}, task_index=0))
    assert not sink.accepts_updates
    sink.open()
    data = pa.table(
        {"id": pa.array([1, 2], pa.int32()), "price": pa.array([Decimal(10), None], pa.decimal128(10, 6))}
    )
    sink.write(Batch(data))
    sink.pre_commit(1)
    state = sink.snapshot(1)
    sink.commit(1)
    assert _visible(out) == []  # a checkpoint does not roll a row format's file
    [hidden] = [p.name for p in out.iterdir()]
    assert hidden.startswith(f".part-{state['uuid']}-0-0.inprogress.")
    sink.write(Batch(data.slice(0, 1)))
    sink.finish()
    sink.pre_commit(2)
    sink.snapshot(2)
    assert _visible(out) == []
    sink.commit(2)
    assert _visible(out) == [f"part-{state['uuid']}-0-0"]
    assert (out / f"part-{state['uuid']}-0-0").read_bytes() == (
        b'{"id":1,"price":1E+1}\n{"id":2,"price":null}\n{"id":1,"price":1E+1}\n')
    sink.close()
    src, _ = src_of(out, id="INT", price="DECIMAL(10, 6)")
    src.open(None)
    assert read_all(src) == [
        {"id": 1, "price": Decimal("10.000000")},
        {"id": 2, "price": None},
        {"id": 1, "price": Decimal("10.000000")},
    ]


def test_sink_restore_truncates_in_progress_commits_pending_drops_later_files(tmp_path):
    """A restore of checkpoint 1 after a crash: the in-progress file is cut back to its length at
    barrier 1, a file rolled before barrier 1 whose rename the crash prevented is committed, and
    files opened after barrier 1 are deleted: every row once."""
    out = tmp_path / "out"
    t = table_of("sink", {"connector": "filesystem", "path": str(out), "format": "json",
                          "sink.rolling-policy.file-size": "20b"}, id="INT")
    out.mkdir()

    def batch(*ids):
        return Batch(pa.table({"id": pa.array(ids, pa.int32())}))

    def sink_():
        s = get_connector("filesystem").create_sink(ConnectorContext(t, "job", {}, task_index=3))
        s.open()
        return s

    first = sink_()
    first.write(batch(1, 2, 3))  # 3 rows of 9 bytes: rolled after the third (> 20 bytes before a row)
    first.write(batch(4))  # a new file, in progress at barrier 1
    first.pre_commit(1)
    state = json.loads(json.dumps(first.snapshot(1)))  # as the checkpoint records it
    first.write(batch(5, 6, 7))  # after barrier 1: lost with the crash, replayed after the restore
    first.write(batch(8))
    first.close()  # the crash: checkpoint 1 completed, commit(1) never ran
    assert _visible(out) == []
    second = sink_()
    second.restore(state)
    assert _visible(out) == [f"part-{state['uuid']}-3-0"]
    second.write(batch(5, 6))
    second.finish()
    second.pre_commit(2)
    second.snapshot(2)
    second.commit(2)
    second.close()
    src, _ = src_of(out, id="INT")
    src.open(None)
    assert sorted(r["id"] for r in read_all(src)) == [1, 2, 3, 4, 5, 6]
    assert not [p for p in out.iterdir() if p.name.startswith(".")]
    assert _visible(out) == [f"part-{state['uuid']}-3-{n}" for n in (0, 1)]  # 4, 5, 6 in one file


def test_sink_file_mode_restore_truncates_to_checkpoint_length(tmp_path):
    f = tmp_path / "out.json"
    t = table_of("sink", {"connector": "filesystem", "path": str(f), "format": "json"}, id="INT")
    s = get_connector("filesystem").create_sink(ConnectorContext(t, "job", {}))
    s.open()
    s.write(Batch(pa.table({"id": pa.array([1], pa.int32())})))
    s.pre_commit(1)
    state = s.snapshot(1)
    s.write(Batch(pa.table({"id": pa.array([2], pa.int32())})))
    s.pre_commit(2)  # checkpoint 2 never completes
    s.close()
    assert f.read_text() == '{"id":1}\n{"id":2}\n'
    s = get_connector("filesystem").create_sink(ConnectorContext(t, "job", {}))
    s.open()
    s.restore(state)
    s.write(Batch(pa.table({"id": pa.array([2], pa.int32())})))
    s.finish()
    s.close()
    assert f.read_text() == '{"id":1}\n{"id":2}\n'


def test_sink_to_file_csv_and_debezium_accepts_updates(tmp_path):
    f = tmp_path / "deep" / "out.csv"
    t = table_of("sink", {"connector": "filesystem", "path": str(f), "format": "csv"}, id="INT", s="STRING")
    sink = get_connector("filesystem").create_sink(ConnectorContext(t, "job", {}))
    sink.open()
    sink.write(Batch(pa.table({"id": pa.array([1], pa.int32()), "s": ["a,b"]})))
    sink.finish()
    assert f.read_text() == '1,"a,b"\n'
    t = table_of(
        "cdc",
        {"connector": "filesystem", "path": str(tmp_path / "cdc.json"), "format": "debezium-json"},
        id="INT",
    )
    cdc = get_connector("filesystem").create_sink(ConnectorContext(t, "job", {}))
    assert cdc.accepts_updates
    cdc.open()
    cdc.write(Batch(pa.table({"id": pa.array([1], pa.int32())}), np.array([RowKind.DELETE], np.int8)))
    cdc.pre_commit(1)
    assert (tmp_path / "cdc.json").read_text() == '{"before":{"id":1},"after":null,"op":"d"}\n'


def test_option_errors(tmp_path):
    def make(opts):
        t = table_of("files", {"connector": "filesystem", **opts}, id="INT")
        return get_connector("filesystem").create_source(ConnectorContext(t, "job", {}))

    with pytest.raises(ConfigError, match=r"Table 'files'.*requires option 'path'"):
        make({"format": "json"})
    with pytest.raises(ConfigError, match=r"Table 'files'.*'format' = 'avro'"):
        make({"path": str(tmp_path), "format": "avro"})
    with pytest.raises(
        ConfigError, match=r"Table 'files'.*unknown option 'json.ignore-errors'.*json.ignore-parse-errors"
    ):
        make({"path": str(tmp_path), "format": "json", "json.ignore-errors": "true"})
    with pytest.raises(ConfigError, match=r"Table 'files'.*unknown option 'csv.field-delimiter'"):
        make({"path": str(tmp_path), "format": "json", "csv.field-delimiter": ";"})


def test_source_monitor_interval_is_refused(tmp_path):
    """Flink reads a filesystem table with 'source.monitor-interval' continuously (unbounded: new
    files are read, windows at the end never fire); it was accepted here and the files read once."""
    from streamsql import StreamEnvironment

    (tmp_path / "in.json").write_text('{"a": 1}\n')
    env = StreamEnvironment({"state.dir": str(tmp_path / "state"),
                             "execution.checkpointing.dir": str(tmp_path / "cp")})
    env.execute_sql(f"CREATE TABLE src (a INT) WITH ('connector' = 'filesystem', "
                    f"'path' = '{tmp_path}/in.json', 'format' = 'json', 'source.monitor-interval' = '10 s')")
    env.execute_sql("CREATE TABLE bh (a INT) WITH ('connector' = 'blackhole')")
    with pytest.raises(ConfigError, match="'source.monitor-interval' is not supported"):
        env.execute_sql("EXPLAIN INSERT INTO bh SELECT a FROM src")
    env.close()


def test_sink_adopts_the_states_of_other_tasks(tmp_path):
    """A savepoint restored at another parallelism hands a task the old tasks' states
    (streamsql.runtime.savepoint._share): their rows before the barrier are kept once, the rest
    dropped, and they are committed by the new task's next checkpoint."""
    from streamsql.runtime.savepoint import _share

    out = tmp_path / "out"
    t = table_of("sink", {"connector": "filesystem", "path": str(out) + "/", "format": "json"}, id="INT")

    def sink_(task):
        s = get_connector("filesystem").create_sink(ConnectorContext(t, "job", {}, task_index=task))
        s.open()
        return s

    metas = []
    for task, ids in ((0, [1, 2]), (1, [3])):
        s = sink_(task)
        s.write(Batch(pa.table({"id": pa.array(ids, pa.int32())})))
        s.pre_commit(1)
        metas.append({"positions": {"sink:n": json.loads(json.dumps(s.snapshot(1)))}})
        s.write(Batch(pa.table({"id": pa.array([99], pa.int32())})))  # after the barrier: dropped
        s.close()
    assert [st["task"] for st in _share(metas, set(), 1, 2)["sink:n"]] == [1]
    states = _share(metas, set(), 0, 1)["sink:n"]
    assert [st["task"] for st in states] == [0, 1]
    s = sink_(0)
    s.restore(states)
    s.write(Batch(pa.table({"id": pa.array([4], pa.int32())})))
    s.finish()
    s.pre_commit(2)
    s.snapshot(2)
    s.commit(2)
    s.close()
    src, _ = src_of(out, id="INT")
    src.open(None)
    assert sorted(r["id"] for r in read_all(src)) == [1, 2, 3, 4]
    assert not [p for p in out.iterdir() if p.name.startswith(".")]


def test_csv_rolls_at_every_checkpoint_json_does_not(tmp_path):
    """Flink writes csv as a bulk format (rollOnCheckpoint), json with an Encoder (rolled by size or time)."""
    seen = {}
    for fmt in ("csv", "json"):
        out = tmp_path / fmt
        t = table_of("sink", {"connector": "filesystem", "path": str(out) + "/", "format": fmt}, id="INT")
        s = get_connector("filesystem").create_sink(ConnectorContext(t, "job", {}))
        s.open()
        s.write(Batch(pa.table({"id": pa.array([1], pa.int32())})))
        s.pre_commit(1)
        s.snapshot(1)
        s.commit(1)
        seen[fmt] = _visible(out)
        s.close()
    assert len(seen["csv"]) == 1 and seen["json"] == []


def test_rollover_interval_rolls_an_old_file(tmp_path):
    out = tmp_path / "out"
    t = table_of("sink", {"connector": "filesystem", "path": str(out) + "/", "format": "json",
                          "sink.rolling-policy.rollover-interval": "1 ms",
                          "sink.rolling-policy.check-interval": "1 ms"}, id="INT")
    s = get_connector("filesystem").create_sink(ConnectorContext(t, "job", {}))
    s.open()
    s.write(Batch(pa.table({"id": pa.array([1], pa.int32())})))
    import time

    time.sleep(0.01)
    s.pre_commit(1)
    s.snapshot(1)  # the file is older than the interval: rolled, committed with checkpoint 1
    s.commit(1)
    assert len(_visible(out)) == 1
    s.close()


def _partitioned_table(tmp_path, schema: str, folders: dict[str, str]):
    """A json filesystem table ``t`` ``schema`` over ``folders`` (partition folder -> its part-0's
    text): the environment and a function giving a query's sorted rows."""
    from streamsql import StreamEnvironment

    for folder, text in folders.items():
        (tmp_path / "t" / folder).mkdir(parents=True)
        (tmp_path / "t" / folder / "part-0").write_text(text)
    env = StreamEnvironment({"state.dir": str(tmp_path / "state"),
                             "execution.checkpointing.dir": str(tmp_path / "cp")})
    env.execute_sql(f"CREATE TABLE t {schema} WITH ("
                    f"'connector' = 'filesystem', 'path' = '{tmp_path}/t', 'format' = 'json')")

    def rows(sql):
        return sorted(v for _kind, v in env.execute_sql(sql).collect(timeout=60))

    return env, rows


def test_where_on_partition_columns_prunes_folders(tmp_path):
    """As Flink's partition push-down: a folder the WHERE rules out is not read (a bad record in it
    would fail the job otherwise); rows are those of the filter either way."""
    env, rows = _partitioned_table(tmp_path, "(a INT, k STRING, d INT) PARTITIONED BY (k, d)", {
        "k=u/d=1": '{"a": 1}\n', "k=u/d=2": '{"a": 2}\n', "k=v/d=1": "not json\n",
        "k=__DEFAULT_PARTITION__/d=1": '{"a": 4}\n'})

    assert rows("SELECT a, k, d FROM t WHERE k = 'u' AND d IN (1, 2)") == [(1, "u", 1), (2, "u", 2)]
    assert rows("SELECT a, d FROM t WHERE k IS NULL") == [(4, 1)]
    with pytest.raises(BadRecordError):
        rows("SELECT a FROM t WHERE d = 1")  # k=v/d=1 is read: its bad record fails the job
    env.close()


def test_sink_file_mode_refuses_more_than_one_task(tmp_path):
    """A 'path' that is one file is written by one task: two tasks appending to it would each
    truncate it to their own recorded length at a restore (before the fix: the other task's
    checkpointed rows lost, NUL bytes in their place)."""
    t = table_of("sink", {"connector": "filesystem", "path": str(tmp_path / "out.json"), "format": "json"},
                 id="INT")
    with pytest.raises(ConfigError, match=r"one file, which one task writes; this job writes the table "
                                          r"from 2 tasks: give a directory path"):
        get_connector("filesystem").create_sink(ConnectorContext(t, "job", {}, task_index=1, num_tasks=2))
    t = table_of("sink", {"connector": "filesystem", "path": str(tmp_path / "dir") + "/", "format": "json"},
                 id="INT")
    get_connector("filesystem").create_sink(ConnectorContext(t, "job", {}, task_index=1, num_tasks=2))


def test_pruning_compares_integer_partitions_as_numbers(tmp_path):
    """``d = 007`` is ``d = 7``, and a folder ``d=07`` (written by hand) holds d = 7: Flink's partition
    pruning compares the typed values. Before the fix both were pruned away (no rows)."""
    env, rows = _partitioned_table(tmp_path, "(a INT, d INT) PARTITIONED BY (d)", {
        "d=7": '{"a": 1}\n', "d=07": '{"a": 2}\n', "d=-3": '{"a": 3}\n'})

    assert rows("SELECT a, d FROM t") == [(1, 7), (2, 7), (3, -3)]
    assert rows("SELECT a, d FROM t WHERE d = 007") == [(1, 7), (2, 7)]
    assert rows("SELECT a, d FROM t WHERE d = 7") == [(1, 7), (2, 7)]
    assert rows("SELECT a FROM t WHERE d IN (-03, 8)") == [(3,)]
    env.close()


def test_sink_file_mode_restore_refuses_a_file_shortened_by_hand(tmp_path):
    """The file the checkpoint recorded 9 bytes of was deleted while the job was down: the restore
    fails clearly, as the part files' (before the fix it padded the new file with 9 NUL bytes)."""
    from streamsql.core.errors import ExecutionError

    f = tmp_path / "out.json"
    t = table_of("sink", {"connector": "filesystem", "path": str(f), "format": "json"}, id="INT")
    s = get_connector("filesystem").create_sink(ConnectorContext(t, "job", {}))
    s.open()
    s.write(Batch(pa.table({"id": pa.array([1], pa.int32())})))
    s.pre_commit(1)
    state = s.snapshot(1)
    s.close()
    f.unlink()
    s = get_connector("filesystem").create_sink(ConnectorContext(t, "job", {}))
    s.open()
    with pytest.raises(ExecutionError, match=r"is 0 bytes, shorter than the 9 bytes the restored checkpoint"):
        s.restore(state)
    s.close()
    assert f.read_bytes() == b""


def test_sink_directory_where_a_file_is_in_the_way(tmp_path):
    """A partitioned table's path that is a file, and a file where a partition folder must go, fail
    with the table and the path named (before: a bare 'File exists' OSError)."""
    from streamsql.core.errors import ExecutionError

    (tmp_path / "f.json").write_text("{}\n")
    t = table_of("sink", {"connector": "filesystem", "path": str(tmp_path / "f.json"), "format": "json"},
                 id="INT", k="STRING")
    t.partition_keys = ["k"]
    s = get_connector("filesystem").create_sink(ConnectorContext(t, "job", {}))
    with pytest.raises(ExecutionError, match=r"Table 'sink': path '.*f.json' is a file, but the "
                                             r"table is written as a directory"):
        s.open()
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "k=x").write_text("junk")
    t = table_of("sink", {"connector": "filesystem", "path": str(tmp_path / "d"), "format": "json"},
                 id="INT", k="STRING")
    t.partition_keys = ["k"]
    s = get_connector("filesystem").create_sink(ConnectorContext(t, "job", {}))
    s.open()
    with pytest.raises(ExecutionError, match=r"Cannot create the folder .*/d/k=x/ for a part file: "
                                             r"a file is in its way"):
        s.write(Batch(pa.table({"id": pa.array([1], pa.int32()), "k": ["x"]})))
    s.close()
