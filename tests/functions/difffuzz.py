"""Differential fuzzing of scalar expressions and aggregates: StreamSQL against Apache Flink 2.3.

A seeded random generator writes well-typed (and, on purpose, some ill-typed) Flink SQL
expressions over one small fixed table, :data:`TABLE`: a column of every common type with NULLs,
negatives, zero, extremes, empty strings and non-ASCII text. Flink evaluates them
(``scripts/flink_difffuzz.py``: many expressions as the columns of one print-sink job, each
cell recorded as the text Flink printed) and StreamSQL must print the same text
(``tests/functions/test_difffuzz.py``); an expression Flink refuses at validation must be refused
here, one that fails Flink's job must fail ours.

The module is standard library only: the Flink venv imports it by path, as the test does.

Commands (docs/fuzzing.md)::

    # a new campaign: Flink's answers for 2,000 fresh expressions of seed 7 (about 5 min)
    flock /tmp/flink.lock /work/flinkvenv/bin/python scripts/flink_difffuzz.py --seed 7 --count 2000 \\
        --out /tmp/difffuzz-7.json
    # StreamSQL against them: prints every difference and the tally
    STREAMSQL_DIFFFUZZ=/tmp/difffuzz-7.json python -m pytest -q -s tests/functions/test_difffuzz.py

The default suite replays ``tests/functions/difffuzz_expected.json`` (regenerated with
``--fixture``).
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

# -- the input table ---------------------------------------------------------------------------------

COLUMNS = [("id", "INT"), ("i", "INT"), ("j", "INT"), ("b", "BIGINT"), ("d", "DOUBLE"),
           ("m", "DECIMAL(10, 2)"), ("s", "STRING"), ("u", "STRING"), ("f", "BOOLEAN"), ("dt", "DATE"),
           ("ts", "TIMESTAMP(3)")]

# One row per tuple, in COLUMNS' order (DECIMAL as text: written as a JSON number unchanged).
ROWS = [
    (1, 1, 2, 10, 1.5, "12.34", "abc", "b", True, "2024-02-29", "2024-02-29 13:45:30.123"),
    (2, -7, 3, -9000000000, -0.25, "-0.50", "", "", False, "1970-01-01", "1970-01-01 00:00:00.000"),
    (3, None, None, None, None, None, None, None, None, None, None),
    (4, 0, 0, 0, 0.0, "0.00", " Hello World ", " ", True, "1999-12-31", "1999-12-31 23:59:59.999"),
    (5, 2147483647, -2147483648, 9223372036854775807, 1e300, "99999999.99", "日本語😀", "語", False,
     "2000-03-01", "2000-03-01 00:00:00.001"),
    (6, 42, -1, -1, -3.75, "-12345678.90", "42", "4", None, "1969-07-20", "1969-07-20 20:17:40.500"),
    (7, 13, 5, 123456789012, 1e-5, "0.01", "straße İ", "ß", True, "2023-12-31", "2023-12-31 23:59:59.000"),
    (8, -1, None, None, 123456.789, "1.00", "a,b;c%_\\", ",", None, "2024-01-01", "2024-01-01 12:00:00.000"),
    (9, 100, 7, 86400000, -0.0, "-1.05", "-3.5", "2024-02-29", True, "1900-01-01", "2038-01-19 03:14:07.000"),
    (10, -100, 2, 1700000000, 2.5, "2.50", "1e3", " 12 ", False, "2100-12-31", "1900-01-01 00:00:00.000"),
]

TABLE_NAME = "src"


def data_lines() -> str:
    """The table's rows as JSON lines (Flink's json format: SQL timestamps, DECIMAL as numbers)."""
    out = []
    for row in ROWS:
        cells = []
        for (name, typ), v in zip(COLUMNS, row):
            text = json.dumps(v, ensure_ascii=False) if not (typ.startswith("DECIMAL") and v) else v
            cells.append(f"{json.dumps(name)}: {text}")
        out.append("{" + ", ".join(cells) + "}\n")
    return "".join(out)


def source_ddl(path: str) -> str:
    """CREATE TABLE of the input table over the JSON-lines file ``path``."""
    cols = ", ".join(f"{n} {t}" for n, t in COLUMNS)
    return (f"CREATE TABLE {TABLE_NAME} ({cols}) WITH ('connector' = 'filesystem', 'path' = '{path}', "
            "'format' = 'json')")


# -- printing ----------------------------------------------------------------------------------------

SENTINEL = "~|~"  # a literal column printed between two expressions: cells split without ambiguity


def sink_type(flink_type: str) -> str:
    """The sink column type for an expression of Flink's type (nullable; no length bound)."""
    t = flink_type.replace(" NOT NULL", "")
    t = re.sub(r"\b(VAR)?CHAR\(\d+\)", "STRING", t)
    t = re.sub(r"\b(VAR)?BINARY\(\d+\)", "BYTES", t)
    return t.replace(" *ROWTIME*", "").replace(" *PROCTIME*", "")


def insert_script(sink: str, exprs: list[str], types: list[str], key: str = "id",
                  group_by: str | None = None) -> list[str]:
    """The statements of one job: the print sink of ``exprs`` and the INSERT.

    Each expression is followed by the sentinel literal; the first column is ``key``. ``types``
    are Flink's result types of ``exprs``.
    """
    cols = ["k INT"]
    items = [key]
    for n, (e, t) in enumerate(zip(exprs, types)):
        cols += [f"x{n} STRING", f"c{n} {sink_type(t)}"]
        items += [f"'{SENTINEL}'", e]
    ddl = f"CREATE TABLE {sink} ({', '.join(cols)}) WITH ('connector' = 'print')"
    tail = f" GROUP BY {group_by}" if group_by else ""
    return [ddl, f"INSERT INTO {sink} SELECT {', '.join(items)} FROM {TABLE_NAME}{tail}"]


_ROW = re.compile(r"^(?:\S+>\s*)?([+-][IUD])\[(.*)\]\s*$")


def parse_lines(lines: list[str], width: int) -> dict[str, list[str]]:
    """The final table of a job's print lines: key text → the printed cells of the expressions.

    Lines are folded as a changelog (+I/+U add, -U/-D remove the key's row). ``width`` is the
    number of expressions; a line that does not split into that many cells raises ValueError.
    """
    table: dict[str, list[str]] = {}
    sep = f", {SENTINEL}, "
    for line in lines:
        m = _ROW.match(line.strip())
        if not m:
            continue
        kind, body = m.groups()
        parts = body.split(sep)
        if len(parts) != width + 1:
            msg = f"a printed row does not split into {width} expressions: {line[:300]}"
            raise ValueError(msg)
        key, cells = parts[0], parts[1:]
        if kind in ("+I", "+U"):
            table[key] = cells
        else:
            table.pop(key, None)
    return table


# -- the generator -----------------------------------------------------------------------------------

NUMERIC = ("INT", "BIGINT", "DECIMAL", "DOUBLE")
KINDS = (*NUMERIC, "STRING", "BOOLEAN", "DATE", "TIMESTAMP")
COLUMN_KINDS = {"INT": ["i", "j", "id"], "BIGINT": ["b"], "DOUBLE": ["d"], "DECIMAL": ["m"],
                "STRING": ["s", "u"], "BOOLEAN": ["f"], "DATE": ["dt"], "TIMESTAMP": ["ts"]}
LITERALS = {
    "INT": ["0", "1", "-1", "2", "3", "7", "-7", "10", "100", "2147483647", "-2147483647",
            "CAST(NULL AS INT)", "CAST(5 AS TINYINT)", "CAST(-3 AS SMALLINT)", "CAST(127 AS TINYINT)",
            "CAST(32767 AS SMALLINT)"],
    "BIGINT": ["3000000000", "-5000000000", "9223372036854775807", "CAST(2 AS BIGINT)", "CAST(-1 AS BIGINT)",
               "CAST(NULL AS BIGINT)", "CAST(0 AS BIGINT)"],
    "DOUBLE": ["1.5E0", "-2.5E0", "0.1E0", "1E308", "3.0E-5", "CAST(2 AS DOUBLE)", "CAST(NULL AS DOUBLE)",
               "CAST(0.5 AS FLOAT)", "CAST(-0.0 AS DOUBLE)", "CAST(100 AS DOUBLE)", "1E16"],
    "DECIMAL": ["1.25", "-0.5", "0.00", "123.456", "99999999.99", "0.1", "CAST(NULL AS DECIMAL(10, 2))",
                "CAST(2.5 AS DECIMAL(3, 1))", "CAST(1 AS DECIMAL(38, 18))", "CAST(-7.125 AS DECIMAL(6, 3))",
                "12345678901234567890.5"],
    "STRING": ["'abc'", "''", "' a b '", "'héllo'", "'日本語'", "'😀x'", "'42'", "' -17 '", "'-3.5'", "'1e3'",
               "'true'", "'FALSE'", "'2024-02-29'", "'2024-02-29 13:45:30.123'", "'A,B;c'", "'%a_'",
               "CAST(NULL AS STRING)", "'x'", "'b'", "'ß'", "'  '", "'0.1'", "'9999999999'", "'12:30:00'"],
    "BOOLEAN": ["TRUE", "FALSE", "CAST(NULL AS BOOLEAN)"],
    "DATE": ["DATE '2024-02-29'", "DATE '1970-01-01'", "DATE '1999-12-31'", "DATE '2024-03-31'",
             "CAST(NULL AS DATE)", "DATE '0001-01-01'"],
    "TIMESTAMP": ["TIMESTAMP '2024-02-29 13:45:30.123'", "TIMESTAMP '1969-12-31 23:59:59.999'",
                  "TIMESTAMP '2024-03-31 00:00:00'", "CAST(NULL AS TIMESTAMP(3))",
                  "TIMESTAMP '2000-01-01 12:00:00.5'"],
}
CAST_TARGETS = {"INT": ["INT", "TINYINT", "SMALLINT"], "BIGINT": ["BIGINT"], "DOUBLE": ["DOUBLE", "FLOAT"],
                "DECIMAL": ["DECIMAL(10, 2)", "DECIMAL(5, 1)", "DECIMAL(20, 4)", "DECIMAL(3, 0)",
                            "DECIMAL(38, 10)"],
                "STRING": ["STRING", "VARCHAR(3)", "CHAR(4)"], "BOOLEAN": ["BOOLEAN"], "DATE": ["DATE"],
                "TIMESTAMP": ["TIMESTAMP(3)", "TIMESTAMP(0)", "TIMESTAMP(6)"]}
UNITS = ["YEAR", "QUARTER", "MONTH", "WEEK", "DAY", "HOUR", "MINUTE", "SECOND"]
FORMATS = ["'yyyy-MM-dd'", "'yyyy-MM-dd HH:mm:ss'", "'dd/MM/yy'", "'HH:mm:ss.SSS'", "'yyyyMMdd'",
           "'EEE MMM d'", "'D w'", "'yyyy-MM-dd''T''HH:mm'"]
PATTERNS = ["'[a-z]+'", "'(\\d+)'", "'^a'", "'b|c'", "'.'", "'\\s+'", "'([a-z])([a-z])'", "'x*'"]
LIKE = ["'a%'", "'%b%'", "'_'", "''", "'%'", "'%\\_%'", "'4_'", "'%c'"]
INTERVALS = ["INTERVAL '1' DAY", "INTERVAL '2' HOUR", "INTERVAL '-3' MONTH", "INTERVAL '1' YEAR",
             "INTERVAL '90' MINUTE", "INTERVAL '1-2' YEAR TO MONTH", "INTERVAL '10 10:30:00' DAY TO SECOND",
             "INTERVAL '0.5' SECOND"]

# Templates: (result kind, text with {0}, {1}, ... for generated arguments, argument kinds).
# An argument kind "NUM" is any numeric kind; "ANY" any kind; "=0" the kind of argument 0.
# Literal choices are spliced in with {L:NAME} (a list of this module: UNITS, FORMATS, ...).
T = [
    # arithmetic (both operand kinds chosen in _binary)
    *[(k, f"{{0}} {op} {{1}}", ["NUM", "NUM"]) for k in NUMERIC for op in "+-*"],
    *[(k, "{0} / {1}", ["NUM", "NUM"]) for k in NUMERIC],
    *[(k, "{0} / {L:NONZERO}", [k]) for k in NUMERIC for _ in range(3)],
    ("INT", "{0} % {L:NONZERO}", ["INT"]), ("BIGINT", "{0} % {1}", ["BIGINT", "INT"]),
    ("DECIMAL", "{0} % {L:NONZERO}", ["DECIMAL"]), ("DOUBLE", "{0} % {1}", ["DOUBLE", "NUM"]),
    ("INT", "MOD({0}, {L:NONZERO})", ["INT"]), ("BIGINT", "MOD({0}, {1})", ["BIGINT", "NUM"]),
    ("DECIMAL", "MOD({0}, {L:NONZERO})", ["DECIMAL"]),
    *[(k, "-{0}", [k]) for k in NUMERIC], *[(k, "ABS({0})", [k]) for k in NUMERIC],
    ("DOUBLE", "POWER({0}, {1})", ["NUM", "NUM"]), ("DOUBLE", "SQRT({0})", ["NUM"]),
    ("DOUBLE", "LN({0})", ["NUM"]), ("DOUBLE", "LOG10({0})", ["NUM"]), ("DOUBLE", "LOG2({0})", ["NUM"]),
    ("DOUBLE", "LOG({0}, {1})", ["NUM", "NUM"]), ("DOUBLE", "LOG({0})", ["NUM"]),
    ("DOUBLE", "EXP({0})", ["NUM"]),
    *[(k, "ROUND({0})", [k]) for k in NUMERIC], *[(k, "ROUND({0}, {L:DIGITS})", [k]) for k in NUMERIC],
    *[(k, "TRUNCATE({0}, {L:DIGITS})", [k]) for k in NUMERIC], *[(k, "TRUNCATE({0})", [k]) for k in NUMERIC],
    *[(k, "FLOOR({0})", [k]) for k in NUMERIC], *[(k, "CEIL({0})", [k]) for k in NUMERIC],
    *[(k, "SIGN({0})", [k]) for k in NUMERIC],
    ("DOUBLE", "SIN({0})", ["NUM"]), ("DOUBLE", "COS({0})", ["NUM"]), ("DOUBLE", "TAN({0})", ["NUM"]),
    ("DOUBLE", "ASIN({0})", ["NUM"]), ("DOUBLE", "ACOS({0})", ["NUM"]), ("DOUBLE", "ATAN({0})", ["NUM"]),
    ("DOUBLE", "ATAN2({0}, {1})", ["NUM", "NUM"]), ("DOUBLE", "COT({0})", ["NUM"]),
    ("DOUBLE", "SINH({0})", ["NUM"]), ("DOUBLE", "COSH({0})", ["NUM"]), ("DOUBLE", "TANH({0})", ["NUM"]),
    ("DOUBLE", "DEGREES({0})", ["NUM"]), ("DOUBLE", "RADIANS({0})", ["NUM"]),
    ("DOUBLE", "PI()", []), ("DOUBLE", "E()", []),
    # string → number
    ("INT", "CHAR_LENGTH({0})", ["STRING"]), ("INT", "POSITION({0} IN {1})", ["STRING", "STRING"]),
    ("INT", "LOCATE({0}, {1})", ["STRING", "STRING"]),
    ("INT", "LOCATE({0}, {1}, {2})", ["STRING", "STRING", "INT"]),
    ("INT", "ASCII({0})", ["STRING"]), ("INT", "INSTR({0}, {1})", ["STRING", "STRING"]),
    ("BIGINT", "UNIX_TIMESTAMP({0})", ["STRING"]), ("BIGINT", "UNIX_TIMESTAMP({0}, {L:FORMATS})", ["STRING"]),
    # strings
    ("STRING", "{0} || {1}", ["STRING", "STRING"]), ("STRING", "CONCAT({0}, {1})", ["STRING", "STRING"]),
    ("STRING", "CONCAT({0}, {1}, {2})", ["STRING", "STRING", "STRING"]),
    ("STRING", "CONCAT_WS({0}, {1}, {2})", ["STRING", "STRING", "STRING"]),
    ("STRING", "UPPER({0})", ["STRING"]), ("STRING", "LOWER({0})", ["STRING"]),
    ("STRING", "TRIM({0})", ["STRING"]), ("STRING", "LTRIM({0})", ["STRING"]),
    ("STRING", "RTRIM({0})", ["STRING"]),
    ("STRING", "TRIM(BOTH {0} FROM {1})", ["STRING", "STRING"]),
    ("STRING", "TRIM(LEADING {0} FROM {1})", ["STRING", "STRING"]),
    ("STRING", "TRIM(TRAILING {0} FROM {1})", ["STRING", "STRING"]),
    ("STRING", "BTRIM({0}, {1})", ["STRING", "STRING"]),
    ("STRING", "SUBSTRING({0}, {1})", ["STRING", "INT"]),
    ("STRING", "SUBSTRING({0}, {1}, {2})", ["STRING", "INT", "INT"]),
    ("STRING", "SUBSTRING({0} FROM {1} FOR {2})", ["STRING", "INT", "INT"]),
    ("STRING", "SUBSTR({0}, {1}, {2})", ["STRING", "INT", "INT"]),
    ("STRING", "REPLACE({0}, {1}, {2})", ["STRING", "STRING", "STRING"]),
    ("STRING", "LPAD({0}, {1}, {2})", ["STRING", "INT", "STRING"]),
    ("STRING", "RPAD({0}, {1}, {2})", ["STRING", "INT", "STRING"]),
    ("STRING", "REPEAT({0}, {1})", ["STRING", "INT"]), ("STRING", "REVERSE({0})", ["STRING"]),
    ("STRING", "LEFT({0}, {1})", ["STRING", "INT"]), ("STRING", "RIGHT({0}, {1})", ["STRING", "INT"]),
    ("STRING", "INITCAP({0})", ["STRING"]),
    ("STRING", "REGEXP_REPLACE({0}, {L:PATTERNS}, {1})", ["STRING", "STRING"]),
    ("STRING", "REGEXP_EXTRACT({0}, {L:PATTERNS})", ["STRING"]),
    ("STRING", "REGEXP_EXTRACT({0}, '([a-z])([a-z]*)', 2)", ["STRING"]),
    ("STRING", "SPLIT_INDEX({0}, {1}, {2})", ["STRING", "STRING", "INT"]),
    ("STRING", "CHR({0})", ["INT"]),
    ("STRING", "OVERLAY({0} PLACING {1} FROM {2})", ["STRING", "STRING", "INT"]),
    ("STRING", "OVERLAY({0} PLACING {1} FROM {2} FOR {3})", ["STRING", "STRING", "INT", "INT"]),
    ("STRING", "TRANSLATE({0}, {1}, {2})", ["STRING", "STRING", "STRING"]),
    ("STRING", "MD5({0})", ["STRING"]), ("STRING", "SHA256({0})", ["STRING"]),
    ("STRING", "TO_BASE64({0})", ["STRING"]),
    ("STRING", "HEX({0})", ["STRING"]), ("STRING", "HEX({0})", ["BIGINT"]),
    ("STRING", "BIN({0})", ["BIGINT"]),
    ("STRING", "ELT({0}, {1}, {2})", ["INT", "STRING", "STRING"]),
    ("STRING", "DATE_FORMAT({0}, {L:FORMATS})", ["TIMESTAMP"]),
    ("STRING", "DATE_FORMAT({0}, {L:FORMATS})", ["STRING"]),
    ("STRING", "FROM_UNIXTIME({0})", ["BIGINT"]), ("STRING", "FROM_UNIXTIME({0}, {L:FORMATS})", ["INT"]),
    ("STRING", "URL_ENCODE({0})", ["STRING"]),
    # conditionals (the branches' kind is the result's)
    *[(k, "CASE WHEN {0} THEN {1} ELSE {2} END", ["BOOLEAN", k, k]) for k in KINDS],
    *[(k, "CASE WHEN {0} THEN {1} END", ["BOOLEAN", k]) for k in KINDS],
    *[(k, "CASE {0} WHEN {1} THEN {2} WHEN {3} THEN {4} ELSE {5} END", ["INT", "INT", k, "INT", k, k])
      for k in KINDS],
    *[(k, "COALESCE({0}, {1})", [k, k]) for k in KINDS], *[(k, "NULLIF({0}, {1})", [k, k]) for k in KINDS],
    *[(k, "IF({0}, {1}, {2})", ["BOOLEAN", k, k]) for k in KINDS],
    *[(k, "IFNULL({0}, {1})", [k, k]) for k in KINDS],
    *[(k, "GREATEST({0}, {1})", [k, k]) for k in KINDS if k != "BOOLEAN"],
    *[(k, "LEAST({0}, {1}, {2})", [k, k, k]) for k in KINDS if k != "BOOLEAN"],
    # booleans
    *[("BOOLEAN", f"{{0}} {op} {{1}}", ["ANY", "=0"]) for op in ("=", "<>", "<", "<=", ">", ">=")],
    ("BOOLEAN", "{0} AND {1}", ["BOOLEAN", "BOOLEAN"]), ("BOOLEAN", "{0} OR {1}", ["BOOLEAN", "BOOLEAN"]),
    ("BOOLEAN", "NOT {0}", ["BOOLEAN"]), ("BOOLEAN", "{0} IS NULL", ["ANY"]),
    ("BOOLEAN", "{0} IS NOT NULL", ["ANY"]),
    ("BOOLEAN", "{0} IS TRUE", ["BOOLEAN"]), ("BOOLEAN", "{0} IS NOT FALSE", ["BOOLEAN"]),
    ("BOOLEAN", "{0} IS UNKNOWN", ["BOOLEAN"]),
    ("BOOLEAN", "{0} BETWEEN {1} AND {2}", ["ANY", "=0", "=0"]),
    ("BOOLEAN", "{0} NOT BETWEEN {1} AND {2}", ["ANY", "=0", "=0"]),
    ("BOOLEAN", "{0} BETWEEN SYMMETRIC {1} AND {2}", ["NUM", "NUM", "NUM"]),
    ("BOOLEAN", "{0} IN ({1}, {2})", ["ANY", "=0", "=0"]),
    ("BOOLEAN", "{0} NOT IN ({1}, {2}, {3})", ["ANY", "=0", "=0", "=0"]),
    ("BOOLEAN", "{0} LIKE {L:LIKE}", ["STRING"]), ("BOOLEAN", "{0} NOT LIKE {1}", ["STRING", "STRING"]),
    ("BOOLEAN", "{0} IS DISTINCT FROM {1}", ["ANY", "=0"]),
    ("BOOLEAN", "{0} IS NOT DISTINCT FROM {1}", ["ANY", "=0"]),
    ("BOOLEAN", "REGEXP({0}, {L:PATTERNS})", ["STRING"]), ("BOOLEAN", "IS_DIGIT({0})", ["STRING"]),
    ("BOOLEAN", "IS_ALPHA({0})", ["STRING"]), ("BOOLEAN", "IS_DECIMAL({0})", ["STRING"]),
    ("BOOLEAN", "STARTSWITH({0}, {1})", ["STRING", "STRING"]),
    ("BOOLEAN", "ENDSWITH({0}, {1})", ["STRING", "STRING"]),
    # date and time
    ("BIGINT", "EXTRACT({L:UNITS} FROM {0})", ["TIMESTAMP"]),
    ("BIGINT", "EXTRACT({L:UNITS} FROM {0})", ["DATE"]),
    ("INT", "YEAR({0})", ["DATE"]), ("INT", "MONTH({0})", ["TIMESTAMP"]), ("INT", "QUARTER({0})", ["DATE"]),
    ("INT", "WEEK({0})", ["DATE"]), ("INT", "DAYOFYEAR({0})", ["TIMESTAMP"]),
    ("INT", "DAYOFMONTH({0})", ["DATE"]),
    ("INT", "DAYOFWEEK({0})", ["DATE"]), ("INT", "HOUR({0})", ["TIMESTAMP"]),
    ("INT", "MINUTE({0})", ["TIMESTAMP"]),
    ("INT", "SECOND({0})", ["TIMESTAMP"]),
    ("INT", "TIMESTAMPDIFF({L:UNITS}, {0}, {1})", ["TIMESTAMP", "TIMESTAMP"]),
    ("INT", "TIMESTAMPDIFF({L:UNITS}, {0}, {1})", ["DATE", "DATE"]),
    ("TIMESTAMP", "TIMESTAMPADD({L:UNITS}, {L:SMALL}, {0})", ["TIMESTAMP"]),
    ("DATE", "TIMESTAMPADD({L:UNITS}, {L:SMALL}, {0})", ["DATE"]),
    ("TIMESTAMP", "{0} + {L:INTERVALS}", ["TIMESTAMP"]), ("TIMESTAMP", "{0} - {L:INTERVALS}", ["TIMESTAMP"]),
    ("DATE", "{0} + {L:INTERVALS}", ["DATE"]), ("DATE", "{0} - INTERVAL '1' DAY", ["DATE"]),
    ("TIMESTAMP", "FLOOR({0} TO {L:UNITS})", ["TIMESTAMP"]),
    ("TIMESTAMP", "CEIL({0} TO {L:UNITS})", ["TIMESTAMP"]),
    ("DATE", "FLOOR({0} TO {L:UNITS})", ["DATE"]), ("DATE", "CEIL({0} TO {L:UNITS})", ["DATE"]),
    ("DATE", "TO_DATE({0})", ["STRING"]), ("DATE", "TO_DATE({0}, {L:FORMATS})", ["STRING"]),
    ("TIMESTAMP", "TO_TIMESTAMP({0})", ["STRING"]),
    ("TIMESTAMP", "TO_TIMESTAMP({0}, {L:FORMATS})", ["STRING"]),
    ("DATE", "CAST({0} AS DATE)", ["TIMESTAMP"]), ("TIMESTAMP", "CAST({0} AS TIMESTAMP(3))", ["DATE"]),
    ("DATE", "DATE '2024-01-31' + {L:INTERVALS}", []),
]
BY_KIND: dict[str, list[tuple[str, str, list[str]]]] = {k: [t for t in T if t[0] == k] for k in KINDS}
NONZERO = ["2", "-3", "7", "id", "CAST(4 AS BIGINT)", "1.5", "-0.25", "CAST(3 AS DOUBLE)", "(id - 11)"]
DIGITS = ["0", "1", "2", "-1", "-2", "5"]
SMALL = ["0", "1", "-1", "3", "12", "-40", "id", "(id * 7)"]
LISTS = {"NONZERO": NONZERO, "DIGITS": DIGITS, "SMALL": SMALL, "UNITS": UNITS, "FORMATS": FORMATS,
    "PATTERNS": PATTERNS, "LIKE": LIKE, "INTERVALS": INTERVALS}
_SLOT = re.compile(r"\{L:(\w+)\}")

# -- version 2: the widened generator (campaign 2, 2026-12-02) ----------------------------------------
# Version 1 (the lists above, unchanged) generates the committed fixture's seed-1 expressions; a
# version-2 generator adds to every list, so the same seed gives other expressions. Added: a
# TIMESTAMP_LTZ kind ("LTZ"; the table has no such column: its "columns" are conversions of ts and
# b), date/time arithmetic with intervals times a number, more units and patterns, DECIMAL of other
# precisions and CASTs between numeric types, unicode and NULL-heavy strings, CASE/COALESCE/IF and
# comparisons across kinds, and aggregates with DISTINCT, FILTER and around expressions.

KINDS2 = (*KINDS, "LTZ")
COLUMN_KINDS2 = {**COLUMN_KINDS, "LTZ": ["CAST(ts AS TIMESTAMP_LTZ(3))", "TO_TIMESTAMP_LTZ(b, 3)",
                                         "TO_TIMESTAMP_LTZ(id * 100000000, 3)"]}
LITERALS2 = {
    **LITERALS,
    "INT": [*LITERALS["INT"], "CAST(-128 AS TINYINT)", "CAST(NULL AS SMALLINT)", "-2147483648"],
    "BIGINT": [*LITERALS["BIGINT"], "CAST(-9223372036854775807 AS BIGINT)", "86400000"],
    "DOUBLE": [*LITERALS["DOUBLE"], "CAST(1.1 AS FLOAT)", "CAST(-3.4E38 AS FLOAT)", "1.0E-7",
               "123456789.125E0",
               "CAST(1E20 AS DOUBLE)", "CAST(0.1 AS DOUBLE) + CAST(0.2 AS DOUBLE)"],
    "DECIMAL": [*LITERALS["DECIMAL"], "CAST(0.001 AS DECIMAL(38, 18))", "CAST(-99.99 AS DECIMAL(4, 2))",
                "CAST(12345678901234567.89 AS DECIMAL(19, 2))", "0.000001", "CAST(9 AS DECIMAL(1, 0))",
                "CAST(-0.005 AS DECIMAL(5, 3))", "1.0", "-1.5"],
    "STRING": [*LITERALS["STRING"], "'ǅungla'", "'Ａｂｃ'", "'é'", "'𝔘𝔫𝔦'", "'ﬁne'", "'ΣΑΣ'", "'ı İ i'",
               "'a😀b😀'", "'  \u00a0x'", "'1'", "'-0'", "'+5'", "'2024-2-3'", "'1.5e2'", "'0.0000001'",
               "'NaN'", "'Infinity'", "'2024-02-29T13:45:30'", "'9223372036854775808'"],
    "DATE": [*LITERALS["DATE"], "DATE '2024-01-31'", "DATE '1900-03-01'", "DATE '9999-12-31'",
             "DATE '1969-12-31'"],
    "TIMESTAMP": [*LITERALS["TIMESTAMP"], "TIMESTAMP '2024-01-31 23:59:59.999'",
                  "TIMESTAMP '1970-01-01 00:00:00'", "TIMESTAMP '2024-03-10 02:30:00'",
                  "CAST('2024-02-29 13:45:30.123456' AS TIMESTAMP(6))",
    "TIMESTAMP '1900-01-01 00:00:00.001'"],
    "LTZ": ["TO_TIMESTAMP_LTZ(0, 3)", "CAST(TIMESTAMP '2024-02-29 13:45:30.123' AS TIMESTAMP_LTZ(3))",
            "CAST(NULL AS TIMESTAMP_LTZ(3))", "TO_TIMESTAMP_LTZ(1709214330123, 3)", "TO_TIMESTAMP_LTZ(-1, 3)",
            "TO_TIMESTAMP_LTZ(1700000000, 0)"],
}
CAST_TARGETS2 = {
    **CAST_TARGETS,
    "INT": [*CAST_TARGETS["INT"], "INTEGER"],
    "DECIMAL": [*CAST_TARGETS["DECIMAL"], "DECIMAL(38, 0)", "DECIMAL(1, 0)", "DECIMAL(19, 9)",
                "DECIMAL(12, 6)",
                "DECIMAL(38, 37)", "DECIMAL"],
    "STRING": [*CAST_TARGETS["STRING"], "VARCHAR(10)", "CHAR(1)"],
    "TIMESTAMP": [*CAST_TARGETS["TIMESTAMP"], "TIMESTAMP(9)", "TIMESTAMP"],
    "LTZ": ["TIMESTAMP_LTZ(3)", "TIMESTAMP_LTZ(0)", "TIMESTAMP_LTZ(6)"],
}
UNITS2 = [*UNITS, "MILLISECOND", "MICROSECOND", "DOW", "DOY", "DECADE", "CENTURY", "EPOCH", "ISODOW",
          "ISOYEAR", "MILLENNIUM"]
FORMATS2 = [*FORMATS, "'yyyy-MM-dd HH:mm:ss.SSS'", "'yyyy'", "'MMM'", "'a h:mm'", "'E'", "'yy-M-d H:m:s'",
            "'S'", "'SSSSSS'", "'u'", "'k K'", "'MMMM dd, yyyy'", "'ww'", "'YYYY'"]
INTERVALS2 = [*INTERVALS, "INTERVAL '-1' DAY", "INTERVAL '1' MONTH", "INTERVAL '13' MONTH",
              "INTERVAL '1:30' HOUR TO MINUTE", "INTERVAL '59.999' SECOND", "INTERVAL '100' DAY",
              "INTERVAL '-1 2:03:04.5' DAY TO SECOND"]
ONE_INTERVALS = ["INTERVAL '1' DAY", "INTERVAL '1' HOUR", "INTERVAL '1' MONTH", "INTERVAL '1' SECOND",
                 "INTERVAL '1' YEAR", "INTERVAL '15' MINUTE"]
TZ = ["'UTC'", "'Asia/Tokyo'", "'America/New_York'", "'GMT+05:30'", "'Europe/Berlin'", "'Asia/Kolkata'"]
CMP = ["=", "<>", "<", "<=", ">", ">="]
DECTYPES = ["DECIMAL(10, 2)", "DECIMAL(38, 18)", "DECIMAL(5, 0)", "DECIMAL(20, 10)", "DECIMAL(3, 1)",
            "DECIMAL(38, 0)"]
NUMTYPES = ["TINYINT", "SMALLINT", "INT", "BIGINT", "FLOAT", "DOUBLE", "DECIMAL(10, 2)", "DECIMAL(38, 4)"]
STRLIT = ["'a'", "'abc'", "''", "'日本'", "' '", "CAST(NULL AS STRING)", "'ab '", "'😀'", "'x'"]
PADS = ["'*'", "''", "'ab'", "'日'", "'😀'", "' '"]
SEPS = ["','", "''", "'b'", "' '", "'語'", "';'"]
GROUPS = ["0", "1", "2", "3"]
SIMILAR = ["'a%'", "'%(b|c)%'", "'_'", "'[0-9]+'", "'%'", "'abc'"]
PRINTF = ["'%d'", "'%5.2f'", "'%s'", "'%x'", "'%e'", "'%,d'", "'%08.3f'"]
JSON = ["'{\"a\": 1, \"b\": [1, 2]}'", "'[1, \"x\", null]'", "'{\"a\": {\"b\": \"日本\"}}'", "'not json'",
        "'{\"a\": 1.50}'", "'null'"]
JSONPATH = ["'$.a'", "'$.b[1]'", "'$[1]'", "'$.a.b'", "'$'", "'$.c'"]
LISTS2 = {**LISTS, "UNITS": UNITS2, "FORMATS": FORMATS2, "INTERVALS": INTERVALS2,
          "ONE_INTERVALS": ONE_INTERVALS,
          "TZ": TZ, "CMP": CMP, "DECTYPES": DECTYPES, "NUMTYPES": NUMTYPES, "STRLIT": STRLIT, "PADS": PADS,
          "SEPS": SEPS, "GROUPS": GROUPS, "SIMILAR": SIMILAR, "PRINTF": PRINTF, "JSON": JSON,
          "JSONPATH": JSONPATH, "PRECISION": ["0", "3"], "TIME_UNITS": ["SECOND", "MINUTE", "HOUR", "DAY"]}

T2 = [
    *T,
    # TIMESTAMP_LTZ
    ("LTZ", "CAST({0} AS TIMESTAMP_LTZ(3))", ["TIMESTAMP"]),
    ("LTZ", "CAST({0} AS TIMESTAMP_LTZ(3))", ["DATE"]),
    ("LTZ", "TO_TIMESTAMP_LTZ({0}, {L:PRECISION})", ["BIGINT"]), ("LTZ", "TO_TIMESTAMP_LTZ({0}, 3)", ["INT"]),
    ("LTZ", "TO_TIMESTAMP_LTZ({0}, 0)", ["DECIMAL"]), ("LTZ", "TO_TIMESTAMP_LTZ({0})", ["STRING"]),
    ("LTZ", "TO_TIMESTAMP_LTZ({0}, {L:FORMATS})", ["STRING"]),
    ("LTZ", "TO_TIMESTAMP_LTZ({0}, {L:FORMATS}, {L:TZ})", ["STRING"]),
    ("LTZ", "{0} + {L:INTERVALS}", ["LTZ"]), ("LTZ", "{0} - {L:INTERVALS}", ["LTZ"]),
    ("LTZ", "FLOOR({0} TO {L:UNITS})", ["LTZ"]), ("LTZ", "CEIL({0} TO {L:UNITS})", ["LTZ"]),
    ("LTZ", "TIMESTAMPADD({L:UNITS}, {L:SMALL}, {0})", ["LTZ"]),
    ("LTZ", "{0} + {1} * {L:ONE_INTERVALS}", ["LTZ", "INT"]),
    *[(k, f"{f}({{0}}, {{1}})", ["LTZ", "LTZ"]) for k in ("LTZ",) for f in ("GREATEST", "LEAST", "COALESCE")],
    ("LTZ", "CASE WHEN {0} THEN {1} ELSE {2} END", ["BOOLEAN", "LTZ", "LTZ"]),
    ("BIGINT", "EXTRACT({L:UNITS} FROM {0})", ["LTZ"]), ("INT", "HOUR({0})", ["LTZ"]),
    ("INT", "DAYOFWEEK({0})", ["LTZ"]), ("INT", "YEAR({0})", ["LTZ"]), ("INT", "SECOND({0})", ["LTZ"]),
    ("STRING", "DATE_FORMAT({0}, {L:FORMATS})", ["LTZ"]), ("STRING", "CAST({0} AS STRING)", ["LTZ"]),
    ("INT", "TIMESTAMPDIFF({L:UNITS}, {0}, {1})", ["LTZ", "LTZ"]),
    ("INT", "TIMESTAMPDIFF({L:UNITS}, {0}, {1})", ["TIMESTAMP", "LTZ"]),
    ("DATE", "CAST({0} AS DATE)", ["LTZ"]), ("TIMESTAMP", "CAST({0} AS TIMESTAMP(3))", ["LTZ"]),
    ("BIGINT", "UNIX_TIMESTAMP(CAST({0} AS STRING))", ["LTZ"]),
    ("STRING", "CONVERT_TZ({0}, {L:TZ}, {L:TZ})", ["STRING"]),
    ("STRING", "CONVERT_TZ(CAST({0} AS STRING), {L:TZ}, {L:TZ})", ["TIMESTAMP"]),
    # TIMESTAMP and DATE arithmetic and functions
    ("TIMESTAMP", "{0} + {1} * {L:ONE_INTERVALS}", ["TIMESTAMP", "INT"]),
    ("TIMESTAMP", "{0} - {L:ONE_INTERVALS} * {1}", ["TIMESTAMP", "INT"]),
    ("DATE", "{0} + {1} * {L:ONE_INTERVALS}", ["DATE", "INT"]), ("DATE", "{0} - {L:INTERVALS}", ["DATE"]),
    ("TIMESTAMP", "{0} + {L:INTERVALS}", ["DATE"]),
    ("TIMESTAMP", "TIMESTAMPADD({L:UNITS}, {0}, {1})", ["INT", "TIMESTAMP"]),
    ("DATE", "TIMESTAMPADD({L:UNITS}, {0}, {1})", ["INT", "DATE"]),
    ("INT", "TIMESTAMPDIFF({L:UNITS}, {0}, {1})", ["DATE", "TIMESTAMP"]),
    ("BIGINT", "EXTRACT({L:UNITS} FROM {0})", ["TIMESTAMP"]),
    ("BIGINT", "EXTRACT({L:UNITS} FROM {0})", ["DATE"]),
    ("INT", "YEAR({0})", ["TIMESTAMP"]),
    ("INT", "QUARTER({0})", ["TIMESTAMP"]), ("INT", "WEEK({0})", ["TIMESTAMP"]),
    ("INT", "DAYOFWEEK({0})", ["TIMESTAMP"]),
    ("INT", "DAYOFYEAR({0})", ["DATE"]), ("INT", "MONTH({0})", ["DATE"]),
    ("INT", "HOUR({0})", ["DATE"]), ("INT", "DAYOFMONTH({0})", ["TIMESTAMP"]),
    ("STRING", "DATE_FORMAT({0}, {L:FORMATS})", ["DATE"]),
    ("STRING", "DATE_FORMAT({0}, {L:FORMATS})", ["TIMESTAMP"]),
    ("TIMESTAMP", "TO_TIMESTAMP({0}, {L:FORMATS})", ["STRING"]),
    ("TIMESTAMP", "FLOOR({0} TO {L:UNITS})", ["TIMESTAMP"]),
    ("TIMESTAMP", "CEIL({0} TO {L:UNITS})", ["TIMESTAMP"]),
    ("DATE", "LAST_DAY({0})", ["DATE"]), ("DATE", "LAST_DAY({0})", ["TIMESTAMP"]),
    ("STRING", "DAYNAME({0})", ["DATE"]), ("STRING", "MONTHNAME({0})", ["TIMESTAMP"]),
    ("DATE", "DATE_ADD({0}, {1})", ["DATE", "INT"]), ("DATE", "DATE_SUB({0}, {1})", ["DATE", "INT"]),
    ("INT", "DATEDIFF({0}, {1})", ["DATE", "DATE"]),
    ("STRING", "CAST({0} AS STRING)", ["TIMESTAMP"]), ("STRING", "CAST({0} AS STRING)", ["DATE"]),
    ("BIGINT", "UNIX_TIMESTAMP(CAST({0} AS STRING))", ["TIMESTAMP"]),
    ("STRING", "FROM_UNIXTIME({0}, {L:FORMATS})", ["BIGINT"]),
    # DECIMAL arithmetic and CAST between numeric types
    ("DECIMAL", "CAST({0} AS {L:DECTYPES}) + CAST({1} AS {L:DECTYPES})", ["NUM", "NUM"]),
    ("DECIMAL", "CAST({0} AS {L:DECTYPES}) * CAST({1} AS {L:DECTYPES})", ["NUM", "NUM"]),
    ("DECIMAL", "CAST({0} AS {L:DECTYPES}) / CAST({1} AS {L:DECTYPES})", ["NUM", "NUM"]),
    ("DECIMAL", "CAST({0} AS {L:DECTYPES}) - {1}", ["NUM", "NUM"]),
    ("DECIMAL", "CAST({0} AS {L:DECTYPES}) % {L:NONZERO}", ["NUM"]),
    ("DECIMAL", "{0} * {1}", ["DECIMAL", "DECIMAL"]), ("DECIMAL", "{0} / {1}", ["DECIMAL", "INT"]),
    ("DECIMAL", "{0} + {1}", ["DECIMAL", "BIGINT"]), ("DECIMAL", "ROUND({0}, {L:DIGITS})", ["DECIMAL"]),
    ("DECIMAL", "CAST({0} AS {L:NUMTYPES})", ["NUM"]), ("DECIMAL", "TRY_CAST({0} AS {L:NUMTYPES})", ["NUM"]),
    ("DECIMAL", "CAST({0} AS {L:NUMTYPES})", ["STRING"]),
    ("DECIMAL", "TRY_CAST({0} AS {L:NUMTYPES})", ["STRING"]),
    ("DOUBLE", "CAST({0} AS FLOAT)", ["NUM"]), ("DOUBLE", "CAST({0} AS FLOAT) * {1}", ["NUM", "NUM"]),
    ("DOUBLE", "CAST({0} AS FLOAT) / {L:NONZERO}", ["NUM"]),
    ("INT", "CAST({0} AS TINYINT)", ["NUM"]),
    ("INT", "CAST({0} AS SMALLINT) + CAST({1} AS TINYINT)", ["NUM", "NUM"]),
    ("BIGINT", "CAST({0} AS BIGINT)", ["NUM"]), ("INT", "CAST({0} AS INT)", ["BOOLEAN"]),
    ("BOOLEAN", "CAST({0} AS BOOLEAN)", ["NUM"]),
    ("STRING", "CAST({0} AS STRING)", ["NUM"]), ("STRING", "CAST({0} AS STRING)", ["DOUBLE"]),
    ("STRING", "CAST(CAST({0} AS FLOAT) AS STRING)", ["NUM"]), ("STRING", "CAST({0} AS STRING)", ["BOOLEAN"]),
    ("STRING", "PRINTF({L:PRINTF}, {0})", ["NUM"]),
    # strings: unicode, NULLs, more functions
    ("STRING", "CONCAT_WS({0}, {1}, {2}, {3})", ["STRING", "STRING", "STRING", "STRING"]),
    ("STRING", "CONCAT({0}, {1}, {2})", ["STRING", "STRING", "STRING"]),
    ("STRING", "LPAD({0}, {L:SMALL}, {L:PADS})", ["STRING"]),
    ("STRING", "RPAD({0}, {L:SMALL}, {L:PADS})", ["STRING"]),
    ("STRING", "SPLIT_INDEX({0}, {L:SEPS}, {L:GROUPS})", ["STRING"]),
    ("STRING", "REGEXP_EXTRACT({0}, {L:PATTERNS}, {L:GROUPS})", ["STRING"]),
    ("INT", "REGEXP_COUNT({0}, {L:PATTERNS})", ["STRING"]),
    ("STRING", "REGEXP_SUBSTR({0}, {L:PATTERNS})", ["STRING"]),
    ("INT", "REGEXP_INSTR({0}, {L:PATTERNS})", ["STRING"]),
    ("STRING", "SUBSTRING({0} FROM {1})", ["STRING", "INT"]),
    ("STRING", "SUBSTR({0}, {L:SMALL})", ["STRING"]),
    ("INT", "CHARACTER_LENGTH({0})", ["STRING"]), ("INT", "POSITION({L:STRLIT} IN {0})", ["STRING"]),
    ("INT", "LOCATE({L:STRLIT}, {0}, {L:SMALL})", ["STRING"]),
    ("STRING", "UPPER({0})", ["STRING"]),
    ("STRING", "LOWER({0})", ["STRING"]), ("STRING", "INITCAP({0})", ["STRING"]),
    ("STRING", "REVERSE({0})", ["STRING"]), ("STRING", "LEFT({0}, {L:SMALL})", ["STRING"]),
    ("STRING", "RIGHT({0}, {L:SMALL})", ["STRING"]), ("STRING", "REPEAT({0}, {L:SMALL})", ["STRING"]),
    ("STRING", "LTRIM({0}, {L:PADS})", ["STRING"]), ("STRING", "RTRIM({0}, {L:PADS})", ["STRING"]),
    ("STRING", "TRIM(BOTH {L:PADS} FROM {0})", ["STRING"]),
    ("STRING", "REPLACE({0}, {L:STRLIT}, {L:PADS})", ["STRING"]),
    ("STRING", "FROM_BASE64(TO_BASE64({0}))", ["STRING"]), ("STRING", "FROM_BASE64({0})", ["STRING"]),
    ("STRING", "DECODE(ENCODE({0}, 'UTF-8'), 'UTF-8')", ["STRING"]),
    ("STRING", "SHA1({0})", ["STRING"]), ("STRING", "URL_DECODE({0})", ["STRING"]),
    ("STRING", "JSON_VALUE({L:JSON}, {L:JSONPATH})", []), ("STRING", "JSON_VALUE({0}, '$.a')", ["STRING"]),
    ("BOOLEAN", "{0} IS JSON", ["STRING"]), ("STRING", "JSON_QUOTE({0})", ["STRING"]),
    ("STRING", "{0} || CAST({1} AS STRING)", ["STRING", "ANY"]),
    ("STRING", "ELT({0}, {1}, {2}, {3})", ["INT", "STRING", "STRING", "STRING"]),
    ("BOOLEAN", "{0} SIMILAR TO {L:SIMILAR}", ["STRING"]), ("BOOLEAN", "{0} LIKE {L:LIKE}", ["STRING"]),
    ("BOOLEAN", "{0} ILIKE {L:LIKE}", ["STRING"]), ("BOOLEAN", "{0} LIKE '%!%%' ESCAPE '!'", ["STRING"]),
    # CASE / COALESCE / IF over mixed kinds (the result kind is nominal)
    ("DECIMAL", "CASE WHEN {0} THEN {1} ELSE {2} END", ["BOOLEAN", "NUM", "NUM"]),
    ("DECIMAL", "CASE WHEN {0} THEN {1} WHEN {2} THEN {3} END", ["BOOLEAN", "NUM", "BOOLEAN", "NUM"]),
    ("DECIMAL", "COALESCE({0}, {1}, {2})", ["NUM", "NUM", "NUM"]),
    ("DECIMAL", "IF({0}, {1}, {2})", ["BOOLEAN", "NUM", "NUM"]),
    ("DECIMAL", "NULLIF({0}, {1})", ["NUM", "NUM"]), ("DECIMAL", "IFNULL({0}, {1})", ["NUM", "NUM"]),
    ("DECIMAL", "GREATEST({0}, {1})", ["NUM", "NUM"]),
    ("DECIMAL", "LEAST({0}, {1}, {2})", ["NUM", "NUM", "NUM"]),
    ("STRING", "CASE WHEN {0} THEN {L:STRLIT} ELSE {L:STRLIT} END", ["BOOLEAN"]),
    ("STRING", "CASE {0} WHEN {L:STRLIT} THEN {1} ELSE {L:STRLIT} END", ["STRING", "STRING"]),
    ("STRING", "CASE WHEN {0} THEN {1} ELSE {2} END", ["BOOLEAN", "STRING", "NUM"]),
    ("STRING", "COALESCE({0}, {L:STRLIT})", ["STRING"]),
    ("STRING", "IF({0}, {L:STRLIT}, {1})", ["BOOLEAN", "STRING"]),
    ("STRING", "COALESCE({0}, {1}, {L:STRLIT})", ["STRING", "STRING"]),
    ("TIMESTAMP", "COALESCE({0}, {1})", ["TIMESTAMP", "DATE"]),
    ("TIMESTAMP", "COALESCE({0}, {1})", ["LTZ", "TIMESTAMP"]),
    ("TIMESTAMP", "CASE WHEN {0} THEN {1} ELSE {2} END", ["BOOLEAN", "DATE", "TIMESTAMP"]),
    ("TIMESTAMP", "IF({0}, {1}, {2})", ["BOOLEAN", "TIMESTAMP", "LTZ"]),
    ("BOOLEAN", "COALESCE({0}, {1})", ["BOOLEAN", "BOOLEAN"]),
    ("STRING", "CASE WHEN {0} IS NULL THEN 'none' ELSE CAST({0} AS STRING) END", ["ANY"]),
    # comparisons across kinds
    ("BOOLEAN", "{0} {L:CMP} {1}", ["NUM", "NUM"]), ("BOOLEAN", "{0} {L:CMP} {1}", ["STRING", "NUM"]),
    ("BOOLEAN", "{0} {L:CMP} {1}", ["DATE", "TIMESTAMP"]),
    ("BOOLEAN", "{0} {L:CMP} {1}", ["TIMESTAMP", "LTZ"]),
    ("BOOLEAN", "{0} {L:CMP} {1}", ["STRING", "DATE"]), ("BOOLEAN", "{0} {L:CMP} {1}", ["BOOLEAN", "NUM"]),
    ("BOOLEAN", "{0} {L:CMP} {1}", ["LTZ", "LTZ"]), ("BOOLEAN", "{0} {L:CMP} {1}", ["STRING", "STRING"]),
    ("BOOLEAN", "{0} IN ({1}, {2})", ["NUM", "NUM", "NUM"]),
    ("BOOLEAN", "{0} IN ({1}, {2})", ["STRING", "NUM", "STRING"]),
    ("BOOLEAN", "{0} NOT IN ({1}, {2})", ["NUM", "NUM", "NUM"]),
    ("BOOLEAN", "{0} BETWEEN {1} AND {2}", ["NUM", "NUM", "NUM"]),
    ("BOOLEAN", "{0} IS DISTINCT FROM {1}", ["NUM", "NUM"]),
    ("BOOLEAN", "{0} IS NOT DISTINCT FROM {1}", ["DATE", "TIMESTAMP"]),
    ("BOOLEAN", "{0} IS NOT TRUE", ["BOOLEAN"]), ("BOOLEAN", "{0} IS FALSE", ["BOOLEAN"]),
    ("BOOLEAN", "{0} IS NOT UNKNOWN", ["BOOLEAN"]),
]
BY_KIND2 = {k: [t for t in T2 if t[0] == k] for k in KINDS2}

# Version 3: version 2 and Flink 2.3's collection functions over arrays built in the expression
# (ARRAY[...] of generated values, SPLIT, STR_TO_MAP), brought back to a scalar kind.
_ORDERED = ("INT", "BIGINT", "DECIMAL", "DOUBLE", "STRING", "DATE", "TIMESTAMP", "BOOLEAN")
T3 = [
    *T2,
    *[("BOOLEAN", "ARRAY_CONTAINS(ARRAY[{0}, {1}, {2}], {3})", [k, "=0", "=0", "=0"]) for k in _ORDERED],
    *[("INT", "ARRAY_POSITION(ARRAY[{0}, {1}, {2}], {3})", [k, "=0", "=0", "=0"]) for k in _ORDERED],
    *[("INT", "CARDINALITY(ARRAY_DISTINCT(ARRAY[{0}, {1}, {2}]))", [k, "=0", "=0"]) for k in _ORDERED],
    *[(k, "ARRAY_MAX(ARRAY[{0}, {1}, {2}])", [k, k, k]) for k in _ORDERED],
    *[(k, "ARRAY_MIN(ARRAY[{0}, {1}])", [k, k]) for k in _ORDERED],
    *[(k, "ARRAY_SORT(ARRAY[{0}, {1}, {2}], {3}, {4})[{L:GROUPS}]",
       [k, k, k, "BOOLEAN", "BOOLEAN"]) for k in _ORDERED],
    *[(k, "ELEMENT(ARRAY_SLICE(ARRAY[{0}, {1}, {2}], {L:SMALL}, {L:SMALL}))", [k, k, k])
      for k in ("INT", "STRING")],
    *[(k, "ARRAY_REVERSE(ARRAY_APPEND(ARRAY[{0}], {1}))[1]", [k, k]) for k in ("NUM", "STRING", "DATE")],
    ("INT", "CARDINALITY(ARRAY_UNION(ARRAY[{0}, {1}], ARRAY[{2}]))", ["INT", "INT", "INT"]),
    ("INT", "CARDINALITY(ARRAY_EXCEPT(ARRAY[{0}, {1}, {2}], ARRAY[{3}]))", ["STRING"] * 4),
    ("INT", "CARDINALITY(ARRAY_INTERSECT(ARRAY[{0}, {1}, {2}], ARRAY[{3}, {4}]))", ["NUM"] * 5),
    ("INT", "ARRAY_POSITION(ARRAY_REMOVE(ARRAY[{0}, {1}, {2}], {3}), {4})", ["INT"] * 5),
    ("INT", "CARDINALITY(ARRAY_CONCAT(ARRAY[{0}], ARRAY[{1}, {2}]))", ["ANY", "=0", "=0"]),
    ("STRING", "ARRAY_JOIN(ARRAY[{0}, {1}, {2}], {L:SEPS})", ["STRING", "STRING", "STRING"]),
    ("STRING", "ARRAY_JOIN(ARRAY_SORT(ARRAY[{0}, {1}, {2}]), {L:SEPS}, {3})", ["STRING"] * 4),
    ("STRING", "ARRAY_JOIN(SPLIT({0}, {L:SEPS}), '|', 'N')", ["STRING"]),
    ("STRING", "ARRAY_JOIN(ARRAY_SLICE(SPLIT({0}, {L:SEPS}), {L:SMALL}, {L:SMALL}), '/')", ["STRING"]),
    ("STRING", "ARRAY_JOIN(ARRAY_SLICE(SPLIT({0}, {1}), {L:SMALL}), '/')", ["STRING", "STRING"]),
    ("INT", "CARDINALITY(SPLIT({0}, {1}))", ["STRING", "STRING"]),
    ("INT", "CARDINALITY(STR_TO_MAP({0}))", ["STRING"]),
    ("STRING", "STR_TO_MAP({0}, {L:SEPS}, ' ')[{1}]", ["STRING", "STRING"]),
    ("STRING", "ARRAY_JOIN(MAP_KEYS(STR_TO_MAP({0}, ',', {L:SEPS})), ';')", ["STRING"]),
    ("INT", "MAP_UNION(MAP[{0}, 1], MAP[{1}, 2])[{2}]", ["STRING", "STRING", "STRING"]),
    ("INT", "MAP_FROM_ARRAYS(ARRAY[{0}, {1}], ARRAY[3, 4])[{2}]", ["INT", "INT", "INT"]),
]
KINDS3 = KINDS2
BY_KIND3 = {k: [t for t in T3 if t[0] == k] for k in KINDS3}
for _t in T3:  # a NUM template is one of each numeric kind
    if _t[0] == "NUM":
        for _k in NUMERIC:
            BY_KIND3[_k].append((_k, *_t[1:]))

_VERSIONS = {1: (KINDS, COLUMN_KINDS, LITERALS, CAST_TARGETS, BY_KIND, LISTS),
             2: (KINDS2, COLUMN_KINDS2, LITERALS2, CAST_TARGETS2, BY_KIND2, LISTS2),
             3: (KINDS3, COLUMN_KINDS2, LITERALS2, CAST_TARGETS2, BY_KIND3, LISTS2)}


def _version(version: int) -> tuple:
    """The lists of generator ``version`` (4 lives in ``difffuzz_v4``, which builds on these, 5 in
    ``difffuzz_v5``, which builds on 4)."""
    if version == 4:
        from tests.functions import difffuzz_v4

        return difffuzz_v4.VERSION4
    if version == 5:
        from tests.functions import difffuzz_v5

        return difffuzz_v5.VERSION5
    return _VERSIONS[version]


class Generator:
    """Random expressions of a kind; ``seed`` fixes the sequence, ``version`` the lists drawn from
    (1: the original generator, 2: the widened one, 3: 2 and the collection functions, 4: 3 and
    TIME, zones, nested collections, JSON clauses, edges: ``difffuzz_v4``; 5: 4 and VARIANT, BITMAP,
    OBJECT_OF and session 33's aggregates: ``difffuzz_v5``)."""

    def __init__(self, seed: int, max_depth: int = 3, version: int = 1):
        """A generator of expressions nested up to ``max_depth`` calls deep."""
        self.rnd = random.Random(seed)
        self.max_depth = max_depth
        self.version = version
        (self.kinds, self.columns, self.literals, self.cast_targets, self.by_kind,
         self.lists) = _version(version)
        self.fresh, self.fresh_share = {}, 0.0  # version 4: its own templates, drawn more often
        if version == 4:
            from tests.functions import difffuzz_v4

            self.fresh, self.fresh_share = difffuzz_v4.FRESH4, difffuzz_v4.FRESH
        elif version >= 5:
            from tests.functions import difffuzz_v5

            self.fresh, self.fresh_share = difffuzz_v5.FRESH5, difffuzz_v5.FRESH

    def leaf(self, kind: str) -> str:
        """A column (more often) or a literal of ``kind``."""
        if self.rnd.random() < 0.6:
            return self.rnd.choice(self.columns[kind])
        return self.rnd.choice(self.literals[kind])

    def expr(self, kind: str, depth: int = 0) -> str:
        """An expression of ``kind`` (a kind of KINDS, "NUM" or "ANY"); a call or operator at the
        top (depth 0), deeper a column or literal more often the deeper it is."""
        if kind == "NUM":
            kind = self.rnd.choice(NUMERIC)
        elif kind == "ANY":
            kind = self.rnd.choice(self.kinds)
        if depth >= self.max_depth or (depth and self.rnd.random() < 0.15 + 0.2 * depth):
            return self.leaf(kind)
        roll = self.rnd.random()
        if roll < 0.12 and kind in self.cast_targets:  # a CAST (or TRY_CAST) from another kind
            source = self.rnd.choice(self.kinds)
            target = self.rnd.choice(self.cast_targets[kind])
            fn = "TRY_CAST" if self.rnd.random() < 0.25 else "CAST"
            return f"{fn}({self.expr(source, depth + 1)} AS {target})"
        fresh = self.fresh.get(kind)
        if fresh and self.rnd.random() < self.fresh_share:
            template, args = self.rnd.choice(fresh)[1:]
        else:
            template, args = self.rnd.choice(self.by_kind[kind])[1:]
        return self.fill(template, args, depth)

    def fill(self, template: str, args: list[str], depth: int) -> str:
        """``template`` with generated arguments of ``args``' kinds and its literal slots chosen."""
        kinds: list[str] = []
        values = []
        for a in args:
            if a.startswith("="):  # the kind of an earlier argument ("=0": the first's)
                a = kinds[int(a[1:])]
            elif a == "ANY":
                a = self.rnd.choice(self.kinds)
            elif a == "NUM":
                a = self.rnd.choice(NUMERIC)
            kinds.append(a)
            e = self.expr(a, depth + 1)
            values.append(e if _simple(e) else f"({e})")
        text = _SLOT.sub(lambda m: _braced(self.rnd.choice(self.lists[m.group(1)])), template)
        return text.format(*values)

    def mutate(self, e: str) -> str:
        """An often ill-typed variant of ``e``: one column swapped for a column of another kind."""
        names = [n for n, _ in COLUMNS if re.search(rf"\b{n}\b", e)]
        if not names:
            return e
        old = self.rnd.choice(names)
        new = self.rnd.choice([n for n, _ in COLUMNS if n != old])
        return re.sub(rf"\b{old}\b", new, e, count=1)


def _braced(text: str) -> str:
    """``text`` spliced into a template that is then ``str.format``-ed (its braces doubled)."""
    return text.replace("{", "{{").replace("}", "}}")


def _simple(e: str) -> bool:
    """Whether ``e`` needs no parentheses as an operand: a name, an unsigned literal, or one call
    (``F(...)``, ``CAST(...)``) spanning the whole text."""
    if re.fullmatch(r"\w+|'[^']*'|\d+(\.\d+)?(E-?\d+)?", e):
        return True
    if not re.match(r"^[A-Z_0-9]+\(", e) or not e.endswith(")"):
        return False
    depth, quoted = 0, False
    for n, ch in enumerate(e):
        if ch == "'":
            quoted = not quoted
        elif not quoted:
            depth += (ch == "(") - (ch == ")")
            if depth == 0 and ch == ")" and n != len(e) - 1:
                return False
    return True


def generate(seed: int, count: int, ill_typed: float = 0.1, version: int = 1) -> list[str]:
    """``count`` distinct expressions of seed ``seed`` (generator ``version``); about ``ill_typed``
    of them mutated. From version 4 some are lines ``TZ=<zone> <expr>``: evaluated in that session
    time zone (``scripts/flink_difffuzz.py`` reads them as its ``--exprs`` lines)."""
    g = Generator(seed, version=version)
    top, zoned, zones = g.kinds, 0.0, []
    if version >= 4:
        from tests.functions import difffuzz_v4 as v4

        top, zoned, zones = v4.TOP_KINDS4, v4.ZONED, v4.ZONES
    if version >= 5:
        from tests.functions import difffuzz_v5 as v5

        top = v5.TOP_KINDS5
    out: dict[str, None] = {}
    tries = 0
    while len(out) < count and tries < count * 20:
        tries += 1
        e = g.expr(g.rnd.choice(top))
        if g.rnd.random() < ill_typed:
            e = g.mutate(e)
        if zoned and g.rnd.random() < zoned:
            e = f"TZ={g.rnd.choice(zones)} {e}"
        if len(e) <= 400:
            out[e] = None
    return list(out)


# -- aggregates --------------------------------------------------------------------------------------

AGG_KEY = "MOD(id, 3)"
AGGREGATES = [("COUNT({0})", "ANY"), ("SUM({0})", "NUM"), ("AVG({0})", "NUM"), ("MIN({0})", "ANY"),
              ("MAX({0})", "ANY"), ("COUNT(DISTINCT {0})", "ANY"), ("SUM(DISTINCT {0})", "NUM"),
              ("STDDEV_POP({0})", "NUM"), ("VAR_SAMP({0})", "NUM"), ("LISTAGG({0})", "STRING"),
              ("FIRST_VALUE({0})", "ANY"), ("LAST_VALUE({0})", "ANY"), ("COUNT(*) FILTER (WHERE {0})",
              "BOOLEAN"),
              ("SUM({1}) FILTER (WHERE {0})", "BOOLEAN")]
# Version 2 adds (template, the kinds of its arguments): DISTINCT and FILTER on more aggregates,
# and expressions around and inside aggregate calls.
AGGREGATES2 = [
    *[(t, [k, "NUM"]) for t, k in AGGREGATES],
    ("SUM(DISTINCT {0}) FILTER (WHERE {1})", ["NUM", "BOOLEAN"]),
    ("COUNT(DISTINCT {0}) FILTER (WHERE {1})", ["ANY", "BOOLEAN"]),
    ("MAX({0}) FILTER (WHERE {1})", ["ANY", "BOOLEAN"]), ("MIN({0}) FILTER (WHERE {1})", ["ANY", "BOOLEAN"]),
    ("AVG({0}) FILTER (WHERE {1})", ["NUM", "BOOLEAN"]), ("AVG(DISTINCT {0})", ["NUM"]),
    ("MAX(DISTINCT {0})", ["ANY"]), ("MIN(DISTINCT {0})", ["ANY"]), ("COUNT(*)", []),
    ("STDDEV_SAMP({0})", ["NUM"]), ("VAR_POP({0})", ["NUM"]), ("STDDEV_POP(DISTINCT {0})", ["NUM"]),
    ("VARIANCE({0})", ["NUM"]), ("STDDEV({0})", ["NUM"]),
    ("LISTAGG({0}, {L:SEPS})", ["STRING"]), ("LISTAGG(DISTINCT {0})", ["STRING"]),
    ("LISTAGG({0}) FILTER (WHERE {1})", ["STRING", "BOOLEAN"]),
    ("SUM({0}) / COUNT({1})", ["NUM", "ANY"]), ("MAX({0}) - MIN({0})", ["NUM"]),
    ("CASE WHEN COUNT({0}) > 1 THEN MAX({1}) END", ["ANY", "ANY"]), ("COALESCE(SUM({0}), 0)", ["NUM"]),
    ("SUM({0} * {1})", ["NUM", "NUM"]), ("SUM(CASE WHEN {0} THEN {1} ELSE 0 END)", ["BOOLEAN", "NUM"]),
    ("COUNT(DISTINCT {0}, {1})", ["ANY", "ANY"]), ("FIRST_VALUE({0}) FILTER (WHERE {1})", ["ANY", "BOOLEAN"]),
    ("SUM({0}) FILTER (WHERE {1} IS NOT NULL)", ["NUM", "ANY"]), ("AVG(CAST({0} AS DOUBLE))", ["NUM"]),
    ("SUM(CAST({0} AS {L:NUMTYPES}))", ["NUM"]), ("AVG(CAST({0} AS {L:DECTYPES}))", ["NUM"]),
    ("MAX({0}) = MIN({0})", ["ANY"]),
    ("ARRAY_AGG({0})", ["ANY"]), ("COUNT({0}) + SUM(DISTINCT {1})", ["ANY", "NUM"]),
]


def generate_aggregates(seed: int, count: int, version: int = 1) -> list[str]:
    """``count`` distinct aggregate calls over generated expressions (grouped by :data:`AGG_KEY`)."""
    g = Generator(seed, max_depth=2, version=version)
    out: dict[str, None] = {}
    tries = 0
    while len(out) < count and tries < count * 20:
        tries += 1
        if version == 1:
            template, kind = g.rnd.choice(AGGREGATES)
            args = [g.expr(kind, 1), g.expr("NUM", 1)]
        elif version >= 5 and g.rnd.random() < _v5().FRESH_AGG:
            template, kinds = g.rnd.choice(_v5().AGGREGATES5)
            args = [g.expr(k, 1) for k in kinds]
        else:
            template, kinds = g.rnd.choice(AGGREGATES2)
            args = [g.expr(k, 1) for k in kinds]
            template = _SLOT.sub(lambda m: _braced(g.rnd.choice(g.lists[m.group(1)])), template)
        out[template.format(*args)] = None
    return list(out)


def _v5():
    """Version 5's module (imported late: it builds on this one)."""
    from tests.functions import difffuzz_v5

    return difffuzz_v5


def load(path: str | Path) -> dict:
    """A fixture written by scripts/flink_difffuzz.py."""
    return json.loads(Path(path).read_text())


def case_key(case: dict, aggregate: str) -> str:
    """A case's key: ``TZ=<zone> `` for a case of another session time zone than UTC, then
    ``aggregate`` for an aggregate call, then the expression."""
    zone = f"TZ={case['zone']} " if case.get("zone") else ""
    return zone + (aggregate if case.get("aggregate") else "") + case["expr"]
