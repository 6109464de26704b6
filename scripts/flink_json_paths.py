"""Record Apache Flink 2.3's answers for the JSON path grid (``tests/functions/json_path_grid.py``).

Each expression runs over its input table (``jgrid``, ``jfgrid``, ``jsgrid``: the path a column,
every document with every path; ``jdocs``, ``jfdocs``, ``jsdocs``: a literal path; the ``f``
tables are the filter and function grid, the ``s`` ones the deep scan grid) as ``SELECT id, e0,
e1, ... FROM t`` in PyFlink's local mini-cluster; a group that fails (at planning or in its job) is
halved until the failing expression runs alone. Writes ``tests/functions/flink_json_paths.json``::

    {expr: {"table", "type", "rows": {id: value}} | {"table", "refused": Flink's error}
           | {"table", "type", "error": Flink's job failure}}

Usage (serialized with other Flink users)::

    flock /tmp/flink.lock /work/flinkvenv/bin/python scripts/flink_json_paths.py [TEXT ...]

With arguments, only the expressions containing one of them are recorded and merged into the
file (``fdoc``: the filter and function grid; ``sdoc``: the deep scan grid).
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "scripts")]  # the Flink venv has no StreamSQL: import by path

import flink_session  # noqa: E402

from tests.functions import json_path_grid as g  # noqa: E402

OUT = ROOT / "tests" / "functions" / "flink_json_paths.json"
MAX_ITEMS = 16
CHUNK = 24  # expressions per first query: a failing group of hundreds is slow to halve


def _plain(v):
    """A PyFlink value as JSON (an ARRAY<STRING> is a list)."""
    return list(v) if isinstance(v, (list, tuple)) else v


def _answer(t, table: str, exprs: list[str], out: dict) -> None:
    try:
        query = f"SELECT id, {', '.join(exprs)} FROM {table}"
        schema = t.sql_query(query)._j_table.getResolvedSchema()
        types = [str(x.toString()) for x in schema.getColumnDataTypes()][1:]
    except Exception as e:  # noqa: BLE001  (Flink's refusal is its answer)
        if len(exprs) == 1:
            out[exprs[0]] = {"table": table, "refused": flink_session.error_text(e)[:600]}
            return
        mid = len(exprs) // 2
        _answer(t, table, exprs[:mid], out)
        _answer(t, table, exprs[mid:], out)
        return
    # PyFlink fails to hand over some ARRAY<STRING> values ("Ran out of input"): such a column is
    # collected as its CARDINALITY and elements, put together again here
    cols, width = [], []
    for e, typ in zip(exprs, types):
        if typ.startswith("ARRAY"):
            cols += [f"CARDINALITY({e})"] + [f"CASE WHEN CARDINALITY({e}) >= {i} THEN ({e})[{i}] END"
                                            for i in range(1, MAX_ITEMS + 1)]
            width.append(MAX_ITEMS + 1)
        else:
            cols.append(e)
            width.append(1)
    try:
        raw = flink_session.collect(t, f"SELECT id, {', '.join(cols)} FROM {table}")
        rows = []
        for r in raw:
            out_row, at = [r[0]], 1
            for w in width:
                if w == 1:
                    out_row.append(r[at])
                else:
                    n = r[at]
                    if n is not None and n > MAX_ITEMS:
                        msg = f"an array of {n} items: raise MAX_ITEMS"
                        raise RuntimeError(msg)
                    out_row.append(None if n is None else list(r[at + 1:at + 1 + n]))
                at += w
            rows.append(out_row)
    except Exception as e:  # noqa: BLE001  (a failing job is an answer)
        if len(exprs) == 1:
            out[exprs[0]] = {"table": table, "type": types[0], "error": flink_session.error_text(e)[:600]}
            return
        mid = len(exprs) // 2
        _answer(t, table, exprs[:mid], out)
        _answer(t, table, exprs[mid:], out)
        return
    for n, e in enumerate(exprs):
        out[e] = {"table": table, "type": types[n],
                  "rows": {str(r[0]): _plain(r[n + 1]) for r in sorted(rows, key=lambda r: r[0])}}
        print(f"{e}: {len(rows)} rows", flush=True)


def main() -> int:
    """Record the grid (or, with arguments, the expressions containing one of them, merged)."""
    t = flink_session.table_env(utc=True)
    folder = Path(tempfile.mkdtemp(prefix="jsonpaths-"))
    (folder / "grid.json").write_text(g.json_lines(g.grid_rows(), ("id", "doc", "p")), encoding="utf-8")
    (folder / "docs.json").write_text(g.json_lines(g.doc_rows(), ("id", "doc")), encoding="utf-8")
    t.execute_sql(g.ddl("jgrid", str(folder / "grid.json")))
    t.execute_sql(g.ddl("jdocs", str(folder / "docs.json")))
    (folder / "fgrid.json").write_text(g.json_lines(g.fgrid_rows(), ("id", "fdoc", "fp")), encoding="utf-8")
    (folder / "fdocs.json").write_text(g.json_lines(g.fdoc_rows(), ("id", "fdoc")), encoding="utf-8")
    t.execute_sql(g.ddl("jfgrid", str(folder / "fgrid.json")))
    t.execute_sql(g.ddl("jfdocs", str(folder / "fdocs.json")))
    (folder / "sgrid.json").write_text(g.json_lines(g.sgrid_rows(), ("id", "sdoc", "sp")), encoding="utf-8")
    (folder / "sdocs.json").write_text(g.json_lines(g.sdoc_rows(), ("id", "sdoc")), encoding="utf-8")
    t.execute_sql(g.ddl("jsgrid", str(folder / "sgrid.json")))
    t.execute_sql(g.ddl("jsdocs", str(folder / "sdocs.json")))
    out: dict = {}
    only = sys.argv[1:]
    for table, exprs in (("jgrid", g.GRID_EXPRS), ("jdocs", g.DOC_EXPRS), ("jfgrid", g.FGRID_EXPRS),
                         ("jfdocs", g.FDOC_EXPRS), ("jsgrid", g.SGRID_EXPRS), ("jsdocs", g.SDOC_EXPRS)):
        chosen = [e for e in exprs if not only or any(o in e for o in only)]
        for at in range(0, len(chosen), CHUNK):
            _answer(t, table, chosen[at:at + CHUNK], out)
            _save(out, bool(only))  # as it goes: a long run keeps what it recorded
    print(f"{len(out)} expressions -> {OUT}")
    return 0


def _save(out: dict, merge: bool) -> None:
    """Write the answers so far (merged into the file's others when only some are recorded).

    The file keeps the expressions of the grid only.
    """
    old = json.loads(OUT.read_text(encoding="utf-8")) if OUT.exists() and merge else {}
    grid = set(g.GRID_EXPRS + g.DOC_EXPRS + g.FGRID_EXPRS + g.FDOC_EXPRS + g.SGRID_EXPRS + g.SDOC_EXPRS)
    old = {e: v for e, v in old.items() if e in grid}  # an expression taken out of the grid goes
    old.update(out)
    OUT.write_text(json.dumps(old, indent=1, ensure_ascii=False, sort_keys=True) + "\n", encoding="utf-8")


if __name__ == "__main__":
    sys.exit(main())
