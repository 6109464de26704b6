"""More queries of the crash campaign (:mod:`.chaos`): windows, joins, Top-N, OVER, two sinks.

Each :class:`Query` is the job's SQL after the source table ``src`` (and the view ``both_halves``,
its two halves through a UNION ALL, so barrier alignment runs), and the comparison of the
committed output with DuckDB over every produced record (table ``r``: ``id, k, v, g, ts``):

- ``window-upsert``: CUMULATE windows (step 5 s, size 10 s) of count/sum per ``g`` into
  ``upsert-kafka`` keyed by ``(g, ws, we)`` (``ON CONFLICT DO DEDUPLICATE``: a window aggregate
  has no upsert key, so Flink 2.3 asks for the clause); DuckDB puts each record into the 5-second window of
  its 10-second bucket when it falls in the first half, and into the whole bucket always;
- ``interval-join``: an event-time interval join of two halves of the input (``v % 3``) on ``k``
  with ``b.ts BETWEEN a.ts - 2 s AND a.ts + 1 s``, into an exactly-once ``kafka`` sink, compared
  as a multiset with DuckDB's join;
- ``window-topn``: the top 2 records per ``g`` of each 10-second TUMBLE window by ``v DESC, id``
  (Flink's window Top-N: emitted once when the window fires), into an exactly-once ``kafka``
  sink, compared as a multiset;
- ``multi-topic``: a filter into one exactly-once ``kafka`` sink whose ``'topic'`` lists ``out``
  and ``out2``, each row naming its topic in a ``topic`` metadata column (``v % 2``): one
  transaction over both topics; each topic is compared with its own rows;
- ``temporal-sort``: every record, ``ORDER BY ts, k DESC`` without LIMIT (Flink's TemporalSort:
  rows held in state until the watermark passes their rowtime), into an exactly-once ``kafka``
  sink: the one output partition must hold DuckDB's ``ORDER BY ts, k DESC`` row for row, in
  that order (``misplaced``: the rows out of place; each input partition is in rowtime order,
  so no row is late);
- ``over-nontime``: per ``id % 4000`` (five records each), COUNT and SUM of ``v`` over the rows
  ordered by ``v`` (``RANGE
  BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW``: an OVER window ordered by a non-time column,
  Flink 2.1+'s updating result; each new row updates the rows after it) into ``upsert-kafka``
  keyed by ``id`` (``ON CONFLICT DO DEDUPLICATE``: the OVER result has no upsert key); DuckDB's
  window function gives each record's final row (peers share one, so arrival order does not
  matter);
- ``two-sinks``: one ``EXECUTE STATEMENT SET`` with a ``GROUP BY k`` count/sum into
  ``upsert-kafka`` and a filter into an exactly-once ``kafka`` sink on a second topic: both
  sinks commit in the job's one transaction, so a crash between them is impossible by design;
  both topics are compared (lost and duplicated summed).
- ``session-tvf``: the rows of a SESSION window TVF (``PARTITION BY g``, gap 300 ms: sessions
  open across checkpoints and merge where rows of the 3 partitions come out of order) into an
  exactly-once ``kafka`` sink, each row once with its session's bounds (DuckDB's gaps and islands).
- ``prefix-sinks``: ``two-sinks`` with a third exactly-once sink (the rest of the rows into
  ``out2``), each sink with its own ``'sink.transactional-id-prefix'`` (``chaos-a``, ``chaos+b``,
  ``chaos-c``: the task's transaction takes the joined id).

The output topics: ``out`` (and ``out2`` for ``two-sinks`` and ``multi-topic``), compacted when
:attr:`Query.upsert` names them.
"""

from __future__ import annotations

import collections
from dataclasses import dataclass
from datetime import datetime
from typing import Callable

import orjson

_KAFKA = """'connector' = 'kafka', 'topic' = '{topic}', 'properties.bootstrap.servers' = '{bootstrap}',
  'format' = 'json', 'sink.delivery-guarantee' = '{guarantee}'"""
_UPSERT = """'connector' = 'upsert-kafka', 'topic' = '{topic}',
  'properties.bootstrap.servers' = '{bootstrap}', 'key.format' = 'json', 'value.format' = 'json'"""
_HALVES = """CREATE VIEW both_halves AS
  SELECT * FROM src WHERE MOD(k, 2) = 0 UNION ALL SELECT * FROM src WHERE MOD(k, 2) = 1;
"""

Outputs = dict[str, list[tuple[bytes | None, bytes | None]]]


@dataclass(frozen=True)
class Query:
    """One campaign query.

    Attributes:
        sql: the statements after ``src``; ``{kafka_out}``, ``{upsert_out}`` and ``{kafka_out2}``
            stand for the WITH options of a ``kafka`` / ``upsert-kafka`` sink on ``out`` or ``out2``,
            ``{kafka_out_both}`` for a ``kafka`` sink listing both (rows name their topic),
            ``{out}`` and ``{out2}`` for the topics' names.
        compare: ``compare(con, outputs)`` → (lost, duplicated); ``con`` a DuckDB connection
            holding ``r``, ``outputs`` the committed records of each output topic by name.
        upsert: the output topics written by ``upsert-kafka`` (created compacted).
        topics: the output topics the job writes.
        misplaced: for a query whose output order is part of its answer, ``misplaced(con,
            outputs)`` → how many committed rows are not where DuckDB's order puts them.
    """

    sql: str
    compare: Callable[[object, Outputs], tuple[int, int]]
    upsert: tuple[str, ...] = ()
    topics: tuple[str, ...] = ("out",)
    misplaced: Callable[[object, Outputs], int] | None = None

    def script(self, out: str, bootstrap: str, guarantee: str) -> str:
        """The query's statements for output topic ``out`` (``out2``: ``out`` + ``"_2"``)."""
        fill = {"bootstrap": bootstrap, "guarantee": guarantee}
        return self.sql.format(kafka_out=_KAFKA.format(topic=out, **fill),
                               upsert_out=_UPSERT.format(topic=out, **fill),
                               kafka_out2=_KAFKA.format(topic=out + "_2", **fill),
                               kafka_out_both=_KAFKA.format(topic=f"{out};{out}_2", **fill),
                               out=out, out2=out + "_2")


def multiset(expected: list, actual: list) -> tuple[int, int]:
    """(lost, duplicated) of two row lists compared as multisets."""
    e, a = collections.Counter(expected), collections.Counter(actual)
    return sum((e - a).values()), sum((a - e).values())


def fold_upsert(output: list, key_of: Callable[[dict], tuple], row_of: Callable[[dict], tuple]) -> list:
    """The rows an upsert topic ends with: each key's last value, a tombstone deleting it."""
    rows: dict = {}
    for key, value in output:
        k = key_of(orjson.loads(key))
        if value is None:
            rows.pop(k, None)
        else:
            rows[k] = row_of(orjson.loads(value))
    return list(rows.values())


def _values(output: list, row_of: Callable[[dict], tuple]) -> list:
    return [row_of(orjson.loads(v)) for _, v in output]


_WINDOW_UPSERT_SQL = _HALVES + """CREATE TABLE out_t (g INT, ws TIMESTAMP(3), we TIMESTAMP(3), n BIGINT,
  s BIGINT, PRIMARY KEY (g, ws, we) NOT ENFORCED) WITH ({upsert_out});
INSERT INTO out_t SELECT g, window_start, window_end, COUNT(*), SUM(v) FROM TABLE(CUMULATE(TABLE both_halves,
  DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '10' SECOND)) GROUP BY g, window_start, window_end
  ON CONFLICT DO DEDUPLICATE;
"""


def _window_upsert(con, outputs: Outputs) -> tuple[int, int]:
    expected = con.execute("""
        WITH b AS (SELECT g, v, ts, time_bucket(INTERVAL 10 SECOND, ts) AS ws FROM r),
             w AS (SELECT g, v, ws, ws + INTERVAL 10 SECOND AS we FROM b
                   UNION ALL SELECT g, v, ws, ws + INTERVAL 5 SECOND FROM b WHERE ts < ws + INTERVAL 5 SECOND)
        SELECT g, strftime(ws, '%Y-%m-%d %H:%M:%S'), strftime(we, '%Y-%m-%d %H:%M:%S'), COUNT(*), SUM(v)
        FROM w GROUP BY ALL""").fetchall()
    actual = fold_upsert(outputs["out"], lambda k: (k["g"], k["ws"], k["we"]),
                         lambda r: (r["g"], r["ws"][:19], r["we"][:19], r["n"], r["s"]))
    return multiset(expected, actual)


_INTERVAL_JOIN_SQL = """CREATE TABLE out_t (aid BIGINT, bid BIGINT, s INT) WITH ({kafka_out});
CREATE VIEW a AS SELECT * FROM src WHERE MOD(v, 3) = 0;
CREATE VIEW b AS SELECT * FROM src WHERE MOD(v, 3) = 1;
INSERT INTO out_t SELECT a.id, b.id, a.v + b.v FROM a JOIN b ON a.k = b.k
  AND b.ts BETWEEN a.ts - INTERVAL '2' SECOND AND a.ts + INTERVAL '1' SECOND;
"""


def _interval_join(con, outputs: Outputs) -> tuple[int, int]:
    expected = con.execute("""
        SELECT a.id, b.id, a.v + b.v FROM r a JOIN r b ON a.k = b.k AND a.v % 3 = 0 AND b.v % 3 = 1
        AND b.ts BETWEEN a.ts - INTERVAL 2 SECOND AND a.ts + INTERVAL 1 SECOND""").fetchall()
    return multiset(expected, _values(outputs["out"], lambda r: (r["aid"], r["bid"], r["s"])))


_WINDOW_TOPN_SQL = _HALVES + """CREATE TABLE out_t (g INT, ws TIMESTAMP(3), rn BIGINT, id BIGINT, v INT)
  WITH ({kafka_out});
INSERT INTO out_t SELECT g, window_start, rn, id, v FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end, g ORDER BY v DESC, id ASC) AS rn
  FROM TABLE(TUMBLE(TABLE both_halves, DESCRIPTOR(ts), INTERVAL '10' SECOND))) WHERE rn <= 2;
"""


def _window_topn(con, outputs: Outputs) -> tuple[int, int]:
    expected = con.execute("""
        SELECT g, strftime(ws, '%Y-%m-%d %H:%M:%S'), rn, id, v FROM (
          SELECT g, id, v, time_bucket(INTERVAL 10 SECOND, ts) AS ws,
                 ROW_NUMBER() OVER (PARTITION BY time_bucket(INTERVAL 10 SECOND, ts), g
                                    ORDER BY v DESC, id) AS rn
          FROM r) WHERE rn <= 2""").fetchall()
    actual = _values(outputs["out"], lambda r: (r["g"], r["ws"][:19], r["rn"], r["id"], r["v"]))
    return multiset(expected, actual)


_TWO_SINKS_SQL = _HALVES + """CREATE TABLE agg_t (k INT, n BIGINT, s BIGINT, PRIMARY KEY (k) NOT ENFORCED)
  WITH ({upsert_out});
CREATE TABLE filt_t (id BIGINT, k INT, v2 INT) WITH ({kafka_out2});
EXECUTE STATEMENT SET BEGIN
INSERT INTO agg_t SELECT k, COUNT(*), SUM(v) FROM both_halves GROUP BY k;
INSERT INTO filt_t SELECT id, k, v * 2 FROM both_halves WHERE MOD(v, 3) <> 0;
END;
"""


_PREFIX_SINKS_SQL = _HALVES + """CREATE TABLE agg_t (k INT, n BIGINT, s BIGINT, PRIMARY KEY (k) NOT ENFORCED)
  WITH ({upsert_out}, 'sink.delivery-guarantee' = 'exactly-once',
  'sink.transactional-id-prefix' = 'chaos-a');
CREATE TABLE filt_t (id BIGINT, k INT, v2 INT) WITH ({kafka_out2},
  'sink.transactional-id-prefix' = 'chaos+b');
CREATE TABLE rest_t (id BIGINT, k INT, v2 INT) WITH ({kafka_out2},
  'sink.transactional-id-prefix' = 'chaos-c');
EXECUTE STATEMENT SET BEGIN
INSERT INTO agg_t SELECT k, COUNT(*), SUM(v) FROM both_halves GROUP BY k;
INSERT INTO filt_t SELECT id, k, v * 2 FROM both_halves WHERE MOD(v, 3) <> 0;
INSERT INTO rest_t SELECT id, k, v * 2 FROM both_halves WHERE MOD(v, 3) = 0;
END;
"""


def _prefix_sinks(con, outputs: Outputs) -> tuple[int, int]:
    """``prefix-sinks``: as ``two-sinks``, a third sink writing the rest of the rows into ``out2``."""
    agg = multiset(con.execute("SELECT k, COUNT(*), SUM(v) FROM r GROUP BY k").fetchall(),
                   fold_upsert(outputs["out"], lambda k: k["k"], lambda r: (r["k"], r["n"], r["s"])))
    rows = multiset(con.execute("SELECT id, k, v * 2 FROM r").fetchall(),
                    _values(outputs["out2"], lambda r: (r["id"], r["k"], r["v2"])))
    return agg[0] + rows[0], agg[1] + rows[1]


_SESSION_TVF_SQL = _HALVES + """CREATE TABLE out_t (id BIGINT, g INT, ws TIMESTAMP(3), we TIMESTAMP(3))
  WITH ({kafka_out});
INSERT INTO out_t SELECT id, g, window_start, window_end FROM TABLE(SESSION(TABLE both_halves PARTITION BY g,
  DESCRIPTOR(ts), INTERVAL '0.3' SECOND));
"""


def _session_tvf(con, outputs: Outputs) -> tuple[int, int]:
    """``session-tvf``: each row once, in its ``g``'s session.

    A new session where two rows are more than 300 ms apart: windows that touch merge (Flink's
    ``TimeWindow.intersects``, as :mod:`~streamsql.runtime.operators.session_window`).
    """
    expected = con.execute("""
        WITH o AS (SELECT id, g, ts, CASE WHEN ts - LAG(ts) OVER (PARTITION BY g ORDER BY ts, id)
                                      > INTERVAL 300 MILLISECOND THEN 1 ELSE 0 END AS brk FROM r),
             s AS (SELECT *, SUM(brk) OVER (PARTITION BY g ORDER BY ts, id ROWS UNBOUNDED PRECEDING) AS sid
                   FROM o)
        SELECT id, g, MIN(ts) OVER (PARTITION BY g, sid), MAX(ts) OVER (PARTITION BY g, sid)
               + INTERVAL 300 MILLISECOND FROM s""").fetchall()
    actual = _values(outputs["out"], lambda r: (r["id"], r["g"], datetime.fromisoformat(r["ws"]),
                                                datetime.fromisoformat(r["we"])))
    return multiset(expected, actual)


def _two_sinks(con, outputs: Outputs) -> tuple[int, int]:
    agg = multiset(con.execute("SELECT k, COUNT(*), SUM(v) FROM r GROUP BY k").fetchall(),
                   fold_upsert(outputs["out"], lambda k: k["k"], lambda r: (r["k"], r["n"], r["s"])))
    filt = multiset(con.execute("SELECT id, k, v * 2 FROM r WHERE v % 3 <> 0").fetchall(),
                    _values(outputs["out2"], lambda r: (r["id"], r["k"], r["v2"])))
    return agg[0] + filt[0], agg[1] + filt[1]


_TEMPORAL_SORT_SQL = _HALVES + """CREATE TABLE out_t (id BIGINT, k INT, v INT, ts TIMESTAMP(3))
  WITH ({kafka_out});
INSERT INTO out_t SELECT id, k, v, ts FROM both_halves ORDER BY ts, k DESC;
"""


def _sorted_rows(con, outputs: Outputs) -> tuple[list, list]:
    """(DuckDB's rows in ORDER BY order, the committed rows in commit order)."""
    expected = con.execute("SELECT id, k, v, ts FROM r ORDER BY ts, k DESC").fetchall()
    actual = _values(outputs["out"], lambda r: (r["id"], r["k"], r["v"], datetime.fromisoformat(r["ts"])))
    return expected, actual


def _temporal_sort(con, outputs: Outputs) -> tuple[int, int]:
    return multiset(*_sorted_rows(con, outputs))


def _temporal_sort_misplaced(con, outputs: Outputs) -> int:
    expected, actual = _sorted_rows(con, outputs)
    return sum(e != a for e, a in zip(expected, actual)) + abs(len(expected) - len(actual))


_OVER_NONTIME_SQL = _HALVES + """CREATE TABLE out_t (id BIGINT, k INT, v INT, n BIGINT, s BIGINT,
  PRIMARY KEY (id) NOT ENFORCED) WITH ({upsert_out});
INSERT INTO out_t SELECT id, k, v, COUNT(*) OVER w, SUM(v) OVER w FROM both_halves
  WINDOW w AS (PARTITION BY MOD(id, 4000) ORDER BY v RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
  ON CONFLICT DO DEDUPLICATE;
"""


def _over_nontime(con, outputs: Outputs) -> tuple[int, int]:
    expected = con.execute("""SELECT id, k, v, COUNT(*) OVER w, SUM(v) OVER w FROM r
        WINDOW w AS (PARTITION BY id % 4000 ORDER BY v RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)"""
                           ).fetchall()
    actual = fold_upsert(outputs["out"], lambda k: k["id"],
                         lambda r: (r["id"], r["k"], r["v"], r["n"], r["s"]))
    return multiset(expected, actual)


_MULTI_TOPIC_SQL = _HALVES + """CREATE TABLE out_t (id BIGINT, tp STRING METADATA FROM 'topic', k INT, v2 INT)
  WITH ({kafka_out_both});
INSERT INTO out_t SELECT id, CASE WHEN MOD(v, 2) = 0 THEN '{out}' ELSE '{out2}' END, k, v * 2
  FROM both_halves WHERE MOD(v, 3) <> 0;
"""


def _multi_topic(con, outputs: Outputs) -> tuple[int, int]:
    """Each topic compared with its own rows: a row in the other topic is lost here, duplicated there."""
    lost = dup = 0
    for name, rest in (("out", 0), ("out2", 1)):
        expected = con.execute(f"SELECT id, k, v * 2 FROM r WHERE v % 3 <> 0 AND v % 2 = {rest}").fetchall()
        got = multiset(expected, _values(outputs[name], lambda r: (r["id"], r["k"], r["v2"])))
        lost, dup = lost + got[0], dup + got[1]
    return lost, dup


QUERIES: dict[str, Query] = {
    "window-upsert": Query(_WINDOW_UPSERT_SQL, _window_upsert, upsert=("out",)),
    "interval-join": Query(_INTERVAL_JOIN_SQL, _interval_join),
    "window-topn": Query(_WINDOW_TOPN_SQL, _window_topn),
    "two-sinks": Query(_TWO_SINKS_SQL, _two_sinks, upsert=("out",), topics=("out", "out2")),
    "session-tvf": Query(_SESSION_TVF_SQL, _session_tvf),
    "prefix-sinks": Query(_PREFIX_SINKS_SQL, _prefix_sinks, upsert=("out",), topics=("out", "out2")),
    "multi-topic": Query(_MULTI_TOPIC_SQL, _multi_topic, topics=("out", "out2")),
    "over-nontime": Query(_OVER_NONTIME_SQL, _over_nontime, upsert=("out",)),
    "temporal-sort": Query(_TEMPORAL_SORT_SQL, _temporal_sort, misplaced=_temporal_sort_misplaced),
}
