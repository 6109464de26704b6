"""The ``json`` format on values nested past Jackson's limit, read and unread, as Flink 2.3.

Session 32 found a 5,000-deep value in a STRING column the query does not read a row through the
narrowed decoder (Arrow's reader ignores the field) but a bad record through the full one (Python's
recursion limit, which is not Jackson's either: a record 1000 deep, which Flink reads, failed too).
Flink's answers (``scripts/flink_json_nesting.py``, filesystem source; the Kafka source's are the
compat cases ``kafka_json_deep_nesting_*``): a record is read up to depth 1000 (its object is
depth 1); past it the record is bad whether or not the deep field is read; with
``'json.ignore-parse-errors'`` it is dropped, except that a read STRING whose converter meets the
limit is NULL and the row kept when the rest of the record does not go past the limit again.
"""

from __future__ import annotations

import pytest
from streamsql.connectors.formats.json import JsonDecoder

from streamsql.core.errors import BadRecordError
from streamsql.core.types import Field, Schema, SqlType
from streamsql.environment import StreamEnvironment

#: What scripts/flink_json_nesting.py printed (Flink 2.3, session 33): k nested arrays in ``s``.
FLINK = {
    # (k, query, ignore): rows, or None for a failed job
    (998, "unread", False): [[1]], (998, "read", False): [[1, 1996]],
    (999, "unread", False): [[1]], (999, "read", False): [[1, 1998]],
    (1000, "unread", False): None, (1000, "read", False): None,
    (5000, "unread", False): None, (5000, "read", False): None,
    ("all", "unread", True): [[0], [9], [998], [999]],
    ("all", "read", True): [[0, 1], [9, 1], [998, 1996], [999, 1998], [1000, None]],
}
DEPTHS = (998, 999, 1000, 5000)
QUERIES = {"unread": "SELECT a FROM t", "read": "SELECT a, CHAR_LENGTH(s) FROM t"}


def record(a: int, k: int) -> str:
    """As the script's: record ``a`` whose ``s`` is ``k`` nested arrays (``k = 0``: ``"x"``)."""
    return '{"a":%d,"s":"x"}' % a if k == 0 else '{"a":%d,"s":%s}' % (a, "[" * k + "]" * k)


def _run(tmp_path, lines: list[str], query: str, ignore: bool):
    folder = tmp_path / f"in{len(list(tmp_path.iterdir()))}"
    folder.mkdir()
    (folder / "r.json").write_text("\n".join(lines) + "\n")
    env = StreamEnvironment({"execution.checkpointing.dir": str(tmp_path / "chk")})
    try:
        env.execute_sql(f"CREATE TABLE t (a INT, s STRING) WITH ('connector' = 'filesystem', 'path' = "
                        f"'{folder}', 'format' = 'json', "
                        f"'json.ignore-parse-errors' = '{str(ignore).lower()}')")
        try:
            return sorted([list(v) for _, v in env.execute_sql(query).collect()], key=lambda r: r[0])
        except BadRecordError as e:
            assert "nesting depth (1001) exceeds the maximum allowed (1000)" in str(e)
            return None
    finally:
        env.close()


@pytest.mark.parametrize("k", DEPTHS)
@pytest.mark.parametrize("query", QUERIES)
def test_one_record_as_flink(tmp_path, k, query):
    assert _run(tmp_path, [record(1, k)], QUERIES[query], False) == FLINK[(k, query, False)]


@pytest.mark.parametrize("query", QUERIES)
def test_ignore_parse_errors_as_flink(tmp_path, query):
    lines = [record(0, 0), *(record(k, k) for k in DEPTHS), record(9, 0)]
    assert _run(tmp_path, lines, QUERIES[query], True) == sorted(FLINK[("all", query, True)])


SCHEMA = Schema([Field("id", SqlType.parse("INT")), Field("s", SqlType.parse("STRING"))])


@pytest.mark.parametrize("narrowed", [False, True], ids=["full", "narrowed"])
@pytest.mark.parametrize("msgspec", [False, True], ids=["arrow", "msgspec"])
def test_fast_paths_leave_a_too_deep_record_to_the_slow_path(narrowed, msgspec):
    """Full and narrowed decoders, with or without the msgspec path, agree: in a batch of plain
    records one 5,000 deep in ``s`` is the bad record (it was a row when ``s`` was unread)."""
    d = JsonDecoder(SCHEMA, {})
    if narrowed:
        d.narrow(frozenset({("id",)}))
    if not msgspec:
        d._msg = None
    plain = [b'{"id":%d,"s":"x"}' % i for i in range(50)]
    deep = ('{"id":99,"s":%s}' % ("[" * 5000 + "]" * 5000)).encode()
    with pytest.raises(BadRecordError, match=r"offset 25: Document nesting depth \(1001\)"):
        d.decode([*plain[:25], deep, *plain[25:]], lambda i: f"offset {i}")
