"""A GROUP BY of BITMAP aggregates stopped with a savepoint, then resumed from it.

The first rows go to a Kafka topic and an unbounded job aggregates them per key into an
``upsert-kafka`` topic (each bitmap written as BITMAP_TO_STRING's text: no format takes a
BITMAP); ``STOP JOB ... WITH SAVEPOINT`` keeps the accumulators (pyroaring bitmaps and value
counts, state's BITMAP extension type). The remaining rows follow, among them the updates of an
inner GROUP BY that retract earlier bitmaps, and a second job started from the savepoint reads to
the end of the topic. The last value per key must be the Python oracle's over all rows: a bitmap
lost or counted twice across the restore would show.
"""

from __future__ import annotations

import uuid

import orjson
from pyroaring import BitMap

from streamsql.core import bitmap
from tests.e2e.savepoint_resume import stop_then_resume
from tests.integration.test_kafka_connectors import read_all

ROWS = [{"k": f"k{n % 3}", "g": f"g{n % 5}", "i": (n * 7) % 23 - 5} for n in range(60)]
CUT = 25


def _ddl(env, bootstrap: str, src: str, out: str, bounded: bool) -> None:
    bound = ", 'scan.bounded.mode' = 'latest-offset'" if bounded else ""
    env.execute_sql(f"""CREATE TABLE src (k STRING, g STRING, i INT) WITH ('connector' = 'kafka',
      'topic' = '{src}', 'properties.bootstrap.servers' = '{bootstrap}', 'format' = 'json',
      'scan.startup.mode' = 'earliest-offset'{bound})""")
    env.execute_sql(f"""CREATE TABLE out_rows (k STRING, built STRING, n BIGINT, anded STRING, ored STRING,
      xored STRING, PRIMARY KEY (k) NOT ENFORCED) WITH ('connector' = 'upsert-kafka', 'topic' = '{out}',
      'properties.bootstrap.servers' = '{bootstrap}', 'key.format' = 'json', 'value.format' = 'json')""")


#: the inner GROUP BY's bitmaps change with every row of their group: the outer aggregates retract
INSERT = """INSERT INTO out_rows
SELECT k, BITMAP_TO_STRING(BITMAP_OR_AGG(bm)), BITMAP_OR_CARDINALITY_AGG(bm),
       BITMAP_TO_STRING(BITMAP_AND_AGG(bm)), BITMAP_TO_STRING(BITMAP_OR_AGG(bm)),
       BITMAP_TO_STRING(BITMAP_XOR_AGG(bm))
FROM (SELECT k, g, BITMAP_BUILD_AGG(i) AS bm FROM src GROUP BY k, g) GROUP BY k"""


def _oracle() -> dict:
    inner: dict = {}
    for r in ROWS:
        inner.setdefault((r["k"], r["g"]), BitMap()).add(bitmap.element(r["i"]))
    out = {}
    for k in sorted({k for k, _ in inner}):
        maps = [m for (kk, _), m in inner.items() if kk == k]
        xor = BitMap()
        for m in maps:
            xor ^= m
        union = BitMap.union(*maps)
        out[k] = {"k": k, "built": bitmap.text(union), "n": len(union),
                  "anded": bitmap.text(BitMap.intersection(*maps)), "ored": bitmap.text(union),
                  "xored": bitmap.text(xor)}
    return out


def test_bitmap_group_by_stopped_with_a_savepoint_and_resumed(kafka_bootstrap, kafka_topic_factory, tmp_path):
    src, out = kafka_topic_factory("bitmap33_sp_src", 1), kafka_topic_factory("bitmap33_sp_out", 1)
    name = f"bitmap-savepoint-{uuid.uuid4().hex[:6]}"
    first = stop_then_resume(kafka_bootstrap, src, ROWS, CUT, tmp_path, name,
                             lambda env, bounded: _ddl(env, kafka_bootstrap, src, out, bounded), INSERT,
                             after_stop=lambda: _latest(kafka_bootstrap, out))
    assert first, "the first job wrote its results"
    assert _latest(kafka_bootstrap, out) == _oracle()


def _latest(bootstrap: str, topic: str) -> dict:
    """The last committed value per key of an upsert topic (a tombstone removes the key)."""
    latest: dict = {}
    for _, _, key, value in read_all(bootstrap, topic):
        if value is None:
            latest.pop(orjson.loads(key)["k"], None)
        else:
            latest[orjson.loads(key)["k"]] = orjson.loads(value)
    return latest
