"""The wide generator's shapes from seed :data:`tests.runtime.query_fuzz_wide.V2` on.

Query structure over ``t`` (insert-only) and the changelogs ``cdc`` / ``cdx``: aggregates nested in
FROM with GROUP BY expressions and HAVING, UNION ALL of aggregates (their types widened), LEFT /
RIGHT / FULL joins with non-equi residuals, FIRST_VALUE / LAST_VALUE / LISTAGG (over the
changelogs too: Flink's retracting variants), ROW_NUMBER Top-N of an aggregate; and expressions over
the edge values of ``e``: DECIMAL arithmetic (result precision and scale, overflow, rounding),
TIMESTAMP / DATE arithmetic and EXTRACT, CASE / COALESCE / NULLIF / GREATEST over mixed types,
casts between numeric, string and boolean types, string functions at their edge arguments (zero,
negative and out-of-range positions and lengths, empty patterns).

Every query is checked against Flink 2.3's recorded answer only (``scripts/flink_queryfuzz.py``).
"""

from __future__ import annotations

from tests.runtime.query_fuzz_typed import KEYS

DEC_FN = [
    "dc * CAST(i AS DECIMAL(5, 2))", "dc / CAST(3 AS DECIMAL(2, 0))", "CAST(dc AS DECIMAL(6, 2)) + 1.005",
    "dc * 0.001", "dc + CAST(db AS DECIMAL(10, 3))", "CAST(dc AS DECIMAL(38, 18)) * dc", "dc / 7.0",
    "MOD(dc, 3)", "ROUND(dc / 3, 3)", "CAST(i AS DECIMAL(10, 0)) / 7", "dc - 0.00005", "ABS(dc) * -1.5",
    "CAST(dc AS DECIMAL(5, 1))", "CAST(s AS DECIMAL(5, 2))", "TRY_CAST(s AS DECIMAL(10, 3))", "dc * 1e0",
    "CAST(n AS DECIMAL(19, 0)) + 1", "dc / i", "FLOOR(dc * 10) / 10", "TRUNCATE(dc / 3, 2)", "dc = 0.5",
    "dc > db", "dc IN (0.5, 2.5, 1)", "CAST(dc AS DOUBLE) * 3", "dc * dc * dc", "dc / dc",
    "CAST(dc AS DECIMAL(38, 0)) * 100000000000", "1 / CAST(3 AS DECIMAL(38, 10))", "dc + i + n",
    "CAST(0.1 AS DECIMAL(2, 1)) + CAST(0.25 AS DECIMAL(3, 2))", "ROUND(dc, 3) - dc", "dc / 0.0003",
    "CEIL(dc * 100) / 100", "CAST(i AS DECIMAL(3, 0))", "CAST(db AS DECIMAL(12, 6))", "dc * n",
    "CAST(dc AS BIGINT) * 2", "SIGN(dc) * dc", "-dc",
    "CAST(dc AS DECIMAL(20, 4)) - CAST(dc AS DECIMAL(10, 1))",
]
#: Aggregates of ``e``'s DECIMAL (grouped by a boolean or a small key).
DEC_AGGS = [
    "SUM(dc)", "AVG(dc)", "SUM(dc * dc)", "MAX(dc / 3)", "MIN(dc * 2.5)", "SUM(DISTINCT dc)",
    "AVG(CAST(i AS DECIMAL(10, 0)))", "SUM(dc) / COUNT(*)", "STDDEV_POP(dc)", "VAR_SAMP(dc)",
    "AVG(dc * 0.001)", "SUM(CAST(dc AS DECIMAL(38, 4)))", "COUNT(DISTINCT dc)", "AVG(db)",
]
TIME2_FN = [
    "ts + INTERVAL '1' MONTH", "ts - INTERVAL '2' YEAR", "dt + INTERVAL '2' DAY",
    "ts + INTERVAL '13' MONTH", "dt - INTERVAL '1-6' YEAR TO MONTH", "ts + INTERVAL '1:30' HOUR TO MINUTE",
    "ts - INTERVAL '90' MINUTE", "TIMESTAMPDIFF(YEAR, dt, DATE '2024-02-29')",
    "TIMESTAMPDIFF(WEEK, dt, DATE '2024-01-01')",
    "TIMESTAMPDIFF(QUARTER, ts, TIMESTAMP '2000-01-01 00:00:00')",
    "TIMESTAMPDIFF(MINUTE, ts, TIMESTAMP '2024-02-29 00:00:00')",
    "TIMESTAMPDIFF(MONTH, ts, TIMESTAMP '2024-03-30 00:00:00')", "EXTRACT(MINUTE FROM ts)",
    "EXTRACT(SECOND FROM ts)", "EXTRACT(DECADE FROM dt)", "EXTRACT(CENTURY FROM dt)",
    "EXTRACT(MILLENNIUM FROM dt)", "EXTRACT(ISODOW FROM dt)", "EXTRACT(ISOYEAR FROM dt)",
    "EXTRACT(MICROSECOND FROM ts)", "EXTRACT(EPOCH FROM ts)", "EXTRACT(DOY FROM ts)",
    "EXTRACT(WEEK FROM ts)", "EXTRACT(YEAR FROM ts + INTERVAL '1' DAY)", "TIMESTAMPADD(WEEK, 1, dt)",
    "TIMESTAMPADD(QUARTER, 1, ts)", "TIMESTAMPADD(HOUR, -25, dt)", "TIMESTAMPADD(MINUTE, i, ts)",
    "TIMESTAMPADD(SECOND, MOD(i, 1000), ts)", "TIMESTAMPADD(MONTH, -1, dt)", "DAYOFMONTH(dt)",
    "CAST(ts AS TIMESTAMP(0))", "CAST(dt AS TIMESTAMP(3)) + INTERVAL '1' HOUR",
    "TO_TIMESTAMP(CAST(dt AS STRING), 'yyyy-MM-dd')", "FLOOR(dt TO MONTH)", "CEIL(ts TO MINUTE)",
    "FLOOR(ts TO WEEK)", "FLOOR(ts TO QUARTER)", "CEIL(dt TO QUARTER)", "CEIL(ts TO SECOND)",
    "ts BETWEEN TIMESTAMP '2000-01-01 00:00:00' AND TIMESTAMP '2024-12-31 00:00:00'",
    "CAST(ts AS DATE) = dt", "ts > CAST(dt AS TIMESTAMP(3))",
    "DATE_FORMAT(ts + INTERVAL '1' MONTH, 'yyyy-MM-dd')", "CAST(CAST(ts AS STRING) AS TIMESTAMP(3))",
    "CAST(ts AS TIME)", "HOUR(ts + INTERVAL '23' HOUR)", "DATE_FORMAT(dt + INTERVAL '1' DAY, 'D')",
]
MIXED_FN = [
    "COALESCE(CAST(i AS STRING), s)", "CASE WHEN bo THEN i ELSE dc END", "CASE WHEN bo THEN n ELSE db END",
    "NULLIF(i, n)", "NULLIF(dc, i)", "NULLIF(db, 0)", "COALESCE(i, dc)", "COALESCE(n, db)",
    "CASE WHEN i > 0 THEN 'pos' WHEN i < 0 THEN s END",
    "CASE s WHEN '' THEN 'empty' WHEN 'abc' THEN 'lower' ELSE UPPER(s) END",
    "IF(bo, CAST(i AS STRING), s)", "CASE WHEN bo IS NULL THEN CAST(NULL AS DECIMAL(5, 1)) ELSE dc END",
    "COALESCE(NULLIF(s, ''), 'blank')", "NULLIF(COALESCE(i, 0), 0)", "CASE WHEN n > 0 THEN n / i END",
    "GREATEST(dc, db)", "LEAST(i, dc, db)", "GREATEST(dt, CAST(ts AS DATE))",
    "COALESCE(ts, CAST(dt AS TIMESTAMP(3)))",
    "CASE WHEN bo THEN CAST(i AS DECIMAL(3, 0)) ELSE CAST(dc AS DECIMAL(30, 10)) END",
    "CAST(CAST(i AS STRING) AS INT)", "CAST(bo AS INT)", "CAST(i AS BOOLEAN)", "CAST(s AS BOOLEAN)",
    "CAST(db AS STRING)", "CAST(CAST(db AS FLOAT) AS STRING)", "CAST(n AS DOUBLE)", "CAST(db AS BIGINT)",
    "CAST(dc AS INT)", "CAST(CAST(dc AS STRING) AS DECIMAL(20, 4))", "CAST(bo AS STRING)",
    "CAST(s AS DOUBLE)", "TRY_CAST(s AS INT)", "CAST(i AS CHAR(2))", "CAST(n AS VARCHAR(5))",
    "CAST(CAST(i AS TINYINT) AS STRING)", "CAST(dc AS STRING) || '#'", "CAST(i AS DOUBLE) / 0",
    "CAST(n AS INT)", "CAST(db AS INT)", "CAST(s AS BIGINT) + 1", "TRY_CAST(s AS BOOLEAN)",
    "CAST(CAST(bo AS STRING) AS BOOLEAN)", "IF(bo, i, n) * 2",
    "CASE WHEN bo THEN s ELSE CAST(i AS STRING) END", "COALESCE(bo, FALSE) = TRUE",
    "CASE WHEN db > 1 THEN 'big' WHEN db < -1 THEN 'small' ELSE CAST(db AS STRING) END",
]
STR_EDGE = [
    "SUBSTRING(s FROM 0)", "SUBSTRING(s FROM -1 FOR 2)", "SUBSTR(s, 2, 0)", "LEFT(s, -1)", "RIGHT(s, 0)",
    "LPAD(s, 0, 'x')", "LPAD(s, -1, 'x')", "RPAD(s, 6, 'ab')", "REPEAT(s, 0)", "REPEAT(s, -1)",
    "LOCATE('', s)", "POSITION('' IN s)", "REPLACE(s, '', 'x')", "SPLIT_INDEX(s, ',', -1)",
    "REGEXP_EXTRACT(s, '([a-z])([a-z])', 2)", "REGEXP_EXTRACT(s, '(x)?', 1)",
    "OVERLAY(s PLACING '' FROM 1)", "TRIM(LEADING ' ' FROM s)", "TRIM(TRAILING 'c' FROM s)",
    "INITCAP(CONCAT(s, ' x'))", "UPPER(s) LIKE '%SS%'", "CHAR_LENGTH(REPEAT(s, 3))",
    "SUBSTRING(s FROM i FOR 2)", "LEFT(s, i)", "LPAD(s, MOD(ABS(i), 10), '*')", "ELT(0, s)",
    "LOCATE('a', s, 0)", "LOCATE('a', s, -1)", "CONCAT_WS(s, 'a', 'b')", "SUBSTR(s, 100)", "RIGHT(s, 100)",
    "RPAD(s, 2, 'xy')", "OVERLAY(s PLACING 'Z' FROM 10)", "SPLIT_INDEX(s, 'b', 5)",
    "REGEXP_REPLACE(s, '^', '>')", "REGEXP_EXTRACT(s, '[0-9]+')", "TRIM(BOTH 'ab' FROM s)",
    "UPPER(s) = LOWER(s)", "s LIKE '_'", "s LIKE '%\\_%' ESCAPE '\\'", "s NOT LIKE '%'",
    "CHAR_LENGTH(s) > i", "LOWER(s) || UPPER(s)", "SUBSTRING(s FROM 2)", "POSITION(s IN 'xabcx')",
    "INSTR(s, 'a')", "REVERSE(CONCAT(s, 'é'))", "ASCII('')", "CHR(0)", "REPLACE(s, s, '')",
    "SPLIT_INDEX(s, s, 0)",
]
#: GROUP BY expressions over ``t``'s columns: :data:`tests.runtime.query_fuzz_typed.KEYS` and a few more.
GROUP_EXPRS = KEYS + ["UPPER(g)", "x > 0", "k * k", "CASE WHEN x > 0 THEN 'p' ELSE 'n' END", "b % 4",
                      "COALESCE(k, -9)", "CAST(d AS BIGINT) / 50"]
HAVING = [
    "COUNT(*) > 2", "SUM(x) > 0", "MAX(d) < 100", "AVG(x) IS NOT NULL", "COUNT(DISTINCT g) >= 2",
    "MIN(s) < 'd'", "SUM(d) BETWEEN -200 AND 200", "COUNT(x) <> COUNT(*)", "MAX(f) > 10 OR MIN(k) < 0",
]
SMALL_AGGS = [
    "COUNT(*)", "SUM(x)", "MAX(d)", "MIN(s)", "AVG(x)", "SUM(b)", "AVG(d)", "COUNT(DISTINCT k)", "MAX(f)",
    "SUM(d)", "MIN(x)", "COUNT(s)",
]
VALUE_AGGS = [
    "FIRST_VALUE(x)", "LAST_VALUE(x)", "FIRST_VALUE(s)", "LAST_VALUE(d)", "LISTAGG(g)", "LISTAGG(s, ';')",
    "LISTAGG(CAST(x AS STRING), '')", "FIRST_VALUE(f)", "LAST_VALUE(b)", "LISTAGG(DISTINCT g)",
    "LAST_VALUE(s)", "FIRST_VALUE(d)",
]
RESIDUALS = [
    " AND l.x < r.x", " AND l.g <> r.g", " AND l.d > r.d + 10", " AND (l.s LIKE '%a%' OR r.s IS NULL)",
    " AND l.id < r.id", " AND l.f <= r.f", " AND r.x > 0", " AND l.x > 0", " AND l.x + r.x > 100",
    " AND COALESCE(l.s, '') <> COALESCE(r.s, '')",
]


class WideGenV2:
    """The shapes :data:`tests.runtime.query_fuzz_wide.SHAPES_V2` adds (a mixin of ``WideGen``)."""

    def src(self) -> str:
        return self.pick(["t", "t", "cdc", "cdx"])

    def opt_where(self, p: float = 0.4) -> str:
        return f" WHERE {self.pred()}" if self.r.random() < p else ""

    def nested_agg(self) -> str:
        src = self.src()
        key = self.pick(GROUP_EXPRS)
        aggs = self.r.sample(SMALL_AGGS, self.r.randint(1, 3))
        sel = ", ".join(f"{a} AS a{i}" for i, a in enumerate(aggs))
        having = f" HAVING {self.pick(HAVING)}" if self.r.random() < 0.6 else ""
        inner = (f"SELECT {key} AS gk, {sel} FROM (SELECT * FROM {src}{self.opt_where()}) "
                 f"GROUP BY {key}{having}")
        how = self.pick(["plain", "filter", "reagg", "expr"])
        if how == "filter":
            return f"SELECT gk, a0 FROM ({inner}) WHERE a0 IS NOT NULL"
        if how == "reagg":  # an aggregate of the aggregate (its input updates)
            return f"SELECT COUNT(*) AS groups, MAX(a0) AS top, MIN(a0) AS low FROM ({inner})"
        if how == "expr":
            return f"SELECT gk, CASE WHEN a0 IS NULL THEN -1 ELSE 1 END AS sign0, a0 FROM ({inner})"
        return inner

    def union_aggs(self) -> str:
        def branch(tag: str) -> str:
            src = self.src()
            key = self.pick(["g", "CAST(k AS STRING)", "s", "CAST(x % 3 AS STRING)"])
            agg = self.pick(["COUNT(*)", "SUM(x)", "MAX(b)", "SUM(k)", "MIN(x)"])
            agg2 = self.pick(["MAX(d)", "SUM(d)", "AVG(d)", "CAST(AVG(x) AS DECIMAL(10, 2))", "MIN(d)"])
            return (f"SELECT '{tag}' AS tag, {key} AS key, {agg} AS v, {agg2} AS w FROM {src}"
                    f"{self.opt_where(0.3)} GROUP BY {key}")
        n = self.r.randint(2, 3)
        body = " UNION ALL ".join(branch(t) for t in ["a", "bb", "ccc"][:n])
        if self.r.random() < 0.3:  # aggregated once more
            return f"SELECT tag, COUNT(*) AS c, SUM(v) AS sv FROM ({body}) GROUP BY tag"
        return body

    def outer_join(self) -> str:
        kind = self.pick(["LEFT JOIN", "RIGHT JOIN", "FULL JOIN", "JOIN", "LEFT JOIN", "FULL JOIN"])
        ls, rs = self.src(), self.src()
        lm, rm = self.r.randint(3, 5), self.r.randint(3, 6)
        on = self.pick(["l.k = r.k", "l.g = r.g", "l.k = r.k AND l.g = r.g"])
        extra = self.pick(RESIDUALS)
        cols = self.pick(["l.id, r.id AS rid, l.x, r.x AS rx", "l.id, r.id AS rid, r.d, l.s",
                          "COALESCE(l.g, r.g) AS g, l.id, r.id AS rid"])
        q = (f"SELECT {cols} FROM (SELECT * FROM {ls} WHERE id % {lm} = 0) l {kind} "
             f"(SELECT * FROM {rs} WHERE id % {rm} = 1) r ON {on}{extra}")
        if self.r.random() < 0.25:
            return f"SELECT COUNT(*) AS c, COUNT(rid) AS cr, COUNT(id) AS cl FROM ({q})"
        return q

    def value_aggs(self) -> str:
        src = self.pick(["t", "t", "t", "cdc", "cdx"])
        key = self.pick(["g", "k", "x % 3", "g, k"])
        aggs = self.r.sample(VALUE_AGGS, self.r.randint(1, 3))
        aggs += [self.pick(SMALL_AGGS)] if self.r.random() < 0.5 else []
        sel = ", ".join(f"{a} AS a{i}" for i, a in enumerate(aggs))
        return f"SELECT {key}, {sel} FROM {src}{self.opt_where(0.3)} GROUP BY {key}"

    def topn_agg(self) -> str:
        src = self.src()
        agg = self.pick(["COUNT(*)", "SUM(x)", "MAX(d)", "SUM(b)", "MIN(s)"])
        part = self.pick(["k", "g"])
        other = "g" if part == "k" else "k"
        desc = self.pick(["DESC", "ASC"])
        n = self.r.randint(1, 3)
        cut = self.pick([f"rn <= {n}", f"rn = {n}"])
        rn = self.pick([", rn", ""])
        return (f"SELECT {part}, {other}, a{rn} FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY {part} "
                f"ORDER BY a {desc}, {other}) AS rn FROM (SELECT {part}, {other}, {agg} AS a FROM {src}"
                f"{self.opt_where(0.3)} GROUP BY {part}, {other}) WHERE a IS NOT NULL) WHERE {cut}")

    def dec_arith(self) -> str:
        if self.r.random() < 0.3:
            key = self.pick(["bo", "MOD(id, 3)", "i > 0", "CAST(dc AS INT) % 2"])
            aggs = self.r.sample(DEC_AGGS, self.r.randint(1, 3))
            sel = ", ".join(f"{a} AS a{i}" for i, a in enumerate(aggs))
            return f"SELECT {key} AS gk, {sel} FROM e GROUP BY {key}"
        return self._exprs(DEC_FN)

    def time_arith(self) -> str:
        return self._exprs(TIME2_FN)

    def mixed(self) -> str:
        return self._exprs(MIXED_FN)

    def str_edge(self) -> str:
        return self._exprs(STR_EDGE)

    def _exprs(self, pool: list[str]) -> str:
        items = self.r.sample(pool, self.r.randint(1, 3))
        return f"SELECT id, {', '.join(f'{e} AS c{i}' for i, e in enumerate(items))} FROM e"
