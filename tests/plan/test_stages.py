"""Stages of a parallel job: where EXPLAIN shows the plan cut, and where it is not."""

from __future__ import annotations

import pytest

from streamsql import StreamEnvironment
from streamsql.core.errors import PlanError

KAFKA = "'properties.bootstrap.servers' = '127.0.0.1:9092'"


@pytest.fixture
def env(tmp_path):
    (tmp_path / "f.json").write_text('{"k": 1, "v": 2}\n')
    e = StreamEnvironment({"parallelism.default": "4", "pipeline.name": "stg",
                           "state.dir": str(tmp_path / "s"),
                           "execution.checkpointing.dir": str(tmp_path / "cp")})
    for name in ("a", "b"):
        e.execute_sql(f"CREATE TABLE {name} (k INT, v INT) WITH ('connector' = 'kafka', 'topic' = '{name}', "
                      f"{KAFKA}, 'format' = 'json')")
    e.execute_sql(f"CREATE TABLE f (k INT, v INT) WITH ('connector' = 'filesystem', "
                  f"'path' = '{tmp_path}/f.json', 'format' = 'json')")
    upsert = (f"'connector' = 'upsert-kafka', 'topic' = 'o', {KAFKA}, "
              "'key.format' = 'json', 'value.format' = 'json'")
    e.execute_sql(f"CREATE TABLE by_k (k INT, c BIGINT, PRIMARY KEY (k) NOT ENFORCED) WITH ({upsert})")
    e.execute_sql(f"CREATE TABLE by_c (k INT, c BIGINT, PRIMARY KEY (c) NOT ENFORCED) WITH ({upsert})")
    e.execute_sql(f"CREATE TABLE app (k INT, v INT) WITH ('connector' = 'kafka', 'topic' = 'o', {KAFKA}, "
                  "'format' = 'json')")
    e.execute_sql("CREATE TABLE pr (k INT, c BIGINT) WITH ('connector' = 'print')")
    yield e
    e.close()


def _stages(env, sql: str) -> list[str]:
    text = env.execute_sql(f"EXPLAIN {sql}").message
    assert "== Stages ==" in text
    return text.split("== Stages ==\n")[1].splitlines()


def test_parallelism_one_has_no_stages(env):
    env.execute_sql("SET 'parallelism.default' = '1'")
    text = env.execute_sql("EXPLAIN INSERT INTO by_k SELECT k, COUNT(*) FROM a GROUP BY k").message
    assert "Stages" not in text and "Exchange" not in text


def test_group_by_is_cut_once_when_the_sink_key_follows_the_group_key(env):
    lines = _stages(env, "INSERT INTO by_k SELECT k, COUNT(*) FROM a GROUP BY k")
    assert lines[0] == "Stage 0: parallelism=4, operators=[scan, calc, exchange-sink]"
    assert lines[1] == ("  writes Exchange(distribution=[hash[k]], topic=[_streamsql-stg-s1-repartition], "
                        "partitions=[4])")
    assert lines[2].startswith("Stage 1: parallelism=4, operators=[exchange-source, group-agg, calc")
    assert lines[2].endswith(", sink]")
    assert len([ln for ln in lines if ln.startswith("Stage")]) == 2


def test_upsert_sink_on_another_key_gets_its_own_exchange(env):
    # Flink 2.3 refuses the key mismatch unless ON CONFLICT or this key says what to do
    env.execute_sql("SET 'table.exec.sink.upsert-materialize' = 'NONE'")
    lines = _stages(env, "INSERT INTO by_c SELECT k, COUNT(*) FROM a GROUP BY k")
    stages = [ln for ln in lines if ln.startswith("Stage")]
    assert len(stages) == 3
    assert any("distribution=[hash[c]]" in ln for ln in lines)


def test_join_sides_are_exchanged_by_their_keys(env):
    lines = _stages(env, "INSERT INTO app SELECT a.k, b.v FROM a JOIN b ON a.k = b.k")
    stages = [ln for ln in lines if ln.startswith("Stage")]
    assert len(stages) == 3
    assert stages[2].startswith("Stage 2: parallelism=4, operators=[exchange-source, exchange-source, join")
    assert sum("reads _streamsql-stg-s2" in ln for ln in lines) == 2


def test_stateless_job_is_one_stage(env):
    lines = _stages(env, "INSERT INTO app SELECT k, v + 1 FROM a WHERE v > 0")
    assert len(lines) == 2
    assert lines[0].startswith("Stage 0: parallelism=4, operators=[scan, calc")
    assert lines[1].startswith("  writes Sink(table=[app]")


def test_a_non_kafka_source_stage_runs_one_task(env):
    lines = _stages(env, "INSERT INTO by_k SELECT k, COUNT(*) FROM f GROUP BY k")
    assert lines[0].startswith("Stage 0: parallelism=1,")
    assert lines[2].startswith("Stage 1: parallelism=4,")
    assert "(from stage 0, 1 tasks)" in lines[3]


def test_a_job_without_kafka_cannot_exchange(env):
    with pytest.raises(PlanError, match="must read or write a Kafka table"):
        env.execute_sql("EXPLAIN INSERT INTO pr SELECT k, COUNT(*) FROM f GROUP BY k")


def test_not_in_is_refused_and_not_exists_is_cut_by_its_keys(env):
    with pytest.raises(PlanError, match="NOT IN cannot run with 'parallelism.default' > 1"):
        env.execute_sql("EXPLAIN INSERT INTO by_k SELECT k, COUNT(*) FROM a WHERE k NOT IN (SELECT k FROM b) "
                        "GROUP BY k")
    lines = _stages(env, "INSERT INTO by_k SELECT k, COUNT(*) FROM a "
                         "WHERE NOT EXISTS (SELECT 1 FROM b WHERE b.k = a.k) GROUP BY k")
    assert any("semi-join" in ln for ln in lines if ln.startswith("Stage 2"))


def test_row_not_in_without_key_is_exchanged_to_one_key(env):
    """A row NOT IN (null-aware per column) has no equi-key: both sides go to one key (Flink's single)."""
    lines = _stages(env, "INSERT INTO by_k SELECT k, COUNT(*) FROM a WHERE (k, v) NOT IN "
                         "(SELECT k, v FROM b) GROUP BY k")
    semi = next(ln for ln in lines if ln.startswith("Stage") and "semi-join" in ln)
    stage = semi.split(":")[0].split()[-1]
    writes = [ln for ln in lines if "writes Exchange" in ln and f"-s{stage}-" in ln]
    assert len(writes) == 2 and all("distribution=[single]" in ln for ln in writes), lines
    assert "parallelism=1," in semi, semi

def _event_time_tables(env):
    for name in ("ea", "eb"):
        env.execute_sql(f"CREATE TABLE {name} (k INT, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) "
                        f"WITH ('connector' = 'kafka', 'topic' = '{name}', {KAFKA}, 'format' = 'json')")
    env.execute_sql(f"CREATE TABLE ver (k INT, v INT, ts TIMESTAMP(3), PRIMARY KEY (k) NOT ENFORCED, "
                    f"WATERMARK FOR ts AS ts) WITH ('connector' = 'upsert-kafka', 'topic' = 'ver', {KAFKA}, "
                    "'key.format' = 'json', 'value.format' = 'json')")


def test_over_aggregate_is_cut_by_its_partition_by(env):
    _event_time_tables(env)
    lines = _stages(env, "INSERT INTO app SELECT k, CAST(SUM(v) OVER (PARTITION BY k ORDER BY ts) AS INT) "
                         "FROM ea")
    stages = [ln for ln in lines if ln.startswith("Stage")]
    assert len(stages) == 2
    assert "distribution=[hash[k]]" in lines[1]  # Flink's Exchange(distribution=[hash[k]])
    assert stages[1].startswith("Stage 1: parallelism=4, operators=[exchange-source, over-agg")


def test_temporal_and_window_joins_exchange_both_sides_by_their_keys(env):
    _event_time_tables(env)
    lines = _stages(env, "INSERT INTO app SELECT ea.k, ver.v FROM ea JOIN ver FOR SYSTEM_TIME AS OF ea.ts "
                         "ON ea.k = ver.k")
    stages = [ln for ln in lines if ln.startswith("Stage")]
    assert len(stages) == 3
    assert "operators=[exchange-source, exchange-source, temporal-join" in stages[2]
    assert sum("distribution=[hash[k]]" in ln for ln in lines) == 2
    tumble = "SELECT * FROM TABLE(TUMBLE(TABLE {}, DESCRIPTOR(ts), INTERVAL '1' MINUTE))"
    lines = _stages(env, f"INSERT INTO app SELECT x.k, y.v FROM ({tumble.format('ea')}) x JOIN "
                         f"({tumble.format('eb')}) y ON x.window_start = y.window_start "
                         "AND x.window_end = y.window_end AND x.k = y.k")
    stages = [ln for ln in lines if ln.startswith("Stage")]
    assert len(stages) == 3
    assert "window-join" in stages[2]


def test_session_tvf_rows_are_cut_by_its_partition_by(env):
    """A SESSION TVF read without aggregation keeps rows per PARTITION BY key: exchanged by it (session35)."""
    env.execute_sql("CREATE TABLE ev (k INT, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' "
                    f"SECOND) WITH ('connector' = 'kafka', 'topic' = 'session35_ev', {KAFKA}, "
                    "'format' = 'json')")
    env.execute_sql(f"CREATE TABLE ses (k INT, v INT) WITH ('connector' = 'kafka', 'topic' = 'o', {KAFKA}, "
                    "'format' = 'json')")
    lines = _stages(env, "INSERT INTO ses SELECT k, v FROM TABLE(SESSION(TABLE ev PARTITION BY k, "
                         "DESCRIPTOR(ts), INTERVAL '5' SECOND))")
    assert lines[0].startswith("Stage 0: parallelism=4") and lines[0].endswith("exchange-sink]")
    assert "distribution=[hash[k]]" in lines[1]
    assert "window-tvf" in lines[2] and lines[2].startswith("Stage 1: parallelism=4")
    plain = _stages(env, "INSERT INTO ses SELECT k, v FROM TABLE(SESSION(TABLE ev, DESCRIPTOR(ts), "
                         "INTERVAL '5' SECOND))")  # all rows one session key: one task
    assert "distribution=[single]" in plain[1] and plain[2].startswith("Stage 1: parallelism=1")
