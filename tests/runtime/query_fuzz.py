"""Random queries, run streaming and checked against DuckDB running them as a batch.

Each seed builds one query from a small grammar of shapes a Flink job is made of — filters and
projections, GROUP BY with HAVING, an aggregate of an aggregate (its input a -U/+U stream),
DISTINCT, UNION ALL, inner and left joins, Top-N over an aggregate — over the oracle table ``t``
(:mod:`tests.runtime.oracle`: NULLs in every nullable column, negatives, DECIMAL(10,2),
strings) or over ``cdc``, a debezium-json changelog of the same columns (inserts, updates,
deletes) whose batch view is its final table. The streaming answer is the folded changelog
(every -U/-D must retract a row that is there); DuckDB's is the same query over the final rows.

Over ``tw`` (``t`` with an event-time column) it also builds window Top-N, window deduplication,
window joins (of rows and of window aggregates, inner and outer), SESSION windows (TVF and legacy),
event-time deduplication (keep first/last row), CUMULATE with two keys; over ``t``/``cdc``, joins of
two aggregates (both sides update; joined on a key or on a count), three-way joins, joins with a
non-equi part, set operations (UNION, INTERSECT, EXCEPT), nested subqueries, WITH, CASE/COALESCE
over aggregates. ``cdx`` is a changelog that keeps deleting, moving and lowering the current
MIN/MAX of a group (aggregates must retract to the runner-up again and again).

Every construct generated has the same meaning in Flink and DuckDB, or is written for DuckDB
with its Flink meaning (:class:`Expr` carries both texts): Flink's AVG of an INT is an INT
truncated toward zero, its CHAR_LENGTH is DuckDB's ``length``, its CONCAT is NULL when any
argument is (DuckDB's ``||``). Division and floating point keys are left out.

Long campaigns: ``python -m tests.runtime.query_fuzz --seeds 0:2000`` prints each failing seed
with its query and the first difference; ``--seed N --show`` prints one query; ``--shape a,b``
keeps the seeds of those shapes. ``--savepoint`` runs them across a stop with savepoint
(:mod:`tests.runtime.query_fuzz_savepoint`); ``--parallel P``, ``--rescale P1,P2``, ``--kafka`` and
``--workers P`` over Kafka topics, in parallel jobs and rescaled (:mod:`tests.runtime.query_fuzz_kafka`).
"""

from __future__ import annotations

import argparse
import os
import random
import re
import sys
import tempfile
import time
import traceback
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from tests.runtime.oracle import (
    COLUMNS,
    assert_same,
    duck_con,
    duck_rows,
    gen_rows,
    make_env,
    simulate_changelog,
    stream_rows,
    write_debezium,
    write_jsonl,
)

N_ROWS = 240
#: ``tw.ts``: 7 s per id, up to 2 s out of order (within the watermark's 5 s: no late row).
TS_FLINK = "TIMESTAMPADD(SECOND, id * 7 + MOD(id, 3), TIMESTAMP '2024-01-01 00:00:00')"
TS_DUCK = "TIMESTAMP '2024-01-01 00:00:00' + to_seconds(id * 7 + id % 3)"


@dataclass(frozen=True)
class Expr:
    """One expression in Flink SQL and in DuckDB SQL; ``kind``: 'int', 'str', 'bool', 'dec', 'dbl'."""

    flink: str
    duck: str
    kind: str

    def map(self, f, kind: str | None = None) -> Expr:
        return Expr(f(self.flink), f(self.duck), kind or self.kind)


def interval(seconds: int) -> str:
    """An interval literal Flink takes: ``SECOND`` has two digits of precision (as Flink's)."""
    return f"INTERVAL '{seconds}' SECOND" if seconds < 100 else f"INTERVAL '{seconds // 60}' MINUTE"


def same(text: str, kind: str) -> Expr:
    return Expr(text, text, kind)


@dataclass
class Query:
    flink: str
    duck: str
    source: str  # 't' or 'cdc'
    batch_size: int | None
    backend: str
    shape: str = ""
    #: generator extras (``--extras``): what changes between a stop and the restore — ``"bounded"``
    #: (the restored run's tables made bounded by ``ALTER TABLE ... SET``), ``"add"`` (that, and an
    #: unused computed column added to ``t``), ``""`` nothing (the tables created bounded)
    alter: str = ""
    #: options the query runs with (the v7 generator's mini-batch and aggregate-phase settings)
    config: dict[str, str] = field(default_factory=dict)


class Gen:
    """The grammar; ``q`` qualifies column names (``'l.'`` inside a join)."""

    def __init__(self, seed: int):
        self.r = random.Random(seed)
        self.shape = ""

    def pick(self, seq):
        return self.r.choice(seq)

    def pick_shape(self, shapes: list[str]) -> str:
        self.shape = self.r.choice(shapes)
        return self.shape

    # -- scalars ---------------------------------------------------------------------------------
    def int_expr(self, q: str = "", depth: int = 0) -> Expr:
        col = same(q + self.pick(["x", "k", "id", "x", "k"]), "int")
        if depth >= 2 or self.r.random() < 0.4:
            return col
        other = self.int_expr(q, depth + 1)
        c = self.r.randint(1, 9)
        return self.pick([
            lambda: Expr(f"({col.flink} + {other.flink})", f"({col.duck} + {other.duck})", "int"),
            lambda: Expr(f"({col.flink} - {other.flink})", f"({col.duck} - {other.duck})", "int"),
            lambda: col.map(lambda e: f"({e} * {c})"),
            lambda: col.map(lambda e: f"({e} % {c + 1})"),  # sign of the dividend on both sides
            lambda: col.map(lambda e: f"ABS({e})"),
            lambda: Expr(f"COALESCE({col.flink}, {other.flink}, {c})",
                         f"COALESCE({col.duck}, {other.duck}, {c})", "int"),
            lambda: Expr(f"CASE WHEN {col.flink} > {c} THEN {other.flink} ELSE {c} END",
                         f"CASE WHEN {col.duck} > {c} THEN {other.duck} ELSE {c} END", "int"),
            lambda: Expr(f"CHAR_LENGTH({q}s)", f"length({q}s)", "int"),
            # Flink's GREATEST/LEAST are NULL when any argument is; DuckDB's skip NULLs
            lambda: Expr(f"{(fn := self.pick(['GREATEST', 'LEAST']))}({col.flink}, {other.flink})",
                         f"CASE WHEN {col.duck} IS NULL OR {other.duck} IS NULL THEN NULL "
                         f"ELSE {fn.lower()}({col.duck}, {other.duck}) END", "int"),
            lambda: Expr(f"IF({col.flink} > {c}, {other.flink}, {col.flink})",
                         f"CASE WHEN {col.duck} > {c} THEN {other.duck} ELSE {col.duck} END", "int"),
            lambda: Expr(f"NULLIF({col.flink}, {c - 5})", f"NULLIF({col.duck}, {c - 5})", "int"),
            lambda: Expr(f"SIGN({col.flink})", f"CAST(sign({col.duck}) AS INTEGER)", "int"),
            lambda: same(f"POSITION('{self.pick('aeno')}' IN {q}s)", "int"),
            lambda: Expr(f"CASE {col.flink} WHEN {c} THEN 1 WHEN {-c} THEN 2 ELSE 0 END",
                         f"CASE {col.duck} WHEN {c} THEN 1 WHEN {-c} THEN 2 ELSE 0 END", "int"),
        ])()

    def str_expr(self, q: str = "") -> Expr:
        return self.pick([
            lambda: same(q + "g", "str"),
            lambda: same(q + "s", "str"),
            lambda: same(f"UPPER({q}s)", "str"),
            lambda: same(f"LOWER({q}g)", "str"),
            lambda: same(f"SUBSTR({q}s, {self.r.randint(1, 3)}, {self.r.randint(1, 4)})", "str"),
            lambda: Expr(f"CONCAT({q}g, '-', {q}s)", f"({q}g || '-' || {q}s)", "str"),
            lambda: same(f"COALESCE({q}s, 'none')", "str"),
            lambda: same(f"REPLACE({q}s, '{self.pick('aeno')}', '{self.pick(['', 'X', 'yy'])}')", "str"),
            # DuckDB's concat() skips NULLs; Flink's CONCAT is NULL when any argument is (``||``)
            lambda: Expr(f"TRIM(CONCAT(' ', {q}g, ' '))", f"TRIM(' ' || {q}g || ' ')", "str"),
            lambda: same(f"REVERSE({q}s)", "str"),
            lambda: same(f"REPEAT({q}g, {self.r.randint(0, 3)})", "str"),
            lambda: Expr(f"CAST({q}k AS STRING)", f"CAST({q}k AS VARCHAR)", "str"),
            lambda: same(f"LPAD({q}g, {self.r.randint(1, 4)}, '*')", "str"),
        ])()

    def predicate(self, q: str = "", depth: int = 0) -> Expr:
        if depth < 2 and self.r.random() < 0.3:
            a, b = self.predicate(q, depth + 1), self.predicate(q, depth + 1)
            op = self.pick(["AND", "OR"])
            return Expr(f"({a.flink} {op} {b.flink})", f"({a.duck} {op} {b.duck})", "bool")
        if depth < 2 and self.r.random() < 0.1:
            return self.predicate(q, depth + 1).map(lambda e: f"NOT ({e})")
        c = self.r.randint(-400, 400)
        e = self.int_expr(q, 1)
        return self.pick([
            lambda: e.map(lambda t: f"{t} > {c}", "bool"),
            lambda: e.map(lambda t: f"{t} <= {c}", "bool"),
            lambda: same(f"{q}x IS NULL", "bool"),
            lambda: same(f"{q}s IS NOT NULL", "bool"),
            lambda: same(f"{q}g = '{self.pick('abcde')}'", "bool"),
            lambda: same(f"{q}g <> '{self.pick('abcde')}'", "bool"),
            lambda: same(f"{q}k IN ({', '.join(map(str, self.r.sample(range(-3, 4), 3)))})", "bool"),
            lambda: same(f"{q}x BETWEEN {c} AND {c + self.r.randint(0, 800)}", "bool"),
            lambda: same(f"{q}s LIKE '%{self.pick(['an', 'e', 'a', 'ü'])}%'", "bool"),
            lambda: same(f"{q}d > {self.r.randint(-900, 900)}.5", "bool"),
            lambda: same(f"{q}f < {self.r.randint(-900, 900)}.25", "bool"),
            lambda: same(f"{q}x IS DISTINCT FROM {q}k", "bool"),
            lambda: same(f"{q}s NOT LIKE '{self.pick(['a', 'e', 'b', 'c'])}%'", "bool"),
            lambda: same(f"{q}g NOT IN ('{self.pick('abcde')}', '{self.pick('abcde')}')", "bool"),
            lambda: same(f"COALESCE({q}x, {q}k, 0) > {c // 4}", "bool"),
        ])()

    # -- aggregates ------------------------------------------------------------------------------
    def aggregate(self) -> Expr:
        ie = self.int_expr("", 1)
        return self.pick([
            lambda: same("COUNT(*)", "int"),
            lambda: same("COUNT(x)", "int"),
            lambda: same(f"COUNT(DISTINCT {self.pick(['k', 'g', 'x'])})", "int"),
            lambda: ie.map(lambda e: f"SUM({e})"),
            lambda: ie.map(lambda e: f"MIN({e})"),
            lambda: ie.map(lambda e: f"MAX({e})"),
            lambda: Expr(f"AVG({ie.flink})", f"trunc(AVG({ie.duck}))", "int"),  # Flink: INT, truncated
            lambda: same("SUM(b)", "int"),
            lambda: same(f"{self.pick(['SUM', 'MIN', 'MAX'])}(d)", "dec"),
            lambda: same(f"{self.pick(['MIN', 'MAX'])}(s)", "str"),
            lambda: same(f"{self.pick(['MIN', 'MAX', 'SUM'])}(f)", "dbl"),
            lambda: same("SUM(DISTINCT k)", "int"),
            lambda: same(f"{self.pick(['MIN', 'MAX', 'COUNT'])}(DISTINCT {self.pick(['x', 'k'])})", "int"),
            lambda: same(f"AVG({self.pick(['d', 'f'])})", "dbl"),
            lambda: (lambda p: Expr(f"COUNT(*) FILTER (WHERE {p.flink})",
                                    f"COUNT(*) FILTER (WHERE {p.duck})", "int"))(self.predicate("", 1)),
            lambda: (lambda p: Expr(f"SUM(x) FILTER (WHERE {p.flink})",
                                    f"SUM(x) FILTER (WHERE {p.duck})", "int"))(self.predicate("", 1)),
        ])()

    def group_keys(self, n: int) -> list[Expr]:
        pool = [same("g", "str"), same("k", "int"), same("x % 3", "int"), same("UPPER(g)", "str"),
                same("k > 0", "bool"), same("s", "str")]
        return self.r.sample(pool, n)

    # -- query shapes ----------------------------------------------------------------------------
    def where(self, q: str = "") -> tuple[str, str]:
        if self.r.random() < 0.5:
            return "", ""
        p = self.predicate(q)
        return f" WHERE {p.flink}", f" WHERE {p.duck}"

    def aggregation(self, src: str, min_keys: int = 0) -> tuple[str, str, list[str], list[str]]:
        """A GROUP BY query; also its output column names (``keys``, ``aggs``)."""
        keys = self.group_keys(self.r.randint(max(min_keys, 1), 2) if self.r.random() < 0.9
                               or min_keys else 0)
        aggs = [self.aggregate() for _ in range(self.r.randint(1, 4))]
        self.agg_kinds = [a.kind for a in aggs]
        kn = [f"k{i}" for i in range(len(keys))]
        an = [f"a{i}" for i in range(len(aggs))]
        wf, wd = self.where()
        sel_f = ", ".join([f"{k.flink} AS {n}" for k, n in zip(keys, kn)] +
                          [f"{a.flink} AS {n}" for a, n in zip(aggs, an)])
        sel_d = ", ".join([f"{k.duck} AS {n}" for k, n in zip(keys, kn)] +
                          [f"{a.duck} AS {n}" for a, n in zip(aggs, an)])
        gf = gd = ""
        if keys:
            gf = " GROUP BY " + ", ".join(k.flink for k in keys)
            gd = " GROUP BY " + ", ".join(k.duck for k in keys)
            if self.r.random() < 0.35:
                h = self.pick([("COUNT(*) > {}", self.r.randint(1, 20)),
                               ("SUM(x) > {}", self.r.randint(-500, 500)),
                               ("MAX(x) < {}", self.r.randint(-200, 900)), ("COUNT(DISTINCT k) >= {}", 2)])
                gf += " HAVING " + h[0].format(h[1])
                gd += " HAVING " + h[0].format(h[1])
        return (f"SELECT {sel_f} FROM {src}{wf}{gf}", f"SELECT {sel_d} FROM {src}{wd}{gd}", kn, an)

    def more(self, shape: str, src: str) -> tuple[str, str]:
        """Rankings of rows, semi/anti joins, grouping sets, ORDER BY ... LIMIT, outer joins."""
        wf, wd = self.where()
        if shape == "rank_rows":  # a Top-N of rows, ties broken by id (Flink refuses RANK on streams)
            order = self.pick(["x DESC", "x", "d DESC", "k"])
            col = order.split()[0]
            inner = (f"SELECT id, g, {col}, ROW_NUMBER() OVER (PARTITION BY g ORDER BY {order}, id) AS rn "
                     f"FROM (SELECT * FROM {src} WHERE {col} IS NOT NULL{{w}})")
            n = self.r.randint(1, 4)
            cut = self.pick([f"rn <= {n}", f"rn < {n + 1}", f"rn = {n}", f"rn BETWEEN {n} AND {n + 2}"])
            f = f"SELECT * FROM ({inner}) WHERE {cut}"
            return (f.replace("{w}", wf.replace(" WHERE ", " AND ")),
                    f.replace("{w}", wd.replace(" WHERE ", " AND ")))
        if shape == "semi":
            p = self.predicate()
            col = self.pick(["k", "g"])
            op = self.pick(["IN", "NOT IN", "EXISTS", "NOT EXISTS"])
            if op.endswith("IN"):
                # NOT IN over a subquery with a NULL is never TRUE: keep the NULLs out on both sides
                sub = f"(SELECT {col} FROM {src} WHERE {col} IS NOT NULL AND {{p}})"
                cond = f"{col} {op} {sub}"
            else:
                extra = self.pick(["r.id <> l.id", "r.x > l.x", "r.id < l.id AND r.d <= l.d"])
                sub = f"(SELECT 1 FROM {src} r WHERE r.{col} = l.{col} AND {extra} AND {{p}})"
                cond = f"{op} {sub}"
            f = f"SELECT l.id, l.{col} FROM {src} l WHERE {cond}"
            if op.endswith("IN"):
                f = f"SELECT id, {col} FROM {src} WHERE {cond}"
            if not op.endswith("IN"):  # the subquery's own columns: r.x, not the outer l.x
                p = Expr(self._qualify(p.flink, "r."), self._qualify(p.duck, "r."), "bool")
            return f.replace("{p}", p.flink), f.replace("{p}", p.duck)
        if shape == "grouping_sets":
            how = self.pick(["GROUPING SETS ((g, k), (g), ())", "ROLLUP (g, k)", "CUBE (g, k)"])
            agg = self.aggregate()
            return (f"SELECT g, k, COUNT(*) AS c, {agg.flink} AS a FROM {src}{wf} GROUP BY {how}",
                    f"SELECT g, k, COUNT(*) AS c, {agg.duck} AS a FROM {src}{wd} GROUP BY {how}")
        if shape == "sort_limit":
            order = self.pick(["x DESC, id", "d, id", "id DESC", "k DESC, x, id"])
            n = self.r.randint(1, 8)
            # Flink sorts NULL lowest (ASC: first, DESC: last); DuckDB puts NULLs last either way
            duck_order = ", ".join(t + (" NULLS LAST" if t.endswith("DESC") else " NULLS FIRST")
                                   for t in order.split(", "))
            return (f"SELECT id, x, k, d FROM {src}{wf} ORDER BY {order} LIMIT {n}",
                    f"SELECT id, x, k, d FROM {src}{wd} ORDER BY {duck_order} LIMIT {n}")
        kind = self.pick(["RIGHT JOIN", "FULL JOIN", "LEFT JOIN"])
        pl, pr = self.predicate(), self.predicate()
        on = self.pick(["l.k = r.k", "l.g = r.g AND l.k = r.k", "l.x = r.x",
                        # a non-equi part: a row can match, then stop matching, as the other side updates
                        "l.k = r.k AND l.x < r.x", "l.g = r.g AND (l.d > r.d OR r.x IS NULL)"])
        lf, ld = (f"(SELECT * FROM {src} WHERE id % 5 = 0 AND {p}) l" for p in (pl.flink, pl.duck))
        rf, rd = (f"(SELECT * FROM {src} WHERE id % 7 = 1 AND {p}) r" for p in (pr.flink, pr.duck))
        return (f"SELECT l.id, r.id AS rid, l.g, r.x FROM {lf} {kind} {rf} ON {on}",
                f"SELECT l.id, r.id AS rid, l.g, r.x FROM {ld} {kind} {rd} ON {on}")

    def composed(self, shape: str, src: str) -> tuple[str, str]:
        """CASE/COALESCE over aggregates, joins of two aggregates (both sides update), three-way
        joins, nested subqueries and WITH."""
        if shape == "case_agg":
            key = self.pick(["g", "k", "x % 4"])
            a, b = self.aggregate(), self.aggregate()
            c = self.r.randint(1, 12)
            ef = [f"CASE WHEN COUNT(*) > {c} THEN {a.flink} ELSE {b.flink} END",
                  f"COALESCE({a.flink}, {b.flink})" if a.kind == b.kind else f"COALESCE({a.flink}, NULL)",
                  f"CASE WHEN {a.flink} IS NULL THEN -1 ELSE COUNT(*) END"]
            ed = [f"CASE WHEN COUNT(*) > {c} THEN {a.duck} ELSE {b.duck} END",
                  f"COALESCE({a.duck}, {b.duck})" if a.kind == b.kind else f"COALESCE({a.duck}, NULL)",
                  f"CASE WHEN {a.duck} IS NULL THEN -1 ELSE COUNT(*) END"]
            if a.kind != b.kind:  # one CASE, one type
                ef[0], ed[0] = ef[2], ed[2]
            i = self.r.sample(range(3), self.r.randint(1, 3))
            wf, wd = self.where()
            sf, sd = (", ".join(e[j] + f" AS e{j}" for j in i) for e in (ef, ed))
            return (f"SELECT {key} AS k0, {sf} FROM {src}{wf} GROUP BY {key}",
                    f"SELECT {key} AS k0, {sd} FROM {src}{wd} GROUP BY {key}")
        if shape == "join_aggs":
            kind = self.pick(["JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL JOIN"])
            a1, a2 = self.aggregate(), self.aggregate()
            pl, pr = self.predicate(), self.predicate()
            on_col = self.pick(["g", "k"])
            # join on the key, or on an aggregate (a join key that updates)
            by_count = self.r.random() < 0.3
            on = "L.c = R.c" if by_count else f"L.{on_col} = R.{on_col}"
            def side(a: str, p: str) -> str:
                return f"(SELECT {on_col}, COUNT(*) AS c, {a} AS a FROM {src} WHERE {p} GROUP BY {on_col})"
            lf, ld = side(a1.flink, pl.flink), side(a1.duck, pl.duck)
            rf, rd = side(a2.flink, pr.flink), side(a2.duck, pr.duck)
            sel = f"L.{on_col}, R.{on_col} AS r{on_col}, L.c, R.c AS rc, L.a, R.a AS ra"
            return (f"SELECT {sel} FROM {lf} L {kind} {rf} R ON {on}",
                    f"SELECT {sel} FROM {ld} L {kind} {rd} R ON {on}")
        if shape == "multi_join":
            k1, k2 = self.pick(["JOIN", "LEFT JOIN"]), self.pick(["JOIN", "LEFT JOIN", "FULL JOIN"])
            on1 = self.pick(["a.k = b.k", "a.g = b.g"])
            on2 = self.pick(["b.g = c.g", "a.k = c.k", "b.x % 3 = c.k"])
            p = self.predicate("c.")
            srcs = [f"(SELECT * FROM {src} WHERE id % {m} = {r})" for m, r in ((11, 0), (13, 1), (17, 2))]
            j = (f"FROM {srcs[0]} a {k1} {srcs[1]} b ON {on1} {k2} {srcs[2]} c ON {on2} AND {{p}}")
            if self.r.random() < 0.5:
                return (f"SELECT a.id, b.id AS bid, c.id AS cid, c.s {j.replace('{p}', p.flink)}",
                        f"SELECT a.id, b.id AS bid, c.id AS cid, c.s {j.replace('{p}', p.duck)}")
            return (f"SELECT a.g, COUNT(*) AS n, SUM(c.x) AS sx {j.replace('{p}', p.flink)} GROUP BY a.g",
                    f"SELECT a.g, COUNT(*) AS n, SUM(c.x) AS sx {j.replace('{p}', p.duck)} GROUP BY a.g")
        f, d, kn, an = self.aggregation(src, min_keys=1)
        p = self.r.randint(-50, 50)
        if shape == "nested":  # a filter over a projection over an aggregate, then a re-aggregate
            int_agg = self.agg_kinds[0] == "int"  # (a DECIMAL cast truncates in Flink, rounds in DuckDB)
            e = f"COALESCE(CAST({an[0]} AS BIGINT), 0)" if int_agg and self.r.random() < 0.7 else "1"
            inner = f"SELECT {kn[0]} AS kk, {e} AS v FROM ({{q}}) WHERE {kn[0]} IS NOT NULL"
            outer = self.pick([f"SELECT kk, v FROM ({inner}) WHERE v > {p} OR v IS NULL",
                               f"SELECT COUNT(*) AS c, MAX(v) AS m FROM ({inner})",
                               f"SELECT v, COUNT(*) AS c FROM ({inner}) GROUP BY v"])
            return outer.replace("{q}", f), outer.replace("{q}", d)
        # WITH: one aggregate read twice (a self-join of an updating view)
        col = self.pick(an)
        return (f"WITH v AS ({f}) SELECT a.{kn[0]}, a.{col}, b.{col} AS b{col} FROM v a JOIN v b "
                f"ON a.{kn[0]} = b.{kn[0]}",
                f"WITH v AS ({d}) SELECT a.{kn[0]}, a.{col}, b.{col} AS b{col} FROM v a JOIN v b "
                f"ON a.{kn[0]} = b.{kn[0]}")

    @staticmethod
    def _qualify(text: str, q: str) -> str:
        """Column names of the grammar (single letters and ``id``) prefixed with ``q``."""
        return re.sub(r"(?<![\w.'%])\b(id|g|k|x|b|d|f|s)\b(?![\w'(])", lambda m: q + m.group(1), text)

    def _tumble(self) -> tuple[int, str, str]:
        """A TUMBLE TVF over ``tw`` (Flink) and DuckDB's ``tw`` with ``ws``/``we`` (epoch ms)."""
        size = self.pick([10, 30, 60, 120])
        tvf = f"TABLE(TUMBLE(TABLE tw, DESCRIPTOR(ts), {interval(size)}))"
        duck = (f"(SELECT *, (epoch_ms(ts) // {size * 1000}) * {size * 1000} AS ws, "
                f"(epoch_ms(ts) // {size * 1000}) * {size * 1000} + {size * 1000} AS we FROM tw)")
        return size, tvf, duck

    def windowed(self, shape: str) -> tuple[str, str]:
        """Window Top-N, window deduplication, window joins, session windows, event-time
        deduplication, CUMULATE with several keys and aggregates."""
        ts = "make_timestamp(ws * 1000)"
        te = "make_timestamp(we * 1000)"
        if shape == "window_topn":  # a Top-N of the rows of each window
            _, tvf, dw = self._tumble()
            order = self.pick(["x DESC", "x", "d DESC", "k DESC, x"])
            cols = sorted({t.split()[0] for t in order.split(", ")})
            nn = " AND ".join(f"{c} IS NOT NULL" for c in cols)
            part = self.pick(["", "g, ", "k, "])
            n = self.r.randint(1, 3)
            p = self.predicate()
            fl = (f"SELECT id, window_start, window_end, rn FROM (SELECT id, window_start, window_end, "
                  f"ROW_NUMBER() OVER (PARTITION BY {part}window_start, window_end "
                  f"ORDER BY {order}, id) AS rn "
                  f"FROM {tvf} WHERE {nn} AND {p.flink}) WHERE rn <= {n}")
            du = (f"SELECT id, {ts}, {te}, rn FROM (SELECT id, ws, we, "
                  f"ROW_NUMBER() OVER (PARTITION BY {part}ws, we ORDER BY {order}, id) AS rn "
                  f"FROM {dw} WHERE {nn} AND {p.duck}) WHERE rn <= {n}")
            return fl, du
        if shape == "window_agg_topn":  # Top-N of a window aggregate, per window
            _, tvf, dw = self._tumble()
            key = self.pick(["g", "k"])
            agg = self.aggregate()
            n = self.r.randint(1, 3)
            desc = self.pick(["DESC", "ASC"])
            wf, wd = self.where()
            inner_f = (f"SELECT {key}, window_start, window_end, COUNT(*) AS c, {agg.flink} AS a "
                       f"FROM {tvf}{wf} GROUP BY {key}, window_start, window_end")
            inner_d = (f"SELECT {key}, ws, we, COUNT(*) AS c, {agg.duck} AS a FROM {dw}{wd} "
                       f"GROUP BY {key}, ws, we")
            # ties: the key breaks them; a NULL key sorts first in Flink ascending, DuckDB: say so
            kd = f"{key} {desc} NULLS {'LAST' if desc == 'DESC' else 'FIRST'}"
            fl = (f"SELECT {key}, window_start, window_end, c, a, rn FROM (SELECT *, ROW_NUMBER() OVER "
                  f"(PARTITION BY window_start, window_end ORDER BY c {desc}, {key} {desc}) AS rn "
                  f"FROM ({inner_f})) WHERE rn <= {n}")
            du = (f"SELECT {key}, {ts}, {te}, c, a, rn FROM (SELECT *, ROW_NUMBER() OVER "
                  f"(PARTITION BY ws, we ORDER BY c {desc}, {kd}) AS rn "
                  f"FROM ({inner_d})) WHERE rn <= {n}")
            return fl, du
        if shape == "window_dedup":  # first/last row of each window (and key) by event time
            _, tvf, dw = self._tumble()
            part = self.pick(["", "g, ", "k, "])
            desc = self.pick(["ASC", "DESC"])
            wf, wd = self.where()
            fl = (f"SELECT id, x, window_start, window_end FROM (SELECT *, ROW_NUMBER() OVER "
                  f"(PARTITION BY {part}window_start, window_end ORDER BY ts {desc}) AS rn FROM {tvf}{wf}) "
                  f"WHERE rn = 1")
            du = (f"SELECT id, x, {ts}, {te} FROM (SELECT *, ROW_NUMBER() OVER "
                  f"(PARTITION BY {part}ws, we ORDER BY ts {desc}) AS rn FROM {dw}{wd}) WHERE rn = 1")
            return fl, du
        if shape in ("window_join", "window_agg_join"):
            size, tvf, dw = self._tumble()
            kind = self.pick(["JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL JOIN"])
            pl, pr = self.predicate(), self.predicate()
            if shape == "window_join":  # rows of the same window joined on a key
                on = self.pick(["k", "g"])
                lf = f"(SELECT * FROM {tvf} WHERE {pl.flink})"
                rf = f"(SELECT * FROM {tvf} WHERE {pr.flink})"
                ld = f"(SELECT * FROM {dw} WHERE {pl.duck})"
                rd = f"(SELECT * FROM {dw} WHERE {pr.duck})"
                sel = "L.id, R.id AS rid, R.x"
            else:  # two window aggregates joined per key and window
                on = self.pick(["k", "g"])
                a1, a2 = self.aggregate(), self.aggregate()
                sides = ((a1, pl), (a2, pr))
                lf, rf = (f"(SELECT {on}, window_start, window_end, {a.flink} AS a FROM {tvf} "
                          f"WHERE {p.flink} GROUP BY {on}, window_start, window_end)" for a, p in sides)
                ld, rd = (f"(SELECT {on}, ws, we, {a.duck} AS a FROM {dw} WHERE {p.duck} "
                          f"GROUP BY {on}, ws, we)" for a, p in sides)
                sel = f"L.{on}, R.{on} AS r{on}, L.a, R.a AS ra"
            fl = (f"SELECT {sel}, L.window_start AS lws, R.window_end AS rwe FROM {lf} L {kind} {rf} R "
                  f"ON L.{on} = R.{on} AND L.window_start = R.window_start AND L.window_end = R.window_end")
            du = (f"SELECT {sel}, make_timestamp(L.ws * 1000), make_timestamp(R.we * 1000) FROM {ld} L "
                  f"{kind} {rd} R ON L.{on} = R.{on} AND L.ws = R.ws AND L.we = R.we")
            return fl, du
        if shape in ("session", "legacy_session"):
            gap = self.pick([6, 8, 9, 20, 40])
            key = self.pick(["g", "k", None]) if shape == "session" else self.pick(["g", "k"])
            aggs = [self.aggregate() for _ in range(self.r.randint(1, 3))]
            # a filter of whole partitions only: a session spans the rows before any filter
            other = "1" if key == "k" else "'a'"
            kp = self.pick(["", f" WHERE {key} IS NOT NULL", f" WHERE {key} <> {other}"]) if key else ""
            kf = f"{key}, " if key else ""
            sel_f = ", ".join(f"{a.flink} AS a{i}" for i, a in enumerate(aggs))
            sel_d = ", ".join(f"{a.duck} AS a{i}" for i, a in enumerate(aggs))
            if shape == "session":
                part = f" PARTITION BY {key}" if key else ""
                fl = (f"SELECT {kf}window_start, window_end, {sel_f} FROM TABLE(SESSION(TABLE tw{part}, "
                      f"DESCRIPTOR(ts), INTERVAL '{gap}' SECOND)){kp} GROUP BY {kf}window_start, window_end")
            else:
                fl = (f"SELECT {kf}SESSION_START(ts, INTERVAL '{gap}' SECOND) AS ws, "
                      f"SESSION_END(ts, INTERVAL '{gap}' SECOND) AS we, {sel_f} FROM tw{kp} "
                      f"GROUP BY {kf}SESSION(ts, INTERVAL '{gap}' SECOND)")
            pb = f"PARTITION BY {key} " if key else ""
            du = (f"WITH s AS (SELECT *, epoch_ms(ts) AS e FROM tw{kp}), "
                  # rows exactly `gap` apart share a session: Flink's TimeWindow.intersects is inclusive
                  f"m AS (SELECT *, CASE WHEN e - lag(e) OVER ({pb}ORDER BY e) <= {gap * 1000} THEN 0 "
                  f"ELSE 1 END AS nw FROM s), "
                  f"n AS (SELECT *, sum(nw) OVER ({pb}ORDER BY e ROWS UNBOUNDED PRECEDING) AS sid FROM m) "
                  f"SELECT {kf}make_timestamp(min(e) * 1000), "
                  f"make_timestamp((max(e) + {gap * 1000}) * 1000), "
                  f"{sel_d} FROM n GROUP BY {kf}sid")
            return fl, du
        if shape == "dedup_ts":  # keep the first (insert-only) or last (updating) row by event time
            part = self.pick(["g", "k", "g, k", "x % 4"])
            desc = self.pick(["ASC", "DESC"])
            n = 1 if self.r.random() < 0.7 else self.r.randint(2, 3)
            wf, wd = self.where()
            rank = f"ROW_NUMBER() OVER (PARTITION BY {part} ORDER BY ts {desc}) AS rn"
            fl = f"SELECT id, x, ts, rn FROM (SELECT *, {rank} FROM tw{wf}) WHERE rn <= {n}"
            du = f"SELECT id, x, ts, rn FROM (SELECT *, {rank} FROM tw{wd}) WHERE rn <= {n}"
            if n == 1 and self.r.random() < 0.5:
                fl, du = (f"SELECT id, x, ts FROM ({q})" for q in (fl, du))
            return fl, du
        # CUMULATE with two keys, several aggregates and an expression over them
        slide = self.pick([10, 20, 30])
        size = slide * self.r.randint(2, 4)
        keys = self.r.sample(["g", "k", "x % 3"], 2)
        aggs = [self.aggregate() for _ in range(self.r.randint(2, 4))]
        wf, wd = self.where()
        tvf = f"CUMULATE(TABLE tw, DESCRIPTOR(ts), {interval(slide)}, {interval(size)})"
        kn = ", ".join(keys)
        fl = (f"SELECT {kn}, window_start, window_end, "
              + ", ".join(f"{a.flink} AS a{i}" for i, a in enumerate(aggs))
              + f", COUNT(*) + 1 AS c1 FROM TABLE({tvf}){wf} GROUP BY {kn}, window_start, window_end")
        win = (f"(SELECT *, (epoch_ms(ts) // {size * 1000}) * {size * 1000} AS ws, "
               f"(epoch_ms(ts) // {size * 1000}) * {size * 1000} + j * {slide * 1000} AS we "
               f"FROM tw, range(1, {size // slide + 1}) AS r(j)) w WHERE epoch_ms(ts) < we")
        du = (f"SELECT {kn}, {ts}, {te}, " + ", ".join(f"{a.duck} AS a{i}" for i, a in enumerate(aggs))
              + f", COUNT(*) + 1 AS c1 FROM {win}{wd.replace(' WHERE ', ' AND ')} GROUP BY {kn}, ws, we")
        return fl, du

    def timed(self) -> tuple[str, str]:
        """A query over ``tw`` (``t`` with an event-time ``ts`` and a watermark): a window TVF,
        a legacy group window, an OVER aggregate or an interval join. DuckDB computes window
        starts from epoch milliseconds (windows are aligned to the epoch, as Flink's)."""
        shape = self.pick_shape(["tumble", "hop", "cumulate", "legacy", "over_rows", "over_range",
                           "interval_join", "window_topn", "window_agg_topn", "window_dedup",
                           "window_join", "window_agg_join", "session", "legacy_session", "dedup_ts",
                           "cumulate_keys"])
        if shape in ("window_topn", "window_agg_topn", "window_dedup", "window_join",
                     "window_agg_join", "session", "legacy_session", "dedup_ts", "cumulate_keys"):
            return self.windowed(shape)
        key = self.pick([same("g", "str"), same("k", "int"), None])
        aggs = [self.aggregate() for _ in range(self.r.randint(1, 3))]
        if shape == "hop":  # Flink 2.3 refuses SUM(DISTINCT ...) in a HOP window (no retraction)
            aggs = [a for a in aggs if not a.flink.startswith("SUM(DISTINCT")] or [same("COUNT(*)", "int")]
        wf, wd = self.where()
        if shape in ("tumble", "hop", "cumulate", "legacy"):
            slide = self.pick([10, 30, 60])
            most = 1 if shape in ("tumble", "legacy") else 2 if slide == 30 else 4  # see interval()
            size = slide * self.r.randint(min(most, 2), most)
            if shape == "tumble":
                tvf = f"TUMBLE(TABLE tw, DESCRIPTOR(ts), {interval(size)})"
            elif shape == "hop":
                tvf = f"HOP(TABLE tw, DESCRIPTOR(ts), {interval(slide)}, {interval(size)})"
            else:
                tvf = f"CUMULATE(TABLE tw, DESCRIPTOR(ts), {interval(slide)}, {interval(size)})"
            kf = f"{key.flink}, " if key else ""
            sel_f = ", ".join(a.flink for a in aggs)
            sel_d = ", ".join(a.duck for a in aggs)
            # DuckDB: one row per (row, window it falls in); ws/we in epoch ms
            n = size // slide
            if shape == "cumulate":  # windows [start, start + slide*j), j = 1..n, start = size-aligned
                win = (f"(SELECT *, (epoch_ms(ts) // {size * 1000}) * {size * 1000} AS ws, "
                       f"(epoch_ms(ts) // {size * 1000}) * {size * 1000} + j * {slide * 1000} AS we "
                       f"FROM tw, range(1, {n + 1}) AS r(j)) w "
                       f"WHERE epoch_ms(ts) < we")
            else:
                win = (f"(SELECT *, (epoch_ms(ts) // {slide * 1000} - i) * {slide * 1000} AS ws, "
                       f"(epoch_ms(ts) // {slide * 1000} - i) * {slide * 1000} + {size * 1000} AS we "
                       f"FROM tw, range(0, {n}) AS r(i)) w WHERE TRUE")
            duck = (f"SELECT {kf}make_timestamp(ws * 1000) AS window_start, "
                    f"make_timestamp(we * 1000) AS window_end, {sel_d} "
                    f"FROM {win}{wd.replace(' WHERE ', ' AND ')} GROUP BY {kf}ws, we")
            if shape == "legacy":
                flink = (f"SELECT {kf}TUMBLE_START(ts, {interval(size)}) AS window_start, "
                         f"TUMBLE_END(ts, {interval(size)}) AS window_end, {sel_f} FROM tw{wf} "
                         f"GROUP BY {kf}TUMBLE(ts, {interval(size)})")
            else:
                flink = (f"SELECT {kf}window_start, window_end, {sel_f} FROM TABLE({tvf}){wf} "
                         f"GROUP BY {kf}window_start, window_end")
            return flink, duck
        if shape in ("over_rows", "over_range"):
            part = f"PARTITION BY {key.flink} " if key else ""
            fn = self.pick(["SUM(x)", "COUNT(*)", "MAX(x)", "MIN(d)", "COUNT(x)", "AVG(k)"])
            fd = "trunc(AVG(k) {w})" if fn == "AVG(k)" else fn + " {w}"
            if shape == "over_rows":
                frame = self.pick([f"ROWS BETWEEN {self.r.randint(0, 4)} PRECEDING AND CURRENT ROW",
                                   "ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW"])
            else:
                frame = self.pick([f"RANGE BETWEEN INTERVAL '{self.pick([5, 20, 60])}' SECOND PRECEDING "
                                   "AND CURRENT ROW", "RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW"])
            w = f"OVER ({part}ORDER BY ts {frame})"
            fd = fd.format(w=w)
            # OVER runs before WHERE in the same SELECT: filter below it, in a subquery, on both sides
            sub_f = f"(SELECT * FROM tw{wf})" if wf else "tw"
            sub_d = f"(SELECT * FROM tw{wd})" if wd else "tw"
            return (f"SELECT id, {fn} {w} AS v FROM {sub_f}", f"SELECT id, {fd} AS v FROM {sub_d}")
        lo, hi = self.r.randint(0, 40), self.r.randint(0, 40)
        on = self.pick(["l.k = r.k", "l.g = r.g"])
        cond = (f"{on} AND r.ts BETWEEN l.ts - INTERVAL '{lo}' SECOND AND l.ts + INTERVAL '{hi}' SECOND")
        return (f"SELECT l.id, r.id AS rid, r.x FROM tw l, tw r WHERE {cond}",
                f"SELECT l.id, r.id AS rid, r.x FROM tw l, tw r WHERE {cond}")

    def query(self, src: str, shape: str = "") -> tuple[str, str]:
        shape = shape or self.pick_shape([
                           "project", "aggregate", "aggregate", "agg_of_agg", "filter_agg", "distinct",
                           "union", "join", "join_agg", "topn", "rank_rows", "semi", "grouping_sets",
                           "sort_limit", "outer_join", "case_agg", "join_aggs", "multi_join", "nested",
                           "cte"])
        if shape in ("rank_rows", "semi", "grouping_sets", "sort_limit", "outer_join"):
            return self.more(shape, src)
        if shape in ("case_agg", "join_aggs", "multi_join", "nested", "cte"):
            return self.composed(shape, src)
        if shape == "project":
            cols = [self.pick([self.int_expr, self.str_expr, self.predicate])()
                    for _ in range(self.r.randint(1, 4))]
            wf, wd = self.where()
            return (f"SELECT id, {', '.join(c.flink for c in cols)} FROM {src}{wf}",
                    f"SELECT id, {', '.join(c.duck for c in cols)} FROM {src}{wd}")
        if shape == "aggregate":
            f, d, _, _ = self.aggregation(src)
            return f, d
        if shape == "agg_of_agg":
            f, d, kn, an = self.aggregation(src, min_keys=1)
            outer = self.pick(kn + an)
            i = self.r.randrange(len(an))
            inner = an[i]
            # SUM of a number only (Flink and DuckDB refuse SUM of a string: MIN/MAX(s) is one)
            total = f"SUM({inner})" if self.agg_kinds[i] != "str" else f"COUNT(DISTINCT {inner})"
            ag = self.pick(["COUNT(*)", total, f"MAX({inner})", f"MIN({inner})", f"COUNT({inner})"])
            return (f"SELECT {outer}, {ag} AS c FROM ({f}) GROUP BY {outer}",
                    f"SELECT {outer}, {ag} AS c FROM ({d}) GROUP BY {outer}")
        if shape == "filter_agg":
            f, d, kn, an = self.aggregation(src, min_keys=1)
            cond = f"{self.pick(kn)} IS NOT NULL OR {an[0]} IS NULL"
            return f"SELECT * FROM ({f}) WHERE {cond}", f"SELECT * FROM ({d}) WHERE {cond}"
        if shape == "distinct":
            keys = self.group_keys(self.r.randint(1, 3))
            wf, wd = self.where()
            return (f"SELECT DISTINCT {', '.join(k.flink for k in keys)} FROM {src}{wf}",
                    f"SELECT DISTINCT {', '.join(k.duck for k in keys)} FROM {src}{wd}")
        if shape == "union" and self.r.random() < 0.5:  # set operations: distinct rows
            a, b = self.predicate(), self.predicate()
            op = self.pick(["UNION", "INTERSECT", "EXCEPT", "INTERSECT ALL", "EXCEPT ALL"])
            cols = self.pick(["g, k", "k", "g, x % 3", "s"])
            return (f"SELECT {cols} FROM {src} WHERE {a.flink} {op} SELECT {cols} FROM {src} WHERE {b.flink}",
                    f"SELECT {cols} FROM {src} WHERE {a.duck} {op} SELECT {cols} FROM {src} WHERE {b.duck}")
        if shape == "union":
            a, b = self.predicate(), self.predicate()
            e = self.int_expr()
            return (f"SELECT id, {e.flink} AS v FROM {src} WHERE {a.flink} UNION ALL "
                    f"SELECT id, {e.flink} AS v FROM {src} WHERE {b.flink}",
                    f"SELECT id, {e.duck} AS v FROM {src} WHERE {a.duck} UNION ALL "
                    f"SELECT id, {e.duck} AS v FROM {src} WHERE {b.duck}")
        if shape in ("join", "join_agg"):
            kind = self.pick(["JOIN", "LEFT JOIN"])
            on = self.pick(["l.k = r.k", "l.g = r.g", "l.k = r.k AND l.g = r.g", "l.x % 5 = r.k"])
            rp = self.predicate("")
            right = f"(SELECT * FROM {src} WHERE id % 9 = {self.r.randint(0, 8)} AND {rp.flink})"
            right_d = right.replace(rp.flink, rp.duck)
            e = self.int_expr("l.")
            if shape == "join":
                return (f"SELECT l.id, r.id AS rid, {e.flink} AS v, r.s "
                        f"FROM {src} l {kind} {right} r ON {on}",
                        f"SELECT l.id, r.id AS rid, {e.duck} AS v, r.s "
                        f"FROM {src} l {kind} {right_d} r ON {on}")
            return (f"SELECT l.g, COUNT(*) AS c, SUM(r.x) AS sx, MAX({e.flink}) AS mv "
                    f"FROM {src} l {kind} {right} r ON {on} GROUP BY l.g",
                    f"SELECT l.g, COUNT(*) AS c, SUM(r.x) AS sx, MAX({e.duck}) AS mv "
                    f"FROM {src} l {kind} {right_d} r ON {on} GROUP BY l.g")
        # topn: a ranking over an aggregate (its input updates), every tie broken
        n = self.r.randint(1, 3)
        agg = self.pick(["COUNT(*)", "SUM(x)", "MAX(x)", "MIN(d)"])
        desc = self.pick(["DESC", "ASC"])
        wf, wd = self.where()
        inner = (f"SELECT g, COALESCE(k, -99) AS kk, {agg} AS v FROM {src}{{w}} GROUP BY g, COALESCE(k, -99)")
        order = f"COALESCE(v, -99999) {desc}, kk"
        tmpl = (f"SELECT * FROM (SELECT g, kk, v, ROW_NUMBER() OVER (PARTITION BY g ORDER BY {order}) AS rn "
                f"FROM ({inner})) WHERE rn <= {n}")
        if self.r.random() < 0.5:  # rank over a derived column, as Flink's planner wants columns in OVER
            inner = (f"SELECT g, kk, v, COALESCE(v, -99999) AS ov FROM ({inner})")
            tmpl = (f"SELECT g, kk, v, rn FROM (SELECT g, kk, v, ROW_NUMBER() OVER (PARTITION BY g "
                    f"ORDER BY ov {desc}, kk) AS rn FROM ({inner})) WHERE rn <= {n}")
        return tmpl.replace("{w}", wf), tmpl.replace("{w}", wd)


#: ``--extras``: ``"files"`` or ``"kafka"`` (which tables the extras may read), ``""`` off
EXTRAS = ""
#: an OPTIONS hint that changes no row (a Kafka option that tunes the client only)
KAFKA_HINT = "/*+ OPTIONS('scan.topic-partition-discovery.interval' = '5 min') */"
#: ``tm``: ``t``'s Kafka topic with its partition and offset (metadata columns); a row of ``t`` is in
#: partition ``id % 4`` at offset ``id // 4`` (ids 0.., one record each, produced in id order)
TM_DUCK = "(SELECT *, id % 4 AS part, id // 4 AS off FROM t)"


def extras_query(seed: int) -> Query | None:
    """One seed in two under ``--extras`` (None: the seed's plain query): a temporal sort of ``tw``
    (``ORDER BY ts``: Flink's sort on the rowtime, rows held until the watermark passes them), a
    GROUP BY or join under a ``STATE_TTL`` hint (a day, or ``'0 ms'``: forever, so no row expires),
    over Kafka a query of ``tm``'s metadata columns; over Kafka one query in three carries an
    ``OPTIONS`` hint after each table name, and a restore (:attr:`Query.alter`) may alter the
    tables between the stop and the restore. Drawn from a generator of its own: the plain seeds'
    queries stay as they were."""
    g = Gen(seed)
    g.r = random.Random(f"extras-{seed}")
    if g.r.random() < 0.5:
        return None
    kafka = EXTRAS == "kafka"
    shape = g.pick_shape(["tsort", "tsort", "ttl_agg", "ttl_join"] + (["meta", "meta_agg"] if kafka else []))
    src = "tw" if shape == "tsort" else g.pick(["t", "cdc"])
    wf, wd = g.where()
    if shape == "tsort":
        e = g.int_expr()
        order = g.pick(["ts", "ts", "ts, x DESC", "ts, id"])
        flink = f"SELECT id, g, {e.flink} AS v, ts FROM tw{wf} ORDER BY {order}"
        duck = f"SELECT id, g, {e.duck} AS v, ts FROM tw{wd}"
    elif shape == "ttl_agg":
        flink, duck, _, _ = g.aggregation(src, min_keys=1)
        ttl = g.pick(["1d", "0 ms", "PT12H"])
        flink = flink.replace("SELECT ", f"SELECT /*+ STATE_TTL('{src}' = '{ttl}') */ ", 1)
    elif shape == "ttl_join":
        kind = g.pick(["JOIN", "LEFT JOIN"])
        on = g.pick(["l.k = r.k", "l.g = r.g"])
        m = g.r.randint(0, 8)
        e = g.int_expr("l.")
        right = f"(SELECT * FROM {src} WHERE id % 9 = {m})"
        hint = g.pick(["'l' = '1d', 'r' = '0 ms'", "'r' = '1d'", "'l' = 'PT1H'"])
        flink = (f"SELECT /*+ STATE_TTL({hint}) */ l.id, r.id AS rid, {e.flink} AS v "
                 f"FROM {src} l {kind} {right} r ON {on}")
        duck = f"SELECT l.id, r.id AS rid, {e.duck} AS v FROM {src} l {kind} {right} r ON {on}"
    elif shape == "meta":
        flink = f"SELECT id, part, off, x FROM tm{wf}"
        duck = f"SELECT id, part, off, x FROM {TM_DUCK}{wd}"
    else:  # meta_agg: keyed by a metadata column (an exchange by it at parallelism > 1)
        flink = f"SELECT part, COUNT(*) AS c, SUM(x) AS sx, MAX(off) AS mo FROM tm{wf} GROUP BY part"
        duck = f"SELECT part, COUNT(*) AS c, SUM(x) AS sx, MAX(off) AS mo FROM {TM_DUCK}{wd} GROUP BY part"
    if kafka and g.r.random() < 1 / 3:
        flink = re.sub(r"\b(FROM|JOIN) (tm|tw|t|cdc)\b", rf"\1 \2 {KAFKA_HINT}", flink)
    alter = g.pick(["", "bounded", "add"])
    if alter == "add" and "*" in flink.replace("COUNT(*)", ""):
        alter = "bounded"  # a column added to t would show in SELECT *
    return Query(flink, duck, src if shape != "meta" else "t", g.pick([1, 7, 50, None]),
                 g.pick(["hashmap", "rocksdb"]), shape, alter)


#: Shapes drawn only when asked for (``make_query(seed, shape)``, ``--shape``), so that adding one
#: leaves every seed's query as it was (Flink's answers are recorded per seed).
EXTRA_SHAPES = ("over_nontime",)


def over_nontime(g: Gen, src: str) -> tuple[str, str]:
    """An unbounded OVER window ordered by a column that is no time attribute (Flink 2.1+).

    RANGE over a column (peers share a result, whatever their arrival order) or ROWS over ``id``
    (unique): both deterministic over the final rows, so DuckDB's window gives the final table.
    NULLs first, as Flink orders them ascending.
    """
    part = g.pick(["", "PARTITION BY g ", "PARTITION BY k "])
    fn = g.pick(["SUM(x)", "COUNT(*)", "MAX(x)", "MIN(d)", "COUNT(x)", "AVG(k)"])
    order, frame = g.pick([("x", "RANGE"), ("k", "RANGE"), ("s", "RANGE"), ("d", "RANGE"), ("id", "ROWS")])
    wf, wd = g.where()
    w_f = f"OVER ({part}ORDER BY {order} {frame} BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)"
    w_d = f"OVER ({part}ORDER BY {order} NULLS FIRST {frame} BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)"
    fd = f"trunc(AVG(k) {w_d})" if fn == "AVG(k)" else f"{fn} {w_d}"
    return (f"SELECT id, {fn} {w_f} AS v FROM (SELECT * FROM {src}{wf})",
            f"SELECT id, {fd} AS v FROM (SELECT * FROM {src}{wd})")


def make_query(seed: int, shape: str = "") -> Query:
    """Seed's query; ``shape`` one of :data:`EXTRA_SHAPES` draws that shape instead."""
    extra = extras_query(seed) if EXTRAS and not shape else None
    if extra is not None:
        return extra
    g = Gen(seed)
    if shape in EXTRA_SHAPES:
        src = g.pick(["t", "cdc", "cdx"])
        g.shape = shape
        flink, duck = over_nontime(g, src)
        return Query(flink, duck, src, g.pick([1, 7, 50, None]), g.pick(["hashmap", "rocksdb"]), shape)
    p = g.r.random()
    src = "cdc" if p < 0.2 else "cdx" if p < 0.3 else "tw" if p < 0.55 else "t"
    if src == "cdx":  # the extremes keep going: aggregates, their rankings and joins
        g.shape = g.pick(["aggregate", "agg_of_agg", "topn", "join_agg", "case_agg", "join_aggs"])
        flink, duck = g.query(src, g.shape)
    else:
        flink, duck = g.timed() if src == "tw" else g.query(src)
    return Query(flink, duck, src, g.pick([1, 7, 50, None]), g.pick(["hashmap", "rocksdb"]), g.shape)


def extremes_changelog(seed: int, n_rows: int) -> tuple[list, dict[int, dict]]:
    """A changelog that keeps retracting the extremes: rows go in, then again and again the current
    MAX(x) or MIN(x) (or MIN/MAX(d)) of a random group is deleted, updated to a middle value or
    moved to another group, with a few fresh rows between. Returns (events, final table by id)."""
    rnd = random.Random(seed)
    rows = gen_rows(seed, 3 * n_rows)
    table: dict[int, dict] = {}
    events: list = []
    for r in rows[:n_rows]:
        table[r["id"]] = r
        events.append(("c", None, dict(r)))
    fresh = iter(rows[n_rows:])
    for _ in range(n_rows):
        col = rnd.choice(["x", "x", "d"])
        grp = rnd.choice(["a", "b", "c", "d", "e", None])
        cands = [r for r in table.values() if r["g"] == grp and r[col] is not None]
        if not cands or rnd.random() < 0.15:
            r = next(fresh)
            table[r["id"]] = r
            events.append(("c", None, dict(r)))
            continue
        pick = (max if rnd.random() < 0.5 else min)(cands, key=lambda r: r[col])
        p = rnd.random()
        if p < 0.5:
            del table[pick["id"]]
            events.append(("d", dict(pick), None))
        else:
            new = dict(pick, g=rnd.choice("abcde")) if p < 0.7 else dict(pick, **{col: cands[0][col]})
            table[pick["id"]] = new
            events.append(("u", dict(pick), dict(new)))
    return events, table


def data_files(d: Path) -> dict[str, Path]:
    """The insert-only table ``t``, the changelog ``cdc`` and ``cdc``'s final table (``cdc_final``)."""
    events, final = simulate_changelog(seed=11, n_events=N_ROWS)
    xevents, xfinal = extremes_changelog(seed=12, n_rows=N_ROWS)
    return {
        "cdx": write_debezium(d / "cdx.json", xevents),
        "cdx_final": write_jsonl(d / "cdx_final.json", sorted(xfinal.values(), key=lambda r: r["id"])),
        "t": write_jsonl(d / "t.json", gen_rows(seed=20261204, n=N_ROWS)),
        "cdc": write_debezium(d / "cdc.json", events),
        "cdc_final": write_jsonl(d / "cdc_final.json", sorted(final.values(), key=lambda r: r["id"])),
    }


def create_tables(env, files: dict[str, Path], connector: str = "filesystem") -> None:
    """``t``, ``cdc``, ``cdx`` and ``tw`` (``t`` with an event-time ``ts``) in ``env``."""
    cols = ", ".join(f"{c} {t}" for c, t, _ in COLUMNS)
    for name, fmt in (("t", "json"), ("cdc", "debezium-json"), ("cdx", "debezium-json")):
        env.execute_sql(f"CREATE TABLE {name} ({cols}) WITH ('connector' = '{connector}', "
                        f"'path' = '{files[name]}', 'format' = '{fmt}')")
    env.execute_sql(f"CREATE TABLE tw ({cols}, ts AS {TS_FLINK}, "
                    f"WATERMARK FOR ts AS ts - INTERVAL '5' SECOND) WITH ('connector' = '{connector}', "
                    f"'path' = '{files['t']}', 'format' = 'json')")


def expected_rows(q: Query, files: dict[str, Path]) -> Counter:
    """DuckDB's batch answer to ``q`` over the final tables."""
    con = duck_con({"t": files["t"], "cdc": files["cdc_final"], "cdx": files["cdx_final"]})
    con.execute(f"CREATE VIEW tw AS SELECT *, {TS_DUCK} AS ts FROM t")
    return duck_rows(con, q.duck)


def check_sorted(rows: list[tuple], q: Query, what: str) -> None:
    """A temporal sort's rows (``ts`` their last column) in the order of ``ts``, as Flink emits
    them (the multiset alone would not see a wrong order); other shapes: nothing to check."""
    if q.shape != "tsort":
        return
    ts = [r[-1] for r in rows]
    bad = next((i for i in range(1, len(ts)) if ts[i] < ts[i - 1]), None)
    assert bad is None, f"{what}\n  out of rowtime order at row {bad}: {ts[bad - 1]} then {ts[bad]}"


def compare(actual: Counter, expected: Counter, what: str) -> None:
    """``assert_same``, but a global aggregate over no rows: DuckDB answers one row, a streaming
    aggregate none (Flink)."""
    if not actual and len(expected) == 1 and all(v in (0, None) for r in expected for v in r):
        return
    assert_same(actual, expected, what)


def check(seed: int, files: dict[str, Path], work: Path, shape: str = "") -> Query:
    """Run seed's query (of an extra ``shape``) both ways; AssertionError with the query when they differ."""
    q = make_query(seed, shape)
    env = make_env(work, q.backend, q.batch_size)
    create_tables(env, files)
    expected = expected_rows(q, files)
    try:
        actual = stream_rows(env, q.flink, timeout=120)  # a session or window fires at the end only
    except AssertionError as e:
        msg = f"seed {seed} ({q.backend}, batch {q.batch_size}): {q.flink}\n{e}"
        raise AssertionError(msg) from None
    compare(actual, expected, f"seed {seed} ({q.backend}, batch {q.batch_size}): {q.flink}")
    return q


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", default="0:200", help="A:B, the seeds A..B-1")
    ap.add_argument("--seed", type=int, help="one seed")
    ap.add_argument("--show", action="store_true", help="print the query, do not run it")
    ap.add_argument("--shape", help="only the seeds of these shapes (comma-separated)")
    ap.add_argument("-v", "--verbose", action="store_true", help="a line for every seed run")
    ap.add_argument("--savepoint", action="store_true",
                    help="stop each query with a savepoint part-way and resume it (query_fuzz_savepoint)")
    ap.add_argument("--cuts", type=int, default=1,
                    help="with --savepoint or --kafka: stop and resume this many times")
    ap.add_argument("--parallel", type=int, metavar="P",
                    help="over Kafka topics, at parallelism P (query_fuzz_kafka)")
    ap.add_argument("--rescale", metavar="P1,P2[,P3...]",
                    help="over Kafka: at P1, stop with a savepoint at a cut, restore at P2 (and so on) "
                         "('mix': a pair per seed)")
    ap.add_argument("--workers", type=int, metavar="P",
                    help="over Kafka, at parallelism P on P `streamsql run` worker processes")
    ap.add_argument("--kafka", action="store_true",
                    help="over Kafka, one task: stop with a savepoint at a cut, restore with another "
                         "batch size")
    ap.add_argument("--extras", action="store_true",
                    help="the generator's extras (extras_query): temporal sort, STATE_TTL and OPTIONS "
                         "hints, Kafka metadata columns, ALTER TABLE between a stop and its restore")
    ap.add_argument("--bootstrap", default=os.environ.get("STREAMSQL_KAFKA_BOOTSTRAP", "127.0.0.1:9092"),
                    help="the broker of --parallel, --rescale and --kafka")
    a = ap.parse_args(argv)
    global EXTRAS  # noqa: PLW0603  (the campaign's generator, read by make_query)
    if a.extras:
        EXTRAS = "kafka" if a.parallel or a.rescale or a.kafka or a.workers else "files"
        from tests.runtime import query_fuzz  # run as __main__: the variants read this module's

        query_fuzz.EXTRAS = EXTRAS
    run = check
    refused = Counter()
    if a.savepoint:
        from tests.runtime.query_fuzz_savepoint import check_savepoint

        def run(seed, files, work):
            return check_savepoint(seed, files, work, cuts=a.cuts)
    elif a.parallel or a.rescale or a.kafka or a.workers:
        from tests.runtime import query_fuzz_kafka as qk

        p = ((a.parallel,) if a.parallel else (1,) * (a.cuts + 1) if a.kafka
             else () if a.rescale in (None, "mix") else tuple(map(int, a.rescale.split(","))))

        def run(seed, files, work):
            try:
                if a.workers:
                    return qk.check_workers(seed, files, work, a.bootstrap, a.workers)
                return qk.check_kafka(seed, files, work, a.bootstrap, p)
            except qk.Refused as e:
                refused[make_query(seed).shape] += 1
                if a.verbose:
                    print(f"refused seed {seed}: {str(e)[:200]}", flush=True)
                return None
    seeds = [a.seed] if a.seed is not None else range(*map(int, a.seeds.split(":")))
    extra = a.shape if a.shape in EXTRA_SHAPES else ""
    if extra:  # every seed draws that shape
        plain = run

        def run(seed, files, work):
            return plain(seed, files, work, extra) if plain is check else plain(seed, files, work)
    elif a.shape:
        seeds = [s for s in seeds if make_query(s).shape in a.shape.split(",")]
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        files = data_files(Path(tmp))
        for s in seeds:
            if a.show:
                q = make_query(s, extra)
                print(f"-- seed {s} {q.shape} ({q.backend}, batch {q.batch_size})\n{q.flink}\n"
                      f"-- DuckDB\n{q.duck}")
                continue
            with tempfile.TemporaryDirectory() as work:
                start = time.monotonic()
                try:
                    q = run(s, files, Path(work))
                    if a.verbose and q is not None:
                        sp = sys.modules.get("tests.runtime.query_fuzz_savepoint")
                        kf = sys.modules.get("tests.runtime.query_fuzz_kafka")
                        detail = f" {sp.LAST}" if a.savepoint else f" {kf.LAST}" if kf else ""
                        print(f"ok seed {s} {q.shape} {time.monotonic() - start:.1f} s{detail}", flush=True)
                except AssertionError as e:
                    failed += 1
                    print(f"FAIL {str(e)[:3000]}\n", flush=True)
                except Exception:  # noqa: BLE001  (a refusal or crash is a finding too)
                    failed += 1
                    q = make_query(s)
                    print(f"ERROR seed {s}: {q.flink}\n{traceback.format_exc(limit=3)[-1500:]}\n", flush=True)
    print(f"{failed} of {len(seeds)} seeds failed"
          + (f"; {sum(refused.values())} refused at the parallelism ({dict(refused)})" if refused else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
