"""ORDER BY of a query in the shell: the final table, sorted, when the query ends (shell/ordering.py).

The rows of a GROUP BY arrive as a changelog in key order of no use to the reader; the table the
shell prints must be the folded result in ORDER BY order (DESC, NULLS, several keys, positions),
checked against DuckDB's ORDER BY over the same rows. An ORDER BY an event-time attribute is the
job's own temporal sort: the shell shows the rows the job emits, late rows dropped, in Flink's
order (a compat case's expected.json, PyFlink 2.3's print sink).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import duckdb
import pytest
from streamsql.shell.ordering import SortKey, sort_rows

ROWS = [(3, 1), (1, None), (2, 5), (None, 2), (1, 7), (2, 5), (None, None), (3, -4)]


@pytest.mark.parametrize("order", ["a", "a DESC", "b DESC, a", "a NULLS LAST, b DESC NULLS FIRST",
                                   "2, 1 DESC"])
def test_sort_rows_equals_duckdb(order):
    from streamsql.shell.ordering import resolve_keys, split_order_by

    from streamsql.sql.parser import parse_statement

    sql = f"SELECT a, b FROM t ORDER BY {order}"
    stripped, keys = split_order_by(parse_statement(sql))
    assert stripped.args.get("order") is None
    got = sort_rows(ROWS, resolve_keys(keys, ["a", "b"], sql))
    con = duckdb.connect()
    con.execute("CREATE TABLE t (a INTEGER, b INTEGER)")
    con.executemany("INSERT INTO t VALUES (?, ?)", ROWS)
    # DuckDB's default is NULLS LAST for both directions: spell out Flink's (first for ASC, last for DESC)
    flink = ", ".join(k if "NULLS" in k else f"{k} NULLS LAST" if "DESC" in k else f"{k} NULLS FIRST"
                      for k in (p.strip() for p in order.split(",")))
    assert got == con.execute(f"SELECT a, b FROM t ORDER BY {flink}").fetchall()


def test_equal_rows_keep_their_order():
    rows = [(1, "x"), (0, "y"), (1, "z")]
    assert sort_rows(rows, [SortKey(0, True, False)]) == [(1, "x"), (1, "z"), (0, "y")]


def test_a_group_by_is_shown_sorted_when_it_ends(shell, workdir):
    (workdir / "s.json").write_text("".join(f'{{"k": {k}, "v": {v}}}\n' for k, v in
                                            [(3, 1), (1, "null"), (2, 5), ("null", 2), (1, 7)]))
    sh = shell()
    sh.send_expect(f"CREATE TABLE s (k INT, v INT) WITH ('connector' = 'filesystem', 'path' = "
                   f"'{workdir / 's.json'}', 'format' = 'json');\n", r"\[INFO\] Execute statement succeeded")
    m = sh.mark()
    sh.send("SELECT k, SUM(v) AS total FROM s GROUP BY k ORDER BY total DESC;\n")
    sh.expect(r"4 rows in set \(the final table, sorted\)", after=m)
    out = sh.screen()[m:]
    table = [re.findall(r"[^|\s]+", line) for line in out.splitlines() if line.startswith("|")]
    assert table == [["k", "total"], ["1", "7"], ["2", "5"], ["<NULL>", "2"], ["3", "1"]], out
    m = sh.mark()
    sh.send("SELECT k, v FROM s ORDER BY k + 1;\n")
    sh.expect(r"name a column of the SELECT list \(k, v\) or give its position", after=m)
    sh.send("QUIT\n")
    assert sh.wait() == 0


def test_an_order_by_rowtime_shows_what_the_job_emits(shell, workdir):
    """Late rows are dropped as the job drops them: not the input sorted by the shell."""
    case = Path(__file__).resolve().parents[1] / "compat" / "cases" / "temporal_sort_late_rows_secondary_keys"
    ddl = (case / "case.sql").read_text().replace("${CASE_DIR}", str(case)).split(";")[0]
    sh = shell()
    sh.send_expect(" ".join(ddl.split()) + ";\n", r"\[INFO\] Execute statement succeeded")
    m = sh.mark()
    sh.send("SELECT id, k, v, ts FROM ev ORDER BY ts, k DESC, v;\n")
    sh.expect(r"Received a total of 10 rows", after=m)
    out = sh.screen()[m:]
    assert "sorted" not in out, out
    shown = [[c.strip() for c in line.strip("|").split("|")] for line in out.splitlines()
             if line.startswith("|")][1:]
    assert {row[0] for row in shown} == {"+I"}, out

    def text(cell):  # Flink's print sink and the shell's table spell NULL and timestamps apart
        if cell is None or cell == "<NULL>":
            return None
        return re.sub(r"(\.\d*?)0+$", r"\1", cell.replace("T", " ")).rstrip(".")

    expected = json.loads((case / "expected.json").read_text())["rows"]
    assert [[text(c) for c in row[1:]] for row in shown] == [[text(c) for c in row] for row in expected], out
    sh.send("QUIT\n")
    assert sh.wait() == 0


def test_order_by_rowtime_is_flinks_temporal_sort(shell, workdir):
    """ORDER BY an ascending rowtime streams rows as the watermark passes (Flink's TemporalSort),
    as Flink's SQL client runs it: the rowtime need not be selected, and no final-table view."""
    rows = [(1, "2024-05-01 10:00:05"), (2, "2024-05-01 10:00:01"), (3, "2024-05-01 10:00:03"),
            (4, "2024-05-01 10:00:02"), (5, "2024-05-01 10:00:09")]
    (workdir / "e.json").write_text("".join(f'{{"id": {i}, "ts": "{ts}"}}\n' for i, ts in rows))
    sh = shell()
    path = workdir / "e.json"
    sh.send_expect(f"CREATE TABLE e (id INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' MINUTE) "
                   f"WITH ('connector' = 'filesystem', 'path' = '{path}', 'format' = 'json');\n",
                   r"\[INFO\] Execute statement succeeded")
    m = sh.mark()
    sh.send("SELECT id FROM e ORDER BY ts;\n")
    sh.expect(r"Received a total of 5 rows", after=m)
    out = sh.screen()[m:]
    assert "the final table, sorted" not in out, out
    got = [re.findall(r"[^|\s]+", line) for line in out.splitlines() if line.startswith("|")][1:]
    con = duckdb.connect()
    con.execute("CREATE TABLE e (id INTEGER, ts TIMESTAMP)")
    con.executemany("INSERT INTO e VALUES (?, ?)", rows)
    assert got == [["+I", str(i)] for (i,) in con.execute("SELECT id FROM e ORDER BY ts").fetchall()], out
    sh.send("QUIT\n")
    assert sh.wait() == 0
