"""The wide generator's shapes from seed :data:`tests.runtime.query_fuzz_wide.V3` (200500) on.

Event time with late rows and equal timestamps, over ``tz`` (:func:`tz_rows`: ``t``'s columns and
an event-time ``ts`` read from the file, ``WATERMARK FOR ts AS ts - INTERVAL '2' SECOND``): rows of
equal rowtimes in runs, and out-of-order rows, some within the watermark's 2 s and some behind it
(late). Read in one task from a file, Flink's watermark assigner emits after each row that moves the
watermark by more than 200 ms, so which rows are late is the file's order, the same on every run.
Shapes: window aggregates of TUMBLE / HOP / CUMULATE with and without an offset (string and time
functions inside the aggregates, DISTINCT, FILTER, GROUPING SETS), window Top-N and deduplication
over equal rowtimes, window joins (of the rows that are not late: ``tzo``), OVER with bounded ROWS /
RANGE frames over several partitions,
deduplication on the rowtime, interval joins, and MATCH_RECOGNIZE (quantifiers, greedy and
reluctant, WITHIN, every AFTER MATCH SKIP, FIRST / LAST / aggregates in MEASURES, a secondary
ORDER BY column) over ``tz`` and ``tw``; and over ``t`` / ``cdc`` / ``cdx``: string and time
functions inside aggregates (DISTINCT and FILTER, under GROUPING SETS / ROLLUP / CUBE too).

Every query is checked against Flink 2.3's recorded answer only (``scripts/flink_queryfuzz.py``).
"""

from __future__ import annotations

import datetime as dt
import random
from pathlib import Path

from tests.runtime.oracle import COLUMNS, gen_rows, write_jsonl
from tests.runtime.query_fuzz import interval

#: ``tz``'s first rowtime; rows follow within about 7 minutes.
TZ_T0 = dt.datetime(2024, 1, 1)
N_TZ = 160


def tz_rows() -> list[dict]:
    """``tz``'s rows in file order: ``t``'s first :data:`N_TZ` rows (another seed) with a rowtime ``ts``.

    Each row's ``ts`` is the highest so far plus 0 s (a run of equal rowtimes: 30 %), 0.5, 1, 3 or
    6 s, or (12 %) behind it by 1 to 40 s: within the watermark's 2 s, or late.
    """
    rnd = random.Random(2030)
    rows, top = [], TZ_T0
    for r in gen_rows(seed=20261206, n=N_TZ):
        if rnd.random() < 0.12 and r["id"] > 3:
            ts = top - dt.timedelta(seconds=rnd.choice([1, 2, 3, 5, 9, 15, 25, 40]))
        else:
            top += dt.timedelta(seconds=rnd.choice([0, 0, 0, 0.5, 1, 1, 3, 6]))
            ts = top
        rows.append({**r, "ts": ts.strftime("%Y-%m-%d %H:%M:%S.") + f"{ts.microsecond // 1000:03d}"})
    return rows


def tz_late_ids(interval_ms: int = 200) -> list[int]:
    """The ids of ``tz``'s late rows (:func:`late_ids` of :func:`tz_rows`, a 2 s delay)."""
    return late_ids(tz_rows(), 2, interval_ms)


def late_ids(rows: list[dict], delay_s: float, interval_ms: int = 200) -> list[int]:
    """The ids of ``rows``' late rows: at or behind the watermark when they arrive, the watermark
    being the highest ``ts - delay_s`` so far, emitted after each row that moves it by more than
    ``interval_ms`` (Flink's ``WatermarkAssignerOperator`` reading the rows' file in one task)."""
    late, emitted, top = [], None, None
    for r in rows:
        ts = dt.datetime.fromisoformat(r["ts"])
        if emitted is not None and ts <= emitted:
            late.append(r["id"])
        mark = ts - dt.timedelta(seconds=delay_s)
        top = mark if top is None else max(top, mark)
        if emitted is None or top - emitted > dt.timedelta(milliseconds=interval_ms):
            emitted = top
    return late


def tz_file(d: Path) -> Path:
    """``tz``'s file in folder ``d`` (JSON lines)."""
    return write_jsonl(d / "tz.json", tz_rows())


def create_tz(env, path: Path) -> None:
    """``tz`` in ``env`` (``t``'s columns, ``ts TIMESTAMP(3)`` and a 2-second watermark) and the view
    ``tzo`` of its rows that are not late (:func:`tz_late_ids`).

    The joins read ``tzo``: a two-input operator's watermark is the lower of its inputs', and which
    input Flink's task reads first is timing, so whether it drops a late row is not the same on
    every run (seen: a late row of one side kept by a window join and an interval join).
    """
    cols = ", ".join(f"{c} {t}" for c, t, _ in COLUMNS)
    env.execute_sql(f"CREATE TABLE tz ({cols}, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - "
                    "INTERVAL '2' SECOND) "
                    f"WITH ('connector' = 'filesystem', 'path' = '{path}', 'format' = 'json')")
    late = ", ".join(map(str, tz_late_ids()))
    env.execute_sql(f"CREATE VIEW tzo AS SELECT * FROM tz WHERE id NOT IN ({late})")


#: Aggregates of a window (``tz``'s columns): string and time functions inside, DISTINCT, FILTER.
ZAGGS = [
    "COUNT(*)", "SUM(x)", "MAX(s)", "MIN(UPPER(s))", "COUNT(DISTINCT s)", "SUM(CHAR_LENGTH(s))",
    "MAX(DATE_FORMAT(ts, 'HH:mm:ss.SSS'))", "COUNT(*) FILTER (WHERE x > 10)", "AVG(x)", "MIN(ts)", "MAX(ts)",
    "SUM(DISTINCT k) FILTER (WHERE g <> 'a')", "MAX(EXTRACT(SECOND FROM ts))", "COUNT(DISTINCT g)",
    "MIN(CONCAT(g, ':', CAST(k AS STRING)))", "SUM(d)", "MAX(f)", "COUNT(DISTINCT FLOOR(ts TO SECOND))",
    "MAX(TIMESTAMPDIFF(SECOND, TIMESTAMP '2024-01-01 00:00:00', ts))", "MIN(x) FILTER (WHERE s LIKE '%e%')",
    "AVG(CHAR_LENGTH(s))", "SUM(b)",
]
#: Aggregates with string and time functions inside, over ``t`` / ``cdc`` / ``cdx`` (no time column).
AGG_FN = [
    "MAX(UPPER(s))", "MIN(LOWER(g))", "COUNT(DISTINCT SUBSTRING(s FROM 1 FOR 2))", "SUM(CHAR_LENGTH(s))",
    "MAX(CONCAT(g, '-', s))", "MIN(TRIM(s))", "COUNT(DISTINCT UPPER(s))", "MAX(REPLACE(s, 'a', ''))",
    "SUM(POSITION('e' IN s))", "MAX(CHAR_LENGTH(s)) FILTER (WHERE x > 0)",
    "COUNT(DISTINCT s) FILTER (WHERE k > 0)", "SUM(DISTINCT x) FILTER (WHERE g IN ('a', 'b'))",
    "AVG(CHAR_LENGTH(s))", "MIN(INITCAP(s))", "MAX(LPAD(s, 4, '*'))", "MAX(CAST(x AS STRING))",
    "MIN(REVERSE(s))", "COUNT(*) FILTER (WHERE s LIKE '%a%')",
    "MAX(TIMESTAMPADD(SECOND, x, TIMESTAMP '2024-01-01 00:00:00'))",
    "MIN(DATE_FORMAT(TIMESTAMPADD(MINUTE, k, TIMESTAMP '2024-01-01 00:00:00'), 'HH:mm'))",
    "COUNT(DISTINCT CHAR_LENGTH(s))", "SUM(x) FILTER (WHERE UPPER(s) = s)", "MAX(SPLIT_INDEX(s, ' ', 0))",
    "MIN(CAST(d AS STRING))", "AVG(DISTINCT k)", "COUNT(DISTINCT g) FILTER (WHERE x IS NOT NULL)",
]
#: MATCH_RECOGNIZE patterns: (pattern, its variables in order).
PATTERNS = [
    ("A B+ C", "ABC"), ("A B* C", "ABC"), ("A B+? C", "ABC"), ("A{2,3} B", "AB"), ("A B{2} C", "ABC"),
    ("A B? C", "ABC"), ("A C", "AC"), ("A B{1,} C", "ABC"), ("A B*? C", "ABC"), ("A+ B", "AB"),
    ("A B{2,}? C", "ABC"), ("A{2} B C?", "ABC"), ("A B+", "AB"), ("(A B) C", "ABC"),
]
DEFINES = {
    "A": ["A.x > 0", "A.x IS NOT NULL", "A.g = 'a'", "A.x < 0", "A.k >= 0"],
    "B": ["B.x > A.x", "B.x < LAST(B.x, 1) OR LAST(B.x, 1) IS NULL", "B.k = A.k", "B.x > 0",
          "B.s LIKE '%e%'", "B.x < 0 OR B.x IS NULL", "SUM(B.x) < 500"],
    "C": ["C.x > {p}.x", "C.x < 0", "C.g <> A.g", "C.x IS NULL OR C.k = 0", "C.x > AVG({p}.x)"],
}
MEASURES = {
    "A": ["FIRST(A.id) AS aid", "LAST(A.id) AS laid", "A.ts AS ats", "COUNT(A.id) AS na", "SUM(A.x) AS sa"],
    "B": ["COUNT(B.id) AS nb", "SUM(B.x) AS sb", "MAX(B.x) AS mxb", "LAST(B.ts) AS bts", "FIRST(B.id) AS fb",
          "LAST(B.id, 1) AS pb"],
    "C": ["LAST(C.id) AS cid", "C.x AS cx"],
    "": ["MIN(x) AS mnx", "AVG(x) AS ax", "COUNT(*) AS n", "MATCH_ROWTIME() AS mt", "LAST(id) AS lid",
         "MAX(s) AS ms"],
}


class WideGenV3:
    """The shapes :data:`tests.runtime.query_fuzz_wide.SHAPES_V3` adds (a mixin of ``WideGen``)."""

    def ztvf(self, table: str = "tz") -> str:
        kind = self.pick(["TUMBLE", "HOP", "CUMULATE"])
        step = self.pick([2, 5, 10, 30])
        off = f", {interval(self.pick([1, 3, -4, 7]))}" if self.r.random() < 0.4 else ""
        if kind == "TUMBLE":
            return f"TUMBLE(TABLE {table}, DESCRIPTOR(ts), {interval(step * self.r.randint(1, 2))}{off})"
        size = interval(step * self.r.randint(2, 4))
        return (f"{kind}(TABLE {table}, DESCRIPTOR(ts), {interval(step)}, {size}"
                f"{off})")

    def z_wagg(self) -> str:
        tvf = self.ztvf()
        key = self.pick(["", "g, ", "k, ", "g, k, "])
        aggs = self.r.sample(ZAGGS, self.r.randint(1, 3))
        w = f" WHERE {self.pred()}" if self.r.random() < 0.3 else ""
        sel = ", ".join(f"{a} AS a{i}" for i, a in enumerate(aggs))
        if key and self.r.random() < 0.3:
            keys = key.rstrip(", ").split(", ")
            sets = self.pick([f"GROUPING SETS (({keys[0]}), ())", f"ROLLUP ({', '.join(keys)})",
                              f"CUBE ({', '.join(keys)})"])
            return (f"SELECT {key}window_start, window_end, {sel} FROM TABLE({tvf}){w} "
                    f"GROUP BY window_start, window_end, {sets}")
        extra = self.pick(["", ", window_time"])
        return (f"SELECT {key}window_start, window_end{extra}, {sel} FROM TABLE({tvf}){w} "
                f"GROUP BY {key}window_start, window_end{extra}")

    def z_wtopn(self) -> str:
        tvf = self.ztvf()
        n = self.r.randint(1, 3)
        if self.r.random() < 0.6:
            order = self.pick(["ts", "ts DESC", "x DESC", "s", "k DESC, ts"])
            part = self.pick(["", "g, ", "k, "])
            nn = " AND ".join(f"{c.split()[0]} IS NOT NULL" for c in order.split(", "))
            return (f"SELECT id, ts, window_start, rn FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY "
                    f"{part}window_start, window_end ORDER BY {order}, id) AS rn FROM TABLE({tvf}) "
                    f"WHERE {nn}) WHERE rn <= {n}")
        key = self.pick(["g", "k"])
        agg = self.pick(ZAGGS)
        desc = self.pick(["DESC", "ASC"])
        return (f"SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY "
                f"c {desc}, {key} {desc}) AS rn FROM (SELECT {key}, window_start, window_end, COUNT(*) AS c, "
                f"{agg} AS a FROM TABLE({tvf}) GROUP BY {key}, window_start, window_end)) WHERE rn <= {n}")

    def z_wdedup(self) -> str:
        tvf = self.ztvf()
        part = self.pick(["", "g, ", "k, "])
        desc = self.pick(["ASC", "DESC"])
        return (f"SELECT id, ts, window_start, window_end FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY "
                f"{part}window_start, window_end ORDER BY ts {desc}) AS rn FROM TABLE({tvf})) WHERE rn = 1")

    def z_wjoin(self) -> str:
        tvf = self.ztvf("tzo")
        kind = self.pick(["JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL JOIN"])
        on = self.pick(["k", "g"])
        lm, rm = self.r.randint(2, 3), self.r.randint(2, 4)
        return ("SELECT L.id, R.id AS rid, L.ts, R.ts AS rts, "
                "COALESCE(L.window_start, R.window_start) AS ws "
                f"FROM (SELECT * FROM TABLE({tvf}) WHERE id % {lm} = 0) L {kind} "
                f"(SELECT * FROM TABLE({tvf}) WHERE id % {rm} = 1) R ON L.{on} = R.{on} AND "
                f"L.window_start = R.window_start AND L.window_end = R.window_end")

    def z_over(self) -> str:
        part = self.pick(["", "PARTITION BY g ", "PARTITION BY k ", "PARTITION BY g, k "])
        frame = self.pick([f"ROWS BETWEEN {self.r.randint(0, 4)} PRECEDING AND CURRENT ROW",
                           f"RANGE BETWEEN INTERVAL '{self.pick([0, 1, 3, 10])}' SECOND PRECEDING AND "
                           "CURRENT ROW",
                           "RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW",
                           "ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW"])
        aggs = self.r.sample(["COUNT(*)", "SUM(x)", "MIN(x)", "MAX(UPPER(s))", "AVG(x)", "COUNT(DISTINCT s)",
                              "LAST_VALUE(s)", "FIRST_VALUE(id)", "SUM(CHAR_LENGTH(s))", "MAX(id)",
                              "SUM(d)", "MIN(CONCAT(g, s))"], self.r.randint(1, 3))
        sel = ", ".join(f"{a} OVER w AS v{i}" for i, a in enumerate(aggs))
        return f"SELECT id, ts, {sel} FROM tz WINDOW w AS ({part}ORDER BY ts {frame})"

    def z_dedup(self) -> str:
        part = self.pick(["g", "k", "g, k", "x % 4"])
        desc = self.pick(["ASC", "DESC"])
        rn = self.pick(['', ', rn'])
        return (f"SELECT id, ts{rn} FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY {part} "
                f"ORDER BY ts {desc}) AS rn FROM tz) WHERE rn = 1")

    def z_interval(self) -> str:
        kind = self.pick(["JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL JOIN"])
        hi = self.pick([0, 1, 3, 10])
        bound = self.pick([f"r.ts BETWEEN l.ts - INTERVAL '{hi}' SECOND AND l.ts", "l.ts = r.ts",
                           f"l.ts >= r.ts AND l.ts < r.ts + INTERVAL '{hi + 1}' SECOND"])
        on = self.pick(["l.k = r.k", "l.g = r.g"])
        return (f"SELECT l.id, r.id AS rid, l.ts, r.ts AS rts FROM (SELECT * FROM tzo WHERE id % 2 = 0) l "
                f"{kind} "
                f"(SELECT * FROM tzo WHERE id % 3 = 1) r ON {on} AND {bound}")

    def mr(self) -> str:
        src = self.pick(["tz", "tz", "tz", "tw"])
        pattern, names = self.pick(PATTERNS)
        part = self.pick(["", "PARTITION BY g ", "PARTITION BY k "])
        order = self.pick(["ts", "ts", "ts", "ts, x DESC", "ts, id"])
        defs = []
        for v in names:
            if v == "A" and self.r.random() < 0.2:
                continue  # no condition: every row is an A
            prev = names[names.index(v) - 1] if v != "A" else "A"
            defs.append(f"{v} AS " + self.pick(DEFINES[v]).format(p=prev))
        meas = [m for v in names for m in self.r.sample(MEASURES[v], 1)]
        meas += self.r.sample(MEASURES[""], self.r.randint(0, 2))
        skips = ["", "AFTER MATCH SKIP PAST LAST ROW", "AFTER MATCH SKIP TO NEXT ROW"]
        skips += [f"AFTER MATCH SKIP TO {w} {v}" for v in names[1:] for w in ("FIRST", "LAST")]
        skip = self.pick(skips)
        within = self.pick(["", "", f" WITHIN INTERVAL '{self.pick([3, 10, 30])}' SECOND"])
        where = f"(SELECT * FROM {src} WHERE {self.pred()})" if self.r.random() < 0.25 else src
        return (f"SELECT * FROM {where} MATCH_RECOGNIZE ({part}ORDER BY {order} MEASURES {', '.join(meas)} "
                f"ONE ROW PER MATCH {skip} PATTERN ({pattern}){within} DEFINE {', '.join(defs)}) AS M")

    def agg_fn(self) -> str:
        src = self.pick(["t", "t", "cdc", "cdx"])
        aggs = self.r.sample(AGG_FN, self.r.randint(1, 3))
        sel = ", ".join(f"{a} AS a{i}" for i, a in enumerate(aggs))
        how = self.pick(["g", "k", "x % 3", "", "GROUPING SETS ((g), (k), ())", "ROLLUP (g, k)",
                         "CUBE (g, k)"])
        if not how:
            return f"SELECT {sel} FROM {src}"
        cols = "g, k" if "(" in how else how
        return f"SELECT {cols}, {sel} FROM {src} GROUP BY {how}"
