"""The filesystem-sink cases Flink 2.3 answered (``scripts/flink_filesystem_sink.py``).

Each case: statements run in one session; ``{out}`` is the folder of the sink tables (a table
``t`` writes ``{out}/t``), ``{input}`` a JSON-lines file of :data:`INPUT_ROWS`.
"""

import os
import re
from pathlib import Path

_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def files_under(folder: str) -> dict[str, str]:
    """Every file under ``folder`` (a sink table's): relative path (a uuid as ``<uuid>``) -> its text."""
    out = {}
    for root, _dirs, files in os.walk(folder):
        for f in files:
            p = os.path.join(root, f)
            out[_UUID.sub("<uuid>", os.path.relpath(p, folder))] = Path(p).read_text()
    return dict(sorted(out.items()))


INPUT_ROWS = [
    {"a": 1, "b": "x", "k": "u", "d": 1},
    {"a": 2, "b": "y", "k": "u", "d": 2},
    {"a": 3, "b": "z", "k": None, "d": 1},
    {"a": 4, "b": "w", "k": "", "d": None},
    {"a": 5, "b": "v", "k": "a b/c=d", "d": 3},
    {"a": 6, "b": None, "k": "u", "d": 1},
    {"a": 7, "b": "s", "k": "  ", "d": 3},
]

_SRC = ("CREATE TABLE src (a INT, b STRING, k STRING, d INT) WITH ('connector' = 'filesystem', "
        "'path' = '{input}', 'format' = 'json')")


def _table(name: str, fmt: str, columns: str, partitioned: str = "", extra: str = "") -> str:
    part = f" PARTITIONED BY ({partitioned})" if partitioned else ""
    return (f"CREATE TABLE {name} ({columns}){part} WITH ('connector' = 'filesystem', "
            f"'path' = '{{out}}/{name}', 'format' = '{fmt}'{extra})")


#: a -> a partition value holding controls, DEL, non-ASCII or ASCII punctuation, for _SRC's rows 1-7
#: (a file's rows come in order: part files are counted by first rows)
_SPECIAL = " ".join(f"WHEN {a} THEN " + " || ".join(f"CHR({c})" for c in codes) for a, codes in enumerate((
    [0, 1, 0x1F, 0x7F, 0xE9, 0x2028], [0x20, *range(0x21, 0x28)], list(range(0x28, 0x30)),
    list(range(0x3A, 0x41)), [*range(0x5B, 0x61)], list(range(0x7B, 0x7F)), [0x24]), start=1))

CASES = {
    **{f"partitioned_{fmt}": [
        _SRC,
        _table("p", fmt, "a INT, b STRING, k STRING, d INT", "k, d",
               ", 'sink.partition-commit.policy.kind' = 'success-file'"),
        "INSERT INTO p SELECT * FROM src",
        "SELECT a, b, d FROM p WHERE k = 'u'",
        "SELECT k, a FROM p WHERE d = 3",
    ] for fmt in ("json", "csv")},
    **{f"plain_{fmt}": [
        _SRC,
        _table("n", fmt, "a INT, b STRING"),
        "INSERT INTO n SELECT a, b FROM src",
        "SELECT * FROM n",
    ] for fmt in ("json", "csv")},
    "default_name": [
        _SRC,
        _table("q", "json", "a INT, k STRING", "k", ", 'partition.default-name' = 'NONE'"),
        "INSERT INTO q SELECT a, k FROM src",
    ],
    "first_column_partition": [
        _SRC,
        _table("f", "csv", "d INT, a INT, b STRING", "d"),
        "INSERT INTO f SELECT d, a, b FROM src WHERE d IS NOT NULL",
        "SELECT * FROM f",
    ],
    "all_columns_partition": [
        _table("w", "json", "a INT, k STRING", "a, k"),
        "INSERT INTO w VALUES (1, 'a')",
    ],
    "metastore_refused": [
        _SRC,
        _table("m", "json", "a INT, k STRING", "k", ", 'sink.partition-commit.policy.kind' = 'metastore'"),
        "INSERT INTO m SELECT a, k FROM src",
    ],
    "unknown_partition_column": [
        _table("u", "json", "a INT, k STRING", "zz"),
    ],
    "odd_values": [  # escaped names, '%' and unicode unescaped, names starting with '.' or '_'
        _SRC,  # a file's rows come in order (VALUES' do not): part files are counted by first rows
        _table("o", "json", "a INT, k STRING", "k"),
        "INSERT INTO o SELECT a, CASE a WHEN 1 THEN '%' WHEN 2 THEN '50%' WHEN 3 THEN '%2F' "
        "WHEN 4 THEN 'ü中' WHEN 5 THEN '{{[^]}}' WHEN 6 THEN 'a\\b' ELSE 'x' || CHR(9) END FROM src",
        "SELECT k, a FROM o",
        "SELECT a FROM o WHERE k = '50%'",
        "SELECT a FROM o WHERE k IN ('%2F', '{{[^]}}')",
        _table("o2", "json", "a INT, k STRING", "k"),
        "INSERT INTO o2 SELECT a, CASE a WHEN 1 THEN '_u' WHEN 2 THEN '.h' WHEN 3 THEN '..' "
        "ELSE 'a:b*c?d#e' END FROM src WHERE a <= 4",
        "SELECT k, a FROM o2",
        "SELECT a FROM o2 WHERE k IN ('_u', '.h')",
    ],
    # every ASCII punctuation character, controls, DEL and non-ASCII in a partition value: the folder
    # names escapePathName writes ('$' among those it leaves), read back
    "special_characters": [
        _SRC,
        _table("sc", "json", "a INT, k STRING", "k"),
        "INSERT INTO sc SELECT a, CASE a " + _SPECIAL + " END FROM src",
        "SELECT k, a FROM sc",
        "SELECT a FROM sc WHERE k = '$'",
    ],
    "all_columns_partition_csv": [
        _table("wc", "csv", "a INT, k STRING", "a, k"),
        "INSERT INTO wc VALUES (1, 'a')",
    ],
    "typed_partitions": [
        _table("y", "json", "a INT, b BOOLEAN, t TINYINT, n BIGINT", "b, t, n"),
        "INSERT INTO y VALUES (1, TRUE, CAST(-5 AS TINYINT), 9000000000), "
        "(2, FALSE, CAST(0 AS TINYINT), -1)",
        "SELECT * FROM y",
        "SELECT a FROM y WHERE t = -005",
        "SELECT a FROM y WHERE n = -01",
    ],
    "char_partition": [
        _table("c", "json", "a INT, k CHAR(3)", "k"),
        "INSERT INTO c SELECT 1, CAST('ab' AS CHAR(3))",
        "SELECT a, k FROM c",
    ],
    "underscore_column": [
        _table("h", "json", "a INT, _k STRING", "_k"),
        "INSERT INTO h VALUES (1, 'v')",
        "SELECT * FROM h",
    ],
    "time_partitions": [  # the folder text of DATE/TIME/TIMESTAMP values (Flink's read order varies)
        _table("td", "json", "a INT, dt DATE, tm TIME, ts TIMESTAMP(3)", "dt, tm, ts"),
        "INSERT INTO td VALUES (1, DATE '2024-01-05', TIME '10:20:30', TIMESTAMP '2024-01-05 10:20:30.123'), "
        "(2, DATE '0999-12-31', TIME '00:00:00', TIMESTAMP '2024-01-05 00:00:00')",
    ],
    "number_partitions": [  # the folder text of DECIMAL/DOUBLE/FLOAT values; pruned reads
        _table("nd", "json", "a INT, dc DECIMAL(5, 2), db DOUBLE, fl FLOAT", "dc, db, fl"),
        "INSERT INTO nd VALUES (1, 1.5, 2.5E0, CAST(0.1 AS FLOAT)), "
        "(2, -0.05, 1E20, CAST(3 AS FLOAT)), (3, 0, 1E-5, CAST(1234567.0 AS FLOAT))",
        "SELECT a FROM nd WHERE dc = 1.50",
        "SELECT a FROM nd WHERE db = 1E20",
    ],
    **{f"{name}_partition": [  # one folder: read back whole, and pruned
        _table(f"x{name}", "json", f"a INT, p {type_}", "p"),
        f"INSERT INTO x{name} VALUES (1, {value})",
        f"SELECT * FROM x{name}",
        f"SELECT a FROM x{name} WHERE p = {value}",
    ] for name, type_, value in (
        ("date", "DATE", "DATE '2024-01-05'"), ("time", "TIME", "TIME '10:20:30'"),
        ("timestamp", "TIMESTAMP(3)", "TIMESTAMP '2024-01-05 10:20:30.123'"),
        ("decimal", "DECIMAL(5, 2)", "CAST(-0.05 AS DECIMAL(5, 2))"), ("double", "DOUBLE", "1E20"),
        ("float", "FLOAT", "CAST(0.25 AS FLOAT)"))},
    "ltz_partition": [
        _table("tl", "json", "a INT, t TIMESTAMP_LTZ(3)", "t"),
        "INSERT INTO tl VALUES (1, TO_TIMESTAMP_LTZ(0, 3))",
        "SELECT * FROM tl",
    ],
    "bytes_partition": [
        _table("tb", "json", "a INT, t BYTES", "t"),
        "INSERT INTO tb VALUES (1, X'0102')",
    ],
    "array_partition": [
        _table("ta", "json", "a INT, t ARRAY<INT>", "t"),
        "INSERT INTO ta VALUES (1, ARRAY[1, 2])",
    ],
}

#: Partition-time commit (``'sink.partition-commit.trigger' = 'partition-time'``): a minute's
#: partitions ``dt=.../hm=...`` as Nexmark q10 writes them.
_PT = ("'sink.partition-commit.trigger' = 'partition-time', "
       "'sink.partition-commit.policy.kind' = 'success-file'")
_PT_ROWS = ("(1, TIMESTAMP '2024-01-05 10:00:10'), (2, TIMESTAMP '2024-01-05 10:01:20'), "
            "(3, TIMESTAMP '2024-01-05 10:03:00'), (4, TIMESTAMP '2024-01-05 10:00:40')")
_PT_INSERT = ("INSERT INTO {table} SELECT a, DATE_FORMAT(ts, 'yyyy-MM-dd'), DATE_FORMAT(ts, 'HH:mm') "
              "FROM (VALUES " + _PT_ROWS + ") AS v(a, ts)")


def _pt_table(name: str, extra: str = "", pattern: str = "$dt $hm:00") -> str:
    """A partition-time table; ``extra`` options replace those of :data:`_PT` they name."""
    base = ", ".join(o for o in _PT.split(", ") if o.split(" = ")[0] not in extra)
    return _table(name, "json", "a INT, dt STRING, hm STRING", "dt, hm",
                  f", {base}, 'partition.time-extractor.timestamp-pattern' = '{pattern}'{extra}")


CASES.update({
    # the end of a bounded input commits every partition whatever the watermark (Flink's endInput)
    "partition_time_end": [
        _pt_table("pt", ", 'sink.partition-commit.delay' = '1 h'"),
        _PT_INSERT.format(table="pt"),
        "SELECT a, dt, hm FROM pt",
    ],
    # a pattern no time reads from is never read when only the end of input commits
    "partition_time_unread_pattern": [
        _pt_table("pu", pattern="$hm"),
        _PT_INSERT.format(table="pu"),
    ],
    "partition_time_formatter": [
        _table("pf", "json", "a INT, d STRING", "d", ", 'sink.partition-commit.trigger' = 'partition-time', "
               "'sink.partition-commit.policy.kind' = 'success-file', "
               "'partition.time-extractor.timestamp-formatter' = 'yyyyMMdd', "
               "'sink.partition-commit.success-file.name' = '_DONE'"),
        "INSERT INTO pf VALUES (1, '20240105'), (2, '20240106')",
    ],
    **{f"commit_refused_{name}": [
        _pt_table(f"r{name}", extra),
        _PT_INSERT.format(table=f"r{name}"),
    ] for name, extra in (
        ("trigger", ", 'sink.partition-commit.trigger' = 'custom'"),
        ("extractor_custom", ", 'partition.time-extractor.kind' = 'custom'"),
        ("extractor_kind", ", 'partition.time-extractor.kind' = 'other'"),
        ("zone", ", 'sink.partition-commit.watermark-time-zone' = 'UTC+08:00'"),
        ("policy_custom", ", 'sink.partition-commit.policy.kind' = 'custom'"),
    )},
})

#: Unbounded partition-time cases (``scripts/flink_filesystem_sink.py --stream``): the rows of
#: :data:`STREAM_ROWS` in a one-partition Kafka topic ``{topic}`` read from the start, unbounded,
#: with a watermark on ``ts`` (no delay), written by :data:`STREAM_INSERT` into a partition-time
#: table with the case's extra options; checkpoints every 300 ms. The record is what the sink's
#: folder holds once it no longer changes (the watermark stays at the last row's): committed part
#: files with their text, ``_SUCCESS`` files, hidden in-progress files by name — or the job's failure.
STREAM_ROWS = [{"a": i, "ts": ts} for i, ts in enumerate(
    ["2024-01-05 10:00:10", "2024-01-05 10:01:20", "2024-01-05 10:00:40", "2024-01-05 10:02:05",
     "2024-01-05 10:03:00", "2024-01-05 10:05:30"], 1)]
STREAM_SOURCE = ("CREATE TABLE src (a INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH ('connector' = "
                 "'kafka', 'topic' = '{topic}', 'properties.bootstrap.servers' = '{bootstrap}', "
                 "'properties.group.id' = '{topic}', 'scan.startup.mode' = 'earliest-offset', "
                 "'format' = 'json')")
STREAM_INSERT = ("INSERT INTO s SELECT a, DATE_FORMAT(ts, 'yyyy-MM-dd'), DATE_FORMAT(ts, 'HH:mm') FROM src")
STREAM_CASES = {
    "stream_delay_0": "",
    "stream_delay_1min": ", 'sink.partition-commit.delay' = '1 min'",
    "stream_delay_3min": ", 'sink.partition-commit.delay' = '3 min'",
    "stream_zone_new_york": ", 'sink.partition-commit.watermark-time-zone' = 'America/New_York'",
    "stream_zone_gmt_minus": ", 'sink.partition-commit.watermark-time-zone' = 'GMT-00:02'",
    "stream_bad_pattern": ("$dt $hm", ""),
    "stream_formatter": ("$dt $hm", ", 'partition.time-extractor.timestamp-formatter' = 'yyyy-MM-dd HH:mm', "
                         "'sink.partition-commit.delay' = '2 min'"),
}


def stream_statements(name: str) -> list[str]:
    """The statements of stream case ``name`` (``{topic}``, ``{bootstrap}``, ``{out}`` to fill in)."""
    extra = STREAM_CASES[name]  # extra options, or (pattern, extra options)
    table = _pt_table("s", extra[1], extra[0]) if isinstance(extra, tuple) else _pt_table("s", extra)
    # a pattern that does not read fails the job at its first checkpoint: without restarts, it ends
    sets = ["SET 'restart-strategy.type' = 'none'"] if name in FAILING else []
    return [*sets, STREAM_SOURCE, table.replace("{{out}}", "{out}"), STREAM_INSERT]


#: The stream cases whose job fails (it runs without restarts).
FAILING = ("stream_bad_pattern",)


def visible_and_hidden(folder: str) -> dict[str, str | None]:
    """:func:`files_under` with hidden in-progress files' text left out (None): only their names."""
    return {k: (None if os.path.basename(k).startswith(".") else v) for k, v in files_under(folder).items()}
