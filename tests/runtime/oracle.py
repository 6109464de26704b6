"""Helpers for the DuckDB oracle tests: generate rows, run a query through StreamSQL and fold
its changelog, run the same query through DuckDB as a batch, compare the two multisets."""

from __future__ import annotations

import json
import math
import random
from collections import Counter
from decimal import Decimal
from pathlib import Path

import duckdb
import pytest

from streamsql import StreamEnvironment
from streamsql.core.elements import RowKind
from streamsql.core.errors import StreamSQLError

#: The oracle table: (name, Flink type, DuckDB type).
COLUMNS = [
    ("id", "INT", "INTEGER"),
    ("g", "STRING", "VARCHAR"),
    ("k", "INT", "INTEGER"),
    ("x", "INT", "INTEGER"),
    ("b", "BIGINT", "BIGINT"),
    ("d", "DECIMAL(10,2)", "DECIMAL(10,2)"),
    ("f", "DOUBLE", "DOUBLE"),
    ("s", "STRING", "VARCHAR"),
]

WORDS = ["apple", "Banana", "cherry", "date", "elder berry", "fig", "Grape", "", "ünïcode", "a'quote"]


def gen_rows(seed: int, n: int) -> list[dict]:
    """Seeded rows with NULLs in every nullable column, negatives, decimals and strings."""
    rnd = random.Random(seed)

    def maybe(v, p=0.15):
        return None if rnd.random() < p else v

    rows = []
    for i in range(n):
        rows.append({
            "id": i,
            "g": maybe(rnd.choice(["a", "b", "c", "d", "e"]), 0.1),
            "k": maybe(rnd.randint(-3, 3), 0.1),
            "x": maybe(rnd.randint(-1000, 1000)),
            "b": maybe(rnd.randint(-10**12, 10**12)),
            "d": maybe(Decimal(rnd.randint(-99999, 99999)).scaleb(-2)),
            "f": maybe(round(rnd.uniform(-1e3, 1e3), 3)),
            "s": maybe(rnd.choice(WORDS)),
        })
    return rows


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    """One JSON object per line; DECIMALs as JSON numbers with exactly their digits."""
    lines = []
    for r in rows:
        parts = []
        for k, v in r.items():
            val = str(v) if isinstance(v, Decimal) else json.dumps(v, ensure_ascii=False)
            parts.append(f"{json.dumps(k)}: {val}")
        lines.append("{" + ", ".join(parts) + "}")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def simulate_changelog(seed: int, n_events: int) -> tuple[list, dict[int, dict]]:
    """Random c/u/d events over a keyed table, plus the targeted cases; returns (events, final
    table by id)."""
    rnd = random.Random(seed)
    rows = gen_rows(seed, 4 * n_events)
    table: dict[int, dict] = {}
    events: list = []
    fresh = iter(rows)

    def insert(r):
        table[r["id"]] = r
        events.append(("c", None, dict(r)))

    def update(old, new):
        table[new["id"]] = new
        events.append(("u", dict(old), dict(new)))

    def delete(r):
        del table[r["id"]]
        events.append(("d", dict(r), None))

    for _ in range(n_events):
        p = rnd.random()
        if p < 0.5 or len(table) < 5:
            insert(next(fresh))
        elif p < 0.8:
            old = table[rnd.choice(list(table))]
            new = dict(next(fresh), id=old["id"])
            if rnd.random() < 0.5:
                new["g"] = old["g"]  # stay in the group: -U/+U within one key
            update(old, new)
        else:
            delete(table[rnd.choice(list(table))])

    # Delete the current MAX(x) and MIN(d) of group 'a' (MIN/MAX must retract to the runner-up).
    in_a = [r for r in table.values() if r["g"] == "a"]
    top = max((r for r in in_a if r["x"] is not None), key=lambda r: r["x"])
    delete(top)
    low = min((r for r in table.values() if r["g"] == "a" and r["d"] is not None), key=lambda r: r["d"])
    update(low, dict(low, d=Decimal("0.01")))
    # Delete every row of group 'b', in a few different ways: the group must disappear.
    for i, r in enumerate([r for r in table.values() if r["g"] == "b"]):
        if i % 2:
            update(r, dict(r, g="c"))
        else:
            delete(r)
    return events, table


def write_debezium(path: Path, events: list[tuple[str, dict | None, dict | None]]) -> Path:
    """Debezium events (op, before, after), one per line."""
    def row(r):
        if r is None:
            return "null"
        return "{" + ", ".join(f"{json.dumps(k)}: {str(v) if isinstance(v, Decimal) else json.dumps(v)}"
                               for k, v in r.items()) + "}"
    lines = [f'{{"before": {row(b)}, "after": {row(a)}, "op": "{op}"}}' for op, b, a in events]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def make_env(tmp_path: Path, backend: str = "hashmap", batch_size: int | None = None,
             settings: dict[str, str] | None = None) -> StreamEnvironment:
    cfg = {
        "state.backend.type": backend,
        "state.dir": str(tmp_path / "state"),
        "execution.checkpointing.dir": str(tmp_path / "checkpoints"),
    }
    if batch_size is not None:
        cfg["execution.batch-size"] = str(batch_size)
    return StreamEnvironment({**cfg, **(settings or {})})


def create_table(env: StreamEnvironment, name: str, path: Path, fmt: str = "json",
                 columns=COLUMNS) -> None:
    cols = ", ".join(f"{c} {t}" for c, t, _ in columns)
    env.execute_sql(f"CREATE TABLE {name} ({cols}) WITH ('connector' = 'filesystem', "
                    f"'path' = '{path}', 'format' = '{fmt}')")


def fold(changelog) -> Counter:
    """Fold (kind, row) pairs into a multiset; a retraction of an absent row fails."""
    state: Counter = Counter()
    for i, (kind, row) in enumerate(changelog):
        row = tuple(row)
        if kind in (RowKind.INSERT, RowKind.UPDATE_AFTER):
            state[row] += 1
        elif kind in (RowKind.UPDATE_BEFORE, RowKind.DELETE):
            if state[row] <= 0:
                msg = f"changelog entry #{i}: {kind.short}{row} retracts a row that is not in the result"
                raise AssertionError(msg)
            state[row] -= 1
            if state[row] == 0:
                del state[row]
        else:  # pragma: no cover
            msg = f"unknown row kind {kind!r}"
            raise AssertionError(msg)
    return state


def fold_text(changelog: list[list]) -> Counter:
    """The rows a recorded changelog ``[kind, value...]`` (kinds ``'+I'`` ...) leaves.

    +I/+U add a row, -U/-D take one away; rows whose count ends at zero or below are dropped
    (unlike :func:`fold`, no retraction fails).
    """
    rows: Counter = Counter()
    for kind, *values in changelog:
        rows[tuple(values)] += 1 if kind in ("+I", "+U") else -1
    return +rows


def text_rows(env: StreamEnvironment, query: str, timeout: float = 60) -> Counter:
    """Our changelog of ``query`` with every value as ``str`` (None kept), folded by :func:`fold_text`.

    Comparable with Flink's changelogs recorded with every value CAST to STRING in the query.
    """
    return fold_text([[kind.short, *(None if v is None else str(v) for v in row)]
                      for kind, row in env.execute_sql(query).collect(timeout=timeout)])


def assert_answer_as_flink(env: StreamEnvironment, query: str, answer: dict) -> None:
    """Flink's recorded ``answer`` to ``query`` (``{"rows": changelog}`` or ``{"error": text}``) is ours.

    Flink's rows must be ours once both are folded (:func:`text_rows`); a query Flink refused (or
    whose job failed) must be refused here with a :class:`StreamSQLError`.
    """
    if "error" in answer:
        with pytest.raises(StreamSQLError):
            text_rows(env, query)
        return
    assert text_rows(env, query) == fold_text(answer["rows"])


def stream_rows(env: StreamEnvironment, sql: str, timeout: float = 30) -> Counter:
    """Run ``sql`` as a streaming query; the folded changelog (the job must finish)."""
    res = env.execute_sql(sql)
    assert res.kind == "query", res.kind
    changelog = list(res.collect(timeout=timeout))
    # (collect cancels a job silent for `timeout` s: done, CANCELED, its changelog cut short)
    assert res.job.status == "FINISHED", f"query did not finish within {timeout} s of silence: {sql}"
    return fold(changelog)


def duck_con(tables: dict[str, Path], columns=COLUMNS) -> duckdb.DuckDBPyConnection:
    """A DuckDB connection with a view per JSON-lines file (explicit column types)."""
    con = duckdb.connect()
    spec = "{" + ", ".join(f"'{c}': '{t}'" for c, _, t in columns) + "}"
    for name, path in tables.items():
        con.execute(f"CREATE VIEW {name} AS SELECT * FROM read_json('{path}', "
                    f"format = 'newline_delimited', columns = {spec})")
    return con


def duck_rows(con, sql: str) -> Counter:
    return Counter(tuple(r) for r in con.execute(sql).fetchall())


# -- comparison ------------------------------------------------------------------------------

def _norm(v):
    if isinstance(v, float):
        return ("n", round(v, 4))
    if isinstance(v, Decimal):
        return ("n", round(float(v), 4))
    if isinstance(v, bool):
        return ("b", v)
    if isinstance(v, int):
        return ("n", float(v))
    if v is None:
        return ("0", 0)
    return ("s", v)


def _close(a, b) -> bool:
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, (float, Decimal)) or isinstance(b, (float, Decimal)):
        if isinstance(a, Decimal) and isinstance(b, Decimal):
            return a == b  # exact decimal arithmetic on both sides
        if isinstance(a, (bool, str)) or isinstance(b, (bool, str)):
            return False
        return math.isclose(float(a), float(b), rel_tol=1e-9, abs_tol=1e-6)
    if type(a) is bool or type(b) is bool:
        return a == b and type(a) is type(b)
    return a == b


def _expand(c: Counter) -> list[tuple]:
    return sorted((r for r, n in c.items() for _ in range(n)), key=lambda r: tuple(_norm(v) for v in r))


def assert_same(actual: Counter, expected: Counter, sql: str = "") -> None:
    """The two multisets hold the same rows (floats approximately, decimals exactly)."""
    a, e = _expand(actual), _expand(expected)
    problems = []
    if len(a) != len(e):
        problems.append(f"{len(a)} rows from StreamSQL, {len(e)} from DuckDB")
    for ra, re_ in zip(a, e):
        if len(ra) != len(re_) or not all(_close(x, y) for x, y in zip(ra, re_)):
            problems.append(f"first difference: StreamSQL {ra!r} vs DuckDB {re_!r}")
            break
    if problems:
        def show(rows):
            return "\n    ".join(map(repr, rows[:40])) + ("\n    ..." if len(rows) > 40 else "")
        raise AssertionError(f"{sql}\n  " + "\n  ".join(problems) + f"\n  StreamSQL:\n    {show(a)}"
                             f"\n  DuckDB:\n    {show(e)}")
