"""Script splitting and print-sink changelog folding, shared by the Flink side and our side.

``scripts/flink_compat.py`` (run under PyFlink's venv) and ``tests/compat/test_compat.py`` fold the
print connector's output with the same code, so both tables are built the same way. Standard
library only: the Flink venv has no StreamSQL dependencies.
"""

from __future__ import annotations

import re
from collections import deque

ROW = re.compile(r"^(?:\S+>\s*)?([+-][IUD])\[(.*)\]\s*$")
#: A case's job statement and its sink: ``INSERT INTO sink ...`` or ``CREATE TABLE sink ... AS SELECT``.
INSERT = re.compile(r"^(?:INSERT\s+INTO|CREATE\s+(?:OR\s+REPLACE\s+)?TABLE"
                    r"(?=[\s\S]*\bAS\s+(?:SELECT|WITH|VALUES)\b))\s+`?([\w.]+)`?", re.IGNORECASE)
#: The head of a statement set: ``EXECUTE STATEMENT SET BEGIN`` before its first INSERT.
STATEMENT_SET = re.compile(r"^EXECUTE\s+STATEMENT\s+SET\s+BEGIN\s+", re.IGNORECASE)


def join_statement_sets(statements: list[str]) -> list[str | list[str]]:
    """``statements`` with each ``EXECUTE STATEMENT SET BEGIN ...; ...; END`` as one list of its INSERTs.

    :func:`split_statements` splits a statement set at its inner semicolons; this puts it back
    together (an unterminated set takes the rest of the script).
    """
    out: list[str | list[str]] = []
    open_set: list[str] | None = None
    for s in statements:
        head = STATEMENT_SET.match(s)
        if head:
            open_set = [s[head.end():]]
            out.append(open_set)
        elif open_set is not None and s.strip().upper() == "END":
            open_set = None
        elif open_set is not None:
            open_set.append(s)
        else:
            out.append(s)
    return out


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


def _cells(body: str) -> list[str]:
    """The cells of a printed row: split at ``, `` outside the brackets of a printed ROW
    (``+I[1, a]``), ARRAY (``[1, 2]``) or MAP (``{k=1, j=2}``) value."""
    cells, depth, start = [], 0, 0
    for i, ch in enumerate(body):
        if ch in "[{":
            depth += 1
        elif ch in "]}" and depth:
            depth -= 1
        elif ch == "," and not depth and body.startswith(", ", i):
            cells.append(body[start:i])
            start = i + 2
    return [*cells, body[start:]] if body else []


def fold(lines: list[str]) -> list[list[str | None]]:
    """Fold print-sink lines (``+I[a, 1]``, optionally ``ident> ``-prefixed) into the final table.

    Rows hold the printed text of each cell (``null`` becomes None); other lines are ignored. A
    ``-U``/``-D`` removes the earliest equal row still in the table; the rows left keep the
    order they were added in. Linear in the lines (per row value, a queue of its positions), so
    a changelog of millions of updates folds in seconds.

    Raises:
        ValueError: a ``-U``/``-D`` of a row that is not in the table.
    """
    at: dict[tuple, deque[int]] = {}
    kept: dict[int, list[str | None]] = {}
    for n, line in enumerate(lines):
        m = ROW.match(line.strip())
        if not m:
            continue
        kind, body = m.groups()
        row = [None if c == "null" else c for c in _cells(body)]
        key = tuple(row)
        if kind in ("+I", "+U"):
            at.setdefault(key, deque()).append(n)
            kept[n] = row
        elif at.get(key):
            del kept[at[key].popleft()]
        else:
            msg = f"{kind}{row} retracts a row that is not in the table"
            raise ValueError(msg)
    return list(kept.values())
