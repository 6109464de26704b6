"""nexmark: interleaving, ids, timestamps and value ranges as Nexmark's generator; determinism; options."""

from __future__ import annotations

import re

import pyarrow as pa
import pytest
from streamsql.connectors.nexmark import DDL_COLUMNS
from streamsql.connectors.registry import get_connector

from streamsql import StreamEnvironment
from streamsql.core.catalog import ColumnDef, TableDef
from streamsql.core.connector import ConnectorContext
from streamsql.core.errors import ConfigError, SqlError
from streamsql.core.types import SqlType
from tests.connectors.helpers import table_of

BASE = 1_767_225_600_000  # the default 'base-time': 2026-01-01 00:00:00 UTC


def _columns() -> dict[str, str]:
    """The DDL's physical columns as ``name -> type`` (the ROW types as SQL text)."""
    parts, depth, cur = [], 0, ""
    for ch in DDL_COLUMNS.replace("`", ""):
        depth += {"<": 1, ">": -1}.get(ch, 0)
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    parts.append(cur)
    return dict(" ".join(p.split()).split(" ", 1) for p in parts)


def source(options: dict[str, str] | None = None, task: int = 0, tasks: int = 1):
    table = table_of("gen", {"connector": "nexmark", "events.num": "2000", **(options or {})}, **_columns())
    return get_connector("nexmark").create_source(ConnectorContext(table, "job", {}, task, tasks))


def drain(src, max_rows=1000) -> pa.Table:
    out = []
    while not src.finished():
        b = src.poll(max_rows, 0.1)
        if b is not None:
            out.append(b.table)
    return pa.concat_tables(out)


def test_interleaving_ids_and_timestamps_follow_nexmark():
    src = source({"first-event.rate": "1000"})
    src.open(None)
    t = drain(src).to_pylist()
    assert len(t) == 2000 and src.position() == {"events": 2000}
    # event k has id k + 2; id % 50 < 1 is a person, < 4 an auction, else a bid (1/3/46)
    assert [r["event_type"] for r in t[:3]] == [1, 1, 2]
    for k, r in enumerate(t):
        rem = (k + 2) % 50
        assert r["event_type"] == (0 if rem < 1 else 1 if rem < 4 else 2)
        kind = ("person", "auction", "bid")[r["event_type"]]
        assert [name for name in ("person", "auction", "bid") if r[name] is not None] == [kind]
        # 1000 events/s: event number k + 1 is at (k + 1) ms
        assert r[kind]["dateTime"].timestamp() * 1000 == BASE + k + 1
    persons = [r["person"] for r in t if r["event_type"] == 0]
    auctions = [r["auction"] for r in t if r["event_type"] == 1]
    assert [p["id"] for p in persons] == list(range(1001, 1001 + len(persons)))
    assert [a["id"] for a in auctions] == list(range(1001, 1001 + len(auctions)))


def test_values_within_nexmark_ranges():
    src = source({"events.num": "5000"})
    src.open(None)
    t = drain(src, max_rows=777).to_pylist()
    persons = [r["person"] for r in t if r["person"]]
    auctions = [r["auction"] for r in t if r["auction"]]
    bids = [r["bid"] for r in t if r["bid"]]
    for p in persons:
        assert re.fullmatch(r"\d{4} \d{4} \d{4} \d{4}", p["creditCard"])
        assert re.fullmatch(r"[a-z ]+@[a-z ]+\.com", p["emailAddress"])
        assert p["state"] in "AZ,CA,ID,OR,WA,WY".split(",") and len(p["name"].split(" ")) == 2
    for a in auctions:
        assert 10 <= a["category"] <= 14 and a["expires"] > a["dateTime"]
        assert 100 <= a["initialBid"] <= a["reserve"] and len(a["itemName"]) <= 19
        assert a["seller"] >= 1000
    max_auction = max(a["id"] for a in auctions)
    prices = [b["price"] for b in bids]
    assert all(100 <= x <= 100_000_000 for x in prices) and len(set(prices)) > len(prices) // 2
    assert all(1000 <= b["auction"] <= max_auction + 10 for b in bids)
    # a bid is padded to ~100 bytes: 32 bytes of numbers + an extra of 68 +- 20 %
    assert all(54 <= len(b["extra"]) < 82 for b in bids)
    channels = {b["channel"] for b in bids}
    assert {"Google", "Facebook", "Baidu", "Apple"} <= channels
    assert any(re.fullmatch(r"channel-\d+", c) for c in channels)
    hot = sum(b["channel"] in ("Google", "Facebook", "Baidu", "Apple") for b in bids) / len(bids)
    assert 0.45 < hot < 0.55  # HOT_CHANNELS_RATIO = 2
    for b in bids:
        assert b["url"].startswith("https://www.nexmark.com/")


def test_deterministic_across_batch_sizes_restores_and_parallelism():
    a = source()
    a.open(None)
    whole = drain(a, max_rows=2000)
    b = source()
    b.open(None)
    first = b.poll(333, 0).table
    restored = source()
    restored.open(b.position())
    assert pa.concat_tables([first, drain(restored, max_rows=97)]).equals(whole)
    # two tasks generate the events k % 2 == task: together the same events
    parts = []
    for task in (0, 1):
        s = source(task=task, tasks=2)
        s.open(None)
        parts.append(drain(s).to_pylist())
    assert [r for pair in zip(*parts, strict=True) for r in pair] == whole.to_pylist()
    other = source({"seed": "7"})
    other.open(None)
    assert not drain(other).equals(whole)


def test_unbounded_without_events_num_and_keep_alive():
    src = source({"events.num": "0"})
    assert not src.bounded
    src.open(None)
    assert src.poll(10, 0).num_rows == 10
    kept = source({"events.num": "5", "keep-alive": "true"})
    kept.open(None)
    assert kept.poll(10, 0).num_rows == 5 and kept.poll(10, 0) is None and not kept.finished()
    stopped = source({"events.num": "50", "stop-at": "20"})
    stopped.open(None)
    assert drain(stopped).num_rows == 20


@pytest.mark.parametrize(
    ("options", "words"),
    [
        ({"first-event.rate": "0"}, "'first-event.rate' must be at least 1"),
        ({"bid.avg-size": "100 parsecs"}, "not a memory size"),
        ({"events-num": "5"}, "unknown option 'events-num'"),
        ({"max-emit-speed": "yes"}, "'max-emit-speed' = 'yes' is not one of"),
    ],
)
def test_option_errors(options, words):
    with pytest.raises(ConfigError, match=re.escape(words)):
        source(options)


def test_other_columns_are_refused_naming_nexmark_ddl():
    table = TableDef("gen", [ColumnDef("event_type", SqlType.parse("INT"))], {"connector": "nexmark"})
    with pytest.raises(ConfigError, match="exactly the columns of Nexmark's DDL"):
        get_connector("nexmark").create_source(ConnectorContext(table, "job", {}))


def test_views_and_watermark_through_sql(tmp_path):
    """Nexmark's DDL (computed dateTime, WATERMARK) and views run; counts per kind as interleaved."""
    from benchmarks.nexmark import sql

    with StreamEnvironment(
        {"state.dir": str(tmp_path / "s"), "execution.checkpointing.dir": str(tmp_path / "c")}
    ) as env:
        env.execute_sql(sql.events_table(sql.nexmark_options(5000, rate=100)))
        for view in sql.views().split(";"):
            if view.strip():
                env.execute_sql(view)
        got = {}
        for name in ("person", "auction", "bid"):
            rows = [
                r
                for _, r in env.execute_sql(f"SELECT COUNT(*), MAX(`dateTime`) FROM {name}").collect(
                    timeout=60
                )
            ]
            got[name] = rows[-1][0]
        window = [
            r
            for _, r in env.execute_sql(
                "SELECT window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE bid, DESCRIPTOR(`dateTime`), "
                "INTERVAL '10' SECOND))"
                " GROUP BY window_start, window_end"
            ).collect(timeout=60)
        ]
    kinds = [(k + 2) % 50 for k in range(5000)]
    assert got == {
        "person": sum(r < 1 for r in kinds),
        "auction": sum(1 <= r < 4 for r in kinds),
        "bid": sum(r >= 4 for r in kinds),
    }
    # 100 events/s over 50 s: five 10 s windows, every bid in one
    assert len(window) == 5 and sum(n for _, n in window) == got["bid"]
    with pytest.raises(SqlError):  # sanity: the views are real (a misspelt column is refused)
        with StreamEnvironment({"state.dir": str(tmp_path / "s2")}) as env:
            env.execute_sql(sql.events_table(sql.nexmark_options(10)))
            env.execute_sql("SELECT bid.nope FROM nexmark")
