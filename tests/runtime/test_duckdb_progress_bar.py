"""The engine's DuckDB connections draw no progress bar on stdout."""

from __future__ import annotations

import duckdb

from streamsql.functions.python_functions import connect, quiet


def test_a_long_query_prints_no_progress_bar(capfd):
    """DuckDB draws a progress bar on the process's stdout (a pipe or file too) for any query running
    longer than 'progress_bar_time' (2 s): a long query of a job wrote it into the results that
    ``streamsql run`` or the piped shell print there. Here the threshold is 0 ms, so that a short
    query would draw it (setting the threshold turns the bar on again, hence before quiet())."""
    con = duckdb.connect()
    con.execute("SET progress_bar_time = 0")
    quiet(con)
    capfd.readouterr()  # (the SET statements' own bars)
    assert con.execute("SELECT count(*) FROM range(20000000) t(i) WHERE i % 7 = 3").fetchone()[0] == 2857143
    assert capfd.readouterr().out == ""
    assert connect().execute("SELECT current_setting('enable_progress_bar')").fetchone()[0] is False
