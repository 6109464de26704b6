"""Ctrl-C while the piped shell plans a statement: an interrupt (exit 130), never an internal error.

A SIGINT that comes while DuckDB runs a query of the planner reaches Python inside DuckDB's read
of a registered table; DuckDB turns the KeyboardInterrupt into an error of its own, "Invalid Input
Error: reading the schema of the object registered as '__in' failed: KeyboardInterrupt". Piped
into ``streamsql shell`` with an INSERT over a Kafka source, Ctrl-C 3 s after the start printed
"[ERROR] Internal error (a bug in StreamSQL; please report it): Invalid Input Error: ..." and
exited 1 (``streamsql run`` already knew: its SIGINT handler remembers the signal,
streamsql.core.interrupts). The signal is simulated here: the handler's flag is set and DuckDB's
error raised, as they are then.
"""

from __future__ import annotations

import io

import duckdb
from streamsql.shell.app import Shell, run_script_stream

from streamsql import StreamEnvironment
from streamsql.core.interrupts import INTERRUPTED


def test_a_ctrl_c_that_duckdb_turned_into_its_error_ends_the_script_with_130(tmp_path):
    env = StreamEnvironment({"execution.checkpointing.dir": str(tmp_path / "cp")})
    out = io.StringIO()
    shell = Shell(env, interactive=False, stdout=out)
    planned = []

    def dispatch(tree, sql):
        planned.append(sql)
        INTERRUPTED.set()  # what streamsql.cli._on_sigint does before raising KeyboardInterrupt
        msg = ("Invalid Input Error: reading the schema of the object registered as '__in' failed: "
               "KeyboardInterrupt: ")
        raise duckdb.InvalidInputException(msg)

    shell.dispatch = dispatch
    try:
        code = run_script_stream(shell, "SELECT 1;\nSELECT 2;\n")
    finally:
        INTERRUPTED.clear()
    text = out.getvalue()
    assert code == 130, text
    assert "Interrupted." in text, text
    assert "Internal error" not in text and "Invalid Input Error" not in text, text
    assert planned == ["SELECT 1;"] or planned == ["SELECT 1"], planned  # the script ended there


def test_a_ctrl_c_at_the_prompt_does_not_turn_a_later_error_into_an_interrupt(tmp_path):
    env = StreamEnvironment({"execution.checkpointing.dir": str(tmp_path / "cp")})
    out = io.StringIO()
    shell = Shell(env, interactive=False, stdout=out)
    INTERRUPTED.set()  # an earlier Ctrl-C, taken by the prompt
    try:
        code = run_script_stream(shell, "SELEC 1;\n")
    finally:
        INTERRUPTED.clear()
    assert code == 1, out.getvalue()
    assert "Interrupted" not in out.getvalue()
