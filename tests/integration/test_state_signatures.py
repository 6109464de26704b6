"""A job restored from another query's savepoint claims only the operator state that means the same
in its plan (streamsql/checkpoint/operators.py), end to end through Kafka with real savepoints.

Before, a savepoint restored into any query: ``GROUP BY v`` resumed the counts of ``GROUP BY k``
(the same operator id, a key of the same type) and every result was wrong without a word. Now a
changed GROUP BY key, aggregate function or window size fails the job before it reads a record,
naming the operator and what differs; ``'execution.state-recovery.ignore-unclaimed-state'`` drops
that state instead (Flink's --allowNonRestoredState); an unchanged query, the same script started
again, and a query changed only after its aggregate (a projection) restore and give DuckDB's answer
over every record, none counted twice.
"""

from __future__ import annotations

import itertools
import time
import uuid
from collections import Counter

import pytest

from streamsql.checkpoint.operators import StateMappingError
from streamsql.environment import StreamEnvironment
from streamsql.functions import udaf as udaf_module
from streamsql.functions import udf as udf_module
from streamsql.functions.udf import AggregateFunction, udaf, udf, udtf
from tests.integration.test_flights import read_committed
from tests.integration.test_parallel import PARTITIONS, _appends, _duck, _load, _rows, _upserts

AGG = "INSERT INTO agg SELECT k, COUNT(*) FROM src GROUP BY k"
WINDOW = ("INSERT INTO win SELECT k, window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE src, DESCRIPTOR(ts), "
          "INTERVAL '{s}' SECOND)) GROUP BY k, window_start, window_end")


def _env(tmp_path, name: str, bootstrap: str, src: str, out: str, *, bounded: bool, parallelism: int = 1,
         startup: str = "'scan.startup.mode' = 'earliest-offset'", **settings) -> StreamEnvironment:
    env = StreamEnvironment({"parallelism.default": str(parallelism), "pipeline.name": name,
                             "execution.checkpointing.interval": "500 ms",
                             "execution.checkpointing.dir": str(tmp_path / "chk"),
                             "state.dir": str(tmp_path / "state"), **settings})
    end = ", 'scan.bounded.mode' = 'latest-offset'" if bounded else ""
    env.execute_sql(f"""CREATE TABLE src (id INT, k INT, v INT, ts TIMESTAMP(3),
        WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH (
        'connector' = 'kafka', 'topic' = '{src}', 'properties.bootstrap.servers' = '{bootstrap}',
        'format' = 'json', {startup}{end})""")
    env.execute_sql(f"""CREATE TABLE agg (k INT, c BIGINT, PRIMARY KEY (k) NOT ENFORCED) WITH (
        'connector' = 'upsert-kafka', 'topic' = '{out}', 'properties.bootstrap.servers' = '{bootstrap}',
        'key.format' = 'json', 'value.format' = 'json')""")
    env.execute_sql(f"""CREATE TABLE win (k INT, ws TIMESTAMP(3), c BIGINT) WITH (
        'connector' = 'kafka', 'topic' = '{out}', 'properties.bootstrap.servers' = '{bootstrap}',
        'format' = 'json', 'sink.delivery-guarantee' = 'exactly-once')""")
    return env


def _savepoint(env: StreamEnvironment, sql: str, rows: int) -> str:
    """Run ``sql`` until it has read ``rows`` records, stop it WITH SAVEPOINT; the savepoint's path."""
    job = env.execute_sql(sql).job
    deadline = time.monotonic() + 120
    while job.metrics["rows_in"] < rows:
        read = job.metrics["rows_in"]
        assert time.monotonic() < deadline and not job.done, f"the job read {read} of {rows}"
        time.sleep(0.2)
    return env.execute_sql(f"STOP JOB '{job.job_id}' WITH SAVEPOINT").rows[0][0]


def _refused(env: StreamEnvironment, sql: str, out: str, bootstrap: str) -> str:
    """Run ``sql``: it must fail before reading a record or writing a row; the error's text."""
    job = env.execute_sql(sql).job
    with pytest.raises(StateMappingError) as err:
        job.wait(120)
    assert job.metrics["rows_in"] == 0
    assert read_committed(bootstrap, out) == []
    env.close()
    return str(err.value)


def _counts(bootstrap: str, topic: str) -> Counter:
    return _upserts(bootstrap, topic, ["k", "c"])


def test_an_aggregation_restores_only_a_savepoint_whose_state_means_the_same(
        kafka_bootstrap, kafka_topic_factory, tmp_path):
    src = kafka_topic_factory("sig_src", PARTITIONS)
    outs = {n: kafka_topic_factory(f"sig_{n}") for n in ("first", "refused", "same", "proj", "ignored")}
    rows = _rows(31, 4000)
    first, second = rows[:2000], rows[2000:]
    _load(kafka_bootstrap, src, first)
    name = f"sig-{uuid.uuid4().hex[:8]}"
    savepoint = _savepoint(_env(tmp_path, name, kafka_bootstrap, src, outs["first"], bounded=False),
                           AGG, 2000)
    _load(kafka_bootstrap, src, second)

    def env(suffix: str, out: str, **settings) -> StreamEnvironment:
        return _env(tmp_path, f"{name}-{suffix}", kafka_bootstrap, src, outs[out], bounded=True,
                    **{"execution.savepoint.path": savepoint, **settings})

    # GROUP BY another column of the same type: the counts per k are not counts per v
    text = _refused(env("by-v", "refused"), "INSERT INTO agg SELECT v, COUNT(*) FROM src GROUP BY v",
                    outs["refused"], kafka_bootstrap)
    assert f"failed to rollback to checkpoint/savepoint {savepoint}" in text
    assert "Cannot map checkpoint/savepoint state for operator group-agg-" in text
    assert "input column 0: src.k INT -> src.v INT" in text
    assert "'execution.state-recovery.ignore-unclaimed-state' = 'true'" in text
    # another aggregate function over the same key
    text = _refused(env("sum", "refused"), "INSERT INTO agg SELECT k, SUM(v) FROM src GROUP BY k",
                    outs["refused"], kafka_bootstrap)
    assert "select=[k, COUNT(*) AS EXPR$1]" in text and "select=[k, SUM(v) AS EXPR$1]" in text
    assert "state parameters aggs" in text

    # the same query from the savepoint: every record counted once
    job = env("same", "same").execute_sql(AGG).job
    assert job.wait(180) == "FINISHED" and job.runner.restored_from is not None
    all_counts = Counter(_duck("SELECT k, COUNT(*) FROM src GROUP BY k", src=rows))
    assert _counts(kafka_bootstrap, outs["same"]) == all_counts
    # only a projection after the aggregate changed: its state is claimed (as Flink restores it)
    job = env("proj", "proj").execute_sql("INSERT INTO agg SELECT k, COUNT(*) * 2 FROM src GROUP BY k").job
    assert job.wait(180) == "FINISHED"
    doubled = Counter(_duck("SELECT k, COUNT(*) * 2 FROM src GROUP BY k", src=rows))
    assert _counts(kafka_bootstrap, outs["proj"]) == doubled
    # ignoring the unclaimed state: GROUP BY v starts empty, reading on from the savepoint's offsets
    ignoring = env("ignored", "ignored", **{"execution.state-recovery.ignore-unclaimed-state": "true"})
    job = ignoring.execute_sql("INSERT INTO agg SELECT v, COUNT(*) FROM src GROUP BY v").job
    assert job.wait(180) == "FINISHED"
    by_v_after = Counter(_duck("SELECT v, COUNT(*) FROM src GROUP BY v", src=second))
    assert _counts(kafka_bootstrap, outs["ignored"]) == by_v_after
    # the first script started again under its name (no savepoint setting): resumes its own state
    job = _env(tmp_path, name, kafka_bootstrap, src, outs["first"], bounded=True).execute_sql(AGG).job
    assert job.wait(180) == "FINISHED" and job.runner.restored_from is not None
    assert _counts(kafka_bootstrap, outs["first"]) == all_counts


def test_a_window_of_another_size_refuses_the_savepoint(kafka_bootstrap, kafka_topic_factory, tmp_path):
    src, first, out = (kafka_topic_factory("sig_src", PARTITIONS), kafka_topic_factory("sig_win"),
                       kafka_topic_factory("sig_win"))
    rows = _rows(32, 2000)
    _load(kafka_bootstrap, src, rows)
    name = f"sigw-{uuid.uuid4().hex[:8]}"
    savepoint = _savepoint(_env(tmp_path, name, kafka_bootstrap, src, first, bounded=False),
                           WINDOW.format(s=10), 2000)
    env = _env(tmp_path, f"{name}-20s", kafka_bootstrap, src, out, bounded=True,
               **{"execution.savepoint.path": savepoint})
    text = _refused(env, WINDOW.format(s=20), out, kafka_bootstrap)
    assert "Cannot map checkpoint/savepoint state for operator window-agg-" in text
    assert "TUMBLE(time_col=[ts], size=[10 s])" in text and "size=[20 s]" in text
    # the same window restores: every window once
    env = _env(tmp_path, f"{name}-10s", kafka_bootstrap, src, out, bounded=True,
               **{"execution.savepoint.path": savepoint})
    assert env.execute_sql(WINDOW.format(s=10)).job.wait(180) == "FINISHED"
    expected = _duck("SELECT k, time_bucket(INTERVAL 10 SECOND, ts) AS ws, COUNT(*) FROM src GROUP BY k, ws",
                     src=rows)
    # the windows the first job had emitted before its savepoint, then the restored job's
    columns = ["k", "ws", "c"]
    got = _appends(kafka_bootstrap, first, columns) + _appends(kafka_bootstrap, out, columns)
    assert sum(got.values()) == len(expected)
    assert Counter((k, c) for k, _, c in got.elements()) == Counter((k, c) for k, _, c in expected)


def test_a_parallel_job_refuses_a_savepoint_of_another_group_by_key_before_resetting(
        kafka_bootstrap, kafka_topic_factory, tmp_path):
    src, first, out = (kafka_topic_factory("sig_src", PARTITIONS), kafka_topic_factory("sig_agg"),
                       kafka_topic_factory("sig_agg"))
    rows = _rows(33, 4000)
    _load(kafka_bootstrap, src, rows[:2000])
    name = f"sigp-{uuid.uuid4().hex[:8]}"
    savepoint = _savepoint(_env(tmp_path, name, kafka_bootstrap, src, first, bounded=False, parallelism=2),
                           AGG, 2000)
    _load(kafka_bootstrap, src, rows[2000:])
    env = _env(tmp_path, f"{name}-by-v", kafka_bootstrap, src, out, bounded=True, parallelism=2,
               **{"execution.savepoint.path": savepoint})
    text = _refused(env, "INSERT INTO agg SELECT v, COUNT(*) FROM src GROUP BY v", out, kafka_bootstrap)
    assert "input column 0: src.k INT -> src.v INT" in text
    env = _env(tmp_path, f"{name}-same", kafka_bootstrap, src, out, bounded=True, parallelism=2,
               **{"execution.savepoint.path": savepoint})
    assert env.execute_sql(AGG).job.wait(180) == "FINISHED"
    assert _counts(kafka_bootstrap, out) == Counter(_duck("SELECT k, COUNT(*) FROM src GROUP BY k", src=rows))


@udtf(result_types=["INT"])
def itself(x):
    """One row: its argument (a LATERAL TABLE that makes a column from another)."""
    yield x


@pytest.mark.parametrize(("before", "after"), [
    ("INSERT INTO agg SELECT x, COUNT(*) FROM src, LATERAL TABLE(itself(k)) AS T(x) GROUP BY x",
     "INSERT INTO agg SELECT x, COUNT(*) FROM src, LATERAL TABLE(itself(v)) AS T(x) GROUP BY x"),
    ("INSERT INTO agg SELECT x, COUNT(*) FROM (SELECT k AS x FROM src UNION ALL VALUES (1), (2)) GROUP BY x",
     "INSERT INTO agg SELECT x, COUNT(*) FROM (SELECT k AS x FROM src UNION ALL VALUES (3), (4)) GROUP BY x"),
], ids=["lateral-table-argument", "values-rows"])
def test_a_key_made_by_a_table_function_or_values_refuses_the_savepoint_of_another(
        kafka_bootstrap, kafka_topic_factory, tmp_path, before, after):
    """The aggregate's key comes out of a LATERAL TABLE (of k, then of v) or a VALUES list (other rows):
    the aggregate's signature was the same, so the counts per k were resumed as counts per v (and the
    VALUES source's position, 2 rows out, skipped the new list), every count wrong and nothing said."""
    src, first, out = (kafka_topic_factory("sig_src", PARTITIONS), kafka_topic_factory("sig_agg"),
                       kafka_topic_factory("sig_agg"))
    rows = _rows(34, 2000)
    _load(kafka_bootstrap, src, rows)
    name = f"sigl-{uuid.uuid4().hex[:8]}"
    env = _env(tmp_path, name, kafka_bootstrap, src, first, bounded=False)
    env.create_temporary_function("itself", itself)
    savepoint = _savepoint(env, before, 2000)
    env = _env(tmp_path, f"{name}-after", kafka_bootstrap, src, out, bounded=True,
               **{"execution.savepoint.path": savepoint})
    env.create_temporary_function("itself", itself)
    text = _refused(env, after, out, kafka_bootstrap)
    assert "Cannot map checkpoint/savepoint state for operator group-agg-" in text


def test_a_savepoint_restored_into_a_table_reading_another_topic_reads_that_topic_from_its_start(
        kafka_bootstrap, kafka_topic_factory, tmp_path):
    """The table ``src`` now reads topic B instead of A (the same partitions, more records): its
    source's positions are A's offsets. They were keyed by partition number only, so B's partitions
    were sought to A's offsets and B's first records per partition never counted (Flink's splits
    name their topic: B's partitions are new ones, read from the startup offsets)."""
    a, b = kafka_topic_factory("sig_a", PARTITIONS), kafka_topic_factory("sig_b", PARTITIONS)
    first, out = kafka_topic_factory("sig_agg"), kafka_topic_factory("sig_agg")
    rows_a, rows_b = _rows(35, 800), _rows(36, 2000)
    _load(kafka_bootstrap, a, rows_a)
    _load(kafka_bootstrap, b, rows_b)
    name = f"sigt-{uuid.uuid4().hex[:8]}"
    savepoint = _savepoint(_env(tmp_path, name, kafka_bootstrap, a, first, bounded=False), AGG, 800)
    env = _env(tmp_path, f"{name}-b", kafka_bootstrap, b, out, bounded=True,
               **{"execution.savepoint.path": savepoint})
    assert env.execute_sql(AGG).job.wait(180) == "FINISHED"
    expected = Counter(_duck("SELECT k, COUNT(*) FROM src GROUP BY k", src=rows_a + rows_b))
    assert _counts(kafka_bootstrap, out) == expected


POSITIVE = "INSERT INTO agg SELECT k, COUNT(*) FROM src WHERE v >= 0 GROUP BY k"
NEGATIVE = "INSERT INTO agg2 SELECT k, COUNT(*) FROM src WHERE v < 0 GROUP BY k"


def _statement_set(*inserts: str) -> str:
    return "EXECUTE STATEMENT SET BEGIN\n" + "".join(f"{i};\n" for i in inserts) + "END"


def _set_env(tmp_path, name: str, bootstrap: str, src: str, outs: tuple[str, str], *, bounded: bool,
             **settings) -> StreamEnvironment:
    """``_env`` with a second upsert sink ``agg2`` (k, c) on ``outs[1]``."""
    env = _env(tmp_path, name, bootstrap, src, outs[0], bounded=bounded, **settings)
    env.execute_sql(f"""CREATE TABLE agg2 (k INT, c BIGINT, PRIMARY KEY (k) NOT ENFORCED) WITH (
        'connector' = 'upsert-kafka', 'topic' = '{outs[1]}', 'properties.bootstrap.servers' = '{bootstrap}',
        'key.format' = 'json', 'value.format' = 'json')""")
    return env


def test_a_statement_set_with_an_insert_added_or_removed_never_resumes_another_inserts_state(
        kafka_bootstrap, kafka_topic_factory, tmp_path):
    """Operator ids are positions in the statement set's plan: an INSERT added before the others, or
    one removed, moves every later INSERT's GROUP BY to another id. Two GROUP BYs that differ only
    in their WHERE (not part of a signature) then claimed each other's state: the counts of
    ``v >= 0`` went on as counts of ``v < 0`` and the other sink counted from zero, without a word.
    An INSERT added at the end keeps the others' ids: its operators start empty, reading on from the
    savepoint's offsets (Flink's new operators)."""
    src = kafka_topic_factory("sig_src", PARTITIONS)
    rows = _rows(37, 4000)
    first, second = rows[:2000], rows[2000:]
    _load(kafka_bootstrap, src, first)
    name = f"sigs-{uuid.uuid4().hex[:8]}"

    def topics() -> tuple[str, str]:
        return kafka_topic_factory("sig_agg"), kafka_topic_factory("sig_agg2")

    def env(suffix: str, outs: tuple[str, str], savepoint: str | None = None, **settings):
        if savepoint is not None:
            settings["execution.savepoint.path"] = savepoint
        return _set_env(tmp_path, f"{name}-{suffix}", kafka_bootstrap, src, outs,
                        bounded=savepoint is not None, **settings)

    alone_outs, both_outs = topics(), topics()  # a restored job goes on writing its savepoint's topics
    alone = _savepoint(env("alone", alone_outs), _statement_set(POSITIVE), 2000)
    both = _savepoint(env("both", both_outs), _statement_set(POSITIVE, NEGATIVE), 2000)
    _load(kafka_bootstrap, src, second)
    positive = {part: Counter(_duck("SELECT k, COUNT(*) FROM src WHERE v >= 0 GROUP BY k", src=r))
                for part, r in (("all", rows), ("second", second))}
    negative = {part: Counter(_duck("SELECT k, COUNT(*) FROM src WHERE v < 0 GROUP BY k", src=r))
                for part, r in (("all", rows), ("second", second))}

    # added before the first INSERT: its GROUP BY would have taken the first one's id
    outs = topics()
    text = _refused(env("front", outs, alone), _statement_set(NEGATIVE, POSITIVE), outs[0], kafka_bootstrap)
    assert "Cannot map checkpoint/savepoint state for operator group-agg-" in text
    assert "agg2" in text, text
    # the first INSERT removed: the second one's GROUP BY now has the first one's id
    outs = topics()
    text = _refused(env("removed", outs, both), _statement_set(NEGATIVE), outs[1], kafka_bootstrap)
    assert "Cannot map checkpoint/savepoint state for operator group-agg-" in text
    # ... and ignoring unclaimed state drops it rather than giving it to the other INSERT
    outs = topics()
    ignoring = env("ignored", outs, both, **{"execution.state-recovery.ignore-unclaimed-state": "true"})
    assert ignoring.execute_sql(_statement_set(NEGATIVE)).job.wait(180) == "FINISHED"
    assert _counts(kafka_bootstrap, outs[1]) == negative["second"]
    # added at the end: the first INSERT resumes its counts, the new one starts at the savepoint
    outs = (alone_outs[0], topics()[1])
    job = env("end", outs, alone).execute_sql(_statement_set(POSITIVE, NEGATIVE)).job
    assert job.wait(180) == "FINISHED" and job.runner.restored_from is not None
    assert _counts(kafka_bootstrap, outs[0]) == positive["all"]
    assert _counts(kafka_bootstrap, outs[1]) == negative["second"]
    # the same set again: both resume
    outs = both_outs
    job = env("same", outs, both).execute_sql(_statement_set(POSITIVE, NEGATIVE)).job
    assert job.wait(180) == "FINISHED"
    assert _counts(kafka_bootstrap, outs[0]) == positive["all"]
    assert _counts(kafka_bootstrap, outs[1]) == negative["all"]


TAGGED = "INSERT INTO tagged SELECT k, '{tag}', COUNT(*) FROM src WHERE {where} GROUP BY k"
POS = TAGGED.format(tag="pos", where="v > 0")
NEG = TAGGED.format(tag="neg", where="v <= 0")


def _tagged_env(tmp_path, name: str, bootstrap: str, src: str, out: str, *, bounded: bool,
                **settings) -> StreamEnvironment:
    """``_env`` with an upsert sink ``tagged`` (k, tag, c) keyed by (k, tag) on ``out``."""
    env = _env(tmp_path, name, bootstrap, src, out, bounded=bounded, **settings)
    env.execute_sql(f"""CREATE TABLE tagged (k INT, tag STRING, c BIGINT, PRIMARY KEY (k, tag) NOT ENFORCED)
        WITH ('connector' = 'upsert-kafka', 'topic' = '{out}', 'properties.bootstrap.servers' = '{bootstrap}',
        'key.format' = 'json', 'value.format' = 'json')""")
    return env


def _tagged(bootstrap: str, topic: str) -> Counter:
    return _upserts(bootstrap, topic, ["k", "tag", "c"])


def _tagged_duck(rows: list[dict], *inserts: tuple[str, str]) -> Counter:
    """DuckDB's final (k, tag, count) rows of ``inserts`` (tag, WHERE) over ``rows``."""
    sql = "SELECT k, '{tag}', COUNT(*) FROM src WHERE {where} GROUP BY k"
    return Counter(row for tag, where in inserts for row in _duck(sql.format(tag=tag, where=where), src=rows))


def test_two_inserts_into_one_sink_swapped_in_a_statement_set_never_resume_each_others_state(
        kafka_bootstrap, kafka_topic_factory, tmp_path):
    """Two GROUP BYs into the same table that differ in their WHERE only have equal signatures, and
    both feed that one table, so cd55c5b's sink check cannot tell them apart: swapped in the statement
    set, each INSERT's GROUP BY claimed the other's counts (the counts of v > 0 went on as those of
    v <= 0) without a word. Now refused, naming the INSERTs' filters; the same order still resumes."""
    src = kafka_topic_factory("sig_src", PARTITIONS)
    rows = _rows(38, 4000)
    first, second = rows[:2000], rows[2000:]
    _load(kafka_bootstrap, src, first)
    name = f"sigs-{uuid.uuid4().hex[:8]}"

    def env(suffix: str, out: str, savepoint: str | None = None, **settings):
        if savepoint is not None:
            settings["execution.savepoint.path"] = savepoint
        return _tagged_env(tmp_path, f"{name}-{suffix}", kafka_bootstrap, src, out,
                           bounded=savepoint is not None, **settings)

    both_out = kafka_topic_factory("sig_tagged")
    both = _savepoint(env("both", both_out), _statement_set(POS, NEG), 2000)
    _load(kafka_bootstrap, src, second)
    pos, neg = ("pos", "v > 0"), ("neg", "v <= 0")

    # swapped: each GROUP BY now has the other's id
    out = kafka_topic_factory("sig_tagged")
    text = _refused(env("swapped", out, both), _statement_set(NEG, POS), out, kafka_bootstrap)
    assert "Cannot map checkpoint/savepoint state for operator group-agg-" in text
    assert "v > 0" in text and "v <= 0" in text, text
    # ignoring unclaimed state drops both rather than handing them over: each counts from the savepoint
    out = kafka_topic_factory("sig_tagged")
    ignoring = {"execution.state-recovery.ignore-unclaimed-state": "true"}
    job = env("ignored", out, both, **ignoring).execute_sql(_statement_set(NEG, POS)).job
    assert job.wait(180) == "FINISHED"
    assert _tagged(kafka_bootstrap, out) == _tagged_duck(second, pos, neg)
    # the first one removed: the second's GROUP BY now has the first one's id
    out = kafka_topic_factory("sig_tagged")
    job = env("removed", out, both, **ignoring).execute_sql(_statement_set(NEG)).job
    assert job.wait(180) == "FINISHED"
    assert _tagged(kafka_bootstrap, out) == _tagged_duck(second, neg)
    # the same order: both resume their counts
    job = env("same", both_out, both).execute_sql(_statement_set(POS, NEG)).job
    assert job.wait(180) == "FINISHED" and job.runner.restored_from is not None
    assert _tagged(kafka_bootstrap, both_out) == _tagged_duck(rows, pos, neg)


def test_a_parallel_job_refuses_two_inserts_into_one_sink_swapped(
        kafka_bootstrap, kafka_topic_factory, tmp_path):
    """The same at parallelism 2: each stage checks its own operators, whose twins are the job's."""
    src, first, out = (kafka_topic_factory("sig_src", PARTITIONS), kafka_topic_factory("sig_tagged"),
                       kafka_topic_factory("sig_tagged"))
    _load(kafka_bootstrap, src, _rows(39, 2000))
    name = f"sigsp-{uuid.uuid4().hex[:8]}"
    env = _tagged_env(tmp_path, name, kafka_bootstrap, src, first, bounded=False, parallelism=2)
    savepoint = _savepoint(env, _statement_set(POS, NEG), 2000)
    env = _tagged_env(tmp_path, f"{name}-swapped", kafka_bootstrap, src, out, bounded=True, parallelism=2,
                      **{"execution.savepoint.path": savepoint})
    text = _refused(env, _statement_set(NEG, POS), out, kafka_bootstrap)
    assert "its input rows pass WHERE src.v <= 0, not WHERE src.v > 0" in text, text


def test_changes_that_keep_the_state_restore_it_as_flink_does(kafka_bootstrap, kafka_topic_factory, tmp_path):
    """Query changes a savepoint restores on purpose, each with its exact answer (Flink's too): another
    startup mode (a restored source reads on from the savepoint's offsets; the mode is for a fresh
    start), another WHERE constant (the rows counted before the savepoint stay counted; the new filter
    counts from there), another sink table (it receives the keys updated after the restore, with
    their counts from the start)."""
    src = kafka_topic_factory("sig_src", PARTITIONS)
    rows = _rows(40, 4000)
    first, second = rows[:2000], rows[2000:]
    _load(kafka_bootstrap, src, first)
    name = f"sigk-{uuid.uuid4().hex[:8]}"
    where = "INSERT INTO agg SELECT k, COUNT(*) FROM src WHERE v >= {c} GROUP BY k"
    savepoint = _savepoint(_env(tmp_path, name, kafka_bootstrap, src, kafka_topic_factory("sig_agg"),
                                bounded=False), where.format(c=0), 2000)
    _load(kafka_bootstrap, src, second)

    def restored(suffix: str, sql: str, **kw) -> str:
        out = kafka_topic_factory("sig_agg")
        env = _env(tmp_path, f"{name}-{suffix}", kafka_bootstrap, src, out, bounded=True,
                   **{"execution.savepoint.path": savepoint, **kw})
        env.execute_sql(f"""CREATE TABLE renamed (k INT, c BIGINT, PRIMARY KEY (k) NOT ENFORCED) WITH (
            'connector' = 'upsert-kafka', 'topic' = '{out}', 'key.format' = 'json', 'value.format' = 'json',
            'properties.bootstrap.servers' = '{kafka_bootstrap}')""")
        job = env.execute_sql(sql).job
        assert job.wait(180) == "FINISHED" and job.runner.restored_from is not None
        env.close()
        return out

    def count(sql: str, part: list[dict]) -> Counter:
        return Counter(dict(_duck(sql, src=part)))

    everything = Counter(_duck("SELECT k, COUNT(*) FROM src WHERE v >= 0 GROUP BY k", src=rows))
    for mode in ("'scan.startup.mode' = 'latest-offset'",
                 "'scan.startup.mode' = 'timestamp', 'scan.startup.timestamp-millis' = '4102444800000'",
                 "'scan.startup.mode' = 'specific-offsets', "
                 "'scan.startup.specific-offsets' = 'partition:0,offset:0'"):
        out = restored(f"mode-{len(mode)}", where.format(c=0), startup=mode)
        assert _counts(kafka_bootstrap, out) == everything, mode
    # another WHERE constant: v >= 0 up to the savepoint, v >= 250 after it
    out = restored("where", where.format(c=250))
    before = count("SELECT k, COUNT(*) FROM src WHERE v >= 0 GROUP BY k", first)
    after = count("SELECT k, COUNT(*) FROM src WHERE v >= 250 GROUP BY k", second)
    assert _counts(kafka_bootstrap, out) == Counter((k, before[k] + after[k]) for k in after)
    # another sink table (the same columns, another topic): the keys updated since, counted from the start
    out = restored("sink", where.format(c=0).replace("INTO agg", "INTO renamed"))
    touched = {k for k, _ in _duck("SELECT k, COUNT(*) FROM src WHERE v >= 0 GROUP BY k", src=second)}
    assert _counts(kafka_bootstrap, out) == Counter((k, c) for k, c in everything if k in touched)


@udf(result_type="INT")
def bucket10(x):
    """x % 10."""
    return x % 10


@udf(result_type="INT")
def bucket7(x):
    """x % 7."""
    return x % 7


class Total(AggregateFunction):
    """SUM(v) as a user aggregate."""

    def create_accumulator(self):
        return [0]

    def accumulate(self, acc, x):
        acc[0] += x or 0

    def retract(self, acc, x):
        acc[0] -= x or 0

    def get_value(self, acc):
        return acc[0]


class Peak(Total):
    """MAX(v, 0) as a user aggregate, with Total's accumulator."""

    def accumulate(self, acc, x):
        acc[0] = max(acc[0], x or 0)


def _total() -> object:
    return udaf(Total(), result_type="BIGINT", input_types=["INT"])


def _peak() -> object:
    return udaf(Peak(), result_type="BIGINT", input_types=["INT"])


@pytest.mark.parametrize(("query", "same", "other", "expected"), [
    ("INSERT INTO agg SELECT fn(k), COUNT(*) FROM src GROUP BY fn(k)", lambda: bucket10, lambda: bucket7,
     "SELECT k % 10, COUNT(*) FROM src GROUP BY 1"),
    ("INSERT INTO agg SELECT k, fn(v) FROM src GROUP BY k", _total, _peak,
     "SELECT k, SUM(v) FROM src GROUP BY k"),
], ids=["scalar-key", "aggregate"])
def test_a_python_function_is_told_apart_by_what_it_is_not_its_registration_number(
        kafka_bootstrap, kafka_topic_factory, tmp_path, monkeypatch, query, same, other, expected):
    """A scalar Python UDF is called in DuckDB as ``__udf_<n>_...``, a user aggregate registered as
    ``udaf_<n>_<name>``, n counting the functions the process has declared, and signatures held those
    names. So the first function of a fresh process was number 0 whatever it was: GROUP BY bucket7(k)
    restored GROUP BY bucket10(k)'s counts, a Peak aggregate a Total's sums, without a word; and the
    unchanged query restored in the process that wrote the savepoint (the function declared again,
    another n) was refused, "MYF(src.k) INT -> MYF(src.k) INT"."""
    src, first = kafka_topic_factory("sig_src", PARTITIONS), kafka_topic_factory("sig_agg")
    rows = _rows(41, 4000)
    _load(kafka_bootstrap, src, rows[:2000])
    name = f"sigu-{uuid.uuid4().hex[:8]}"

    def env(suffix: str, out: str, fn, *, fresh: bool, **settings) -> StreamEnvironment:
        if fresh:  # numbered as the first function of a new process (a script run again)
            for module in (udf_module, udaf_module):
                monkeypatch.setattr(module, "_ids", itertools.count(10_000))
        e = _env(tmp_path, f"{name}{suffix}", kafka_bootstrap, src, out, bounded=bool(suffix), **settings)
        e.create_temporary_function("fn", fn())
        return e

    savepoint = _savepoint(env("", first, same, fresh=True), query, 2000)
    _load(kafka_bootstrap, src, rows[2000:])
    restore = {"execution.savepoint.path": savepoint}
    # another function under the same name, numbered alike: another state
    out = kafka_topic_factory("sig_agg")
    text = _refused(env("-other", out, other, fresh=True, **restore), query, out, kafka_bootstrap)
    assert "Cannot map checkpoint/savepoint state for operator group-agg-" in text
    assert "fn=tests.integration.test_state_signatures." in text, text
    # the same function declared again in this process (another number): its state is restored
    out = kafka_topic_factory("sig_agg")
    job = env("-same", out, same, fresh=False, **restore).execute_sql(query).job
    assert job.wait(180) == "FINISHED" and job.runner.restored_from is not None
    assert _counts(kafka_bootstrap, out) == Counter(_duck(expected, src=rows))


def test_an_insert_that_no_longer_shares_its_aggregate_never_starts_it_empty(
        kafka_bootstrap, kafka_topic_factory, tmp_path):
    """Two INSERTs of a statement set computing the same GROUP BY share one operator (sub-plan
    reuse) feeding both sinks. The second one's WHERE edited, it got a GROUP BY of its own at a new
    id: no state there, so it started empty at the savepoint's offsets and its sink lost every count
    before them, without a word. Now refused; with sub-plan reuse switched off the INSERT reads its
    table again from the startup mode (a scan of its own, new) and gives DuckDB's answer."""
    src = kafka_topic_factory("sig_src", PARTITIONS)
    rows = _rows(42, 4000)
    _load(kafka_bootstrap, src, rows[:2000])
    name = f"sigr-{uuid.uuid4().hex[:8]}"
    both = ("INSERT INTO agg SELECT k, COUNT(*) FROM src GROUP BY k",
            "INSERT INTO agg2 SELECT k, COUNT(*) FROM src GROUP BY k")
    edited = (both[0], "INSERT INTO agg2 SELECT k, COUNT(*) FROM src WHERE v > -1000 GROUP BY k")

    def env(suffix: str, outs: tuple[str, str], **settings) -> StreamEnvironment:
        return _set_env(tmp_path, f"{name}{suffix}", kafka_bootstrap, src, outs, bounded=bool(suffix),
                        **settings)

    first = (kafka_topic_factory("sig_agg"), kafka_topic_factory("sig_agg2"))
    savepoint = _savepoint(env("", first), _statement_set(*both), 2000)
    _load(kafka_bootstrap, src, rows[2000:])
    restore = {"execution.savepoint.path": savepoint}
    everything = Counter(_duck("SELECT k, COUNT(*) FROM src GROUP BY k", src=rows))
    outs = (kafka_topic_factory("sig_agg"), kafka_topic_factory("sig_agg2"))
    text = _refused(env("-edited", outs, **restore), _statement_set(*edited), outs[1], kafka_bootstrap)
    assert "feeding 'agg2', has no state in the checkpoint/savepoint, but its state is that of" in text
    assert "which fed 'agg', 'agg2' and now feeds 'agg'" in text, text
    # ... what it did before, now only on purpose: the edited INSERT counts from the savepoint's offsets
    outs = (kafka_topic_factory("sig_agg"), kafka_topic_factory("sig_agg2"))
    ignoring = env("-ignored", outs, **restore, **{"execution.state-recovery.ignore-unclaimed-state": "true"})
    assert ignoring.execute_sql(_statement_set(*edited)).job.wait(180) == "FINISHED"
    assert _counts(kafka_bootstrap, outs[0]) == everything
    since = Counter(_duck("SELECT k, COUNT(*) FROM src GROUP BY k", src=rows[2000:]))
    assert _counts(kafka_bootstrap, outs[1]) == since
    # sub-plan reuse switched off: each INSERT scans the table itself, the new scan from its start
    outs = (first[0], kafka_topic_factory("sig_agg2"))
    unshared = env("-unshared", outs, **restore, **{"table.optimizer.reuse-sub-plan-enabled": "false"})
    job = unshared.execute_sql(_statement_set(*both)).job
    assert job.wait(180) == "FINISHED" and job.runner.restored_from is not None
    assert _counts(kafka_bootstrap, outs[0]) == everything
    assert _counts(kafka_bootstrap, outs[1]) == everything
