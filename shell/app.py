r"""The interactive shell: read statements, run them, show results, never die on an error.

``streamsql shell [-i INIT.sql]`` calls :func:`run_shell`. The prompt is ``streamsql> `` and a
statement continues over lines (``-> ``) until a ``;`` outside strings and comments; client
commands (HELP, QUIT, EXIT, CLEAR) need no ``;``. History is kept in ``~/.streamsql_history``
(``$STREAMSQL_HISTORY`` overrides it); Ctrl-R searches it.

Example (tests drive it the same way)::

    from prompt_toolkit.input import create_pipe_input
    with create_pipe_input() as inp:
        inp.send_text("SHOW TABLES;\nQUIT\n")
        run_shell(input=inp, output=some_output)
"""

from __future__ import annotations

import os
import sys
import traceback
from functools import partial
from typing import TYPE_CHECKING, TextIO

from prompt_toolkit import PromptSession
from prompt_toolkit.application import create_app_session
from prompt_toolkit.auto_suggest import AutoSuggestFromHistory
from prompt_toolkit.history import FileHistory, History, InMemoryHistory
from prompt_toolkit.input import Input
from prompt_toolkit.output import Output, create_output
from sqlglot import exp
from streamsql.shell import commands
from streamsql.shell.buffer import input_is_multiline
from streamsql.shell.completer import SqlCompleter
from streamsql.shell.keys import shell_key_bindings
from streamsql.shell.ordering import resolve_keys, split_order_by
from streamsql.shell.results import Stream, counted, show_sorted, show_stream
from streamsql.shell.stdout import patch_stdout
from streamsql.shell.style import shell_style, sql_lexer
from streamsql.shell.toolbar import create_toolbar

from streamsql.core.errors import ExecutionError, SqlError, StatementError, StreamSQLError, user_text
from streamsql.core.interrupts import INTERRUPTED, exit_code
from streamsql.core.secrets import redact
from streamsql.environment import StreamEnvironment
from streamsql.jobs import FailureWatch, failure_notice, job_summary
from streamsql.output import shown_changelog, tableau
from streamsql.plan.temporal_sort import NotTemporalSortError
from streamsql.sql import nodes as n
from streamsql.sql.parser import error_at, error_in_script, parse_statement, read_script, split_statements
from streamsql.table_result import TableResult

if TYPE_CHECKING:
    from collections.abc import Callable

    from streamsql.runtime.job import JobHandle
    from streamsql.sql.split import Statement

PROMPT = "streamsql> "
CONTINUATION = "-> "
BANNER = """\
StreamSQL shell — Flink SQL over Kafka, exactly-once.
End statements with ';' (they may span lines). HELP; lists commands and statements, QUIT; leaves.
"""

#: Statements an init file (``-i``) may contain: DDL, USE [CATALOG] and SET/RESET.
INIT_STATEMENTS = (exp.Create, exp.Drop, exp.Use, n.CreateCatalog, n.DropCatalog, n.SetOption, n.ResetOption)


def history_path() -> str:
    """Where the history is kept: ``$STREAMSQL_HISTORY`` or ``~/.streamsql_history``."""
    return os.environ.get("STREAMSQL_HISTORY") or os.path.join(os.path.expanduser("~"), ".streamsql_history")


class SecretSafeHistory(FileHistory):
    """The history file, created 0600, storing statements with their secrets masked.

    Recalling an entry in the same session gives the text as typed; the file (and so the next
    session) has ``'properties.sasl.password' = '******'`` (:func:`~streamsql.core.secrets.redact`).
    """

    def store_string(self, string: str) -> None:
        """Append one entry to the file, secrets masked."""
        super().store_string(redact(string))


def _history() -> History:
    path = history_path()
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600))
        os.chmod(path, 0o600)  # also a file an older version created 0644: it may hold secrets
        return SecretSafeHistory(path)
    except OSError:  # a read-only home must not stop the shell
        return InMemoryHistory()


class Shell:
    """One shell session over a :class:`StreamEnvironment`.

    Args:
        env: the environment statements run in.
        input: prompt-toolkit input (None: the terminal).
        output: prompt-toolkit output (None: the terminal).
        interactive: False to read statements from a non-terminal stream (no prompt, no
            live views): used when stdin is a pipe or file.
        stdout: where non-interactive output goes (default ``sys.stdout``).
        raise_errors: :meth:`report` raises the error instead of printing it (``streamsql run``,
            which runs its shell statements here, says its errors itself).
    """

    def __init__(self, env: StreamEnvironment, input: Input | None = None, output: Output | None = None,
                 interactive: bool = True, stdout: TextIO | None = None, raise_errors: bool = False):
        self.env = env
        self.raise_errors = raise_errors
        self.interactive = interactive
        self.statement_set: list[str] | None = None  # INSERT texts between BEGIN STATEMENT SET and END
        self.failed = False  # a statement failed (a non-interactive shell stops there, exit 1)
        self.interrupted = False  # Ctrl-C during a statement (a non-interactive shell stops, exit 130)
        self.style = shell_style()
        self._stdout = stdout or sys.stdout
        self.session: PromptSession | None = None
        if interactive:
            self.session = PromptSession(
                input=input, output=output or create_output(), history=_history(), lexer=sql_lexer(),
                completer=SqlCompleter(env), complete_while_typing=False,
                auto_suggest=AutoSuggestFromHistory(),
                multiline=input_is_multiline(), prompt_continuation=self._continuation,
                key_bindings=shell_key_bindings(), style=self.style, include_default_pygments_style=False,
                bottom_toolbar=create_toolbar(self), search_ignore_case=True, enable_open_in_editor=True)

    # -- terminal ------------------------------------------------------------------------------
    @property
    def input(self) -> Input | None:
        """The prompt-toolkit input (interactive mode)."""
        return self.session.input if self.session else None

    @property
    def output(self) -> Output | None:
        """The prompt-toolkit output (interactive mode)."""
        return self.session.output if self.session else None

    def writes_to_terminal(self) -> bool:
        """Whether the output is a terminal (a prompt's, or a piped shell's stdout)."""
        if self.session is not None:
            return True
        isatty = getattr(self._stdout, "isatty", None)
        return bool(isatty and isatty())

    def write(self, text: str) -> None:
        """Print text (not during a prompt)."""
        if self.session is None:
            self._stdout.write(text)
            self._stdout.flush()
            return
        self.session.output.write_raw(text)
        self.session.output.flush()

    def info(self, text: str) -> None:
        """Print an ``[INFO]`` line."""
        self.write(f"[INFO] {text}\n")

    def error(self, text: str) -> None:
        """Print an ``[ERROR]`` message (may span lines; secrets masked)."""
        self.write(f"[ERROR] {redact(text)}\n")

    def report(self, e: BaseException) -> None:
        """Print an exception as users see errors; a stack trace only in verbose mode.

        Marks the shell :attr:`failed`: also a query or PRINT TOPIC that fails while it streams
        ends a script fed from a pipe with exit 1.

        Raises:
            BaseException: ``e`` itself, when the shell was made with ``raise_errors``.
        """
        self.failed = True
        if self.raise_errors:
            raise e
        verbose = self._verbose()
        if isinstance(e, StreamSQLError):
            self.error(str(e))
        else:
            hint = "" if verbose else "\nSET 'sql-client.verbose' = 'true' shows the stack trace."
            self.error(f"{user_text(e)}{hint}")
        if verbose:
            self.write(redact("".join(traceback.format_exception(type(e), e, e.__traceback__))))

    def _verbose(self) -> bool:
        try:
            return self.env.config.boolean("sql-client.verbose")
        except StreamSQLError:
            return False

    def clear_screen(self) -> None:
        """Clear the terminal (CLEAR)."""
        if self.session is not None:
            self.session.output.erase_screen()
            self.session.output.cursor_goto(0, 0)
            self.session.output.flush()

    @staticmethod
    def _continuation(width: int, line_number: int, is_soft_wrap: bool) -> list[tuple[str, str]]:
        return [("class:continuation", CONTINUATION.rjust(width))]

    # -- the loop ------------------------------------------------------------------------------
    def loop(self) -> int:
        """Prompt, run, repeat until QUIT/EXIT or Ctrl-D; returns the exit code (0)."""
        assert self.session is not None
        # Rows a job prints to stdout (the print connector) and the notice of a background job's
        # failure appear above the prompt, which is redrawn after them (shell/stdout.py).
        with create_app_session(input=self.input, output=self.output), patch_stdout(raw=True), \
                FailureWatch(self.env.jobs, self._notice, on_restart=self._notice):
            return self._loop()

    @staticmethod
    def _notice(job: JobHandle) -> None:
        """A background job failed: say so at once, above the prompt (stdout is patched)."""
        print(f"{failure_notice(job)}\n[INFO] DESCRIBE JOB '{job.job_id}' shows the whole error.", flush=True)

    def _loop(self) -> int:
        assert self.session is not None
        self.write(BANNER)
        while True:
            try:
                text = self.session.prompt([("class:prompt", PROMPT)])
            except KeyboardInterrupt:  # Ctrl-C at the prompt clears the input
                continue
            except EOFError:  # Ctrl-D
                self.write("\n")
                break
            if not self.run_input(text):
                break
        self.shutdown()
        return 0

    def run_input(self, text: str) -> bool:
        """Run every statement of ``text``; False once one asks the shell to end."""
        for st in split_statements(text):
            if not self.run_statement(st.text):
                return False
        return True

    def run_statement(self, sql: str,
                      place: Callable[[StatementError], StatementError] | None = None) -> bool:
        """Run one statement (or client command), printing its result or error.

        Never raises (except SystemExit): an error is reported and the shell goes on. ``place``
        re-positions a statement error in the whole input (piped input, as ``streamsql run``);
        without it, positions count from the statement, as typed at the prompt.

        Returns:
            False for QUIT/EXIT (the shell should end), else True.
        """
        before = set(self.env.jobs)
        INTERRUPTED.clear()  # a Ctrl-C at the prompt before this statement is not its own
        try:
            return self.execute(parse_statement(sql), sql)
        except KeyboardInterrupt:  # e.g. Ctrl-C while an INSERT waits ('table.dml-sync' = 'true')
            self._interrupted(before)
        except Exception as e:  # an error never ends the interactive shell
            if INTERRUPTED.is_set():  # the Ctrl-C, turned by DuckDB into an error of its own
                self._interrupted(before)
            else:
                self.report(place(e) if place is not None and isinstance(e, StatementError) else e)
        return True

    def execute(self, tree: exp.Expression, sql: str) -> bool:
        """Run one parsed statement or client command; errors are raised, not reported.

        ``streamsql run`` and ``shell -f`` run their shell statements (:data:`commands.SHELL_STATEMENTS`)
        through this too, so every entry point takes the same statements.

        Returns:
            False for QUIT/EXIT (the shell, or the script, should end), else True.
        """
        found = commands.command_of(tree, sql)
        if found is not None:
            cmd, arg = found
            return cmd.handler(self, arg)
        self.dispatch(tree, sql)
        return True

    def _interrupted(self, before: set[str]) -> None:
        """Ctrl-C during a statement: cancel the jobs it started and say so (a script then ends, 130)."""
        self.interrupted = True
        started = [j for k, j in self.env.jobs.items() if k not in before and not j.done]
        for job in started:
            job.cancel()
        self.write("\n")
        ids = ", ".join(j.job_id for j in started)
        self.info(f"Interrupted; cancelled job {ids}." if started else "Interrupted.")

    def dispatch(self, tree: exp.Expression, sql: str) -> None:
        """Run a parsed statement: shell-level ones here, the rest in the environment."""
        if isinstance(tree, n.BeginStatementSet):
            if self.statement_set is not None:
                msg = "A statement set is already open; END; runs it"
                raise SqlError(msg, sql)
            self.statement_set = []
            self.info("Begin a statement set.")
            return
        if isinstance(tree, n.EndStatementSet):
            self._end_statement_set(sql)
            return
        if self.statement_set is not None:
            if not isinstance(tree, exp.Insert):
                msg = "Only INSERT statements can be added to a statement set; END; runs it"
                raise SqlError(msg, sql)
            self.statement_set.append(sql)
            self.info("Add SQL update statement to the statement set.")
            return
        if isinstance(tree, n.PrintTopic):
            self._print_topic(tree, sql)
            return
        stripped, order = split_order_by(tree)
        if order and isinstance(tree, exp.Select):
            try:  # ORDER BY a time attribute: the job's temporal sort emits in order; show that
                result = self.env.execute_parsed(tree, sql)
            except NotTemporalSortError:
                result = None
            if result is not None:
                self.show(result)
                return
        # any other ORDER BY of a query: the result view sorts the final table (shell/ordering.py)
        self.show(self.env.execute_parsed(stripped, sql), order, sql)

    def _end_statement_set(self, sql: str) -> None:
        if self.statement_set is None:
            msg = "No statement set is open; BEGIN STATEMENT SET; starts one"
            raise SqlError(msg, sql)
        inserts, self.statement_set = self.statement_set, None
        if not inserts:
            self.info("The statement set was empty; nothing was submitted.")
            return
        block = "EXECUTE STATEMENT SET\nBEGIN\n" + "".join(f"{s};\n" for s in inserts) + "END"
        self.show(self.env.execute_sql(block))

    def show(self, result: TableResult, order: list | None = None, sql: str = "") -> None:
        """Print a statement's result; queries live, or sorted when they end (by the ORDER BY ``order``)."""
        if result.kind == "query":
            job = result.job
            rows = shown_changelog(result.collect(), result.column_types, result.time_zone)
            stream = Stream(result.columns, rows, job.cancel if job else (lambda: None), job)
            if order:
                try:
                    keys = resolve_keys(order, result.columns, sql)
                except SqlError:
                    stream.cancel()
                    raise
                show_sorted(self, stream, keys)
                return
            show_stream(self, stream, self.env.config.get("sql-client.execution.result-mode") or "tableau")
        elif result.kind == "rows":
            if result.rows:
                summary = f"{counted(len(result.rows), 'rows')} in set"
                self.write(tableau(result.columns, result.rows) + f"\n{summary}\n")
            else:
                self.write("Empty set\n")
        elif result.message:
            self.write(result.message.rstrip("\n") + "\n")

    def _print_topic(self, tree: n.PrintTopic, sql: str) -> None:
        """PRINT TOPIC: the topic is found before the result starts.

        So a missing topic (or broker) is an error at the topic's name in the statement, as any
        SQL error (a SqlError with line, column and caret).
        """
        from streamsql.shell.print_topic import COLUMNS, TopicReader, bootstrap_servers, request_from_tree

        req = request_from_tree(tree)
        # Read from a pipe or file, nobody can press Ctrl-C: the read is bounded by the jobs.
        running = None if self.interactive else (lambda: any(not j.done for j in self.env.jobs.values()))
        reader = TopicReader(req, bootstrap_servers(self.env.config.get("properties.bootstrap.servers")),
                             jobs_running=running)
        try:
            reader.open()
        except ExecutionError as e:
            raise error_at(tree.this, str(e), sql) from None
        stream = Stream(COLUMNS, reader, reader.cancel, None, "records", wide=("key", "value"),
                        left_text=True)
        show_stream(self, stream, "tableau")

    # -- init file and exit --------------------------------------------------------------------
    def run_init(self, path: str) -> bool:
        """Run an init script of DDL and SET statements; False (with a message) on any problem."""
        try:
            script = read_script(path)
        except StreamSQLError as e:
            self.error(f"Init file: {e}")
            return False
        count = 0
        for st in split_statements(script):
            try:
                tree = parse_statement(st.text)
                if not isinstance(tree, INIT_STATEMENTS):
                    kind = st.text.split()[0].upper()
                    self.error(f"{path}:{st.line}: {kind} statements are not allowed in an init file; "
                               "it may hold only DDL (CREATE, DROP), USE and SET/RESET statements")
                    return False
                self.env.execute_parsed(tree, st.text)
            except StatementError as e:  # a SqlError or PlanError, positioned in the init file
                self.error(str(e.with_offset(script, st.line - 1, path)))
                return False
            except Exception as e:
                text = user_text(e)
                self.error(f"{path}:{st.line}: {text}")
                return False
            count += 1
        self.info(f"Executed {count} statement{'s' if count != 1 else ''} from {path}.")
        return True

    def shutdown(self) -> None:
        """Cancel the jobs still running (they live in this process) and say goodbye."""
        running = [j for j in self.env.jobs.values() if not j.done]
        if running:
            self.info(f"Cancelling {len(running)} running job{'s' if len(running) > 1 else ''}: "
                      + ", ".join(j.job_id for j in running))
        self.env.close()
        self.write("Goodbye!\n")


def run_script_stream(shell: Shell, text: str) -> int:
    """Non-interactive mode (stdin is not a terminal): run the statements of ``text`` as ``streamsql run``.

    The first statement that fails ends the script (exit 1), as in ``streamsql run``. QUIT or
    EXIT ends it at once (exit 0): the jobs still running are cancelled, with a message, as at
    the terminal — the jobs live in this process, so they cannot outlive it as a Flink SQL
    client's jobs outlive the client on a cluster. At the end of the input without QUIT the
    shell says which jobs it waits for and waits, as ``streamsql run`` does (an unbounded job
    until Ctrl-C, which cancels them; exit 130, or 143 for SIGTERM). INSERT jobs run in the
    background meanwhile; PRINT TOPIC reads are bounded by them (:mod:`streamsql.shell.print_topic`).
    """
    code = 0
    notice = lambda job: shell.write(failure_notice(job) + "\n")  # noqa: E731
    with FailureWatch(shell.env.jobs, notice, on_restart=notice) as watch:
        statements = split_statements(text)
        for i, st in enumerate(statements):
            # Errors at their line and column in the input, as streamsql run gives them in a file.
            place = partial(_in_input, stmt=st, text=text, earlier=statements[:i])
            if not shell.run_statement(st.text, place):  # QUIT/EXIT: leave now, as at the terminal
                shell.shutdown()
                return 0
            if shell.failed:
                shell.shutdown()
                return 1
            # Ctrl-C ends the script, as streamsql run's (it cancelled the jobs); also one that only ended
            # a PRINT TOPIC read (the read took it: INTERRUPTED says it came)
            if shell.interrupted or INTERRUPTED.is_set():
                shell.shutdown()
                return exit_code()
        try:  # (the message inside: a Ctrl-C right after it is the wait's)
            running = [j.job_id for j in shell.env.jobs.values() if not j.done]
            if running:  # an unbounded job never ends: say what the shell waits for and how to stop it
                shell.info(f"End of input; waiting for {counted(len(running), 'jobs')} to finish "
                           f"({', '.join(running)}). Ctrl-C cancels them; a script ending with QUIT; "
                           "cancels them instead of waiting.")
            shell.env.wait_all()
            for job in shell.env.jobs.values():  # as streamsql run (and shell -f) ends
                shell.write(job_summary(job) + "\n")
        except KeyboardInterrupt:
            code = exit_code()
        except Exception as e:
            watch.poll()  # a job's failure is reported by the watch, the rest here
            if not any(e is job.error for job in shell.env.jobs.values()):
                shell.report(e)
            code = 1
    shell.shutdown()
    return code


def _in_input(error: StatementError, stmt: Statement, text: str, earlier: list[Statement]) -> StatementError:
    return error_in_script(error, stmt, text, None, earlier)


def run_shell(init_file: str | None = None, settings: dict[str, str] | None = None,
              input: Input | None = None, output: Output | None = None,
              env: StreamEnvironment | None = None) -> int:
    """Run the interactive shell until QUIT, EXIT or Ctrl-D.

    Args:
        init_file: a script of DDL and SET statements to run first (``-i``).
        settings: initial configuration (``--set KEY=VALUE``).
        input: prompt-toolkit input (tests pass ``create_pipe_input()``); None: the terminal.
        output: prompt-toolkit output; None: the terminal.
        env: the environment to use (default: a new one with ``settings``).

    Returns:
        0 when the user quits; 1 when the init file fails.
    """
    env = env or StreamEnvironment(settings)
    interactive = input is not None or sys.stdin.isatty()
    shell = Shell(env, input=input, output=output, interactive=interactive)
    if init_file and not shell.run_init(init_file):
        env.close()
        return 1
    if not interactive:
        return run_script_stream(shell, sys.stdin.read())
    return shell.loop()
