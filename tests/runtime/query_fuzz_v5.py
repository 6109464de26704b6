"""The fifth query generator (seeds from :data:`BASE`, 400000): shapes v1-v4 left out, checked against
Flink 2.3's recorded answers only.

Over the tables of the other generators (``t``, ``cdc``, ``cdx``, ``e``, ``tw``, ``tz`` / ``tzo``,
``tp``, ``vr``). Shapes:

- ``topn_total``: ROW_NUMBER Top-N (``rn <= n``, with and without PARTITION BY) over an aggregate, over
  a changelog's rows and over a join of an aggregate with a changelog, whose ORDER BY is total (it
  ends with the columns that make a row unique), so no answer depends on the order of arrival (v4's
  tie-break was not: seeds 300146, 300172, ...);
- ``over_frames``: OVER aggregates (a named WINDOW, several calls) with ROWS and RANGE frames,
  bounded and unbounded, PARTITION BY, over ``tz`` (ties on the rowtime, late rows) and ``tw``;
- ``session_w``: SESSION window TVFs (with and without PARTITION BY) with DISTINCT / FILTER aggregates;
- ``wtvf_sets``: TUMBLE / HOP / CUMULATE aggregates with GROUPING SETS / ROLLUP / CUBE, GROUPING(),
  DISTINCT and FILTER;
- ``w_topn``, ``w_dedup``, ``w_join``: window Top-N with a total order, window deduplication on the
  rowtime (ASC and DESC), window joins (inner, outer, semi, anti);
- ``interval_join``: interval joins of ``tzo``, aggregated afterwards or not;
- ``temporal_cl``: event-time temporal joins (``FOR SYSTEM_TIME AS OF``) of ``tzo`` against the
  versioned debezium table ``vr`` (primary key, watermark), aggregated afterwards or not;
- ``dedup``: ROW_NUMBER = 1 by rowtime or processing time, ASC and DESC;
- ``mr``: MATCH_RECOGNIZE basics over ``tzo``;
- ``nested``: ROW / ARRAY / MAP built and read (CARDINALITY, element access, fields, array and map
  functions) and ARRAY_AGG over the insert-only table and the changelogs;
- ``time_ltz``: TIME and TIMESTAMP_LTZ values through aggregates (MIN / MAX, GROUP BY) and joins;
- ``str_aggs``: string functions under aggregates (DISTINCT, FILTER, LISTAGG) over the changelogs;
- ``gsets_cl``: GROUPING SETS / ROLLUP / CUBE over the changelogs, GROUPING / GROUPING_ID, HAVING.

Each seed draws from its own ``random.Random(seed)``; a new shape joins only from a new first seed.
"""

from __future__ import annotations

from tests.runtime.query_fuzz import Gen, Query

#: The first seed of this generator.
BASE = 400_000

SHAPES = ["topn_total", "topn_total", "topn_total", "over_frames", "over_frames", "session_w", "wtvf_sets",
          "wtvf_sets", "w_topn", "w_dedup", "w_join", "interval_join", "temporal_cl", "temporal_cl", "dedup",
          "mr", "nested", "nested", "nested", "time_ltz", "time_ltz", "str_aggs", "gsets_cl", "gsets_cl"]

#: Aggregates of a window or an OVER frame over ``tz`` / ``tw``'s columns.
WAGGS = ["COUNT(*)", "SUM(x)", "MAX(s)", "MIN(g)", "COUNT(DISTINCT s)", "AVG(x)", "MAX(ts)", "MIN(ts)",
         "SUM(x) FILTER (WHERE k > 0)", "COUNT(DISTINCT g) FILTER (WHERE x > 0)", "MAX(CONCAT(g, s))",
         "SUM(DISTINCT k)", "MIN(x) FILTER (WHERE s IS NOT NULL)", "SUM(d)", "MAX(f)", "COUNT(k)",
         "LISTAGG(DISTINCT g)", "MAX(CHAR_LENGTH(s))"]
OVER_AGGS = ["COUNT(*)", "SUM(x)", "MAX(s)", "MIN(x)", "AVG(x)", "COUNT(DISTINCT g)", "SUM(d)", "MAX(ts)",
             "MIN(CONCAT(g, s))", "COUNT(k)", "FIRST_VALUE(x)", "LAST_VALUE(s)", "SUM(k)", "AVG(d)",
             "MAX(f)"]
#: String functions of ``s`` / ``g`` (under aggregates).
STR_FN = ["UPPER(s)", "LOWER(g)", "REGEXP_REPLACE(s, '[aeiou]', '*')", "LPAD(s, 6, '.')", "RPAD(g, 3, '-')",
          "SPLIT_INDEX(s, ' ', 0)", "REVERSE(s)", "INITCAP(s)", "TRIM(s)", "CONCAT_WS('-', g, s)",
          "REPEAT(g, 2)", "SUBSTRING(s, 2)", "REPLACE(s, 'e', 'E')", "SUBSTRING(s FROM 1 FOR 3)",
          "CONCAT(g, CAST(k AS STRING))", "LEFT(s, 2)", "RIGHT(s, 3)", "OVERLAY(s PLACING 'X' FROM 2 FOR 1)",
          "REGEXP_EXTRACT(s, '([a-z]+)', 1)", "TRANSLATE(s, 'ae', 'AE')", "ASCII(s)",
          "CHR(MOD(ABS(x), 26) + 97)"]
STR_AGGS = ["MAX({f})", "MIN({f})", "COUNT(DISTINCT {f})", "MAX({f}) FILTER (WHERE x > 0)",
            "SUM(CHAR_LENGTH({f}))", "COUNT({f})", "MIN({f}) FILTER (WHERE k IS NOT NULL)"]
#: Nested values built and read over ``t``'s / ``cdc``'s columns.
NESTED = [
    "ARRAY[x, k, id]", "CARDINALITY(ARRAY[x, k])", "ARRAY[x, k][2]", "ARRAY[g, s][1]", "MAP['x', x, 'k', k]",
    "MAP['x', x, 'k', k]['k']", "CARDINALITY(MAP[g, x])", "MAP[g, x][g]", "ROW(g, x)",
    "CAST(ROW(g, x) AS ROW<a STRING, b INT>).b", "ARRAY_CONTAINS(ARRAY[1, 2, 3], k)",
    "ARRAY_DISTINCT(ARRAY[k, k, x])", "ARRAY_REVERSE(ARRAY[x, k])", "ARRAY_JOIN(ARRAY[g, s], ',')",
    "ARRAY_JOIN(ARRAY[g, s], ',', 'null')", "ARRAY_POSITION(ARRAY[1, 2, 3], k)",
    "ARRAY_REMOVE(ARRAY[k, x, k], k)",
    "ARRAY_CONCAT(ARRAY[x], ARRAY[k])", "ARRAY_MAX(ARRAY[x, k])", "ARRAY_MIN(ARRAY[x, k, id])",
    "ARRAY_SLICE(ARRAY[x, k, id], 1, 2)", "MAP_KEYS(MAP['x', x, 'k', k])", "MAP_VALUES(MAP['x', x])",
    "ELEMENT(ARRAY[x])", "SPLIT(s, 'e')", "ARRAY[ARRAY[x], ARRAY[k, id]]", "ARRAY[ROW(g, k)]",
    "MAP_ENTRIES(MAP[g, k])", "ARRAY_SORT(ARRAY[x, k, id])", "CARDINALITY(SPLIT(s, ' '))",
    "MAP_FROM_ARRAYS(ARRAY['a', 'b'], ARRAY[x, k])", "ARRAY_UNION(ARRAY[x, k], ARRAY[k])",
]
NESTED_AGGS = ["ARRAY_AGG(x)", "ARRAY_AGG(s)", "ARRAY_AGG(DISTINCT g)", "CARDINALITY(ARRAY_AGG(k))",
               "ARRAY_AGG(k) FILTER (WHERE x > 0)", "MAX(CARDINALITY(ARRAY[x, k]))",
               "COUNT(DISTINCT ARRAY[g])",
               "MAX(ARRAY[x, k][1])", "ARRAY_AGG(CAST(ROW(g, k) AS ROW<a STRING, b INT>))"]
#: TIME and TIMESTAMP_LTZ values of ``t`` / ``cdc`` / ``tw`` rows.
TIMES = ["CAST(TIMESTAMPADD(SECOND, x * 37, TIMESTAMP '2024-01-01 12:00:00') AS TIME)",
         "CAST(TIMESTAMPADD(MINUTE, id, TIMESTAMP '2024-01-01 23:00:00') AS TIME(0))",
         "TIME '10:15:30' + INTERVAL '1' SECOND * x", "TIME '00:00:01' + INTERVAL '1' MINUTE * k"]
LTZS = ["TO_TIMESTAMP_LTZ(ABS(b), 3)", "TO_TIMESTAMP_LTZ(1700000000 + x * 3600, 0)",
        "CAST(TIMESTAMPADD(HOUR, x, TIMESTAMP '2024-01-01 00:00:00') AS TIMESTAMP_LTZ(3))",
        "TO_TIMESTAMP_LTZ(1700000000000 + id * 60000, 3) + INTERVAL '1' DAY"]
TIME_READS = ["MIN({c})", "MAX({c})", "COUNT(DISTINCT {c})", "MAX({c}) FILTER (WHERE k > 0)",
              "MIN(EXTRACT(HOUR FROM {c}))", "MAX(DATE_FORMAT({c}, 'HH:mm:ss'))", "COUNT({c})"]


class GenV5(Gen):
    """The grammar of :data:`SHAPES` (``pick`` from :class:`Gen`)."""

    def __init__(self, seed: int):
        super().__init__(seed)
        self.seed = seed

    def src(self) -> str:
        return self.pick(["t", "cdc", "cdc", "cdx"])

    def build(self) -> tuple[str, str]:
        """(query, the main source table) of one shape."""
        return getattr(self, self.pick_shape(SHAPES))()

    def aggs(self, pool: list[str], lo: int = 1, hi: int = 3) -> str:
        return ", ".join(f"{a} AS a{i}" for i, a in enumerate(self.r.sample(pool, self.r.randint(lo, hi))))

    def sec(self, lo: int, hi: int) -> str:
        return f"INTERVAL '{self.r.randint(lo, hi)}' SECOND"

    def wtable(self) -> str:
        return self.pick(["tz", "tz", "tw"])

    # -- Top-N with a total order ---------------------------------------------------------------------
    def topn_total(self) -> tuple[str, str]:
        src = self.src()
        n = self.r.randint(1, 4)
        rn = self.pick([", rn", ""])
        how = self.pick(["agg", "agg", "rows", "join"])
        desc = self.pick(["DESC", "ASC"])
        if how == "rows":  # a changelog's rows: id is unique at any time
            part = self.pick(["PARTITION BY g ", "PARTITION BY k ", ""])
            order = self.pick([f"x {desc}, id", f"s {desc}, id DESC", f"d {desc}, x, id", f"id {desc}"])
            return (f"SELECT id, g, k, x{rn} FROM (SELECT id, g, k, x, ROW_NUMBER() OVER ({part}ORDER BY "
                    f"{order}) AS rn FROM {src}) WHERE rn <= {n}"), src
        if how == "join":  # one aggregate row per p, each joined with rows of unique id
            agg = self.pick(["COUNT(*)", "SUM(x)", "MAX(x)", "MIN(k)"])
            kind = self.pick(["JOIN", "LEFT JOIN"])
            j = (f"SELECT l.g AS p, l.a AS lx, r.id AS rid, r.x AS rx FROM (SELECT g, {agg} AS a FROM {src} "
                 f"GROUP BY g) l {kind} (SELECT id, g, x FROM {self.src()} WHERE MOD(id, 3) = 0) r "
                 "ON l.g = r.g")
            part = self.pick(["PARTITION BY p ", ""])
            return (f"SELECT p, lx, rid, rx{rn} FROM (SELECT *, ROW_NUMBER() OVER ({part}ORDER BY "
                    f"lx {desc}, p, "
                    f"rid) AS rn FROM ({j}) WHERE lx IS NOT NULL) WHERE rn <= {n}"), src
        part, other = self.pick([("g", "k"), ("k", "g"), ("g", "MOD(x, 3)")])
        agg = self.pick(["COUNT(*)", "SUM(k)", "MAX(x) / 100", "COUNT(DISTINCT s)", "MIN(CHAR_LENGTH(s))",
                         "SUM(x)"])
        inner = f"SELECT {part} AS p, {other} AS o, {agg} AS a FROM {src} GROUP BY {part}, {other}"
        if self.r.random() < 0.5:
            order = f"a {desc}, o {self.pick(['ASC', 'DESC'])}"
            over = f"PARTITION BY p ORDER BY {order}"
        else:
            over = f"ORDER BY a {desc}, o, p {self.pick(['ASC', 'DESC'])}"
        return (f"SELECT p, o, a{rn} FROM (SELECT *, ROW_NUMBER() OVER ({over}) AS rn FROM ({inner})) "
                f"WHERE rn <= {n}"), src

    # -- OVER frames ------------------------------------------------------------------------------------
    def over_frames(self) -> tuple[str, str]:
        src = self.wtable()
        part = self.pick(["PARTITION BY g ", "PARTITION BY k ", "PARTITION BY g, MOD(x, 2) ", ""])
        frame = self.pick([f"ROWS BETWEEN {self.r.randint(0, 4)} PRECEDING AND CURRENT ROW",
                           f"RANGE BETWEEN {self.sec(0, 12)} PRECEDING AND CURRENT ROW",
                           "ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW",
                           "RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW"])
        calls = self.r.sample(OVER_AGGS, self.r.randint(1, 3))
        sel = ", ".join(f"{c} OVER w AS a{i}" for i, c in enumerate(calls))
        q = f"SELECT id, g, ts, {sel} FROM {src} WINDOW w AS ({part}ORDER BY ts {frame})"
        if self.r.random() < 0.2:
            q = f"SELECT g, COUNT(*) AS c, MAX(a0) AS m FROM ({q}) GROUP BY g"
        return q, src

    # -- window TVFs ------------------------------------------------------------------------------------
    def tvf(self, src: str) -> str:
        kind = self.pick(["TUMBLE", "HOP", "CUMULATE"])
        if kind == "TUMBLE":
            size = self.pick([5, 10, 30, 60])
            return f"TABLE(TUMBLE(TABLE {src}, DESCRIPTOR(ts), INTERVAL '{size}' SECOND))"
        if kind == "HOP":
            slide = self.pick([5, 10, 15])
            return (f"TABLE(HOP(TABLE {src}, DESCRIPTOR(ts), INTERVAL '{slide}' SECOND, "
                    f"INTERVAL '{slide * self.pick([2, 3])}' SECOND))")
        step = self.pick([5, 10])
        return (f"TABLE(CUMULATE(TABLE {src}, DESCRIPTOR(ts), INTERVAL '{step}' SECOND, "
                f"INTERVAL '{step * self.pick([2, 4])}' SECOND))")

    def session_w(self) -> tuple[str, str]:
        src = self.wtable()
        gap = self.r.randint(1, 8)
        part = self.pick(["g", "k", ""])
        on = f"TABLE {src} PARTITION BY {part}" if part and self.r.random() < 0.7 else f"TABLE {src}"
        keys = f", {part}" if part else ""
        q = (f"SELECT window_start, window_end{keys}, {self.aggs(WAGGS)} FROM TABLE(SESSION({on}, "
             f"DESCRIPTOR(ts), INTERVAL '{gap}' SECOND)) GROUP BY window_start, window_end{keys}")
        return q, src

    def wtvf_sets(self) -> tuple[str, str]:
        src = self.wtable()
        sets = self.pick(["GROUPING SETS ((g), (k), ())", "ROLLUP (g, k)", "CUBE (g, k)",
                          "GROUPING SETS ((g, k), (g))",
                          "ROLLUP (g)", "CUBE (g)"])
        cols = "g, k" if "k" in sets else "g"
        grouping = self.pick(["", ", GROUPING(g) AS gg", f", GROUPING_ID({cols}) AS gid"])
        q = (f"SELECT window_start, window_end, {cols}{grouping}, {self.aggs(WAGGS)} FROM {self.tvf(src)} "
             f"GROUP BY window_start, window_end, {sets}")
        return q, src

    def w_topn(self) -> tuple[str, str]:
        src = self.wtable()
        n = self.r.randint(1, 3)
        if self.r.random() < 0.5:
            agg = self.pick(["COUNT(*)", "SUM(x)", "MAX(x)", "COUNT(DISTINCT s)"])
            inner = (f"SELECT window_start, window_end, g, {agg} AS a FROM {self.tvf(src)} "
                     f"GROUP BY window_start, window_end, g")
            order = f"a {self.pick(['DESC', 'ASC'])}, g"
            cols = "window_start, window_end, g, a"
        else:
            inner = f"SELECT * FROM {self.tvf(src)}"
            order = f"x {self.pick(['DESC', 'ASC'])}, id"
            cols = "window_start, window_end, id, x"
        return (f"SELECT {cols}, rn FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end "
                f"ORDER BY {order}) AS rn FROM ({inner})) WHERE rn <= {n}"), src

    def w_dedup(self) -> tuple[str, str]:
        src = self.wtable()
        part = self.pick(["", ", g", ", k"])
        return (f"SELECT window_start, window_end, id, g, x, ts FROM (SELECT *, ROW_NUMBER() OVER ("
                "PARTITION BY "
                f"window_start, window_end{part} ORDER BY ts {self.pick(['ASC', 'DESC'])}) AS rn FROM "
                f"{self.tvf(src)}) WHERE rn = 1"), src

    def w_join(self) -> tuple[str, str]:
        size = self.pick([10, 20, 30])
        tv = f"TABLE(TUMBLE(TABLE tzo, DESCRIPTOR(ts), INTERVAL '{size}' SECOND))"
        how = self.pick(["JOIN", "LEFT JOIN", "FULL JOIN", "IN", "NOT EXISTS"])
        lm, rm = self.r.randint(2, 4), self.r.randint(2, 4)
        left = f"(SELECT * FROM {tv} WHERE MOD(id, {lm}) = 0)"
        right = f"(SELECT * FROM {tv} WHERE MOD(id, {rm}) = 1)"
        if how == "IN":
            return (f"SELECT id, g, window_start FROM {left} l WHERE g IN (SELECT g FROM {right} r WHERE "
                    f"l.window_start = r.window_start AND l.window_end = r.window_end)"), "tz"
        if how == "NOT EXISTS":
            return (f"SELECT id, g, window_start FROM {left} l WHERE NOT EXISTS (SELECT * FROM {right} r "
                    "WHERE "
                    f"l.window_start = r.window_start AND l.window_end = r.window_end AND l.k = r.k)"), "tz"
        on = self.pick(["g", "k"])
        return (f"SELECT l.id, r.id AS rid, l.{on}, COALESCE(l.window_start, r.window_start) AS ws "
                f"FROM {left} l "
                f"{how} {right} r ON l.window_start = r.window_start AND l.window_end = r.window_end "
                f"AND l.{on} = r.{on}"), "tz"

    # -- joins on time -----------------------------------------------------------------------------------
    def interval_join(self) -> tuple[str, str]:
        kind = self.pick(["JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL JOIN"])
        lo, hi = self.r.randint(0, 5), self.r.randint(0, 8)
        on = self.pick(["l.g = r.g", "l.k = r.k"])
        q = (f"SELECT l.id, r.id AS rid, l.x, r.ts AS rts FROM (SELECT * FROM tzo WHERE MOD(id, 3) = 0) l "
             f"{kind} (SELECT * FROM tzo WHERE MOD(id, 4) = 1) r ON {on} AND l.ts BETWEEN r.ts - "
             f"INTERVAL '{lo}' SECOND "
             f"AND r.ts + INTERVAL '{hi}' SECOND")
        if self.r.random() < 0.3:
            q = f"SELECT COUNT(*) AS c, COUNT(rid) AS cr, SUM(x) AS sx FROM ({q})"
        return q, "tz"

    def temporal_cl(self) -> tuple[str, str]:
        kind = self.pick(["JOIN", "LEFT JOIN"])
        extra = self.pick(["", f" AND v.v > {self.r.randint(-30, 30)}", " AND v.name IS NOT NULL"])
        cols = self.pick(["o.id, v.v, v.name", "o.id, o.k, v.rate, v.vts", "o.id, v.v + o.x AS vx, o.ts"])
        q = (f"SELECT {cols} FROM tzo AS o {kind} vr FOR SYSTEM_TIME AS OF o.ts AS v ON o.k = v.k{extra}")
        if self.r.random() < 0.35:
            q = (f"SELECT {self.pick(['o.g', 'v.name'])} AS key, COUNT(*) AS c, SUM(v.v) AS sv, "
                 "MAX(v.rate) AS mr "
                 f"FROM tzo AS o {kind} vr FOR SYSTEM_TIME AS OF o.ts AS v ON o.k = v.k{extra} GROUP BY "
                 f"{'o.g' if 'o.g' in cols else 'v.name'}")
        return q, "tz"

    def dedup(self) -> tuple[str, str]:
        src, time = self.pick([("tz", "ts"), ("tw", "ts"), ("tp", "pt")])
        part = self.pick(["g", "k", "g, k", "MOD(x, 3)"])
        key = "MOD(x, 3)" in part
        inner = f"(SELECT *, MOD(x, 3) AS mx FROM {src})" if key else src
        part = part.replace("MOD(x, 3)", "mx")
        q = (f"SELECT id, {part}, x FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY {part} ORDER BY {time} "
             f"{self.pick(['ASC', 'DESC'])}) AS rn FROM {inner}) WHERE rn = 1")
        return q, src

    def mr(self) -> tuple[str, str]:
        part = self.pick(["PARTITION BY g ", "PARTITION BY k ", ""])
        pat, define = self.pick([("A B", "A AS x > 0, B AS x < 0"), ("A B+", "A AS x < 0, B AS x > A.x"),
                                 ("A+ B", "A AS x > 100, B AS x <= 100"),
                                 ("A B? C", "A AS k > 0, C AS k < 0"),
                                 ("A{2} B", "A AS s IS NOT NULL, B AS s IS NULL")])
        meas = self.pick(["FIRST(A.id) AS fa, LAST(B.id) AS lb", "COUNT(A.id) AS ca, SUM(B.x) AS sb",
                          "A.x AS ax, MATCH_ROWTIME() AS mt", "LAST(A.ts) AS lt, FIRST(B.x) AS fb"])
        skip = self.pick(["AFTER MATCH SKIP PAST LAST ROW", "AFTER MATCH SKIP TO NEXT ROW"])
        return (f"SELECT * FROM tzo MATCH_RECOGNIZE ({part}ORDER BY ts MEASURES {meas} ONE ROW PER MATCH "
                f"{skip} "
                f"PATTERN ({pat}) DEFINE {define})"), "tz"

    # -- values ------------------------------------------------------------------------------------------
    def nested(self) -> tuple[str, str]:
        src = self.src()
        if self.r.random() < 0.5:
            items = self.r.sample(NESTED, self.r.randint(1, 3))
            q = f"SELECT id, {', '.join(f'{e} AS c{i}' for i, e in enumerate(items))} FROM {src}"
            if self.r.random() < 0.3:
                q += f" WHERE {self.pick(['CARDINALITY(ARRAY[x, k]) = 2 AND k > 0', 'ARRAY[x, k][1] > 0'])}"
            return q, src
        key = self.pick(["g", "k", "", "CARDINALITY(SPLIT(s, ' '))"])
        if not key:
            return f"SELECT {self.aggs(NESTED_AGGS, 1, 2)} FROM {src}", src
        return f"SELECT {key} AS gk, {self.aggs(NESTED_AGGS, 1, 2)} FROM {src} GROUP BY {key}", src

    def time_ltz(self) -> tuple[str, str]:
        src = self.src()
        c = self.pick(TIMES + LTZS)
        how = self.pick(["agg", "agg", "key", "join", "rows"])
        if how == "rows":
            return f"SELECT id, {c} AS c0, {self.pick(TIMES + LTZS)} AS c1 FROM {src}", src
        if how == "key":
            key = self.pick([f"EXTRACT(HOUR FROM {c})", c, f"CAST({c} AS STRING)"])
            return f"SELECT {key} AS tk, COUNT(*) AS n, MAX(x) AS mx FROM {src} GROUP BY {key}", src
        if how == "join":
            kind = self.pick(["JOIN", "LEFT JOIN"])
            q = (f"SELECT l.id, r.id AS rid, l.tv FROM (SELECT id, {c} AS tv FROM {src} WHERE "
                 "MOD(id, 2) = 0) l "
                 f"{kind} (SELECT id, {c} AS tv FROM {self.src()} WHERE MOD(id, 3) = 1) r ON l.tv = r.tv")
            return q, src
        items = [self.pick(TIME_READS).format(c=c) for _ in range(self.r.randint(1, 3))]
        key = self.pick(["g", "k", ""])
        sel = ", ".join(f"{a} AS a{i}" for i, a in enumerate(items))
        head, tail = (f"{key} AS gk, ", f" GROUP BY {key}") if key else ("", "")
        return f"SELECT {head}{sel} FROM {src}{tail}", src

    def str_aggs(self) -> tuple[str, str]:
        src = self.src()
        items = [self.pick(STR_AGGS).format(f=self.pick(STR_FN)) for _ in range(self.r.randint(1, 3))]
        if src == "t" and self.r.random() < 0.4:
            items.append(f"LISTAGG({self.pick(STR_FN)}, '|')")
        key = self.pick(["g", "k", "UPPER(g)", "CHAR_LENGTH(s)", ""])
        sel = ", ".join(f"{a} AS a{i}" for i, a in enumerate(items))
        having = f" HAVING COUNT(*) > {self.r.randint(1, 10)}" if key and self.r.random() < 0.3 else ""
        if not key:
            return f"SELECT {sel} FROM {src}", src
        return f"SELECT {key} AS gk, {sel} FROM {src} GROUP BY {key}{having}", src

    def gsets_cl(self) -> tuple[str, str]:
        src = self.pick(["cdc", "cdx", "cdc"])
        sets = self.pick(["GROUPING SETS ((g, k), (g), ())", "ROLLUP (g, k)", "CUBE (g, k)",
                          "GROUPING SETS ((g), (k))", "ROLLUP (g, MOD(x, 2))", "CUBE (k)"])
        cols = "g, MOD(x, 2) AS m" if "MOD" in sets else ("k" if sets == "CUBE (k)" else "g, k")
        gcols = "g, MOD(x, 2)" if "MOD" in sets else ("k" if sets == "CUBE (k)" else "g, k")
        first = gcols.split(",")[0]
        grouping = self.pick(["", f", GROUPING_ID({gcols}) AS gid", f", GROUPING({first}) AS g0"])
        pool = ["COUNT(*)", "SUM(x)", "MAX(s)", "MIN(x)", "COUNT(DISTINCT s)", "AVG(d)",
                "SUM(x) FILTER (WHERE k > 0)", "COUNT(DISTINCT g) FILTER (WHERE x > 0)", "MAX(CONCAT(g, s))"]
        having = f" HAVING COUNT(*) > {self.r.randint(1, 8)}" if self.r.random() < 0.3 else ""
        return f"SELECT {cols}{grouping}, {self.aggs(pool)} FROM {src} GROUP BY {sets}{having}", src


def make_v5_query(seed: int) -> Query:
    """The v5 generator's query of ``seed`` (:data:`BASE` and above); its DuckDB text is empty."""
    g = GenV5(seed)
    flink, src = g.build()
    return Query(flink, "", src, g.pick([1, 7, 50, None]), g.pick(["hashmap", "rocksdb"]), g.shape)
