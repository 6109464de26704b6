"""DuckDB's answer to a case's ``batch.sql`` over the case's own input files.

Every filesystem table of ``case.sql`` becomes a DuckDB table of the same name and column types:
a ``json`` file is read as is; a ``debezium-json`` file is replayed (create/read insert ``after``,
update replaces ``before`` by ``after``, delete removes ``before``) into the table it ends as, the
batch equivalent of the changelog.
"""

from __future__ import annotations

import json
import re
from decimal import Decimal
from pathlib import Path

import duckdb

from streamsql.core.types import SqlType
from tests.compat.changelog import split_statements

CREATE = re.compile(r"^CREATE\s+(?:TEMPORARY\s+)?TABLE\s+`?(\w+)`?\s*\((.*)\)\s*WITH\s*\((.*)\)$",
                    re.IGNORECASE | re.DOTALL)
OPTION = re.compile(r"'([^']+)'\s*=\s*'([^']*)'")
#: Flink type name → DuckDB type name (DECIMAL(p, s) and TIMESTAMP(p) keep their arguments' sense).
TYPES = {"INT": "INTEGER", "INTEGER": "INTEGER", "BIGINT": "BIGINT", "SMALLINT": "SMALLINT",
         "TINYINT": "TINYINT", "STRING": "VARCHAR", "VARCHAR": "VARCHAR", "DOUBLE": "DOUBLE",
         "FLOAT": "FLOAT", "BOOLEAN": "BOOLEAN", "DATE": "DATE", "TIMESTAMP": "TIMESTAMP",
         "DECIMAL": "DECIMAL"}


def _split_top(text: str) -> list[str]:
    """Split at commas outside parentheses and the angle brackets of ROW<...>, ARRAY<...>, MAP<...>."""
    parts, depth, angles, cur = [], 0, 0, []
    for ch in text:
        depth += (ch == "(") - (ch == ")")
        if ch == "<" and (angles or re.search(r"(ROW|ARRAY|MAP)\s*$", "".join(cur), re.IGNORECASE)):
            angles += 1
        elif ch == ">" and angles:
            angles -= 1
        if ch == "," and depth == 0 and angles == 0:
            parts.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    parts.append("".join(cur).strip())
    return parts


def _columns(body: str) -> list[tuple[str, str]]:
    """(name, DuckDB type) of the physical columns (constraints, watermarks, computed columns out)."""
    cols = []
    for part in _split_top(body):
        words = part.split()
        if words[0].upper() in ("PRIMARY", "WATERMARK", "CONSTRAINT") or " AS " in f" {part.upper()} ":
            continue
        name, flink = words[0].strip("`"), " ".join(words[1:])
        base = re.match(r"(\w+)(\(.*?\))?", flink)
        if base.group(1).upper() in ("ROW", "ARRAY", "MAP"):
            cols.append((name, SqlType.parse(flink).duckdb()))
            continue
        duck = TYPES[base.group(1).upper()]
        if duck == "DECIMAL" and base.group(2):
            duck += base.group(2)
        cols.append((name, duck))
    return cols


def _replay(path: Path) -> list[dict]:
    """The rows a debezium-json changelog file ends with."""
    rows: list[dict] = []
    for line in path.read_text().splitlines():
        if not line.strip():
            continue
        event = json.loads(line, parse_float=Decimal)
        if event["op"] in ("u", "d"):
            rows.remove(event["before"])
        if event["op"] in ("c", "r", "u"):
            rows.append(event["after"])
    return rows


def duckdb_rows(case: Path) -> list[tuple]:
    """Run ``batch.sql`` of ``case`` in DuckDB over the case's input tables; its rows."""
    sql = (case / "case.sql").read_text().replace("${CASE_DIR}", str(case.resolve()))
    con = duckdb.connect()
    for stmt in split_statements(sql):
        m = CREATE.match(stmt)
        if not m:
            continue
        options = dict(OPTION.findall(m.group(3)))
        if options.get("connector") != "filesystem":
            continue
        cols = _columns(m.group(2))
        con.execute(f"CREATE TABLE {m.group(1)} ({', '.join(f'{c} {t}' for c, t in cols)})")
        path = Path(options["path"])
        if options.get("format") == "debezium-json":
            marks = ", ".join("?" for _ in cols)
            for r in _replay(path):
                con.execute(f"INSERT INTO {m.group(1)} VALUES ({marks})", [r.get(c) for c, _ in cols])
        else:
            spec = "{" + ", ".join(f"'{c}': '{t}'" for c, t in cols) + "}"
            con.execute(f"INSERT INTO {m.group(1)} SELECT * FROM read_json('{path}', "
                        f"format = 'newline_delimited', columns = {spec})")
    return con.execute((case / "batch.sql").read_text()).fetchall()
