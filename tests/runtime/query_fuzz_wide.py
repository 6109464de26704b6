"""Random queries of the constructs the other generators leave out, checked against Flink 2.3 only.

Seeds from :data:`BASE` (``make_flink_query`` picks the generator by the seed). Each query is a
Flink query only (no DuckDB text): ``scripts/flink_queryfuzz.py`` records Flink's answer and
:mod:`tests.runtime.query_fuzz_flink` replays it. Shapes:

- event time over ``tw`` (distinct, rising rowtimes, a watermark, bounded: Flink's final table is
  the same on every run): TUMBLE / HOP / CUMULATE aggregates (DISTINCT, FILTER, GROUPING SETS,
  ``window_time``), window Top-N of rows and of aggregates, window deduplication, window joins
  (inner and outer, of every window kind), OVER windows with bounded ROWS / RANGE frames and
  several typed aggregates, interval joins (inner and outer), event-time temporal joins against
  the versioned table ``vr`` (debezium-json with a PRIMARY KEY and a watermark: creates, updates,
  deletes) and the versioned view ``vv`` (the last row of each key of the append-only ``va``),
  deduplication on the rowtime and on processing time (``tp``: ``t`` with ``PROCTIME()``, read
  in one task, so first and last are the file's);
- over ``t`` / ``cdc`` / ``cdx``: OVER ordered by a column that is no time attribute (UNBOUNDED
  PRECEDING), ROW_NUMBER Top-N with typed orders, GROUPING SETS / ROLLUP / CUBE with GROUPING()
  and GROUPING_ID(), DISTINCT aggregates under FILTER;
- over ``e`` (edge values, insert-only): string, numeric, temporal and JSON functions of empty
  strings, NULLs, unicode, extreme and negative numbers, leap days, timestamps before 1970 and
  TIMESTAMP_LTZ; CASE / COALESCE / IF / NULLIF / GREATEST result types; CAST and TRY_CAST between
  every pair of the types the typed generator knows.

From seed :data:`V2` (200330) on, the shapes of :mod:`tests.runtime.query_fuzz_wide_v2` join them
(:data:`SHAPES_V2`): query structure over ``t`` / ``cdc`` / ``cdx`` (aggregates nested in FROM with
GROUP BY expressions and HAVING, UNION ALL of aggregates, outer joins with non-equi residuals,
FIRST_VALUE / LAST_VALUE / LISTAGG, Top-N of an aggregate) and DECIMAL, temporal, mixed-type and
string-edge expressions over ``e``. From seed :data:`V3` (200500) on, only the shapes of
:mod:`tests.runtime.query_fuzz_wide_v3` (:data:`SHAPES_V3`): event time with late rows and equal
rowtimes over ``tz`` (window aggregates with offsets, window Top-N / deduplication / joins, bounded
OVER frames, deduplication, interval joins, MATCH_RECOGNIZE) and string / time functions inside
aggregates.

Every seed's query is drawn from its own ``random.Random(seed)``: adding a shape changes the
queries of later draws, so a new shape joins only from a new first seed (as :data:`V2` does), or
together with a new recording of the seeds it changes.
"""

from __future__ import annotations

import datetime as dt
import json
from decimal import Decimal
from pathlib import Path

from tests.runtime.oracle import write_debezium, write_jsonl
from tests.runtime.query_fuzz import Gen, Query, interval
from tests.runtime.query_fuzz_typed import AGGS
from tests.runtime.query_fuzz_wide_v2 import WideGenV2
from tests.runtime.query_fuzz_wide_v3 import WideGenV3, create_tz, tz_file

#: The first seed of this generator.
BASE = 200_000

# -- the tables ------------------------------------------------------------------------------------

#: ``e``'s columns; ``tl`` is computed from ``ms`` (a TIMESTAMP_LTZ from epoch milliseconds).
E_COLUMNS = [("id", "INT"), ("s", "STRING"), ("i", "INT"), ("n", "BIGINT"), ("dc", "DECIMAL(20, 4)"),
             ("db", "DOUBLE"), ("dt", "DATE"), ("ts", "TIMESTAMP(3)"), ("ms", "BIGINT"), ("j", "STRING"),
             ("bo", "BOOLEAN")]
E_VALUES = {
    "s": ["", None, "a", " padded ", "ÄÖü", "日本語", "😀x", "e\u0301", "ǅ", "straße", "ΣΑΣ", "abc", "ABC",
          "123", "-7", "1e3", "3.14", " 42 ", "true", "FALSE", "2024-02-29", "2023-02-29",
          "2024-02-29 12:34:56", "a,b", "x%y_z", "tab\tin"],
    "i": [0, 1, -1, 2147483647, -2147483648, None, 42, -7, 1000, 127, -128, 32767],
    "n": [0, 9223372036854775807, -9223372036854775808, 1000000000000, -1, None, 86400000, 4294967296],
    "dc": [Decimal("0.0000"), Decimal("-0.0001"), Decimal("1234567890123456.7890"), Decimal("0.5000"),
           Decimal("-0.5000"), Decimal("2.5000"), None, Decimal("-9999999999999999.9999"), Decimal("1.0000"),
           Decimal("99.9950")],
    "db": [0.0, -0.0, 1e300, -1e-300, 0.1, 2.5, -2.5, 1.0e16, None, 123.456, -0.5, 3.0e-5],
    "dt": ["2024-02-29", "2000-02-29", "1900-02-28", "1970-01-01", "1969-12-31", "2023-12-31", None,
           "1600-02-29", "2100-03-01", "9999-12-30", "0001-01-02"],
    "ts": ["2024-02-29 23:59:59.999", "2000-02-29 00:00:00", "1969-12-31 23:59:59.999",
           "1970-01-01 00:00:00", "2024-03-10 02:30:00", "2023-12-31 23:59:59.500", None,
           "1900-01-01 00:00:00", "2024-12-31 12:00:00.001", "2021-01-03 00:00:00"],
    "ms": [0, -1, 1709251199999, 951782400000, -2208988800000, None, 253402300799999, 1710037800000,
           1704067199500],
    "j": ['{"a":1,"b":[1,2,{"c":"x"}],"d":null}', "[]", "{}", '"str"', "123", "not json", None,
          '{"a":"ü😀"}', '{"a":1.50}', '{"a":{"b":{"c":true}}}', '{"a":[],"b":[10,20]}', "",
          '{"a":-7,"b":"2024-02-29"}', '[1,"2",{"a":3}]'],
    "bo": [True, False, None],
}
N_E = 36
#: ``vr``'s keys: ``tw.k``'s values (-3..3) but 3, so a row of key 3 never finds a version.
VR_KEYS = [-3, -2, -1, 0, 1, 2]
T0 = dt.datetime(2024, 1, 1)


def e_rows() -> list[dict]:
    """``e``'s rows: each column cycles through its edge values at its own stride (all combinations
    mix; every value appears)."""
    rows = []
    for i in range(N_E):
        r: dict = {"id": i}
        for c, (name, vals) in enumerate(E_VALUES.items()):
            r[name] = vals[(i * (c + 1) + c) % len(vals)] if i >= len(vals) else vals[i % len(vals)]
        rows.append(r)
    return rows


def _fmt(t: dt.datetime) -> str:
    return t.strftime("%Y-%m-%d %H:%M:%S.") + f"{t.microsecond // 1000:03d}"


def vr_events() -> tuple[list, list[dict]]:
    """``vr``'s debezium events (creates, updates, deletes; rowtimes rising, distinct) and ``va``'s
    append-only rows (every version, deletes left out): keys :data:`VR_KEYS`, over ``tw``'s time.

    An update's before image keeps the version's own rowtime; a delete's before image carries the
    delete's (as a source timestamp would)."""
    import random

    rnd = random.Random(2027)
    live: dict[int, dict] = {}
    events, appended = [], []
    t = T0 - dt.timedelta(seconds=30)
    for n in range(70):
        t += dt.timedelta(seconds=rnd.choice([11, 23, 37, 53]), milliseconds=rnd.randint(0, 999))
        k = rnd.choice(VR_KEYS)
        row = {"k": k, "v": rnd.randint(-50, 50), "name": rnd.choice(["x", "y", "ü", "", None]),
               "rate": Decimal(rnd.randint(-999, 999)).scaleb(-2), "vts": _fmt(t)}
        if k in live and rnd.random() < 0.2:
            events.append(("d", dict(live.pop(k), vts=_fmt(t)), None))
        elif k in live:
            events.append(("u", dict(live[k]), row))
            live[k] = row
            appended.append(dict(row, id=n))
        else:
            events.append(("c", None, row))
            live[k] = row
            appended.append(dict(row, id=n))
    return events, appended


def wide_files(d: Path) -> dict[str, Path]:
    """The files of ``e``, ``vr``, ``va`` and ``tz`` in folder ``d``."""
    rows = []
    for r in e_rows():
        rows.append({k: (str(v) if isinstance(v, Decimal) else v) for k, v in r.items()})
    e_path = d / "e.json"
    # DECIMALs as JSON numbers with exactly their digits; the rest as JSON
    e_path.write_text("".join("{" + ", ".join(
        f"{json.dumps(k)}: {v if k == 'dc' and v is not None else json.dumps(v, ensure_ascii=False)}"
        for k, v in r.items()) + "}\n" for r in rows), encoding="utf-8")
    events, appended = vr_events()
    return {"e": e_path, "vr": write_debezium(d / "vr.json", events),
            "va": write_jsonl(d / "va.json", appended), "tz": tz_file(d)}


def all_files(d: Path) -> dict[str, Path]:
    """Every table's file the recorded queries read: :func:`tests.runtime.query_fuzz.data_files`'s,
    :func:`wide_files`'s and :func:`tests.runtime.query_fuzz_v6.v6_files`'s."""
    from tests.runtime.query_fuzz import data_files
    from tests.runtime.query_fuzz_v6 import v6_files

    return {**data_files(d), **wide_files(d), **v6_files(d)}


def create_all_tables(env, files: dict[str, Path]) -> None:
    """Every table of the recorded queries (:func:`tests.runtime.query_fuzz.create_tables`, then
    :func:`create_wide_tables` and :func:`tests.runtime.query_fuzz_v6.create_v6_tables`)."""
    from tests.runtime.query_fuzz import create_tables
    from tests.runtime.query_fuzz_v6 import create_v6_tables

    create_tables(env, files)
    create_wide_tables(env, files)
    create_v6_tables(env, files)


def create_wide_tables(env, files: dict[str, Path]) -> None:
    """``e``, ``vr`` (versioned), ``va`` (append-only), the versioned view ``vv`` over it, ``tp``
    (``t`` with a processing-time column) and ``tz`` (late rows, equal rowtimes) in ``env`` (``t``'s
    file: :func:`create_tables` first)."""
    from tests.runtime.oracle import COLUMNS

    cols = ", ".join(f"{c} {t}" for c, t in E_COLUMNS)
    env.execute_sql(f"CREATE TABLE e ({cols}, tl AS TO_TIMESTAMP_LTZ(ms, 3)) WITH ('connector' = "
                    f"'filesystem', 'path' = '{files['e']}', 'format' = 'json')")
    vcols = "k INT NOT NULL, v INT, name STRING, rate DECIMAL(10, 2), vts TIMESTAMP(3)"
    env.execute_sql(f"CREATE TABLE vr ({vcols}, PRIMARY KEY (k) NOT ENFORCED, WATERMARK FOR vts AS vts - "
                    f"INTERVAL '1' SECOND) WITH ('connector' = 'filesystem', 'path' = '{files['vr']}', "
                    f"'format' = 'debezium-json')")
    env.execute_sql(f"CREATE TABLE va (id INT, {vcols}, WATERMARK FOR vts AS vts - INTERVAL '1' SECOND) "
                    f"WITH ('connector' = 'filesystem', 'path' = '{files['va']}', 'format' = 'json')")
    env.execute_sql("CREATE VIEW vv AS SELECT k, v, name, rate, vts FROM (SELECT *, ROW_NUMBER() OVER "
                    "(PARTITION BY k ORDER BY vts DESC) AS rn FROM va) WHERE rn = 1")
    tcols = ", ".join(f"{c} {t}" for c, t, _ in COLUMNS)
    env.execute_sql(f"CREATE TABLE tp ({tcols}, pt AS PROCTIME()) WITH ('connector' = 'filesystem', "
                    f"'path' = '{files['t']}', 'format' = 'json')")
    create_tz(env, files["tz"])


# -- the grammar -----------------------------------------------------------------------------------

#: Aggregates of ``tw``'s (``t``'s) columns, with DISTINCT and FILTER.
WAGGS = AGGS + ["COUNT(DISTINCT g) FILTER (WHERE x > 0)", "SUM(x) FILTER (WHERE k IS NOT NULL)",
                "MAX(d) FILTER (WHERE g <> 'a')", "COUNT(*) FILTER (WHERE s LIKE '%e%')",
                "AVG(DISTINCT k)", "MIN(DISTINCT s)", "COUNT(DISTINCT k, g)"]
OVER_AGGS = ["AVG(x)", "SUM(d)", "AVG(d)", "SUM(f)", "MIN(s)", "MAX(g)", "COUNT(DISTINCT k)", "COUNT(x)",
             "SUM(b)", "MAX(d / 3)", "AVG(f)", "STDDEV_POP(x)", "VAR_SAMP(k)", "FIRST_VALUE(x)",
             "LAST_VALUE(s)", "SUM(x * 100000)", "MIN(CAST(x AS DECIMAL(6, 1)))", "COUNT(*)"]
STR_FN = [
    "CHAR_LENGTH(s)", "UPPER(s)", "LOWER(s)", "INITCAP(s)", "TRIM(s)", "LTRIM(s)", "RTRIM(s)",
    "TRIM(BOTH 'a' FROM s)", "SUBSTRING(s FROM 2 FOR 2)", "SUBSTR(s, -2)", "SUBSTR(s, 0, 2)", "LEFT(s, 2)",
    "RIGHT(s, 1)", "LPAD(s, 5, '·')", "RPAD(s, 3, '')", "REPEAT(s, 2)", "REVERSE(s)", "REPLACE(s, 'a', '')",
    "POSITION('a' IN s)", "LOCATE('b', s, 2)", "INSTR(s, 'c')", "CONCAT(s, '|', CAST(i AS STRING))",
    "CONCAT_WS('|', s, CAST(NULL AS STRING), 'x')", "SPLIT_INDEX(s, ',', 1)",
    "REGEXP_REPLACE(s, '[aeiou]', '*')", "REGEXP_EXTRACT(s, '(\\d+)', 1)", "ASCII(s)",
    "OVERLAY(s PLACING 'xx' FROM 2 FOR 1)", "s LIKE '%a%'", "s LIKE 'x!%y%' ESCAPE '!'",
    "s SIMILAR TO '[0-9]+'",
    "TO_BASE64(s)", "MD5(s)", "UPPER(s) = s", "s < 'b'", "s > 'Ω'", "CHAR_LENGTH(TRIM(s)) = 0",
    "s IS NULL", "COALESCE(s, 'none')", "s = ''", "LOWER(s) <> UPPER(s)", "REGEXP(s, '^[a-z]+$')",
    "STARTSWITH(s, 'a')", "ENDSWITH(s, 'c')", "BTRIM(s)", "SPLIT_INDEX(s, 'a', 0)", "CHR(MOD(ABS(i), 128))",
    "TRANSLATE(s, 'ab', 'x')", "ELT(2, s, 'two')", "s || '!'",
]
NUM_FN = [
    "ABS(n)", "n + 1", "n - 1", "i * 2", "MOD(i, 7)", "-i", "SIGN(dc)", "ROUND(dc, 2)", "ROUND(dc, 0)",
    "TRUNCATE(dc, -1)", "FLOOR(db)", "CEIL(dc)", "POWER(db, 2)", "SQRT(ABS(db))", "LN(ABS(db) + 1)",
    "LOG10(ABS(dc) + 1)", "EXP(MOD(i, 5))", "dc * dc", "dc / 3", "dc + db", "i / 3", "n / 1000",
    "CAST(i AS BIGINT) * 3", "i + n", "ABS(i)", "ROUND(db, 1)", "db * 1e300", "db / 3", "dc * 2.5",
    "MOD(n, 1000)", "i % 10", "GREATEST(i, 0)", "LEAST(dc, 0)", "BIN(MOD(i, 64))", "HEX(MOD(i, 256))",
    "ROUND(dc, -2)", "TRUNCATE(db, 2)", "CEIL(db)", "FLOOR(dc / 7)", "RADIANS(db)", "DEGREES(dc)",
    "ATAN2(db, 1)", "i = 0", "n > 0", "dc BETWEEN -1 AND 1", "db IS NULL", "dc = 0", "db = 0",
]
TIME_FN = [
    "EXTRACT(YEAR FROM dt)", "EXTRACT(MONTH FROM dt)", "EXTRACT(DAY FROM dt)", "EXTRACT(DOY FROM dt)",
    "EXTRACT(DOW FROM dt)", "EXTRACT(WEEK FROM dt)", "EXTRACT(QUARTER FROM dt)", "DAYOFYEAR(dt)",
    "DAYOFWEEK(dt)", "dt + INTERVAL '1' YEAR", "dt + INTERVAL '1' MONTH", "dt - INTERVAL '1' DAY",
    "TIMESTAMPADD(MONTH, 1, ts)", "TIMESTAMPADD(YEAR, -1, ts)", "TIMESTAMPADD(DAY, 1, dt)",
    "TIMESTAMPDIFF(DAY, ts, TIMESTAMP '2024-03-01 00:00:00')", "TIMESTAMPDIFF(MONTH, dt, DATE '2024-02-29')",
    "TIMESTAMPDIFF(SECOND, ts, CAST(dt AS TIMESTAMP(3)))", "DATE_FORMAT(ts, 'yyyy-MM-dd HH:mm:ss.SSS')",
    "DATE_FORMAT(ts, 'EEE dd MMM')", "DATE_FORMAT(dt, 'yyyyMMdd')", "FLOOR(ts TO MONTH)", "CEIL(ts TO DAY)",
    "FLOOR(ts TO HOUR)", "CEIL(dt TO YEAR)", "CAST(ts AS DATE)", "EXTRACT(MILLISECOND FROM ts)",
    "EXTRACT(HOUR FROM ts)", "ts + INTERVAL '1' SECOND", "ts - INTERVAL '1 00:00:00.001' DAY TO SECOND",
    "tl", "CAST(tl AS TIMESTAMP(3))", "EXTRACT(HOUR FROM tl)", "DATE_FORMAT(tl, 'yyyy-MM-dd HH:mm:ss')",
    "TO_TIMESTAMP_LTZ(ms, 3)", "TO_TIMESTAMP_LTZ(MOD(ms, 100000), 0)", "tl + INTERVAL '1' DAY",
    "FLOOR(tl TO DAY)", "CAST(tl AS DATE)", "UNIX_TIMESTAMP(DATE_FORMAT(ts, 'yyyy-MM-dd HH:mm:ss'))",
    "TO_DATE(s)", "TO_TIMESTAMP(s)", "TO_TIMESTAMP(s, 'yyyy-MM-dd')", "DATE_FORMAT(s, 'yyyy')",
    "ts < TIMESTAMP '1970-01-01 00:00:00'", "dt = DATE '2024-02-29'", "CAST(dt AS STRING)",
    "CAST(ts AS STRING)", "CAST(tl AS STRING)", "YEAR(dt)", "MONTH(ts)", "HOUR(ts)", "MINUTE(ts)",
    "SECOND(ts)", "QUARTER(dt)", "WEEK(dt)", "TIMESTAMPDIFF(HOUR, tl, TO_TIMESTAMP_LTZ(0, 3))",
    "FROM_UNIXTIME(MOD(n, 100000000))", "TO_TIMESTAMP_LTZ(i, 0)", "DATE_FORMAT(tl, 'EEE')",
]
JSON_FN = [
    "JSON_VALUE(j, '$.a')", "JSON_QUERY(j, '$.b')", "JSON_EXISTS(j, '$.a')", "j IS JSON",
    "j IS JSON OBJECT", "j IS JSON ARRAY", "j IS JSON SCALAR", "JSON_VALUE(j, '$.b[2].c')",
    "JSON_VALUE(j, 'lax $.a' RETURNING INT)", "JSON_QUERY(j, '$.a' WITH WRAPPER)", "JSON_STRING(s)",
    "JSON_OBJECT('k' VALUE s)", "JSON_OBJECT('k' VALUE i, 'b' VALUE bo ABSENT ON NULL)", "JSON_ARRAY(i, s)",
    "JSON_QUOTE(s)", "JSON_UNQUOTE(j)", "JSON_VALUE(j, '$.a.b.c')", "JSON_QUERY(j, '$[2]')",
    "JSON_VALUE(j, '$[1]')", "JSON_EXISTS(j, 'strict $.b[5]')",
    "JSON_VALUE(j, '$.a' DEFAULT 'dflt' ON EMPTY)",
    "JSON_QUERY(j, 'lax $.a' EMPTY ARRAY ON EMPTY)", "JSON_STRING(i)", "JSON_STRING(dc)", "JSON_STRING(bo)",
    "JSON_VALUE(j, '$.b' RETURNING DOUBLE)",
]
CASE_FN = [
    "CASE WHEN bo THEN i ELSE n END", "CASE WHEN bo THEN dc ELSE db END",
    "CASE WHEN bo THEN 'a' ELSE 'abc' END",
    "COALESCE(i, n, 0)", "COALESCE(dc, 1)", "IF(bo, s, 'x')", "NULLIF(i, 0)", "NULLIF(s, '')",
    "CASE i WHEN 0 THEN 'zero' WHEN 1 THEN 'one' END", "COALESCE(CAST(NULL AS INT), i)",
    "IF(bo, dt, DATE '2024-02-29')", "CASE WHEN bo THEN ts ELSE CAST(dt AS TIMESTAMP(3)) END",
    "GREATEST(i, n)", "LEAST(dc, i)", "CASE WHEN bo THEN 1 ELSE 1.5 END", "IF(bo, 1, 2.5E0)",
    "COALESCE(s, 'n/a', 'x')", "CASE WHEN i > 0 THEN dc WHEN i < 0 THEN i END",
    "IF(bo IS NULL, 'none', 'some')",
    "COALESCE(db, dc, i)", "CASE WHEN bo THEN tl ELSE TO_TIMESTAMP_LTZ(0, 3) END", "NULLIF(dc, 0)",
    "CASE WHEN bo THEN CAST(i AS TINYINT) ELSE CAST(i AS SMALLINT) END", "GREATEST(s, 'b')",
    "CASE WHEN bo THEN 'x' END", "IF(i > 0, i, NULL)", "COALESCE(bo, i > 0)", "LEAST(dt, DATE '2000-01-01')",
    "CASE WHEN bo THEN CAST(1 AS FLOAT) ELSE db END", "IFNULL(s, 'z')", "IFNULL(i, n)",
]
#: Every type the typed generator knows, and a source of ``e`` of each.
CAST_TYPES = ["INT", "BIGINT", "SMALLINT", "TINYINT", "DECIMAL(10, 2)", "DECIMAL(20, 4)", "DECIMAL(3, 1)",
              "DOUBLE", "FLOAT", "STRING", "VARCHAR(3)", "CHAR(4)", "BOOLEAN", "DATE", "TIMESTAMP(3)",
              "TIMESTAMP(0)", "TIMESTAMP_LTZ(3)", "BYTES"]
CAST_FROM = ["i", "n", "dc", "db", "s", "bo", "dt", "ts", "tl", "CAST(i AS SMALLINT)", "CAST(i AS TINYINT)",
             "CAST(db AS FLOAT)", "CAST(s AS VARCHAR(3))", "CAST(s AS CHAR(4))", "CAST(s AS BYTES)",
             "CAST(dc AS DECIMAL(3, 1))"]
SHAPES = ["w_agg", "w_agg", "w_topn", "w_dedup", "w_join", "over_time", "over_time", "over_nontime",
          "interval_join", "temporal", "temporal", "dedup", "topn", "grouping", "distinct_filter",
          "funcs", "funcs", "json", "case_types", "casts", "casts"]
#: From :data:`V2` on, the shapes drawn are :data:`SHAPES_V2` (the seeds below it keep their recorded
#: queries): query structure over ``t`` / ``cdc`` / ``cdx`` (aggregates nested in FROM with GROUP BY
#: expressions and HAVING, UNION ALL of aggregates, outer joins with non-equi residuals,
#: FIRST_VALUE / LAST_VALUE / LISTAGG, Top-N of an aggregate) and more expressions over ``e``
#: (DECIMAL precision and scale, temporal arithmetic and EXTRACT, mixed-type CASE and casts, string
#: functions at their edge arguments).
V2 = 200_330
SHAPES_V2 = SHAPES + 3 * ["nested_agg", "nested_agg", "union_aggs", "union_aggs", "outer_join",
                          "outer_join", "value_aggs", "topn_agg", "dec_arith", "dec_arith", "time_arith",
                          "mixed", "str_edge"]
#: From :data:`V3` on, the shapes drawn are these only (:mod:`tests.runtime.query_fuzz_wide_v3`).
V3 = 200_500
SHAPES_V3 = 2 * ["z_wagg", "z_wagg", "z_wtopn", "z_wdedup", "z_wjoin", "z_over", "z_over", "z_dedup",
                 "z_interval", "mr", "mr", "mr", "mr", "agg_fn", "agg_fn"]
#: Shapes whose printed cells could be ambiguous (JSON text may be the string 'null'): the recorder
#: collects them one by one (``TableResult.collect``), never through a print sink.
ALONE_SHAPES = ("json",)


class WideGen(WideGenV3, WideGenV2, Gen):
    """The grammar of :data:`SHAPES` (of :data:`SHAPES_V2` from seed :data:`V2` on, of
    :data:`SHAPES_V3` from :data:`V3` on)."""

    def __init__(self, seed: int):
        super().__init__(seed)
        self.seed = seed

    def tvf(self) -> str:
        kind = self.pick(["TUMBLE", "HOP", "CUMULATE"])
        slide = self.pick([10, 20, 30])
        if kind == "TUMBLE":
            return f"TUMBLE(TABLE tw, DESCRIPTOR(ts), {interval(slide * self.r.randint(1, 2))})"
        size = slide * self.r.randint(2, 4)
        return f"{kind}(TABLE tw, DESCRIPTOR(ts), {interval(slide)}, {interval(size)})"

    def pred(self) -> str:
        return self.predicate().flink

    def build(self) -> tuple[str, str]:
        """(query, source table) of one shape."""
        shape = self.pick_shape(SHAPES_V3 if self.seed >= V3 else SHAPES_V2 if self.seed >= V2 else SHAPES)
        q = getattr(self, shape)()
        src = {"over_nontime": "t", "topn": "t", "grouping": "t", "distinct_filter": "t", "nested_agg": "t",
               "union_aggs": "t", "outer_join": "t", "value_aggs": "t", "topn_agg": "t", "agg_fn": "t",
               "mr": "tw" if "FROM tw" in q else "tz"}.get(shape)
        if src is None and shape.startswith("z_"):
            src = "tz"
        if src is None:
            src = "e" if shape in ("funcs", "json", "case_types", "casts") or " FROM e" in q else "tw"
        return q, src

    # -- event time ----------------------------------------------------------------------------------
    def w_agg(self) -> str:
        tvf = self.tvf()
        key = self.pick(["", "g, ", "k, ", "g, k, "])
        aggs = self.r.sample(WAGGS, self.r.randint(1, 3))
        w = f" WHERE {self.pred()}" if self.r.random() < 0.4 else ""
        extra = self.pick(["", ", window_time"])
        sel = ", ".join(f"{a} AS a{i}" for i, a in enumerate(aggs))
        if key and self.r.random() < 0.3:  # grouping sets inside the window
            keys = key.rstrip(", ").split(", ")
            sets = self.pick([f"GROUPING SETS (({keys[0]}), ())", f"ROLLUP ({', '.join(keys)})",
                              f"CUBE ({', '.join(keys)})"])
            return (f"SELECT {key}window_start, window_end, {sel} FROM TABLE({tvf}){w} "
                    f"GROUP BY window_start, window_end, {sets}")
        return (f"SELECT {key}window_start, window_end{extra}, {sel} FROM TABLE({tvf}){w} "
                f"GROUP BY {key}window_start, window_end{extra}")

    def w_topn(self) -> str:
        tvf = self.tvf()
        n = self.r.randint(1, 3)
        if self.r.random() < 0.5:  # rows of each window
            order = self.pick(["x DESC", "d", "f DESC", "s", "b", "k DESC, x"])
            part = self.pick(["", "g, ", "k, "])
            nn = " AND ".join(f"{c.split()[0]} IS NOT NULL" for c in order.split(", "))
            rn = self.pick(["rn", "window_end"])
            return (f"SELECT id, window_start, {rn} FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY "
                    f"{part}window_start, window_end ORDER BY {order}, id) AS rn FROM TABLE({tvf}) "
                    f"WHERE {nn}) WHERE rn <= {n}")
        key = self.pick(["g", "k"])
        agg = self.pick(WAGGS)
        desc = self.pick(["DESC", "ASC"])
        cmp = self.pick([f"rn <= {n}", f"rn < {n + 1}", f"rn = {n}"])
        return (f"SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY "
                f"c {desc}, {key} {desc}) AS rn FROM (SELECT {key}, window_start, window_end, COUNT(*) AS c, "
                f"{agg} AS a FROM TABLE({tvf}) GROUP BY {key}, window_start, window_end)) WHERE {cmp}")

    def w_dedup(self) -> str:
        tvf = self.tvf()
        part = self.pick(["", "g, ", "k, ", "x % 3, "])
        desc = self.pick(["ASC", "DESC"])
        cols = self.pick(["id, x, window_start, window_end", "*", "id, ts, window_end"])
        w = f" WHERE {self.pred()}" if self.r.random() < 0.4 else ""
        return (f"SELECT {cols} FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY {part}window_start, "
                f"window_end ORDER BY ts {desc}) AS rn FROM TABLE({tvf}){w}) WHERE rn = 1")

    def w_join(self) -> str:
        tvf = self.tvf()
        kind = self.pick(["JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL JOIN"])
        on = self.pick(["k", "g"])
        lm, rm = self.r.randint(2, 4), self.r.randint(2, 5)
        lf = f"(SELECT * FROM TABLE({tvf}) WHERE id % {lm} = 0)"
        rf = f"(SELECT * FROM TABLE({tvf}) WHERE id % {rm} = 1)"
        if self.r.random() < 0.3:  # a semi / anti window join
            op = self.pick(["IN", "NOT IN"]) if self.r.random() < 0.5 else self.pick(["EXISTS", "NOT EXISTS"])
            if op.endswith("IN"):
                return (f"SELECT id, {on}, window_start FROM {lf} L WHERE ({on}, window_start, window_end) "
                        f"{op} "
                        f"(SELECT {on}, window_start, window_end FROM {rf} WHERE {on} IS NOT NULL)")
            return (f"SELECT id, {on}, window_end FROM {lf} L WHERE {op} (SELECT * FROM {rf} R WHERE "
                    f"L.{on} = R.{on} AND L.window_start = R.window_start AND L.window_end = R.window_end)")
        extra = self.pick(["", " AND L.x < R.x", " AND L.id <> R.id"])
        return (f"SELECT L.id, R.id AS rid, L.{on}, R.d, COALESCE(L.window_start, R.window_start) AS ws "
                f"FROM {lf} L {kind} {rf} R ON L.{on} = R.{on} AND L.window_start = R.window_start AND "
                f"L.window_end = R.window_end{extra}")

    def over_time(self) -> str:
        part = self.pick(["", "PARTITION BY g ", "PARTITION BY k ", "PARTITION BY g, k "])
        frame = self.pick([f"ROWS BETWEEN {self.r.randint(0, 5)} PRECEDING AND CURRENT ROW",
                           f"RANGE BETWEEN INTERVAL '{self.pick([1, 7, 14, 30, 90])}' SECOND PRECEDING "
                           "AND CURRENT ROW",
                           "RANGE BETWEEN INTERVAL '2' MINUTE PRECEDING AND CURRENT ROW",
                           "ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW"])
        aggs = self.r.sample(OVER_AGGS, self.r.randint(1, 3))
        src = f"(SELECT * FROM tw WHERE {self.pred()})" if self.r.random() < 0.4 else "tw"
        if self.r.random() < 0.4:
            sel = ", ".join(f"{a} OVER w AS v{i}" for i, a in enumerate(aggs))
            return f"SELECT id, {sel} FROM {src} WINDOW w AS ({part}ORDER BY ts {frame})"
        sel = ", ".join(f"{a} OVER ({part}ORDER BY ts {frame}) AS v{i}" for i, a in enumerate(aggs))
        return f"SELECT id, {sel} FROM {src}"

    def over_nontime(self) -> str:
        part = self.pick(["", "PARTITION BY g ", "PARTITION BY k "])
        order, frame = self.pick([("x", "RANGE"), ("k", "RANGE"), ("s", "RANGE"), ("d", "RANGE"),
                                  ("id", "ROWS"), ("f", "RANGE"), ("g", "RANGE"), ("x DESC", "RANGE"),
                                  ("id DESC", "ROWS")])
        aggs = self.r.sample([a for a in OVER_AGGS if "VALUE" not in a and "DISTINCT" not in a],
                             self.r.randint(1, 2))
        src = self.pick(["t", "t", "cdc", "cdx"])
        w = f" WHERE {self.pred()}" if self.r.random() < 0.4 else ""
        sel = ", ".join(f"{a} OVER ({part}ORDER BY {order} {frame} BETWEEN UNBOUNDED PRECEDING AND "
                        f"CURRENT ROW) AS v{i}" for i, a in enumerate(aggs))
        return f"SELECT id, {sel} FROM (SELECT * FROM {src}{w})"

    def interval_join(self) -> str:
        kind = self.pick(["JOIN", "JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL JOIN"])
        lo, hi = self.r.randint(-20, 30), self.r.randint(0, 40)
        on = self.pick(["l.k = r.k", "l.g = r.g", "l.k = r.k AND l.g = r.g"])
        bound = self.pick([f"r.ts BETWEEN l.ts - INTERVAL '{max(lo, 0)}' SECOND AND "
                           f"l.ts + INTERVAL '{hi}' SECOND",
                           f"l.ts > r.ts - INTERVAL '{hi}' SECOND AND l.ts <= r.ts",
                           f"l.ts >= r.ts AND l.ts < r.ts + INTERVAL '{hi + 1}' SECOND",
                           "l.ts = r.ts"])
        extra = self.pick(["", " AND l.x < r.x", " AND l.id <> r.id"])
        lm, rm = self.r.randint(2, 4), self.r.randint(2, 5)
        return (f"SELECT l.id, r.id AS rid, l.{on[2]}, r.x, r.ts FROM "
                f"(SELECT * FROM tw WHERE id % {lm} = 0) l "
                f"{kind} (SELECT * FROM tw WHERE id % {rm} <> 1) r ON {on} AND {bound}{extra}")

    def temporal(self) -> str:
        kind = self.pick(["JOIN", "LEFT JOIN"])
        vt = self.pick(["vr", "vr", "vv"])
        extra = self.pick(["", f" AND v.v > {self.r.randint(-30, 30)}", " AND v.rate > o.d / 100"])
        cols = self.pick(["o.id, v.v, v.name", "o.id, o.k, v.rate, v.vts", "o.id, v.v + o.x AS vx, v.k"])
        w = f" WHERE o.x > {self.r.randint(-500, 500)}" if self.r.random() < 0.3 else ""
        inner = "tw" if self.r.random() < 0.7 else "(SELECT * FROM tw WHERE id % 2 = 0)"
        q = (f"SELECT {cols} FROM {inner} AS o {kind} {vt} FOR SYSTEM_TIME AS OF o.ts AS v "
             f"ON o.k = v.k{extra}{w}")
        if self.r.random() < 0.25:  # aggregated afterwards
            q = (f"SELECT COUNT(*) AS c, SUM(v) AS sv, MAX(name) AS mn FROM "
                 f"({q.replace(cols, 'o.id, v.v, v.name')})")
        return q

    def dedup(self) -> str:
        src, time = self.pick([("tw", "ts"), ("tw", "ts"), ("tp", "pt")])
        part = self.pick(["g", "k", "g, k", "x % 4"])
        desc = self.pick(["ASC", "DESC"])
        w = f" WHERE {self.pred()}" if self.r.random() < 0.4 else ""
        cols = self.pick(["id, x", "id, g, k, s", "id, d, f"]) + (", ts" if src == "tw" else "")
        rn = self.pick(["", ", rn"])
        return (f"SELECT {cols}{rn} FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY {part} ORDER BY {time} "
                f"{desc}) AS rn FROM {src}{w}) WHERE rn = 1")

    # -- over the plain tables ------------------------------------------------------------------------
    def topn(self) -> str:
        src = self.pick(["t", "cdc", "cdx"])
        order = self.pick(["d DESC", "f", "s DESC", "b", "x / 7 DESC", "CHAR_LENGTH(s)", "d * f"])
        part = self.pick(["g", "k", "g, k", "x % 2"])
        n = self.r.randint(1, 4)
        cut = self.pick([f"rn <= {n}", f"rn = {n}", f"rn BETWEEN 2 AND {n + 1}"])
        expr = order.rsplit(" ", 1)[0] if order.endswith("DESC") else order
        desc = " DESC" if order.endswith("DESC") else ""
        cols = self.pick(["id, p, o, rn", "id, p, o"])
        return (f"SELECT {cols} FROM (SELECT id, p, o, ROW_NUMBER() OVER (PARTITION BY p "
                f"ORDER BY o{desc}, id) "
                f"AS rn FROM (SELECT id, {part.split(',')[0]} AS p, {expr} AS o FROM {src} WHERE {expr} IS "
                f"NOT NULL)) WHERE {cut}")

    def grouping(self) -> str:
        src = self.pick(["t", "cdc", "cdx"])
        how = self.pick(["GROUPING SETS ((g, k), (g), ())", "ROLLUP (g, k)", "CUBE (g, k)",
                         "GROUPING SETS ((g), (k), (x % 3))", "ROLLUP (g, x % 3)", "CUBE (k, s)",
                         "GROUPING SETS ((g, k), (k, g))", "g, ROLLUP (k)"])
        cols = self.pick(["g, k", "g", "k"])
        if "x % 3" in how:
            cols = "g, k" if "GROUPING SETS" in how else "g"
        if "s" in how.split("(")[-1] and "CUBE (k, s)" in how:
            cols = "k, s"
        aggs = self.r.sample(AGGS + ["COUNT(*)"], self.r.randint(1, 3))
        gf = self.pick(["", ", GROUPING(g) AS gg", f", GROUPING_ID({cols}) AS gid", ", GROUP_ID() AS grp"])
        if gf.startswith(", GROUPING(g)") and "g" not in how:
            gf = ""
        w = f" WHERE {self.pred()}" if self.r.random() < 0.4 else ""
        sel = ", ".join(f"{a} AS a{i}" for i, a in enumerate(aggs))
        return f"SELECT {cols}{gf}, {sel} FROM {src}{w} GROUP BY {how}"

    def distinct_filter(self) -> str:
        src = self.pick(["t", "cdc", "cdx"])
        key = self.pick(["", "g", "k", "x % 3"])
        items = []
        for _ in range(self.r.randint(2, 4)):
            fn = self.pick(["COUNT(DISTINCT {c})", "SUM(DISTINCT {c})", "AVG(DISTINCT {c})",
                            "MAX(DISTINCT {c})",
                            "COUNT({c})", "SUM({c})", "COUNT(*)", "MIN({c})"])
            col = self.pick(["x", "k", "d", "b", "x % 5"]) if "SUM" in fn or "AVG" in fn else \
                self.pick(["x", "k", "d", "s", "g", "x % 5"])
            flt = self.pick(["", " FILTER (WHERE x > 0)", " FILTER (WHERE g IN ('a', 'b'))",
                             " FILTER (WHERE s IS NOT NULL)", " FILTER (WHERE k < 0 OR d > 100)"])
            items.append(fn.format(c=col) + flt)
        sel = ", ".join(f"{a} AS a{i}" for i, a in enumerate(items))
        if not key:
            return f"SELECT {sel} FROM {src}"
        return f"SELECT {key} AS k0, {sel} FROM {src} GROUP BY {key}"

    # -- over the edge values ---------------------------------------------------------------------------
    def funcs(self) -> str:
        pool = self.pick([STR_FN, NUM_FN, TIME_FN, STR_FN + NUM_FN + TIME_FN])
        items = self.r.sample(pool, self.r.randint(1, 3))
        return f"SELECT id, {', '.join(f'{e} AS c{i}' for i, e in enumerate(items))} FROM e"

    def json(self) -> str:
        items = self.r.sample(JSON_FN, self.r.randint(1, 2))
        return f"SELECT id, {', '.join(f'{e} AS c{i}' for i, e in enumerate(items))} FROM e"

    def case_types(self) -> str:
        items = self.r.sample(CASE_FN, self.r.randint(1, 3))
        return f"SELECT id, {', '.join(f'{e} AS c{i}' for i, e in enumerate(items))} FROM e"

    def casts(self) -> str:
        # one cast a query: a pair Flink refuses refuses the query, and no other pair with it
        fn = self.pick(["CAST", "TRY_CAST"])
        return f"SELECT id, {fn}({self.pick(CAST_FROM)} AS {self.pick(CAST_TYPES)}) AS c0 FROM e"


def make_wide_query(seed: int) -> Query:
    """The wide generator's query of ``seed`` (:data:`BASE` and above); its DuckDB text is empty."""
    g = WideGen(seed)
    flink, src = g.build()
    return Query(flink, "", src, g.pick([1, 7, 50, None]), g.pick(["hashmap", "rocksdb"]), g.shape)
