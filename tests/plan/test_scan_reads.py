"""Which columns of a scan the job reads (streamsql/plan/scan_reads.py), and that the runtime
hands them to a Kafka source, whose JSON value decoder then skips the unread STRING columns."""

from __future__ import annotations

import pytest
from sqlglot import parse_one

from streamsql.core.config import Config
from streamsql.plan.nodes import walk
from streamsql.plan.planner import Planner
from streamsql.plan.scan_reads import field_paths, scan_reads
from streamsql.runtime.builder import build_job
from streamsql.sql.dialect import Flink

BIDS = ("(auction BIGINT, bidder BIGINT, price BIGINT, channel STRING, url STRING, "
        "date_time TIMESTAMP(3), extra STRING{extra}) WITH ('connector' = 'datagen', 'number-of-rows' = '5')")


@pytest.fixture
def env(planning_env):
    e = planning_env("(k INT)", (), 1)
    e.execute_sql("CREATE TABLE bids " + BIDS.format(extra=""))
    e.execute_sql("CREATE TABLE bidsw " + BIDS.format(
        extra=", WATERMARK FOR date_time AS date_time - INTERVAL '1' SECOND"))
    e.execute_sql("CREATE TABLE bidsc " + BIDS.format(extra=", u AS UPPER(url)"))
    return e


def reads(env, sql: str) -> list:
    root = Planner(env.catalog, env.config, sql).plan_query(parse_one(sql, read=Flink))
    return [None if r is None else sorted(".".join(p) for p in r) for r in scan_reads(walk([root])).values()]


@pytest.mark.parametrize(("sql", "expected"), [
    ("SELECT auction, price, date_time FROM bids WHERE auction % 123 = 0",
     [["auction", "date_time", "price"]]),
    ("SELECT auction, COUNT(*) FROM bids GROUP BY auction", [["auction"]]),
    # the watermark assigner passes every column on: its readers' columns count, and the rowtime
    ("SELECT auction, window_start, window_end, COUNT(*) FROM TABLE(TUMBLE(TABLE bidsw, "
     "DESCRIPTOR(date_time), INTERVAL '10' SECOND)) GROUP BY auction, window_start, window_end",
     [["auction", "date_time"]]),
    ("SELECT auction, u FROM bidsc", [["auction", "url"]]),  # a computed column reads url
    # one scan read twice (sub-plan reuse): what either reader uses
    ("SELECT auction FROM bids UNION ALL SELECT price FROM bids", [["auction", "price"]]),
    ("SELECT * FROM bids", [None]),  # no Calc: the scan is the root
    ("SELECT 1 FROM bids", [None]),  # no column named: not narrowed
])
def test_scan_reads(env, sql, expected):
    assert reads(env, sql) == expected


def test_a_reader_other_than_a_calc_reads_every_column(env):
    env.execute_sql("CREATE TABLE `out` WITH ('connector' = 'blackhole') LIKE bids (EXCLUDING OPTIONS)")
    sql = "INSERT INTO `out` SELECT * FROM bids"
    sink = Planner(env.catalog, env.config, sql).plan_insert(parse_one(sql, read=Flink))
    assert [type(n).__name__ for n in walk([sink])] == ["ScanNode", "SinkNode"]
    assert list(scan_reads(walk([sink])).values()) == [None]


def test_kafka_source_decodes_the_read_columns_and_those_that_can_fail(env, tmp_path):
    """Q2's shape: the value decoder decodes auction, price, date_time and bidder (a BIGINT, which
    can make a record bad), not channel, url, extra (STRING: any JSON value converts)."""
    env.execute_sql("CREATE TABLE kbids (auction BIGINT, bidder BIGINT, price BIGINT, channel STRING, "
                    "url STRING, date_time TIMESTAMP(3), extra STRING) WITH ('connector' = 'kafka', "
                    "'topic' = 'never-read', 'properties.bootstrap.servers' = '127.0.0.1:1', "
                    "'format' = 'json', 'scan.startup.mode' = 'earliest-offset')")
    env.execute_sql("CREATE TABLE q2 (auction BIGINT, price BIGINT, date_time TIMESTAMP(3)) "
                    "WITH ('connector' = 'blackhole')")
    sql = "INSERT INTO q2 SELECT auction, price, date_time FROM kbids WHERE auction % 123 = 0"
    sink = Planner(env.catalog, env.config, sql).plan_insert(parse_one(sql, read=Flink))
    cfg = Config({**env.config.as_dict(), "streamsql.exec.pipeline.enabled": "false"})
    graph = build_job("scan-reads", [sink], cfg, {}, str(tmp_path / "work"))
    try:
        (driver,) = graph.sources
        assert driver.source.decoder.vdec.schema.names == ["auction", "bidder", "price", "date_time"]
    finally:
        graph.close()


KAFKA = ("WITH ('connector' = 'kafka', 'topic' = 'never-read', 'format' = 'json', "
         "'properties.bootstrap.servers' = '127.0.0.1:1', 'scan.startup.mode' = 'earliest-offset')")
EVENTS = ("(k INT, p ROW<x BIGINT, s STRING, ts TIMESTAMP(3), q ROW<a INT, b STRING>>, "
          "r ROW<y INT, t TIMESTAMP(3)>{extra}) " + KAFKA)


@pytest.fixture
def nested(env):
    env.execute_sql("CREATE TABLE ev " + EVENTS.format(extra=""))
    # Nexmark's shape: a computed column reading a field of each ROW, the watermark on it
    env.execute_sql("CREATE TABLE evw " + EVENTS.format(
        extra=", rt AS CASE WHEN k = 0 THEN p.ts ELSE r.t END, WATERMARK FOR rt AS rt - INTERVAL '1' SECOND"))
    env.execute_sql("CREATE VIEW pv AS SELECT p.x AS x, p.q.a AS a, rt FROM evw WHERE k = 0")
    return env


@pytest.mark.parametrize(("sql", "expected"), [
    ("SELECT k, p.x FROM ev", [["k", "p.x"]]),  # a projection
    ("SELECT k FROM ev WHERE p.s = 'a' AND r.y > 1", [["k", "p.s", "r.y"]]),  # a filter
    ("SELECT p['x'], p.q.a FROM ev", [["p.q.a", "p.x"]]),  # bracket access, a ROW in a ROW
    ("SELECT p.q, p.x FROM ev", [["p.q", "p.x"]]),  # all of a nested ROW
    ("SELECT p.x, p FROM ev", [["p"]]),  # the whole ROW as well: all of it
    ("SELECT k FROM ev WHERE p IS NULL", [["k", "p"]]),  # the ROW itself tested
    ("SELECT CAST(r AS STRING) FROM ev", [["r"]]),  # passed to a function
    ("SELECT k FROM ev WHERE r = ROW(1, TIMESTAMP '2024-01-01 00:00:00')", [["k", "r"]]),  # compared
    ("SELECT x, a FROM pv", [["k", "p.q.a", "p.ts", "p.x", "r.t"]]),  # computed column, watermark, view
    ("SELECT x, window_start FROM TABLE(TUMBLE(TABLE pv, DESCRIPTOR(rt), INTERVAL '1' SECOND))",
     [["k", "p.q.a", "p.ts", "p.x", "r.t"]]),
    ("SELECT p, rt FROM evw", [["k", "p", "r.t"]]),  # passed on whole by the computed column's Calc
    ("SELECT pp.x FROM (SELECT p AS pp, rt FROM evw)", [["k", "p.ts", "p.x", "r.t"]]),  # renamed on the way
    ("SELECT k, COUNT(*) FROM evw GROUP BY k", [["k", "p.ts", "r.t"]]),
])
def test_nested_fields_read(nested, sql, expected):
    assert reads(nested, sql) == expected


def test_a_row_read_by_a_sink_or_a_join_is_read_whole(nested):
    nested.execute_sql("CREATE TABLE sink_p (p ROW<x BIGINT, s STRING, ts TIMESTAMP(3), "
                       "q ROW<a INT, b STRING>>) WITH ('connector' = 'blackhole')")
    sql = "INSERT INTO sink_p SELECT p FROM evw"
    sink = Planner(nested.catalog, nested.config, sql).plan_insert(parse_one(sql, read=Flink))
    assert [sorted(".".join(p) for p in r) for r in scan_reads(walk([sink])).values()] == [["k", "p", "r.t"]]
    # the Calc below each input of the join computes a.p.x and b.r.y: the join reads those values
    assert reads(nested, "SELECT a.k FROM ev a JOIN ev b ON a.p.x = b.r.y") == [["k", "p.x", "r.y"]]
    assert reads(nested, "SELECT a.p, b.k FROM ev a JOIN ev b ON a.k = b.k") == [["k", "p"]]


def test_field_paths_of_compiled_sql():
    nested = """struct_extract((struct_extract(("p"), 'q')), 'a') + "k" """
    assert field_paths(nested) == [("p", "q", "a"), ("k",)]
    quoted = """CASE WHEN "k" = 0 THEN (struct_extract(("p"), 'it''s')) END"""
    assert field_paths(quoted) == [("k",), ("p", "it's")]
    assert field_paths("""f(("p"), 'x')""") == [("p",)]  # another function: all of p
    assert field_paths("""struct_extract("p", 'x' || 'y')""") == [("p",)]
    assert field_paths("""struct_extract(("p"), 1)""") == [("p",)]
