"""The fourth query generator (seeds from :data:`BASE`, 300000): changelog chains and Flink's
result types, checked against Flink 2.3's recorded answers only.

Over ``t`` (insert-only) and the debezium changelogs ``cdc`` (random updates and deletes) and
``cdx`` (the extremes retracted again and again), and ``e`` (edge values). Shapes:

- ``chain_agg``: an aggregate of an aggregate (the inner one with HAVING, COUNT(DISTINCT), FILTER)
  whose outer aggregates take the retractions: MIN / MAX / COUNT / SUM / AVG / COUNT(DISTINCT),
  LISTAGG / FIRST_VALUE / LAST_VALUE (Flink's retracting variants);
- ``agg_join``: joins (inner, LEFT / RIGHT / FULL) of two aggregates, or of a changelog and an
  aggregate, whose inputs retract (the NULL padding retracted and emitted again), aggregated
  afterwards or not;
- ``union_cl``: UNION ALL of changelogs and aggregates, aggregated again;
- ``rank_agg``: ROW_NUMBER / RANK / DENSE_RANK ``<= n`` over an aggregate with ties;
- ``subq_cl``: IN / NOT IN / EXISTS / NOT EXISTS subqueries (semi and anti joins, NOT IN with
  NULLs in the subquery) between changelogs and aggregates;
- ``int_aggs``: SUM / AVG / MIN / MAX of TINYINT / SMALLINT / INT / BIGINT (Flink's result types:
  AVG of an INT is an INT; sums wrap on overflow) over the changelogs;
- ``dec_aggs``: DECIMAL precision and scale through ``+ - * / %`` and SUM / AVG of DECIMALs over
  the changelogs;
- ``widen``: CASE / COALESCE / NULLIF / IF widening mixed types, inside aggregates too;
- ``int_exprs``: integer division and MOD of negatives, overflow of ``+ - *`` at the extremes, CAST
  of out-of-range values, over ``e``.

Each seed draws from its own ``random.Random(seed)``; a new shape joins only from a new first seed.
"""

from __future__ import annotations

from tests.runtime.query_fuzz import Gen, Query

#: The first seed of this generator.
BASE = 300_000

SHAPES = ["chain_agg", "chain_agg", "chain_agg", "agg_join", "agg_join", "agg_join", "union_cl",
          "union_cl", "rank_agg", "rank_agg", "subq_cl", "subq_cl", "int_aggs", "int_aggs", "dec_aggs",
          "dec_aggs", "widen", "int_exprs"]

#: Inner aggregates with an INT-like value (``a*``) and a string one (``m*``) of the chains.
INNER_NUM = ["COUNT(*)", "SUM(x)", "MIN(x)", "MAX(x)", "COUNT(DISTINCT s)", "SUM(k)", "COUNT(x)",
             "MAX(k) - MIN(k)", "SUM(x) FILTER (WHERE k > 0)", "COUNT(DISTINCT k) FILTER (WHERE x > 0)",
             "CAST(AVG(x) AS INT)", "SUM(CAST(d AS INT))"]
INNER_STR = ["MAX(s)", "MIN(g)", "MAX(CONCAT(g, s))", "MIN(s)"]
INNER_KEYS = ["g", "k", "MOD(x, 4)", "s", "g, k", "CHAR_LENGTH(s)", "x / 250"]
INNER_HAVING = ["COUNT(*) > 2", "SUM(x) > 0", "MAX(x) < 900", "MIN(x) > -900", "COUNT(DISTINCT s) >= 2",
                "SUM(x) IS NOT NULL", "COUNT(*) < 12", "MAX(d) > 0"]
#: Outer aggregates over the inner columns ``a0`` (number), ``a1`` (number), ``m0`` (string).
OUTER = ["MIN(a0)", "MAX(a0)", "COUNT(*)", "COUNT(a0)", "SUM(a0)", "AVG(a0)", "SUM(a1)", "MAX(a1)",
         "MIN(m0)", "MAX(m0)", "COUNT(DISTINCT a0)", "COUNT(DISTINCT m0)", "SUM(a0) FILTER (WHERE a1 > 0)",
         "AVG(CAST(a0 AS DOUBLE))", "MIN(a1) FILTER (WHERE m0 IS NOT NULL)", "SUM(DISTINCT a1)"]
#: Order-sensitive outer aggregates (their retracting variants keep the arrival order).
OUTER_ORDERED = ["LISTAGG(CAST(a0 AS STRING))", "FIRST_VALUE(a0)", "LAST_VALUE(a0)", "LISTAGG(m0, ';')",
                 "FIRST_VALUE(m0)", "LAST_VALUE(a1)", "LISTAGG(DISTINCT m0)"]
OUTER_KEYS = ["", "MOD(a0, 3)", "a0 > 0", "a1 IS NULL", "CHAR_LENGTH(m0)", "a0 / 10", "m0 < 'c'"]

#: Small integer columns of ``t``'s kind (their CAST wraps: x is -1000..1000).
INT_COLS = ["CAST(x AS TINYINT)", "CAST(x AS SMALLINT)", "CAST(k AS TINYINT)", "CAST(k AS SMALLINT)",
            "x", "b", "CAST(x AS BIGINT)", "k", "CAST(x / 10 AS TINYINT)", "CAST(x * 40 AS SMALLINT)",
            "x * 3000000", "b * 10000000", "CAST(b AS INT)", "CAST(d AS TINYINT)", "CAST(f AS SMALLINT)"]
INT_AGGS = ["SUM({c})", "AVG({c})", "MIN({c})", "MAX({c})", "SUM(DISTINCT {c})", "AVG(DISTINCT {c})",
            "SUM({c}) FILTER (WHERE g <> 'a')", "SUM({c}) / COUNT(*)", "AVG({c}) * 2", "SUM({c} * {c})",
            "SUM({c} / 3)", "SUM(MOD({c}, 7))", "SUM({c}) + 1"]
DEC_EXPRS = ["d", "d * d", "d / 3", "d % 7", "d + x", "d - 0.005", "d * 0.5", "d / x", "x / d",
             "CAST(d AS DECIMAL(5, 1))", "CAST(d AS DECIMAL(38, 10)) * 3", "d * CAST(k AS DECIMAL(3, 1))",
             "MOD(d, CAST(3 AS DECIMAL(4, 2)))", "CAST(x AS DECIMAL(4, 0)) / 7", "d * d * d",
             "CAST(d AS DECIMAL(20, 6)) / CAST(7 AS DECIMAL(2, 0))", "d / 0.3", "ROUND(d / 7, 3)",
             "d + CAST(b AS DECIMAL(19, 0))", "CAST(d AS DECIMAL(12, 4)) - d", "d * 1.000", "-d"]
DEC_AGGS = ["SUM({c})", "AVG({c})", "MIN({c})", "MAX({c})", "SUM(DISTINCT {c})",
            "AVG({c}) FILTER (WHERE x > 0)", "SUM({c}) / COUNT(*)", "CAST(SUM({c}) AS DECIMAL(10, 1))",
            "AVG({c}) * 2"]
WIDEN = [
    "CASE WHEN x > 0 THEN d ELSE x END", "CASE WHEN x > 0 THEN f ELSE d END",
    "COALESCE(CAST(k AS TINYINT), x)",
    "COALESCE(CAST(x AS SMALLINT), b)", "COALESCE(d, x)", "COALESCE(d, b)", "COALESCE(d, f)", "NULLIF(d, x)",
    "NULLIF(x, k)", "NULLIF(b, x)", "IF(k > 0, CAST(x AS TINYINT), CAST(k AS SMALLINT))",
    "CASE WHEN k > 0 THEN CAST(d AS DECIMAL(4, 1)) WHEN k < 0 THEN CAST(d AS DECIMAL(12, 5)) END",
    "CASE WHEN k = 0 THEN 1 WHEN k = 1 THEN 2.5 ELSE x END", "IF(x > 0, CAST(x AS FLOAT), d)",
    "CASE WHEN k > 0 THEN b ELSE d END", "COALESCE(CAST(NULL AS DECIMAL(30, 8)), d)",
    "CASE k WHEN 1 THEN 'a' WHEN 2 THEN 'bbb' ELSE g END", "COALESCE(s, g, 'none')",
    "CASE WHEN k > 0 THEN CAST(x AS TINYINT) ELSE CAST(b AS BIGINT) END", "NULLIF(CAST(x AS TINYINT), 0)",
    "IF(k IS NULL, x, CAST(k AS DECIMAL(2, 0)))", "COALESCE(CAST(f AS FLOAT), d)",
]
WIDEN_AGGS = ["SUM({c})", "AVG({c})", "MAX({c})", "MIN({c})"]
INT_EXPRS = [
    "i / 7", "-i / 7", "i / -7", "MOD(i, -7)", "MOD(-i, 7)", "i % -3", "n / -1000", "MOD(n, -1000)",
    "i + 1", "i - 1", "i * 2", "-i", "ABS(i)", "n + 1", "n * 2", "-n", "ABS(n)", "i + n",
    "CAST(i AS TINYINT)", "CAST(i AS SMALLINT)", "CAST(n AS INT)", "CAST(n AS SMALLINT)", "CAST(db AS INT)",
    "CAST(db AS BIGINT)", "CAST(dc AS INT)", "CAST(dc AS TINYINT)", "CAST(dc AS SMALLINT)",
    "CAST(i AS TINYINT) + CAST(1 AS TINYINT)", "CAST(i AS SMALLINT) * CAST(2 AS SMALLINT)",
    "CAST(i AS TINYINT) / CAST(3 AS TINYINT)", "i / CAST(2 AS BIGINT)", "CAST(i AS DECIMAL(5, 0))",
    "CAST(n AS DECIMAL(10, 2))", "i * 1.0 / 7", "n / 7 * 7", "CAST(i AS TINYINT) % CAST(-3 AS TINYINT)",
]

#: From this seed on, :data:`SHAPES_B` (the seeds below keep their recorded queries).
V4B = 300_150
SHAPES_B = ["chain_agg", "agg_join", "union_cl", "rank_agg", "subq_cl", "int_aggs", "dec_aggs",
            "scalar_sub", "scalar_sub", "anti_outer", "anti_outer", "nonequi_join", "nonequi_join",
            "mixed_key_join", "mixed_key_join", "emptied", "emptied", "chain_deep", "chain_deep",
            "distinct_cl"]
#: Join keys of two types: the right side's ``k`` cast (Flink widens both sides to a common type).
MIXED_KEYS = ["l.k = CAST(r.k AS BIGINT)", "l.k = CAST(r.k AS DECIMAL(5, 1))", "l.k = CAST(r.k AS TINYINT)",
              "l.k * 1.0 = r.k", "CAST(l.k AS DOUBLE) = r.k", "l.k = r.x / 250", "l.k = r.x / 250.0",
              "CAST(l.k AS SMALLINT) = r.k + 0", "l.b / 300000000000 = r.k", "l.g = CAST(r.k AS STRING)"]


def deleted_ids(name: str) -> list[int]:
    """The ids of ``cdc`` / ``cdx`` whose last change is a delete (``tests.runtime.query_fuzz``'s data)."""
    from tests.runtime.oracle import simulate_changelog
    from tests.runtime.query_fuzz import N_ROWS, extremes_changelog

    events, final = (simulate_changelog(seed=11, n_events=N_ROWS) if name == "cdc"
                     else extremes_changelog(seed=12, n_rows=N_ROWS))
    seen = {(after or before)["id"] for _, before, after in events}
    return sorted(seen - set(final))


class GenV4(Gen):
    """The grammar of :data:`SHAPES` (of :data:`SHAPES_B` from :data:`V4B` on; ``pick`` and
    ``predicate`` from :class:`Gen`)."""

    def __init__(self, seed: int):
        super().__init__(seed)
        self.seed = seed

    def src(self) -> str:
        return self.pick(["t", "cdc", "cdc", "cdx", "cdx"])

    def where(self, p: float = 0.35) -> str:
        return f" WHERE {self.predicate().flink}" if self.r.random() < p else ""

    def build(self) -> tuple[str, str]:
        """(query, the main source table) of one shape."""
        shape = self.pick_shape(SHAPES_B if self.seed >= V4B else SHAPES)
        return getattr(self, shape)()

    def inner_agg(self, src: str) -> str:
        """``SELECT gk, a0, a1, m0 FROM src GROUP BY gk [HAVING ...]``."""
        key = self.pick(INNER_KEYS)
        gk = "CONCAT(COALESCE(g, '-'), CAST(k AS STRING))" if key == "g, k" else key
        a0, a1 = self.r.sample(INNER_NUM, 2)
        having = f" HAVING {self.pick(INNER_HAVING)}" if self.r.random() < 0.5 else ""
        return (f"SELECT {gk} AS gk, {a0} AS a0, {a1} AS a1, {self.pick(INNER_STR)} AS m0 FROM {src}"
                f"{self.where()} GROUP BY {key}{having}")

    def chain_agg(self) -> tuple[str, str]:
        src = self.src()
        inner = self.inner_agg(src)
        pool = OUTER + (OUTER_ORDERED if self.r.random() < 0.3 else [])
        aggs = self.r.sample(pool, self.r.randint(1, 4))
        sel = ", ".join(f"{a} AS o{i}" for i, a in enumerate(aggs))
        key = self.pick(OUTER_KEYS)
        if not key:
            return f"SELECT {sel} FROM ({inner})", src
        having = f" HAVING {self.pick(['COUNT(*) > 1', 'SUM(a0) > 0', 'MAX(a1) IS NOT NULL'])}" \
            if self.r.random() < 0.3 else ""
        return f"SELECT {key} AS ok, {sel} FROM ({inner}) GROUP BY {key}{having}", src

    def side(self, on: str) -> str:
        """One side of a join: a changelog's rows or an aggregate keyed by ``on``."""
        src = self.src()
        if self.r.random() < 0.4:
            m = self.r.randint(2, 4)
            return f"(SELECT id, g, k, x, s FROM {src} WHERE MOD(id, {m}) = {self.r.randint(0, m - 1)})"
        agg = self.pick(["COUNT(*)", "SUM(x)", "MAX(x)", "MIN(x)", "COUNT(DISTINCT s)", "AVG(x)"])
        agg2 = self.pick(["MAX(s)", "MIN(s)", "MIN(g)", "LISTAGG(DISTINCT g)"])
        having = f" HAVING {self.pick(INNER_HAVING)}" if self.r.random() < 0.5 else ""
        return f"(SELECT {on}, {agg} AS x, {agg2} AS s FROM {src}{self.where(0.3)} GROUP BY {on}{having})"

    def agg_join(self) -> tuple[str, str]:
        on = self.pick(["g", "k"])
        kind = self.pick(["JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL JOIN", "FULL JOIN", "LEFT JOIN"])
        lside, rside = self.side(on), self.side(on)
        extra = self.pick(["", "", " AND l.x < r.x", " AND l.x <> r.x", " AND r.x > 0",
                           " AND COALESCE(l.s, '') <> COALESCE(r.s, '')"])
        q = (f"SELECT l.{on} AS lk, r.{on} AS rk, l.x AS lx, r.x AS rx, r.s AS rs FROM {lside} l {kind} "
             f"{rside} r ON l.{on} = r.{on}{extra}")
        how = self.pick(["plain", "plain", "count", "reagg"])
        if how == "count":
            q = (f"SELECT COUNT(*) AS c, COUNT(lk) AS cl, COUNT(rk) AS cr, SUM(lx) AS sl, MAX(rx) AS mr "
                 f"FROM ({q})")
        elif how == "reagg":
            q = (f"SELECT lk IS NULL AS pad, COUNT(*) AS c, MIN(rx) AS mn, MAX(lx) AS mx, "
                 f"COUNT(DISTINCT rs) AS ds FROM ({q}) GROUP BY lk IS NULL")
        return q, "cdc"

    def union_cl(self) -> tuple[str, str]:
        def branch(i: int) -> str:
            src, key = self.src(), self.pick(["g", "s"])
            if self.r.random() < 0.35:
                agg = self.pick(["SUM(x)", "MAX(x)", "COUNT(*)"])
                return (f"SELECT {key} AS key, {agg} AS v, {i} AS tag "
                        f"FROM {src}{self.where(0.3)} GROUP BY {key}")
            return (f"SELECT {key} AS key, {self.pick(['x', 'k', '-x', 'x % 10'])} AS v, {i} AS tag "
                    f"FROM {src}{self.where(0.4)}")
        body = " UNION ALL ".join(branch(i) for i in range(self.r.randint(2, 3)))
        aggs = self.r.sample(["COUNT(*)", "SUM(v)", "MIN(v)", "MAX(v)", "COUNT(DISTINCT tag)", "AVG(v)",
                              "SUM(v) FILTER (WHERE tag = 0)", "COUNT(DISTINCT v)"], self.r.randint(1, 3))
        sel = ", ".join(f"{a} AS a{i}" for i, a in enumerate(aggs))
        key = self.pick(["key", "tag", "", "key IS NULL"])
        if not key:
            return f"SELECT {sel} FROM ({body})", "cdc"
        return f"SELECT {key} AS uk, {sel} FROM ({body}) GROUP BY {key}", "cdc"

    def rank_agg(self) -> tuple[str, str]:
        src = self.src()
        part, other = self.pick([("g", "k"), ("k", "g"), ("g", "MOD(x, 3)")])
        agg = self.pick(["COUNT(*)", "SUM(k)", "MAX(x) / 100", "COUNT(DISTINCT s)", "MIN(CHAR_LENGTH(s))"])
        # Flink plans RANK / DENSE_RANK Top-N in window Top-N only: from V4B one in five
        fns = ["ROW_NUMBER", "RANK", "DENSE_RANK"] if self.seed < V4B else 8 * ["ROW_NUMBER"] + ["RANK"]
        fn = self.pick(fns)
        desc = self.pick(["DESC", "ASC"])
        order = f"a {desc}" + (", o" if fn == "ROW_NUMBER" else self.pick(["", ", o DESC"]))
        n = self.r.randint(1, 3)
        rn = self.pick([", rn", ""]) if fn == "ROW_NUMBER" else ", rn"
        partition = self.pick(["PARTITION BY p ", ""])
        inner = (f"SELECT {part} AS p, {other} AS o, {agg} AS a FROM {src}{self.where(0.3)} GROUP BY {part}, "
                 f"{other}")
        return (f"SELECT p, o, a{rn} FROM (SELECT *, {fn}() OVER ({partition}ORDER BY {order}) AS rn FROM "
                f"({inner}) WHERE a IS NOT NULL AND o IS NOT NULL) WHERE rn <= {n}"), src

    def subq_cl(self) -> tuple[str, str]:
        outer, inner = self.src(), self.src()
        cols = self.pick(["id, g, k, x", "id, x", "id, s"])
        w = self.where(0.3)
        pred = self.pick([
            f"k IN (SELECT k FROM {inner} GROUP BY k HAVING {self.pick(INNER_HAVING)})",
            f"k NOT IN (SELECT k FROM {inner} GROUP BY k HAVING {self.pick(INNER_HAVING)})",
            f"x NOT IN (SELECT x FROM {inner} WHERE g = '{self.pick('abcde')}')",
            f"x NOT IN (SELECT x FROM {inner} WHERE x IS NOT NULL AND g = '{self.pick('abcde')}')",
            f"g IN (SELECT MAX(g) FROM {inner} GROUP BY k)",
            f"x IN (SELECT MAX(x) FROM {inner} GROUP BY g)",
            f"x NOT IN (SELECT MIN(x) FROM {inner} GROUP BY g)",
            f"EXISTS (SELECT 1 FROM {inner} r WHERE r.k = o.k AND r.x > o.x)",
            f"NOT EXISTS (SELECT 1 FROM {inner} r WHERE r.g = o.g AND r.id <> o.id)",
            f"NOT EXISTS (SELECT 1 FROM {inner} r WHERE r.k = o.k AND r.x >= o.x)",
            f"EXISTS (SELECT 1 FROM (SELECT g, COUNT(*) AS c FROM {inner} GROUP BY g) r WHERE r.g = o.g "
            f"AND r.c > {self.r.randint(3, 15)})",
            f"(g, k) IN (SELECT g, k FROM {inner} WHERE x > {self.r.randint(-500, 500)})",
            f"s NOT IN (SELECT s FROM {inner} WHERE k = {self.r.randint(-3, 3)})",
        ])
        inner_w = w.replace(" WHERE ", " AND ") if w else ""
        q = f"SELECT {cols} FROM {outer} o WHERE {pred}{inner_w}"
        if self.r.random() < 0.3:
            q = f"SELECT COUNT(*) AS c, MIN(id) AS lo, MAX(id) AS hi FROM ({q})"
        return q, outer

    def int_aggs(self) -> tuple[str, str]:
        src = self.src()
        key = self.pick(["", "g", "k", "MOD(x, 3)"])
        items = [self.pick(INT_AGGS).format(c=self.pick(INT_COLS)) for _ in range(self.r.randint(1, 3))]
        sel = ", ".join(f"{a} AS a{i}" for i, a in enumerate(items))
        if not key:
            return f"SELECT {sel} FROM {src}{self.where(0.3)}", src
        return f"SELECT {key} AS gk, {sel} FROM {src}{self.where(0.3)} GROUP BY {key}", src

    def dec_aggs(self) -> tuple[str, str]:
        src = self.src()
        if self.r.random() < 0.25:  # the expressions' types and values row by row
            items = self.r.sample(DEC_EXPRS, self.r.randint(1, 3))
            return f"SELECT id, {', '.join(f'{e} AS c{i}' for i, e in enumerate(items))} FROM {src}", src
        key = self.pick(["", "g", "k"])
        items = [self.pick(DEC_AGGS).format(c=self.pick(DEC_EXPRS)) for _ in range(self.r.randint(1, 3))]
        sel = ", ".join(f"{a} AS a{i}" for i, a in enumerate(items))
        if not key:
            return f"SELECT {sel} FROM {src}{self.where(0.3)}", src
        return f"SELECT {key} AS gk, {sel} FROM {src}{self.where(0.3)} GROUP BY {key}", src

    def widen(self) -> tuple[str, str]:
        src = self.src()
        if self.r.random() < 0.5:
            items = self.r.sample(WIDEN, self.r.randint(1, 3))
            return f"SELECT id, {', '.join(f'{e} AS c{i}' for i, e in enumerate(items))} FROM {src}", src
        key = self.pick(["g", "k", ""])
        items = [self.pick(WIDEN_AGGS).format(c=self.pick(WIDEN)) for _ in range(self.r.randint(1, 2))]
        items = [a for a in items if not ("'" in a and a.startswith(("SUM", "AVG")))] or ["COUNT(*)"]
        sel = ", ".join(f"{a} AS a{i}" for i, a in enumerate(items))
        if not key:
            return f"SELECT {sel} FROM {src}", src
        return f"SELECT {key} AS gk, {sel} FROM {src} GROUP BY {key}", src

    def int_exprs(self) -> tuple[str, str]:
        items = self.r.sample(INT_EXPRS, self.r.randint(1, 3))
        return f"SELECT id, {', '.join(f'{e} AS c{i}' for i, e in enumerate(items))} FROM e", "e"

    # -- from V4B ------------------------------------------------------------------------------------
    def scalar_sub(self) -> tuple[str, str]:
        outer, inner = self.src(), self.src()
        agg = self.pick(["MAX(x)", "MIN(x)", "AVG(x)", "COUNT(*)", "SUM(k)", "MAX(d)", "AVG(d)"])
        sub = f"(SELECT {agg} FROM {inner}{self.where(0.4)})"
        corr = self.pick(["r.g = o.g", "r.k = o.k", "r.k = o.k AND r.id <> o.id", "r.g = o.g AND r.x > o.x"])
        cagg = self.pick(["COUNT(*)", "MAX(x)", "SUM(x)", "MIN(s)", "COUNT(DISTINCT s)", "AVG(d)"])
        csub = f"(SELECT {cagg} FROM {inner} r WHERE {corr})"
        q = self.pick([
            f"SELECT id, x, x - {sub} AS dx FROM {outer}",
            f"SELECT id, x FROM {outer} WHERE x > {sub}",
            f"SELECT id, g, {csub} AS c FROM {outer} o",
            f"SELECT id, k FROM {outer} o WHERE {csub} IS NULL",
            f"SELECT id, k, x FROM {outer} o WHERE x >= "
            f"{csub.replace(cagg, self.pick(['MAX(x)', 'AVG(x)']))}",
            f"SELECT g, COUNT(*) AS c, SUM(x) - {sub} AS v FROM {outer} GROUP BY g",
        ])
        return q, outer

    def anti_outer(self) -> tuple[str, str]:
        ls, rs = self.src(), self.src()
        on = self.pick(["l.k = r.k", "l.g = r.g", "l.k = r.k AND l.g = r.g"])
        extra = self.pick(["", "", " AND r.x > l.x", " AND r.id <> l.id", " AND r.s IS NOT NULL"])
        kind, null = self.pick([("LEFT JOIN", "r"), ("RIGHT JOIN", "l"), ("FULL JOIN", "r"),
                                ("FULL JOIN", "l")])
        col = self.pick(["id", "x", "k"])
        lm, rm = self.r.randint(2, 4), self.r.randint(2, 4)
        cols = "l.id, l.x" if null == "r" else "r.id, r.x"
        q = (f"SELECT {cols} FROM (SELECT * FROM {ls} WHERE MOD(id, {lm}) = 0) l {kind} (SELECT * FROM {rs} "
             f"WHERE MOD(id, {rm}) = 1) r ON {on}{extra} WHERE {null}.{col} IS NULL")
        if self.r.random() < 0.3:
            q = f"SELECT COUNT(*) AS c, MAX(x) AS mx FROM ({q})"
        return q, ls

    def nonequi_join(self) -> tuple[str, str]:
        ls, rs = self.src(), self.src()
        kind = self.pick(["JOIN", "JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL JOIN"])
        cond = self.pick(["l.x < r.x", "l.x BETWEEN r.x - 50 AND r.x + 50", "l.g < r.g",
                          "l.k > r.k AND l.x < r.x", "l.s = r.g OR l.k = r.k", "ABS(l.x - r.x) < 100"])
        q = (f"SELECT l.id, r.id AS rid, l.x, r.x AS rx FROM (SELECT * FROM {ls} WHERE MOD(id, 9) = 0) l "
             f"{kind} (SELECT * FROM {rs} WHERE MOD(id, 11) = 2) r ON {cond}")
        if self.r.random() < 0.3:
            q = f"SELECT COUNT(*) AS c, COUNT(rid) AS cr, MIN(rx) AS m FROM ({q})"
        return q, ls

    def mixed_key_join(self) -> tuple[str, str]:
        ls, rs = self.src(), self.src()
        kind = self.pick(["JOIN", "LEFT JOIN", "FULL JOIN"])
        on = self.pick(MIXED_KEYS)
        q = (f"SELECT l.id, r.id AS rid, l.k, r.k AS rk FROM (SELECT * FROM {ls} WHERE MOD(id, 5) = 0) l "
             f"{kind} (SELECT * FROM {rs} WHERE MOD(id, 7) = 1) r ON {on}")
        if self.r.random() < 0.3:
            q = f"SELECT k, COUNT(*) AS c, COUNT(rid) AS cr FROM ({q}) GROUP BY k"
        return q, ls

    def emptied(self) -> tuple[str, str]:
        """Aggregates of rows that are all deleted in the end (a group, or the global aggregate, goes)."""
        src = self.pick(["cdc", "cdx"])
        gone = deleted_ids(src)
        ids = ", ".join(map(str, sorted(self.r.sample(gone, self.r.randint(1, 6)))))
        aggs = self.r.sample(["COUNT(*)", "SUM(x)", "MAX(s)", "MIN(x)", "AVG(d)", "COUNT(DISTINCT g)",
                              "LISTAGG(g)", "FIRST_VALUE(x)"], self.r.randint(1, 3))
        sel = ", ".join(f"{a} AS a{i}" for i, a in enumerate(aggs))
        w = self.pick([f"id IN ({ids})", f"id IN ({ids}) OR id = {self.r.randint(0, 300)}"])
        how = self.pick(["global", "grouped", "having", "chain"])
        if how == "global":
            return f"SELECT {sel} FROM {src} WHERE {w}", src
        if how == "grouped":
            return f"SELECT g, {sel} FROM {src} WHERE {w} GROUP BY g", src
        if how == "having":
            return f"SELECT k, {sel} FROM {src} GROUP BY k HAVING SUM(CASE WHEN {w} THEN 1 ELSE 0 END) > 0", \
                src
        return f"SELECT COUNT(*) AS c, MAX(a0) AS m FROM (SELECT g, {sel} FROM {src} WHERE {w} GROUP BY g)", \
            src

    def chain_deep(self) -> tuple[str, str]:
        """Top-N over a join of aggregates, or an aggregate over a Top-N of an aggregate."""
        on = self.pick(["g", "k"])
        if self.r.random() < 0.5:
            j = (f"SELECT l.{on} AS p, l.x AS lx, r.x AS rx FROM {self.side(on)} l "
                 f"{self.pick(['JOIN', 'LEFT JOIN', 'FULL JOIN'])} {self.side(on)} r ON l.{on} = r.{on}")
            n = self.r.randint(1, 3)
            return (f"SELECT p, lx, rx, rn FROM (SELECT *, ROW_NUMBER() OVER (ORDER BY lx DESC, p) AS rn "
                    f"FROM ({j}) WHERE lx IS NOT NULL AND p IS NOT NULL) WHERE rn <= {n}"), "cdc"
        src = self.src()
        other = "k" if on == "g" else "g"
        agg = self.pick(["COUNT(*)", "SUM(x)", "MAX(x)", "MIN(x)"])
        n = self.r.randint(1, 3)
        top = (f"SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY {on} ORDER BY a DESC, {other}) "
               f"AS rn FROM (SELECT {on}, {other}, {agg} AS a FROM {src}{self.where(0.3)} GROUP BY {on}, "
               f"{other}) WHERE {other} IS NOT NULL AND a IS NOT NULL) WHERE rn <= {n}")
        outer = self.pick(["COUNT(*) AS c, SUM(a) AS sa, MAX(rn) AS mr", "MIN(a) AS lo, MAX(a) AS hi",
                           f"COUNT(DISTINCT {other}) AS d, AVG(a) AS av"])
        key = self.pick(["", on])
        if key:
            return f"SELECT {key}, {outer} FROM ({top}) GROUP BY {key}", src
        return f"SELECT {outer} FROM ({top})", src

    def distinct_cl(self) -> tuple[str, str]:
        a, b = self.src(), self.src()
        cols = self.pick(["g, k", "k", "g", "MOD(x, 5) AS m"])
        op = self.pick(["INTERSECT", "EXCEPT", "UNION", "INTERSECT ALL", "EXCEPT ALL"])
        how = self.pick(["distinct", "setop", "distinct_join"])
        if how == "distinct":
            q = f"SELECT DISTINCT {cols} FROM {a}{self.where(0.5)}"
            if self.r.random() < 0.5:
                q = f"SELECT COUNT(*) AS c FROM ({q})"
            return q, a
        if how == "setop":
            return f"SELECT {cols} FROM {a}{self.where(0.4)} {op} SELECT {cols} FROM {b}{self.where(0.4)}", a
        return (f"SELECT d.k, COUNT(*) AS c, MAX(o.x) AS m FROM (SELECT DISTINCT k FROM {a}"
                f"{self.where(0.5)}) d JOIN {b} o ON d.k = o.k GROUP BY d.k"), a


def make_v4_query(seed: int) -> Query:
    """The v4 generator's query of ``seed`` (:data:`BASE` and above); its DuckDB text is empty."""
    g = GenV4(seed)
    flink, src = g.build()
    return Query(flink, "", src, g.pick([1, 7, 50, None]), g.pick(["hashmap", "rocksdb"]), g.shape)
