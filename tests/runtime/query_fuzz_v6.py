"""The sixth query generator (seeds from :data:`BASE`, 500000): query shapes over edge values, checked
against Flink 2.3's recorded answers only (``scripts/flink_queryfuzz.py``).

The other generators' data never held the values where a shape's semantics are thin: a lone -0.0
summed by a window (funcs34b found it by hand). Two tables of edge values (:func:`q_rows`):

- ``q``: ``id INT, g STRING, c CHAR(3), k INT, b BIGINT, d DECIMAL(10, 2), e DECIMAL(38, 18),
  f DOUBLE, r FLOAT, ts TIMESTAMP(3)`` with ``WATERMARK FOR ts AS ts - INTERVAL '1' SECOND``: -0.0,
  NaN, +/-Infinity, 1e308 and the smallest subnormal in ``f`` / ``r``; DECIMALs at their precision's
  edge (``99999999.99``, twenty integer digits of ``e``: two of them overflow a SUM) and ``-0.00``;
  INT / BIGINT at and next to their limits (sums wrap, as Flink's); empty strings, blanks and trailing
  spaces in ``g`` and ``c`` (CHAR(3)); NULLs in every column; rowtimes in runs of equal values, out of
  order and late (``qo``: the view of ``q`` without its late rows, which the joins and
  MATCH_RECOGNIZE read, as ``tzo``);
- ``qc``: a debezium changelog of the same columns without ``ts`` (inserts, updates to other edge
  values, deletes: MIN / MAX / SUM retract -0.0, NaN and infinities).

Shapes (:data:`SHAPES`): window TVF aggregates (TUMBLE / HOP / CUMULATE, DISTINCT, FILTER, keys of every
type: a float key groups -0.0 apart from 0.0 or not), SESSION windows, window Top-N and deduplication,
OVER with ROWS / RANGE frames, GROUP BY over ``q`` and ``qc`` (HAVING), regular joins on float / DECIMAL /
CHAR / mixed-type keys (is -0.0 = 0.0 a match, NaN = NaN?), interval joins on float keys, UNION ALL
of widened types, Top-N with ties broken by a unique column (retractions through ``qc``), deduplication
on the rowtime, SELECT DISTINCT, MATCH_RECOGNIZE with float conditions. Every DOUBLE / FLOAT column of a
result is also printed as ``CAST(... AS STRING)`` (:func:`with_text`): the sign of a zero and NaN show
in the compared text (the replay compares floats numerically, where -0.0 = 0.0).

Each seed draws from its own ``random.Random(seed)``.
"""

from __future__ import annotations

import datetime as dt
import json
import random
from decimal import Decimal
from pathlib import Path

from tests.runtime.query_fuzz import Gen, Query

#: The first seed of this generator.
BASE = 500_000

SHAPES = ["w_agg", "w_agg", "w_agg", "session", "w_topn", "w_dedup", "over", "over", "group", "group",
          "group", "join", "join", "interval_join", "union", "topn", "dedup", "distinct", "mr"]

Q_COLUMNS = [("id", "INT"), ("g", "STRING"), ("c", "CHAR(3)"), ("k", "INT"), ("b", "BIGINT"),
             ("d", "DECIMAL(10, 2)"), ("e", "DECIMAL(38, 18)"), ("f", "DOUBLE"), ("r", "FLOAT")]
NAN, INF = float("nan"), float("inf")
#: Each column's edge values (drawn half the time; NULL 15 % of the time).
EDGES = {
    "g": ["a", "a ", "", " ", "b", "B", "a  ", " a"],
    "c": ["a", "a ", "", "ab", "abc", " a"],
    "k": [0, 1, -1, 2147483647, 2147483646, -2147483648, -2147483647, 5],
    "b": [0, 9223372036854775807, 9223372036854775806, -9223372036854775808, 1, -1, 4611686018427387904],
    "d": ["99999999.99", "-99999999.99", "0.00", "-0.00", "0.01", "-0.01", "12.50", "50000000.00"],
    "e": ["99999999999999999999.999999999999999999", "-99999999999999999999.999999999999999999",
          "0.000000000000000001", "0.000000000000000000", "1.500000000000000000",
          "50000000000000000000.000000000000000000"],
    "f": [-0.0, 0.0, NAN, INF, -INF, 1e308, -1e308, 1.5, -1.5, 5e-324, 0.1, 0.2],
    "r": [-0.0, 0.0, NAN, INF, -INF, 3.4028235e38, 1.5, 0.1],
}
#: The ordinary values of each column (the other half).
PLAIN = {
    "g": ["a", "b", "c"], "c": ["x", "yy", "zzz"], "k": [1, 2, 3, 4], "b": [10, 20, 30],
    "d": ["1.25", "2.50", "-3.75"], "e": ["1.000000000000000000", "-2.500000000000000000"],
    "f": [1.0, 2.5, -3.0], "r": [1.0, 2.5, -3.0],
}
T0 = dt.datetime(2024, 1, 1)
N_Q, N_QC = 90, 40


def _value(rnd: random.Random, col: str):
    if rnd.random() < 0.15:
        return None
    v = rnd.choice(EDGES[col] if rnd.random() < 0.5 else PLAIN[col])
    return Decimal(v) if col in ("d", "e") else v


def q_rows() -> list[dict]:
    """``q``'s rows in file order: edge values and a rowtime ``ts`` (a run of equal rowtimes 30 %,
    steps of 0.5 to 4 s, 12 % of the rows 1 to 20 s behind the highest so far: some late)."""
    rnd = random.Random(2035)
    rows, top = [], T0
    for i in range(N_Q):
        row = {"id": i, **{c: _value(rnd, c) for c, _ in Q_COLUMNS[1:]}}
        if rnd.random() < 0.12 and i > 3:
            ts = top - dt.timedelta(seconds=rnd.choice([1, 2, 3, 5, 9, 20]))
        else:
            top += dt.timedelta(seconds=rnd.choice([0, 0, 0, 0.5, 1, 1, 2, 4]))
            ts = top
        row["ts"] = ts.strftime("%Y-%m-%d %H:%M:%S.") + f"{ts.microsecond // 1000:03d}"
        rows.append(row)
    return rows


def qc_events() -> list[tuple[str, dict | None, dict | None]]:
    """``qc``'s debezium events: :data:`N_QC` creates, then updates of some rows to other values
    (edge values included) and deletes."""
    rnd = random.Random(2036)
    live: dict[int, dict] = {}
    events = []
    for i in range(N_QC):
        live[i] = {"id": i, **{c: _value(rnd, c) for c, _ in Q_COLUMNS[1:]}}
        events.append(("c", None, live[i]))
    for _ in range(30):
        i = rnd.choice(sorted(live))
        if rnd.random() < 0.25:
            events.append(("d", live.pop(i), None))
            continue
        new = dict(live[i])
        for c in rnd.sample([c for c, _ in Q_COLUMNS[1:]], rnd.randint(1, 2)):
            new[c] = _value(rnd, c)
        events.append(("u", live[i], new))
        live[i] = new
    return events


def _json(v) -> str:
    """A cell as JSON text both engines read: NaN / Infinity as strings (Flink's JSON format parses a
    textual DOUBLE / FLOAT with ``Double.parseDouble``), DECIMALs with exactly their digits."""
    if isinstance(v, float) and (v != v or v in (INF, -INF)):
        return json.dumps("NaN" if v != v else ("Infinity" if v > 0 else "-Infinity"))
    return str(v) if isinstance(v, Decimal) else json.dumps(v, ensure_ascii=False)


def _row_text(r: dict | None) -> str:
    if r is None:
        return "null"
    return "{" + ", ".join(f"{json.dumps(k)}: {_json(v)}" for k, v in r.items()) + "}"


def v6_files(d: Path) -> dict[str, Path]:
    """The files of ``q`` (JSON lines) and ``qc`` (debezium JSON) in folder ``d``."""
    q = d / "q.json"
    q.write_text("".join(_row_text(r) + "\n" for r in q_rows()), encoding="utf-8")
    qc = d / "qc.json"  # (oracle.write_debezium cannot spell NaN)
    qc.write_text("".join(f'{{"before": {_row_text(b)}, "after": {_row_text(a)}, "op": "{op}"}}\n'
                          for op, b, a in qc_events()), encoding="utf-8")
    return {"q": q, "qc": qc}


def q_late_ids() -> list[int]:
    """The ids of ``q``'s late rows (:func:`tests.runtime.query_fuzz_wide_v3.late_ids`, a 1 s delay)."""
    from tests.runtime.query_fuzz_wide_v3 import late_ids

    return late_ids(q_rows(), 1)


def create_v6_tables(env, files: dict[str, Path]) -> None:
    """``q`` (a watermark 1 s behind ``ts``), the view ``qo`` of its rows that are not late, and ``qc``."""
    cols = ", ".join(f"{c} {t}" for c, t in Q_COLUMNS)
    env.execute_sql(f"CREATE TABLE q ({cols}, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) "
                    f"WITH ('connector' = 'filesystem', 'path' = '{files['q']}', 'format' = 'json')")
    late = ", ".join(map(str, q_late_ids()))
    env.execute_sql(f"CREATE VIEW qo AS SELECT * FROM q WHERE id NOT IN ({late})")
    env.execute_sql(f"CREATE TABLE qc ({cols}) WITH ('connector' = 'filesystem', 'path' = '{files['qc']}', "
                    "'format' = 'debezium-json')")


#: Aggregates: (text, its result is DOUBLE / FLOAT).
AGGS = [
    ("SUM(f)", True), ("MIN(f)", True), ("MAX(f)", True), ("AVG(f)", True), ("SUM(r)", True),
    ("MIN(r)", True), ("MAX(r)", True), ("SUM(DISTINCT f)", True), ("MAX(f) FILTER (WHERE k > 0)", True),
    ("MIN(f) FILTER (WHERE f <> 0)", True), ("SUM(f) FILTER (WHERE g <> '')", True),
    ("COUNT(*)", False), ("COUNT(f)", False), ("COUNT(DISTINCT f)", False), ("COUNT(DISTINCT r)", False),
    ("COUNT(DISTINCT g)", False), ("COUNT(DISTINCT c)", False), ("SUM(k)", False), ("SUM(b)", False),
    ("MAX(b)", False), ("MIN(k)", False), ("SUM(d)", False), ("AVG(d)", False), ("MAX(d)", False),
    ("SUM(e)", False), ("AVG(e)", False), ("MIN(e)", False), ("MAX(g)", False), ("MIN(c)", False),
    ("MAX(c)", False), ("SUM(DISTINCT k)", False), ("AVG(k)", False), ("AVG(b)", False),
    ("COUNT(*) FILTER (WHERE f > 0)", False), ("COUNT(*) FILTER (WHERE f = 0)", False),
    ("COUNT(*) FILTER (WHERE f <> f)", False), ("COUNT(DISTINCT d)", False), ("MAX(CHAR_LENGTH(c))", False),
    ("SUM(CHAR_LENGTH(g))", False), ("COUNT(*) FILTER (WHERE c = 'a')", False),
    ("COUNT(*) FILTER (WHERE g = 'a')", False), ("MIN(d) FILTER (WHERE d <> 0)", False),
]
#: OVER aggregates (no FILTER).
OVER_AGGS = [a for a in AGGS if "FILTER" not in a[0]]
#: Group / partition / join keys: (text, is a float).
KEYS = [("g", False), ("c", False), ("k", False), ("f", True), ("r", True), ("d", False), ("e", False),
        ("b", False)]
PREDS = ["f > 0", "f = 0", "f IS NOT NULL", "NOT (f < 0)", "d = 0", "k > 0", "c = 'a'", "g = 'a '", "g <> ''",
         "f <> f", "r >= 0", "e > 0", "b < 0", "CHAR_LENGTH(g) = 0", "f BETWEEN -1 AND 1", "d < 0"]


def with_text(query: str, floats: list[str]) -> str:
    """``query`` with ``CAST(col AS STRING) AS col_s`` after its columns, for each float column named."""
    if not floats:
        return query
    return f"SELECT *, {', '.join(f'CAST({c} AS STRING) AS {c}_s' for c in floats)} FROM ({query})"


class GenV6(Gen):
    """The grammar of :data:`SHAPES` (``pick`` from :class:`Gen`)."""

    def build(self) -> tuple[str, str]:
        """(query with float columns' text, the main source table) of one shape."""
        query, floats, src = getattr(self, self.pick_shape(SHAPES))()
        return with_text(query, floats), src

    def aggs(self, pool=AGGS, lo: int = 1, hi: int = 3) -> tuple[str, list[str]]:
        """``a0``, ``a1``, ... of ``pool`` and the float ones' names."""
        picked = self.r.sample(pool, self.r.randint(lo, hi))
        return (", ".join(f"{a} AS a{i}" for i, (a, _) in enumerate(picked)),
                [f"a{i}" for i, (_, fl) in enumerate(picked) if fl])

    def key(self) -> tuple[str, bool]:
        return self.pick(KEYS)

    def where(self, p: float = 0.3) -> str:
        return f" WHERE {self.pick(PREDS)}" if self.r.random() < p else ""

    def tvf(self, src: str = "q") -> str:
        kind = self.pick(["TUMBLE", "HOP", "CUMULATE"])
        step = self.pick([2, 5, 10])
        if kind == "TUMBLE":
            size = step * self.r.randint(1, 3)
            return f"TABLE(TUMBLE(TABLE {src}, DESCRIPTOR(ts), INTERVAL '{size}' SECOND))"
        return (f"TABLE({kind}(TABLE {src}, DESCRIPTOR(ts), INTERVAL '{step}' SECOND, "
                f"INTERVAL '{step * self.pick([2, 3])}' SECOND))")

    # -- windows ----------------------------------------------------------------------------------------
    def w_agg(self):
        key, fl = self.key() if self.r.random() < 0.6 else ("", False)
        sel, floats = self.aggs()
        k = f"{key}, " if key else ""
        q = (f"SELECT {k}window_start, window_end, {sel} FROM {self.tvf()}{self.where()} "
             f"GROUP BY {k}window_start, window_end")
        return q, floats + ([key] if fl else []), "q"

    def session(self):
        key, fl = self.pick([("g", False), ("c", False), ("f", True), ("", False)])
        on = f"TABLE q PARTITION BY {key}" if key else "TABLE q"
        sel, floats = self.aggs()
        k = f", {key}" if key else ""
        q = (f"SELECT window_start, window_end{k}, {sel} FROM TABLE(SESSION({on}, DESCRIPTOR(ts), "
             f"INTERVAL '{self.r.randint(1, 5)}' SECOND)) GROUP BY window_start, window_end{k}")
        return q, floats + ([key] if fl else []), "q"

    def w_topn(self):
        n = self.r.randint(1, 3)
        if self.r.random() < 0.5:
            key, fl = self.key()
            agg, afl = self.pick(AGGS)
            inner = (f"SELECT window_start, window_end, {key} AS p, {agg} AS a FROM {self.tvf()} "
                     f"GROUP BY window_start, window_end, {key}")
            order = f"a {self.pick(['DESC', 'ASC'])}, p {self.pick(['DESC', 'ASC'])}"
            cols, floats = "window_start, window_end, p, a", (["a"] if afl else []) + (["p"] if fl else [])
        else:
            col, fl = self.pick([("f", True), ("r", True), ("d", False), ("e", False), ("c", False),
                                 ("b", False)])
            inner = f"SELECT * FROM {self.tvf()}"
            order = f"{col} {self.pick(['DESC', 'ASC'])}, id"
            cols, floats = f"window_start, window_end, id, {col}", [col] if fl else []
        return (f"SELECT {cols}, rn FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end "
                f"ORDER BY {order}) AS rn FROM ({inner})) WHERE rn <= {n}"), floats, "q"

    def w_dedup(self):
        key, fl = self.pick([("", False), ("f", True), ("r", True), ("c", False), ("g", False), ("d", False)])
        part = f", {key}" if key else ""
        q = (f"SELECT window_start, window_end, id, f, ts FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY "
             f"window_start, window_end{part} ORDER BY ts {self.pick(['ASC', 'DESC'])}) AS rn FROM "
             f"{self.tvf()}) WHERE rn = 1")
        return q, ["f"], "q"

    def over(self):
        key, _ = self.key()
        part = f"PARTITION BY {key} " if self.r.random() < 0.7 else ""
        frame = self.pick([f"ROWS BETWEEN {self.r.randint(0, 3)} PRECEDING AND CURRENT ROW",
                           f"RANGE BETWEEN INTERVAL '{self.r.randint(0, 6)}' SECOND PRECEDING AND "
                           "CURRENT ROW",
                           "ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW",
                           "RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW"])
        picked = self.r.sample(OVER_AGGS, self.r.randint(1, 3))
        sel = ", ".join(f"{a} OVER w AS a{i}" for i, (a, _) in enumerate(picked))
        q = f"SELECT id, ts, {sel} FROM q WINDOW w AS ({part}ORDER BY ts {frame})"
        return q, [f"a{i}" for i, (_, fl) in enumerate(picked) if fl], "q"

    # -- unbounded ----------------------------------------------------------------------------------------
    def group(self):
        src = self.pick(["q", "qc", "qc"])
        keys = self.r.sample(KEYS, self.r.randint(1, 2))
        sel, floats = self.aggs()
        names = ", ".join(k for k, _ in keys)
        having = f" HAVING COUNT(*) > {self.r.randint(0, 2)}" if self.r.random() < 0.2 else ""
        q = f"SELECT {names}, {sel} FROM {src}{self.where(0.2)} GROUP BY {names}{having}"
        return q, floats + [k for k, fl in keys if fl], src

    def join(self):
        right = self.pick(["q", "qc"])
        lk, rk, fl = self.pick([("f", "f", True), ("r", "r", True), ("f", "r", True), ("d", "d", False),
                                ("d", "e", False), ("e", "e", False), ("c", "c", False), ("g", "g", False),
                                ("g", "c", False), ("k", "b", False), ("f", "d", True)])
        kind = self.pick(["JOIN", "JOIN", "LEFT JOIN", "FULL JOIN"])
        lm, rm = self.r.randint(1, 3), self.r.randint(1, 3)
        q = (f"SELECT L.id AS lid, R.id AS rid, L.{lk} AS lk, R.{rk} AS rk FROM (SELECT * FROM q WHERE "
             f"MOD(id, {lm + 1}) = 0) L {kind} (SELECT * FROM {right} WHERE MOD(id, {rm + 1}) = 1) R "
             f"ON L.{lk} = R.{rk}")
        floats = [c for c, col in (("lk", lk), ("rk", rk)) if col in ("f", "r")]
        if fl and self.r.random() < 0.3:
            q = f"SELECT lk, COUNT(*) AS n, COUNT(rid) AS m FROM ({q}) GROUP BY lk"
            floats = ["lk"]
        return q, floats, "q"

    def interval_join(self):
        lk, fl = self.pick([("f", True), ("r", True), ("d", False), ("c", False), ("g", False)])
        lo, hi = self.r.randint(0, 3), self.r.randint(0, 3)
        kind = self.pick(["JOIN", "LEFT JOIN"])
        q = (f"SELECT L.id AS lid, R.id AS rid, L.{lk} AS lk FROM (SELECT * FROM qo WHERE MOD(id, 2) = 0) L "
             f"{kind} (SELECT * FROM qo WHERE MOD(id, 2) = 1) R ON L.{lk} = R.{lk} AND L.ts BETWEEN "
             f"R.ts - INTERVAL '{lo}' SECOND AND R.ts + INTERVAL '{hi}' SECOND")
        return q, ["lk"] if fl else [], "q"

    def union(self):
        a, b, fl = self.pick([("f", "r", True), ("r", "f", True), ("d", "e", False), ("k", "b", False),
                              ("g", "c", False), ("c", "g", False), ("f", "d", True)])
        u = (f"SELECT id, {a} AS v, g FROM q{self.where(0.3)} UNION ALL SELECT id, {b} AS v, g FROM qc"
             f"{self.where(0.3)}")
        if self.r.random() < 0.4:
            return f"SELECT id, v FROM ({u})", ["v"] if fl else [], "q"
        how = self.pick(["SUM(v)", "MIN(v)", "MAX(v)", "COUNT(DISTINCT v)", "COUNT(v)"])
        flo = fl and not how.startswith("COUNT")
        if a in ("g", "c") and how == "SUM(v)":
            how = "MAX(v)"
        return f"SELECT g, {how} AS a FROM ({u}) GROUP BY g", ["a"] if flo else [], "qc"

    def topn(self):
        src = self.pick(["q", "qc", "qc"])
        n = self.r.randint(1, 4)
        if self.r.random() < 0.5:  # over the rows: id is unique
            col, fl = self.pick([("f", True), ("r", True), ("d", False), ("e", False), ("c", False),
                                 ("g", False)])
            part = self.pick(["PARTITION BY g ", "PARTITION BY f ", "PARTITION BY c ", ""])
            q = (f"SELECT id, g, {col} AS v FROM (SELECT *, ROW_NUMBER() OVER ({part}ORDER BY {col} "
                 f"{self.pick(['ASC', 'DESC'])}, id) AS rn FROM {src}) WHERE rn <= {n}")
            return q, ["v"] if fl else [], src
        key, kfl = self.key()
        agg, afl = self.pick(AGGS)
        q = (f"SELECT p, a FROM (SELECT *, ROW_NUMBER() OVER (ORDER BY a {self.pick(['ASC', 'DESC'])}, p) "
             f"AS rn FROM (SELECT {key} AS p, {agg} AS a FROM {src} GROUP BY {key})) WHERE rn <= {n}")
        return q, (["a"] if afl else []) + (["p"] if kfl else []), src

    def dedup(self):
        key, fl = self.pick([("f", True), ("r", True), ("c", False), ("g", False), ("d", False),
                             ("e", False)])
        q = (f"SELECT id, {key} AS p, ts FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY {key} ORDER BY ts "
             f"{self.pick(['ASC', 'DESC'])}) AS rn FROM q) WHERE rn = 1")
        return q, ["p"] if fl else [], "q"

    def distinct(self):
        src = self.pick(["q", "qc"])
        keys = self.r.sample(KEYS, self.r.randint(1, 2))
        q = f"SELECT DISTINCT {', '.join(k for k, _ in keys)} FROM {src}{self.where(0.3)}"
        return q, [k for k, fl in keys if fl], src

    def mr(self):
        part = self.pick(["PARTITION BY g ", "PARTITION BY c ", ""])
        pat, define = self.pick([("A B", "A AS f > 0, B AS f < 0 OR f IS NULL"),
                                 ("A B+ C", "A AS f = 0, B AS f > A.f OR f <> f, C AS r IS NOT NULL"),
                                 ("A B", "A AS f <> f, B AS f = f"), ("A B? C", "A AS d = 0, C AS d <> 0"),
                                 ("A{2} B", "A AS g <> '', B AS g = ''"),
                                 ("A B", "A AS k > 0, B AS k + A.k < 0")])
        meas, floats = self.pick([("FIRST(A.id) AS fa, LAST(B.id) AS lb", []),
                                  ("A.f AS af, LAST(B.f) AS lf", ["af", "lf"]),
                                  ("COUNT(B.id) AS nb, SUM(A.f) AS sa", ["sa"]),
                                  ("A.id AS aid, MAX(B.r) AS mr", ["mr"])])
        if "C" not in pat and "C." in meas:
            meas = meas.replace("C.", "B.")
        q = (f"SELECT * FROM qo MATCH_RECOGNIZE ({part}ORDER BY ts, id MEASURES {meas} ONE ROW PER MATCH "
             f"AFTER MATCH SKIP {self.pick(['PAST LAST ROW', 'TO NEXT ROW'])} PATTERN ({pat}) "
             f"DEFINE {define})")
        return q, floats, "q"


def make_v6_query(seed: int) -> Query:
    """The v6 generator's query of ``seed`` (:data:`BASE` and above); its DuckDB text is empty."""
    g = GenV6(seed)
    flink, src = g.build()
    return Query(flink, "", src, g.pick([1, 7, 50, None]), g.pick(["hashmap", "rocksdb"]), g.shape)
