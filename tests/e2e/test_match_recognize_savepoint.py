"""MATCH_RECOGNIZE stopped with a savepoint in the middle of its matches, then started from it.

The compat case ``match_greedy_overlap`` holds Flink 2.3's matches. Its first rows go to a Kafka
topic and an unbounded job runs until it has read them; ``STOP JOB ... WITH SAVEPOINT`` then
leaves pending rows and open partial matches in the savepoint. The remaining rows follow, and a
second job started from the savepoint reads to the end of the topic (bounded). The two jobs'
committed output together must be Flink's matches: none lost, none twice.
"""

from __future__ import annotations

import json
from collections import Counter
from datetime import datetime
from pathlib import Path

import orjson

from tests.e2e.savepoint_resume import stop_then_resume
from tests.integration.test_kafka_connectors import read_all

CASE = Path(__file__).resolve().parents[1] / "compat" / "cases" / "match_greedy_overlap"
CUT = 9  # rows in the topic when the first job stops (a match is open at row 9)


def _ddl(env, bootstrap: str, src: str, out: str, bounded: bool) -> None:
    bound = ", 'scan.bounded.mode' = 'latest-offset'" if bounded else ""
    env.execute_sql(f"""CREATE TABLE Ticker (symbol STRING, price BIGINT, tax BIGINT, rowtime TIMESTAMP(3),
      WATERMARK FOR rowtime AS rowtime - INTERVAL '1' SECOND) WITH ('connector' = 'kafka', 'topic' = '{src}',
      'properties.bootstrap.servers' = '{bootstrap}', 'format' = 'json',
      'scan.startup.mode' = 'earliest-offset'{bound})""")
    env.execute_sql(f"""CREATE TABLE out_rows (symbol STRING, a BIGINT, bs BIGINT, nb BIGINT, c BIGINT,
      t TIMESTAMP(3)) WITH ('connector' = 'kafka', 'topic' = '{out}', 'properties.bootstrap.servers' =
      '{bootstrap}', 'format' = 'json')""")


def test_savepoint_mid_match_then_resume_gives_flinks_matches(kafka_bootstrap, kafka_topic_factory,
                                                              tmp_path):
    src, out = kafka_topic_factory("mr_sp_src", 1), kafka_topic_factory("mr_sp_out", 1)
    rows = [json.loads(line) for line in (CASE / "ticker.jsonl").read_text().splitlines()]
    insert = "INSERT INTO out_rows" + (CASE / "case.sql").read_text().split("INSERT INTO out_rows", 1)[1]
    before = stop_then_resume(kafka_bootstrap, src, rows, CUT, tmp_path, "mr-savepoint",
                              lambda env, bounded: _ddl(env, kafka_bootstrap, src, out, bounded), insert,
                              after_stop=lambda: len(_values(kafka_bootstrap, out)))
    expected = Counter((*r[:5], datetime.fromisoformat(r[5]))
                       for r in json.loads((CASE / "expected.json").read_text())["rows"])
    got = Counter((v["symbol"], *(str(v[k]) for k in ("a", "bs", "nb", "c")), datetime.fromisoformat(v["t"]))
                  for v in _values(kafka_bootstrap, out))
    assert got == expected
    assert 0 < before < sum(expected.values()), "the stop must fall between matches"


def _values(bootstrap: str, topic: str) -> list[dict]:
    return [orjson.loads(value) for _, _, _, value in read_all(bootstrap, topic)]
