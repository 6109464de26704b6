"""The seventh query generator (seeds from :data:`BASE`, 600000): shapes the other six never drew,
checked against Flink 2.3's recorded answers only (``scripts/flink_queryfuzz.py``).

Over the tables the other generators wrote (no new data): ``tz`` / ``tzo`` (``t``'s columns, event
time with late rows and equal rowtimes), ``q`` / ``qo`` / ``qc`` (edge values, CHAR(3) ``c``), the
changelogs ``cdc`` / ``cdx``, ``t``, and the versioned ``vr`` (debezium, PRIMARY KEY and watermark) and
``vv`` (a deduplicating view over the append-only ``va``). Shapes (:data:`SHAPES`):

- ``session_agg``: SESSION window TVF aggregates, with and without ``PARTITION BY``;
- ``session_topn`` / ``session_dedup`` / ``session_join``: window Top-N (of rows and of a SESSION
  aggregate), window deduplication and window joins over SESSION windows;
- ``topn_upd``: ROW_NUMBER Top-N over an updating input (a GROUP BY below it: Flink's
  ``RetractableTopNFunction``), ties broken by a unique column, the row number selected or not;
- ``temporal``: event-time temporal joins (``FOR SYSTEM_TIME AS OF``) of ``tzo`` / ``qo`` against
  ``vr`` (a changelog source) and ``vv`` (a versioned view), inner and left, aggregated above or not;
- ``legacy_win``: the group window functions ``GROUP BY TUMBLE / HOP / SESSION(ts, ...)`` with their
  ``_START`` / ``_END`` / ``_ROWTIME`` auxiliaries (a window over a window's rowtime too);
- ``lateral``: ``CROSS JOIN UNNEST`` / ``LEFT JOIN UNNEST ... ON TRUE`` / ``LATERAL TABLE(UNNEST(...))``
  of arrays and maps built per row (``WITH ORDINALITY`` too), over insert-only and changelog inputs;
- ``case_mixed``: CASE / COALESCE / IF / NULLIF / GREATEST whose branches mix INT, BIGINT, DECIMALs,
  DOUBLE and FLOAT (Flink's least-restrictive result type), selected and as GROUP BY keys;
- ``char_keys``: string functions of CHAR(3) and padded strings as GROUP BY keys (CHAR padding through
  CONCAT, CAST to CHAR(n) / VARCHAR(n), RPAD, TRIM, ...).

About a third of the updating shapes carry a per-query configuration (:data:`MINI_BATCH`: Flink's
``'table.exec.mini-batch.*'``, ``'table.optimizer.agg-phase-strategy'``,
``'table.optimizer.distinct-agg.split.enabled'``) in :attr:`Query.config`; the recorder runs such a
query alone with those options and records its changelog too.

Each seed draws from its own ``random.Random(seed)``.
"""

from __future__ import annotations

from tests.runtime.query_fuzz import Gen, Query

#: The first seed of this generator.
BASE = 600_000

SHAPES = ["session_agg", "session_agg", "session_topn", "session_dedup", "session_join", "topn_upd",
          "topn_upd", "topn_upd", "temporal", "temporal", "legacy_win", "legacy_win", "lateral", "lateral",
          "case_mixed", "case_mixed", "char_keys", "char_keys"]
#: The shapes whose result may update (a configuration may be drawn for them).
UPDATING = {"topn_upd", "temporal", "lateral", "case_mixed", "char_keys"}

#: The per-query options (Flink's defaults are what a query without them runs with).
DEFAULTS = {"table.exec.mini-batch.enabled": "false", "table.optimizer.agg-phase-strategy": "AUTO",
            "table.optimizer.distinct-agg.split.enabled": "false"}
MINI_BATCH = [
    {"table.exec.mini-batch.enabled": "true", "table.exec.mini-batch.allow-latency": "1 s",
     "table.exec.mini-batch.size": "5"},
    {"table.exec.mini-batch.enabled": "true", "table.exec.mini-batch.allow-latency": "100 ms",
     "table.exec.mini-batch.size": "1000", "table.optimizer.agg-phase-strategy": "TWO_PHASE"},
    {"table.exec.mini-batch.enabled": "true", "table.exec.mini-batch.allow-latency": "1 s",
     "table.exec.mini-batch.size": "3", "table.optimizer.agg-phase-strategy": "ONE_PHASE"},
    {"table.exec.mini-batch.enabled": "true", "table.exec.mini-batch.allow-latency": "1 s",
     "table.exec.mini-batch.size": "50", "table.optimizer.distinct-agg.split.enabled": "true"},
    {"table.optimizer.agg-phase-strategy": "TWO_PHASE"},
]

#: Aggregates of ``t``'s columns (``tz``, ``cdc``, ``cdx``): no order-dependent call.
T_AGGS = ["COUNT(*)", "SUM(x)", "MIN(s)", "MAX(d)", "AVG(x)", "COUNT(DISTINCT g)", "SUM(d)",
          "MAX(x) FILTER (WHERE k > 0)", "SUM(b)", "MIN(k)", "COUNT(x)", "AVG(d)", "MAX(g)",
          "COUNT(DISTINCT k) FILTER (WHERE x > 0)", "SUM(DISTINCT k)", "MIN(f)", "MAX(f)"]
#: Aggregates of ``q``'s columns (no float MIN / MAX / SUM: session 35's areas).
Q_AGGS = ["COUNT(*)", "SUM(k)", "SUM(d)", "MAX(c)", "MIN(g)", "COUNT(DISTINCT c)", "AVG(d)", "MAX(b)",
          "COUNT(DISTINCT g)", "MIN(d)", "COUNT(f)", "MAX(CHAR_LENGTH(c))"]
#: Mixed numeric branches over ``t`` (id, k, x INT, b BIGINT, d DECIMAL(10, 2), f DOUBLE).
T_MIXED = [
    "CASE WHEN k > 0 THEN x WHEN k < 0 THEN b ELSE d END", "CASE WHEN x > 0 THEN d ELSE f END",
    "COALESCE(k, d, f)", "COALESCE(d, x)", "COALESCE(b, k)", "IF(g = 'apple', x, d)", "IF(x > 0, f, b)",
    "CASE WHEN k IS NULL THEN 0.5 ELSE k END", "CASE WHEN x > 0 THEN CAST(x AS TINYINT) ELSE "
    "CAST(k AS SMALLINT) END", "NULLIF(x, 0) + 0.5", "NULLIF(d, 0)", "CASE k WHEN 1 THEN 1.25 WHEN 2 THEN 2 "
    "ELSE b END", "GREATEST(x, d)", "LEAST(k, f)", "COALESCE(CAST(x AS DECIMAL(5, 1)), d)",
    "CASE WHEN x > 0 THEN 1 ELSE 2.50 END", "IF(k > 2, 1e0, 1)", "CASE WHEN k > 0 THEN d / 3 ELSE x END",
    "COALESCE(NULLIF(k, 1), b, 0)", "CASE WHEN f > 0 THEN CAST(f AS FLOAT) ELSE x END",
]
#: Mixed numeric branches over ``q`` (k INT, b BIGINT, d DECIMAL(10, 2), e DECIMAL(38, 18), f DOUBLE,
#: r FLOAT).
Q_MIXED = [
    "CASE WHEN k > 0 THEN d ELSE e END", "COALESCE(d, e)", "COALESCE(e, k)", "CASE WHEN b > 0 THEN b "
    "ELSE d END", "IF(k > 0, r, k)", "COALESCE(r, k)", "CASE WHEN g = 'a' THEN r ELSE d END",
    "COALESCE(k, b)", "IF(c = 'a', e, b)", "CASE WHEN k > 0 THEN k ELSE b END", "NULLIF(b, 0)",
    "GREATEST(k, b)", "CASE WHEN d > 0 THEN d ELSE 0 END", "COALESCE(r, d)",
]
#: String functions of CHAR(3) ``c`` / padded ``g`` (``q``, ``qc``) as grouping keys.
CHAR_KEYS = [
    "CONCAT(c, '|')", "c || '|'", "CHAR_LENGTH(c)", "UPPER(c)", "RPAD(c, 4, '*')", "LPAD(c, 4, '*')",
    "TRIM(c)", "CAST(g AS CHAR(3))", "CAST(c AS VARCHAR(5))", "CAST(c AS CHAR(5)) || '|'",
    "REPLACE(c, ' ', '_')", "SUBSTRING(c, 2)", "REVERSE(c)", "CONCAT_WS('-', c, g)", "c = 'a'",
    "CAST(g AS CHAR(2)) || '|'", "CHAR_LENGTH(CAST(g AS CHAR(4)))", "RTRIM(g) || '|'", "c || g",
    "CASE WHEN k > 0 THEN c ELSE g END || '|'", "COALESCE(c, g) || '|'", "CAST(c AS STRING) = 'a '",
    "c < 'ab'", "POSITION(' ' IN c)", "CHAR_LENGTH(g || c)",
]


class GenV7(Gen):
    """The grammar of :data:`SHAPES` (``pick`` from :class:`Gen`)."""

    def build(self) -> tuple[str, str, dict[str, str]]:
        """(query, the main source table, its options) of one shape."""
        shape = self.pick_shape(SHAPES)
        query, src = getattr(self, shape)()
        config = dict(self.pick(MINI_BATCH)) if shape in UPDATING and self.r.random() < 0.35 else {}
        return query, src, config

    def aggs(self, pool: list[str], lo: int = 1, hi: int = 3) -> str:
        return ", ".join(f"{a} AS a{i}" for i, a in enumerate(self.r.sample(pool, self.r.randint(lo, hi))))

    def session_tvf(self, src: str, keys: list[str]) -> tuple[str, str]:
        """(a SESSION TVF of ``src``, its partition key or '')."""
        part = self.pick([*keys, ""])
        on = f"TABLE {src} PARTITION BY {part}" if part else f"TABLE {src}"
        return (f"TABLE(SESSION({on}, DESCRIPTOR(ts), INTERVAL '{self.r.randint(1, 6)}' SECOND))", part)

    def wsrc(self) -> tuple[str, list[str], list[str]]:
        """(an event-time table, its partition keys, its aggregates)."""
        return self.pick([("tz", ["g", "k"], T_AGGS), ("q", ["g", "c", "k"], Q_AGGS)])

    # -- SESSION windows ------------------------------------------------------------------------------
    def session_agg(self):
        src, keys, pool = self.wsrc()
        tvf, part = self.session_tvf(src, keys)
        k = f", {part}" if part else ""
        where = self.pick(["", "", " WHERE k > 0", " WHERE g <> 'a'"])
        q = (f"SELECT window_start, window_end{k}, {self.aggs(pool)} FROM {tvf}{where} "
             f"GROUP BY window_start, window_end{k}")
        if self.r.random() < 0.25:  # window_time: the window's rowtime, aggregated again
            q = (f"SELECT window_start, window_end, window_time{k}, {self.aggs(pool[:4])} FROM {tvf} "
                 f"GROUP BY window_start, window_end, window_time{k}")
        return q, src

    def session_topn(self):
        src, keys, pool = self.wsrc()
        tvf, part = self.session_tvf(src, keys)
        n = self.r.randint(1, 3)
        rn = self.pick([", rn", ""])
        if self.r.random() < 0.5 and part:
            agg = self.pick(pool)
            inner = (f"SELECT window_start, window_end, {part}, {agg} AS a FROM {tvf} "
                     f"GROUP BY window_start, window_end, {part}")
            by = self.pick(["window_start, window_end", "window_end"])
            return (f"SELECT window_start, window_end, {part}, a{rn} FROM (SELECT *, ROW_NUMBER() OVER "
                    f"(PARTITION BY {by} ORDER BY a {self.pick(['ASC', 'DESC'])}, {part}) AS rn FROM "
                    f"({inner})) WHERE rn <= {n}"), src
        col = self.pick(["k", "d", "b"])
        p = f", {part}" if part else ""
        return (f"SELECT window_start, window_end{p}, id, {col}{rn} FROM (SELECT *, ROW_NUMBER() OVER "
                f"(PARTITION BY window_start, window_end{p} ORDER BY {col} {self.pick(['ASC', 'DESC'])}, id) "
                f"AS rn FROM {tvf}) WHERE rn <= {n}"), src

    def session_dedup(self):
        src, keys, _ = self.wsrc()
        tvf, part = self.session_tvf(src, keys)
        p = f", {part}" if part else ""
        return (f"SELECT window_start, window_end{p}, id, k FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY "
                f"window_start, window_end{p} ORDER BY ts {self.pick(['ASC', 'DESC'])}) AS rn FROM {tvf}) "
                f"WHERE rn = 1"), src

    def session_join(self):
        gap_l, gap_r = self.r.randint(1, 5), self.r.randint(1, 5)
        part = self.pick(["g", "k", ""])
        on_l = f"TABLE tzo PARTITION BY {part}" if part else "TABLE tzo"
        left = (f"SELECT * FROM TABLE(SESSION({on_l}, DESCRIPTOR(ts), INTERVAL '{gap_l}' SECOND)) "
                f"WHERE MOD(id, 2) = 0")
        right = (f"SELECT * FROM TABLE(SESSION({on_l}, DESCRIPTOR(ts), INTERVAL '{gap_r}' SECOND)) "
                 f"WHERE MOD(id, 2) = 1")
        key = part or self.pick(["g", "k"])
        kind = self.pick(["JOIN", "LEFT JOIN", "FULL JOIN"])
        if self.r.random() < 0.4:  # aggregated sides
            left = (f"SELECT window_start, window_end, {key}, COUNT(*) AS c FROM ({left}) "
                    f"GROUP BY window_start, window_end, {key}")
            right = (f"SELECT window_start, window_end, {key}, SUM(x) AS c FROM ({right}) "
                     f"GROUP BY window_start, window_end, {key}")
            cols = f"L.{key} AS lk, R.{key} AS rk, L.c AS lc, R.c AS rc, L.window_start AS ws"
        else:
            cols = "L.id AS lid, R.id AS rid, L.window_start AS lws, R.window_end AS rwe"
        return (f"SELECT {cols} FROM ({left}) L {kind} ({right}) R ON L.{key} = R.{key} AND "
                f"L.window_start = R.window_start AND L.window_end = R.window_end"), "tz"

    # -- Top-N over an updating input ------------------------------------------------------------------
    def topn_upd(self):
        src = self.pick(["cdc", "cdx", "t", "qc"])
        pool = Q_AGGS if src == "qc" else [a for a in T_AGGS if "f)" not in a]
        keys = ["g", "c", "k"] if src == "qc" else ["g", "k", "MOD(x, 3)"]
        key = self.pick(keys)
        agg = self.pick(pool)
        n = self.r.randint(1, 3)
        rn = self.pick([", rn", ""])
        inner = f"SELECT {key} AS p, {agg} AS a, COUNT(*) AS c FROM {src} GROUP BY {key}"
        if self.r.random() < 0.4:  # ranked within a coarser partition: a second grouping column
            k2 = self.pick([k for k in keys if k != key])
            inner = (f"SELECT {key} AS p, {k2} AS p2, {agg} AS a, COUNT(*) AS c FROM {src} "
                     f"GROUP BY {key}, {k2}")
            return (f"SELECT p2, p, a{rn} FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY p2 ORDER BY a "
                    f"{self.pick(['ASC', 'DESC'])}, p) AS rn FROM ({inner})) WHERE rn <= {n}"), src
        order = self.pick([f"a {self.pick(['ASC', 'DESC'])}, p", "c DESC, a DESC, p", "a DESC, c, p"])
        filt = self.pick(["", "", " WHERE a IS NOT NULL", " WHERE c > 1"])
        return (f"SELECT p, a, c{rn} FROM (SELECT *, ROW_NUMBER() OVER (ORDER BY {order}) AS rn FROM "
                f"({inner}){filt}) WHERE rn <= {n}"), src

    # -- temporal joins ------------------------------------------------------------------------------
    def temporal(self):
        right = self.pick(["vr", "vv"])
        probe, key = self.pick([("tzo", "o.k"), ("tzo", "o.x"), ("qo", "o.k"), ("tzo", "o.id")])
        kind = self.pick(["JOIN", "LEFT JOIN"])
        extra = self.pick(["", "", f" AND v.v > {self.r.randint(-20, 20)}", " AND v.name <> 'x'"])
        cols = self.pick(["o.id, v.v, v.name", "o.id, v.rate, v.vts",
                          "o.id, COALESCE(v.v, o.k) AS w, "
                          "CASE WHEN v.rate > 1 THEN v.rate ELSE o.k END AS m"])
        q = (f"SELECT {cols} FROM {probe} AS o {kind} {right} FOR SYSTEM_TIME AS OF o.ts AS v "
             f"ON {key} = v.k{extra}")
        if self.r.random() < 0.35:
            q = (f"SELECT v.name AS key, COUNT(*) AS c, SUM(v.v) AS sv, MAX(v.rate) AS mr FROM {probe} AS o "
                 f"{kind} {right} FOR SYSTEM_TIME AS OF o.ts AS v ON {key} = v.k{extra} GROUP BY v.name")
        return q, "q" if probe == "qo" else "tz"

    # -- legacy group windows -------------------------------------------------------------------------
    def legacy_win(self):
        src, keys, pool = self.wsrc()
        kind = self.pick(["TUMBLE", "HOP", "SESSION"])
        size = self.pick([2, 5, 10])
        args = (f"ts, INTERVAL '{size}' SECOND, INTERVAL '{size * self.pick([2, 3])}' SECOND" if kind == "HOP"
                else f"ts, INTERVAL '{size}' SECOND")
        key = self.pick([*keys, ""])
        k = f"{key}, " if key else ""
        aux = self.pick([f"{kind}_START({args}) AS ws, {kind}_END({args}) AS we",
                         f"{kind}_END({args}) AS we",
                         f"{kind}_START({args}) AS ws, {kind}_ROWTIME({args}) AS rt"])
        q = f"SELECT {k}{aux}, {self.aggs(pool)} FROM {src} GROUP BY {k}{kind}({args})"
        if self.r.random() < 0.25:  # a window over the inner window's rowtime
            q = (f"SELECT TUMBLE_START(rt, INTERVAL '20' SECOND) AS ws2, COUNT(*) AS n, SUM(cnt) AS sc FROM "
                 f"(SELECT {k}{kind}_ROWTIME({args}) AS rt, COUNT(*) AS cnt FROM {src} "
                 f"GROUP BY {k}{kind}({args})) "
                 f"GROUP BY TUMBLE(rt, INTERVAL '20' SECOND)")
        return q, src

    # -- LATERAL / UNNEST -----------------------------------------------------------------------------
    def lateral(self):
        src = self.pick(["t", "cdc", "tz"])
        arr, alias = self.pick([("ARRAY[k, x]", "v"), ("ARRAY[g, s]", "v"), ("ARRAY[x, x + 1, NULL]", "v"),
                                ("SPLIT(s, 'e')", "v"), ("MAP[g, x]", "mk, mv"),
                                ("ARRAY[d, CAST(k AS DECIMAL(10, 2))]", "v")])
        cols = "v" if "mk" not in alias else "mk, mv"
        how = self.pick(["CROSS JOIN UNNEST({a}) AS u({al})", "LEFT JOIN UNNEST({a}) AS u({al}) ON TRUE",
                         ", LATERAL TABLE(UNNEST({a})) AS u({al})",
                         "CROSS JOIN UNNEST({a}) WITH ORDINALITY AS u({al}, o)"])
        if "ORDINALITY" in how:
            cols += ", o"
        j = how.format(a=arr, al=alias)
        where = self.pick(["", " WHERE MOD(id, 3) = 0", " WHERE x > 0"])
        q = f"SELECT id, {cols} FROM {src} {j}{where}"
        if self.r.random() < 0.4:
            first = cols.split(",")[0]
            q = f"SELECT {first}, COUNT(*) AS n, COUNT(DISTINCT id) AS ni FROM ({q}) GROUP BY {first}"
        return q, src

    # -- result types of mixed numeric branches ---------------------------------------------------------
    def case_mixed(self):
        src, pool = self.pick([("t", T_MIXED), ("cdc", T_MIXED), ("q", Q_MIXED), ("qc", Q_MIXED)])
        e1, e2 = self.r.sample(pool, 2)
        how = self.r.random()
        if how < 0.4:
            return f"SELECT id, {e1} AS m1, {e2} AS m2 FROM {src}", src
        if how < 0.75:
            return f"SELECT {e1} AS m, COUNT(*) AS n FROM {src} GROUP BY {e1}", src
        return f"SELECT g, SUM({e1}) AS s, MAX({e2}) AS mx FROM {src} GROUP BY g", src

    # -- CHAR padding in grouping keys ------------------------------------------------------------------
    def char_keys(self):
        src = self.pick(["q", "qc", "qc"])
        ks = self.r.sample(CHAR_KEYS, self.r.randint(1, 2))
        sel = ", ".join(f"{k} AS k{i}" for i, k in enumerate(ks))
        agg = self.pick(["COUNT(*)", "COUNT(DISTINCT id)", "SUM(k)", "MAX(d)", "LISTAGG(CAST(id AS STRING))"])
        if agg.startswith("LISTAGG"):
            agg = "COUNT(*)"
        if self.r.random() < 0.3:  # SELECT DISTINCT
            return f"SELECT DISTINCT {sel} FROM {src}", src
        return f"SELECT {sel}, {agg} AS a FROM {src} GROUP BY {', '.join(ks)}", src


def make_v7_query(seed: int) -> Query:
    """The v7 generator's query of ``seed`` (:data:`BASE` and above); its DuckDB text is empty."""
    g = GenV7(seed)
    flink, src, config = g.build()
    return Query(flink, "", src, g.pick([1, 7, 50, None]), g.pick(["hashmap", "rocksdb"]), g.shape,
                 config=config)
