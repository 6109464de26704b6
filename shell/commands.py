"""Client commands: a decorator-based registry, from which HELP is generated.

The registry follows litecli's ``special`` package.

A command is a function ``(shell, arg) -> bool`` registered with :func:`command`; it returns
False to end the shell. ``arg`` is the command's argument as parsed (HELP's name), else "".
Example::

    @command("CLEAR", description="Clears the screen.")
    def clear(shell, arg):
        shell.clear_screen()
        return True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

from sqlglot import exp

from streamsql.core.errors import SqlError
from streamsql.sql import nodes as n
from streamsql.sql.parser import error_at

if TYPE_CHECKING:
    from streamsql.shell.app import Shell


@dataclass(frozen=True)
class Command:
    """One registered client command."""

    name: str
    aliases: tuple[str, ...]
    usage: str
    description: str
    handler: Callable[[Shell, str], bool]


COMMANDS: dict[str, Command] = {}
"""Every command by its name and by each alias (upper case)."""

#: The SQL statements HELP lists: (syntax, what it does).
SQL_STATEMENTS: tuple[tuple[str, str], ...] = (
    ("CREATE [TEMPORARY] TABLE [IF NOT EXISTS] t (...) WITH (...)", "Declares a table over a connector."),
    ("CREATE [TEMPORARY] VIEW v AS query", "Declares a view."),
    ("CREATE TABLE t2 [(...)] [WITH (...)] LIKE t [(INCLUDING|EXCLUDING|OVERWRITING ...)]",
     "Declares a table from another one's columns, watermark, key and options (Flink's merging)."),
    ("CREATE TABLE t [(...)] WITH (...) AS SELECT ...",
     "Declares a table with the query's columns and starts the INSERT that fills it (CTAS)."),
    ("ALTER TABLE [IF EXISTS] t ADD|MODIFY|DROP|RENAME ... | RENAME TO t2 | SET ('k' = 'v') | RESET ('k')",
     "Changes a table's columns, watermark, key, name or options (jobs already running keep the old table)."),
    ("DROP TABLE|VIEW [IF EXISTS] name", "Removes a table or view."),
    ("CREATE [TEMPORARY] [SYSTEM] FUNCTION [IF NOT EXISTS] f AS 'module.function' LANGUAGE PYTHON",
     "Declares a Python function (docs/udf.md); DROP FUNCTION f removes it."),
    ("SHOW [USER] FUNCTIONS", "Lists the built-in and user functions (USER: only the latter)."),
    ("SHOW CATALOGS | SHOW DATABASES", "Lists the catalogs, or the current catalog's databases."),
    ("SHOW CURRENT CATALOG | SHOW CURRENT DATABASE", "Prints where unqualified names resolve."),
    ("USE CATALOG c | USE [c.]db", "Changes the current catalog or database (names: t, db.t, c.db.t)."),
    ("CREATE|DROP DATABASE [IF [NOT] EXISTS] db",
     "Adds or removes a database (DROP ... CASCADE: with its tables)."),
    ("CREATE CATALOG c WITH ('type' = 'generic_in_memory')",
     "Adds an in-memory catalog; DROP CATALOG c removes it."),
    ("SHOW [FULL] MODULES", "Lists the function modules (Flink's: core)."),
    ("DESCRIBE FUNCTION [EXTENDED] f",
     "Prints a function's info rows (EXTENDED: kind, determinism, signature); a reserved name in backticks."),
    ("DESCRIBE CATALOG [EXTENDED] c", "Prints a created catalog's name, type and comment."),
    ("SHOW JARS | SHOW MODELS | SHOW MATERIALIZED TABLES",
     "Flink's empty lists: StreamSQL has no jars, models or materialized tables."),
    ("SELECT ...", "Runs a continuous query and shows its result (see 'sql-client.execution.result-mode')."),
    ("INSERT INTO t SELECT ...", "Submits a job that writes a query into a table; prints its id."),
    ("EXECUTE STATEMENT SET BEGIN INSERT ...; ...; END", "Submits several INSERTs as one job."),
    ("BEGIN STATEMENT SET; INSERT ...; END", "The same, one statement per input."),
    ("SET ['key' = 'value']", "Sets a configuration option, or lists them all."),
    ("RESET ['key']", "Resets one option, or all of them."),
    ("SHOW TABLES | SHOW VIEWS [FROM db] [[NOT] LIKE 'p%']", "Lists tables or views (LIKE: by name)."),
    ("SHOW CREATE TABLE t | SHOW CREATE VIEW v", "Prints the DDL of a table or view."),
    ("DESCRIBE [EXTENDED] t", "Prints a table's columns."),
    ("SHOW COLUMNS FROM t [[NOT] LIKE 'p%']", "Prints a table's columns whose name matches."),
    ("EXPLAIN statement", "Prints the operator graph and each sink's delivery guarantee."),
    ("SHOW JOBS", "Lists the jobs started in this shell with their status (and a failed job's cause)."),
    ("DESCRIBE JOB 'id'", "Prints a job's status, counts, checkpoints and, if it failed, the whole error."),
    ("STOP JOB 'id'", "Cancels a job, as Flink (WITH SAVEPOINT: stops it after a final checkpoint)."),
    ("PRINT TOPIC name [FROM BEGINNING] [LIMIT n]", "Shows a Kafka topic's raw records."),
)

#: Keys worth knowing, shown at the end of HELP.
KEYS_HELP = (
    "Enter runs the input once it ends with ';' (outside strings and comments); otherwise it starts\n"
    "a new line. Tab completes; Ctrl-R searches the history; Ctrl-C clears the input or stops a running\n"
    "query; Ctrl-D or QUIT leaves the shell."
)


def command(name: str, *aliases: str, usage: str | None = None, description: str = ""):
    """Register the decorated function as the client command ``name`` (and ``aliases``)."""

    def register(fn: Callable[[Shell, str], bool]) -> Callable[[Shell, str], bool]:
        cmd = Command(name.upper(), tuple(a.upper() for a in aliases), usage or name.upper(), description, fn)
        for key in (cmd.name, *cmd.aliases):
            COMMANDS[key] = cmd
        return fn

    return register


def command_of(tree: exp.Expr, sql: str = "") -> tuple[Command, str] | None:
    """The command a parsed statement invokes and its argument, or None when it is not a command.

    The grammar (``streamsql.sql.grammar``) is the one parser of commands, whichever entry point
    read the statement (the prompt, a pipe, ``streamsql run``, ``shell -f``).

    Raises:
        SqlError: a command the grammar knows but the registry does not; HELP of a name that is
            neither ``connectors`` nor a connector, at the name.
    """
    if not isinstance(tree, n.ClientCommand):
        return None
    name = tree.this.name.upper()
    if name not in COMMANDS:
        msg = f"Unknown command {name}; HELP lists commands"
        raise SqlError(msg, sql)
    arg = tree.args.get("expression")
    if name == "HELP" and arg is not None and connector_help(arg.name) is None:
        # an error at the name (line:column), so that a script stops there as at any other error
        raise error_at(arg, f"No help for '{arg.name}'; try HELP connectors", sql)
    return COMMANDS[name], (arg.name if arg is not None else "")


#: The statements only the shell runs (the environment does not): client commands and PRINT TOPIC.
SHELL_STATEMENTS = (n.ClientCommand, n.PrintTopic)


def unique_commands() -> list[Command]:
    """Each command once, sorted by name."""
    return sorted({c.name: c for c in COMMANDS.values()}.values(), key=lambda c: c.name)


def help_text() -> str:
    """HELP's text: the client commands, then the SQL statements, then the keys."""
    cmds = [(", ".join((c.usage, *c.aliases)), c.description) for c in unique_commands()]
    width = max(len(u) for u, _ in cmds)
    out = ["The following commands are available:", ""]
    out += [f"{u:<{width}}  {d}" for u, d in cmds]
    out += ["", "SQL statements (end each with ';'):", ""]
    for syntax, what in SQL_STATEMENTS:
        out += [syntax, f"    {what}"]
    out += ["", KEYS_HELP]
    return "\n".join(out)


def connector_help(name: str) -> str | None:
    """HELP for one connector (its options), ``connectors`` for the list; None if unknown."""
    from streamsql.connectors.registry import known_connectors

    specs = known_connectors()
    if name.lower() in ("connector", "connectors"):
        width = max(len(n) for n in specs)
        lines = ["Connectors (HELP <name> lists its options):", ""]
        lines += [f"{n:<{width}}  {s.description}".rstrip() for n, s in specs.items()]
        return "\n".join(lines)
    spec = specs.get(name.strip("'`").lower())
    if spec is None:
        return None
    lines = [f"Connector '{spec.name}'" + (f": {spec.description}" if spec.description else ""), ""]
    width = max([len(o.key) for o in spec.options] + [10])
    for o in spec.options:
        notes = []
        if o.required:
            notes.append("required")
        if o.default is not None:
            notes.append(f"default '{o.default}'")
        if o.choices:
            notes.append("one of " + ", ".join(o.choices))
        extra = f" ({'; '.join(notes)})" if notes else ""
        lines.append(f"'{o.key}'".ljust(width + 2) + f"  {o.description}{extra}")
    for prefix in spec.option_prefixes:
        lines.append(f"'{prefix}*'".ljust(width + 2) + "  passed through")
    if spec.uses_format:
        lines.append("Formats: 'format' = json | csv | raw | debezium-json | canal-json | maxwell-json | "
                     "ogg-json, with their '<format>.*' options.")
    return "\n".join(lines)


# -- the built-in commands -------------------------------------------------------------------


@command("HELP", usage="HELP [connectors | <connector>]",
         description="Prints this help; HELP connectors lists connectors, HELP kafka a connector's options.")
def _help(shell: Shell, arg: str) -> bool:
    if arg:  # a known name: command_of refused the others
        shell.write(f"{connector_help(arg)}\n")
        return True
    shell.write(help_text() + "\n")
    return True


@command("QUIT", "EXIT", description="Quits the shell, cancelling the jobs still running (they run in this "
                                     "process); a script (piped, -f, streamsql run) waits for its jobs "
                                     "unless it ends with QUIT.")
def _quit(shell: Shell, arg: str) -> bool:
    return False


@command("CLEAR", description="Clears the screen.")
def _clear(shell: Shell, arg: str) -> bool:
    shell.clear_screen()
    return True
