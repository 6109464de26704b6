"""Random queries whose answer only Flink can check: result types, overflow, DECIMAL scales, CHAR padding.

:mod:`tests.runtime.query_fuzz` leaves out what DuckDB cannot be made to mean as Flink does
(division, floating point keys, overflow). These shapes put them in, over the same tables, and
are checked against Flink 2.3's recorded answers only (``scripts/flink_queryfuzz.py``,
:mod:`tests.runtime.query_fuzz_flink`):

- aggregates whose type Flink derives its own way (AVG of an INT is an INT, of a DECIMAL(10,2) a
  DECIMAL(38,6); SUM of an INT an INT that wraps; STDDEV/VAR of an integer an integer; SUM of a
  quotient), DISTINCT aggregates, FIRST_VALUE/LAST_VALUE over the insert-only table;
- GROUP BY keys that are CASTs, quotients, roundings and string comparisons;
- projections of division (integer, DECIMAL, by a column that is 0), casts that overflow or round,
  INT/BIGINT arithmetic that wraps, CHAR(n) literals padded by CASE/IF/COALESCE, string order;
- ORDER BY ... LIMIT with NULLS FIRST/LAST, RANK / DENSE_RANK Top-N with ties, joins on nullable
  and mixed-type keys (``IS NOT DISTINCT FROM`` too), set operations that widen types, HAVING over
  averages, window and OVER aggregates of the same typed calls.

Seeds are numbered from :data:`BASE` (``make_flink_query`` picks the generator by the seed).
"""

from __future__ import annotations

from tests.runtime.query_fuzz import Gen, Query, make_query

#: The first seed of this generator; below it, :func:`tests.runtime.query_fuzz.make_query`'s.
BASE = 100_000

AGGS = [
    "AVG(x)", "AVG(k)", "AVG(b)", "AVG(d)", "AVG(f)", "SUM(x * 100000)", "SUM(b)", "SUM(d)",
    "SUM(d * d)", "SUM(d / 3)", "AVG(d * 2)", "STDDEV_POP(x)", "STDDEV_SAMP(d)", "VAR_POP(f)",
    "VAR_SAMP(k)", "MAX(d / 7)", "MIN(x / 3)", "SUM(x) / COUNT(*)", "CAST(AVG(f) AS DECIMAL(10, 3))",
    "ROUND(AVG(d), 1)", "COUNT(DISTINCT s)", "SUM(DISTINCT d)", "AVG(DISTINCT x)", "MAX(s)",
    "MIN(CAST(x AS STRING))", "SUM(CAST(k AS SMALLINT))", "AVG(CAST(k AS TINYINT))", "SUM(f)",
    "COUNT(f)", "SUM(CAST(x AS DOUBLE)) / 3", "MAX(x > k)", "MIN(g > s)", "AVG(x) * 1.5",
    "SUM(d) / COUNT(*)", "COUNT(DISTINCT d)", "MAX(CAST(f AS DECIMAL(8, 1)))", "AVG(CAST(x AS BIGINT))",
    "SUM(x + b)", "AVG(x / 7)", "SUM(CAST(d AS INT))", "MIN(UPPER(s))", "MAX(CONCAT(g, s))",
]
#: Only where rows arrive in one order and are never retracted (the insert-only ``t``).
ORDER_AGGS = ["FIRST_VALUE(x)", "LAST_VALUE(s)", "LISTAGG(g)", "LAST_VALUE(d)", "FIRST_VALUE(f)"]
KEYS = [
    "CAST(d AS INT)", "CAST(x AS STRING)", "CAST(f AS DECIMAL(6, 1))", "CAST(d AS DECIMAL(5, 0))",
    "x / 100", "d / 4", "CHAR_LENGTH(s)", "s > 'c'", "MOD(x, 7)", "ROUND(d, 0)", "FLOOR(d / 10)",
    "CEIL(f / 100)", "CAST(k AS STRING)", "g < 'c'", "UPPER(s) >= 'D'", "CAST(x / 200 AS TINYINT)",
    "CAST(f AS INT) / 100", "k * 1.5", "ABS(k) / 2", "COALESCE(g, s)", "SUBSTR(s, 1, 1)", "x % 3 = 0",
]
PROJ = [
    "x / 3", "x / k", "d / 3", "d / k", "d * 1.5", "x * 1.0 / 3", "f / 0", "CAST(d AS INT)",
    "CAST(f AS INT)", "CAST(f AS STRING)", "CAST(d AS STRING)", "CAST(x AS DECIMAL(4, 1))",
    "CAST(b AS INT)", "CAST(x AS TINYINT)", "x * 10000000", "b * b", "MOD(x, k)", "POWER(x, 2)",
    "s < 'c'", "s >= g", "UPPER(s) > 'B'", "s BETWEEN 'a' AND 'f'", "x / 2.0", "d + f", "d = 0.5",
    "ROUND(f, 1)", "ROUND(d, -1)", "TRUNCATE(d, 1)", "ABS(d)", "d * d * d", "b / x",
    "CASE WHEN x > 0 THEN 'pos' ELSE 'negative' END", "IF(k > 0, 'a', 'abc')",
    "CASE WHEN x > 0 THEN x ELSE d END", "COALESCE(x, d)", "COALESCE(k, b)", "NULLIF(s, '')",
    "CASE k WHEN 1 THEN 'one' WHEN 2 THEN 'two' END", "CAST(d AS DECIMAL(4, 1))", "CAST(f AS DECIMAL(5, 2))",
    "x + 0.5", "k * 2147483647", "CAST(x AS SMALLINT) * CAST(x AS SMALLINT)", "-x / 7", "d / -7",
    "f * 1e300", "CAST(x AS DOUBLE) / 7", "x / 7 * 7 = x",
    "CONCAT(s, CAST(d AS STRING))", "CAST(k AS DECIMAL(3, 2)) / 3", "ROUND(x / 3.0, 2)",
]


def _named(items: list[str], prefix: str) -> str:
    """``a AS a0, b AS a1, ...``."""
    return ", ".join(f"{e} AS {prefix}{i}" for i, e in enumerate(items))


class TypedGen(Gen):
    """The grammar of the typed shapes (each a Flink query only: no DuckDB text)."""

    def where(self, q: str = "") -> tuple[str, str]:
        """Half the time a WHERE of :meth:`Gen.predicate` (its Flink text twice)."""
        if self.r.random() < 0.5:
            return "", ""
        p = self.predicate(q).flink
        return f" WHERE {p}", f" WHERE {p}"

    def aggs(self, src: str, n: int) -> list[str]:
        pool = AGGS + (ORDER_AGGS if src == "t" else [])
        return self.r.sample(pool, n)

    def typed(self, src: str) -> str:
        """One query of a typed shape over ``src`` (``t``, ``cdc`` or ``cdx``; ``tw`` for windows)."""
        shape = self.pick_shape(["typed_agg", "typed_agg", "typed_project", "typed_project", "typed_order",
                                 "typed_rank", "typed_join", "typed_setop", "typed_having", "typed_window",
                                 "typed_over", "typed_global"])
        w, _ = self.where()
        if shape == "typed_agg":
            keys = self.r.sample(KEYS, self.r.randint(1, 2))
            aggs = self.aggs(src, self.r.randint(1, 4))
            return f"SELECT {_named(keys, 'k')}, {_named(aggs, 'a')} FROM {src}{w} GROUP BY {', '.join(keys)}"
        if shape == "typed_global":
            aggs = self.aggs(src, self.r.randint(1, 4))
            return f"SELECT {_named(aggs, 'a')} FROM {src}{w}"
        if shape == "typed_project":
            cols = self.r.sample(PROJ, self.r.randint(1, 4))
            return f"SELECT id, {_named(cols, 'c')} FROM {src}{w}"
        if shape == "typed_order":
            col = self.pick(["x", "d", "s", "f", "k", "g", "b"])
            how = self.pick(["", " DESC", " NULLS FIRST", " NULLS LAST", " DESC NULLS FIRST",
                             " DESC NULLS LAST"])
            n = self.r.randint(1, 12)
            return f"SELECT id, {col} FROM {src}{w} ORDER BY {col}{how}, id LIMIT {n}"
        if shape == "typed_rank":
            fn = self.pick(["RANK()", "DENSE_RANK()"])
            order = self.pick(["k", "k DESC", "g", "x / 300", "CHAR_LENGTH(s) DESC", "d"])
            col = order.split()[0]
            part = self.pick(["g", "k", "x % 2"])
            n = self.r.randint(1, 3)
            inner = f"SELECT id, {part} AS p, {col} AS o FROM {src}{w}"
            desc = " DESC" if order.endswith("DESC") else ""
            return (f"SELECT id, p, o, r FROM (SELECT *, {fn} OVER (PARTITION BY p ORDER BY o{desc}) AS r "
                    f"FROM ({inner})) WHERE r <= {n}")
        if shape == "typed_join":
            kind = self.pick(["JOIN", "LEFT JOIN", "FULL JOIN"])
            on = self.pick(["l.k = r.k", "l.k IS NOT DISTINCT FROM r.k", "l.d = r.x", "l.g = r.s",
                            "CAST(l.x AS STRING) = r.s", "l.s = UPPER(r.s)", "l.g = r.g AND l.k > r.k",
                            "l.x / 100 = r.k", "l.f > r.d AND l.g = r.g", "l.b / 1000000000000 = r.k"])
            lw, rw = self.r.randint(0, 4), self.r.randint(0, 6)
            return (f"SELECT l.id, r.id AS rid, l.k, r.k AS rk, l.d, r.x FROM (SELECT * FROM {src} WHERE "
                    f"id % 5 = {lw}) l {kind} (SELECT * FROM {src} WHERE id % 7 = {rw}) r ON {on}")
        if shape == "typed_setop":
            a, b = self.pick([("k", "x"), ("d", "x"), ("g", "s"), ("f", "d"), ("k", "b"), ("x / 3", "d / 3"),
                              ("CAST(x AS STRING)", "s"), ("'a'", "g"), ("k", "CAST(NULL AS INT)")])
            op = self.pick(["UNION", "UNION ALL", "INTERSECT", "EXCEPT"])
            p1, p2 = self.predicate().flink, self.predicate().flink
            return f"SELECT {a} AS v FROM {src} WHERE {p1} {op} SELECT {b} AS v FROM {src} WHERE {p2}"
        if shape == "typed_having":
            key = self.pick(["g", "k", "x % 3"])
            h = self.pick(["AVG(x) > 10", "SUM(d) / COUNT(*) > 1.5", "AVG(d) < 0", "STDDEV_POP(x) > 500",
                           "MAX(s) > 'c'", "COUNT(DISTINCT k) > 3", "AVG(k) = 0", "SUM(x) / 7 > 20"])
            aggs = self.aggs(src, self.r.randint(1, 2))
            return f"SELECT {key} AS k0, {_named(aggs, 'a')} FROM {src}{w} GROUP BY {key} HAVING {h}"
        if shape == "typed_window":
            size = self.pick([10, 30, 60])
            key = self.pick(["", "g, ", "k, "])
            aggs = self.r.sample(AGGS, self.r.randint(1, 3))
            return (f"SELECT {key}window_start, window_end, {_named(aggs, 'a')} "
                    f"FROM TABLE(TUMBLE(TABLE tw, DESCRIPTOR(ts), INTERVAL '{size}' SECOND)){w} "
                    f"GROUP BY {key}window_start, window_end")
        fn = self.pick(["AVG(x)", "SUM(d)", "AVG(d)", "SUM(x * 100000)", "AVG(f)", "MAX(d / 3)", "COUNT(s)",
                        "AVG(k)", "MIN(s)"])
        frame = self.pick(["ROWS BETWEEN 2 PRECEDING AND CURRENT ROW",
                           "ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW",
                           "RANGE BETWEEN INTERVAL '20' SECOND PRECEDING AND CURRENT ROW"])
        part = self.pick(["", "PARTITION BY g ", "PARTITION BY k "])
        return f"SELECT id, {fn} OVER ({part}ORDER BY ts {frame}) AS v FROM tw"


def make_typed_query(seed: int) -> Query:
    """The typed generator's query of ``seed`` (:data:`BASE` and above); its DuckDB text is empty."""
    g = TypedGen(seed)
    p = g.r.random()
    src = "cdc" if p < 0.2 else "cdx" if p < 0.3 else "t"
    flink = g.typed(src)
    timed = g.shape in ("typed_window", "typed_over")
    return Query(flink, "", "tw" if timed else src, g.pick([1, 7, 50, None]), g.pick(["hashmap", "rocksdb"]),
                 g.shape)


def make_flink_query(seed: int) -> Query:
    """The query Flink answered for ``seed``: the wide generator's from
    :data:`tests.runtime.query_fuzz_wide.BASE` (the v4 generator's from
    :data:`tests.runtime.query_fuzz_v4.BASE`, the v5 generator's from
    :data:`tests.runtime.query_fuzz_v5.BASE`, the v6 generator's from
    :data:`tests.runtime.query_fuzz_v6.BASE`, the v7 generator's from
    :data:`tests.runtime.query_fuzz_v7.BASE`), the typed generator's from :data:`BASE`, else query_fuzz's."""
    from tests.runtime import query_fuzz_v4 as v4
    from tests.runtime import query_fuzz_v5 as v5
    from tests.runtime import query_fuzz_v6 as v6
    from tests.runtime import query_fuzz_v7 as v7
    from tests.runtime import query_fuzz_wide as wide  # (it imports this module's aggregates)

    if seed >= v7.BASE:
        return v7.make_v7_query(seed)
    if seed >= v6.BASE:
        return v6.make_v6_query(seed)
    if seed >= v5.BASE:
        return v5.make_v5_query(seed)
    if seed >= v4.BASE:
        return v4.make_v4_query(seed)
    if seed >= wide.BASE:
        return wide.make_wide_query(seed)
    return make_typed_query(seed) if seed >= BASE else make_query(seed)

