"""Script splitting and print-sink changelog folding, shared by the Flink side and our side.

``scripts/flink_compat.py`` (run under PyFlink's venv) and ``tests/compat/test_compat.py`` fold the
print connector's output with the same code, so both tables are built the same way. Standard
library only: the Flink venv has no StreamSQL dependencies.
"""

from __future__ import annotations

import re

ROW = re.compile(r"^(?:\S+>\s*)?([+-][IUD])\[(.*)\]\s*$")
INSERT = re.compile(r"^INSERT\s+INTO\s+`?([\w.]+)`?", re.IGNORECASE)


def split_statements(sql: str) -> list[str]:
    """The script's statements: split at semicolons outside quotes, ``--`` comments dropped."""
    out, cur, quote, i = [], [], None, 0
    while i < len(sql):
        ch = sql[i]
        if quote:
            cur.append(ch)
            if ch == quote:
                quote = None
        elif ch in "'`\"":
            quote = ch
            cur.append(ch)
        elif sql.startswith("--", i):
            i = sql.find("\n", i)
            if i < 0:
                break
            continue
        elif ch == ";":
            out.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
        i += 1
    out.append("".join(cur).strip())
    return [s for s in out if s]


def fold(lines: list[str]) -> list[list[str | None]]:
    """Fold print-sink lines (``+I[a, 1]``, optionally ``ident> ``-prefixed) into the final table.

    Rows hold the printed text of each cell (``null`` becomes None); other lines are ignored.

    Raises:
        ValueError: a ``-U``/``-D`` of a row that is not in the table.
    """
    table: list[list[str | None]] = []
    for line in lines:
        m = ROW.match(line.strip())
        if not m:
            continue
        kind, body = m.groups()
        row = [None if c == "null" else c for c in (body.split(", ") if body else [])]
        if kind in ("+I", "+U"):
            table.append(row)
        elif row in table:
            table.remove(row)
        else:
            msg = f"{kind}{row} retracts a row that is not in the table"
            raise ValueError(msg)
    return table
