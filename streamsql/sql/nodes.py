"""Syntax nodes for the Flink statements and clauses that sqlglot has no node for.

Each class follows sqlglot's convention: ``arg_types`` names the children and says which are
required (``True``); ``this`` is the main child and ``expression``/``expressions`` the others.
The generator method for a node is ``<classname lower-case>_sql`` on
:class:`streamsql.sql.generator.FlinkGenerator` (a :class:`KeywordStatement` is written as its
``keywords``); the parser hook that builds it lives in
:mod:`streamsql.sql.grammar`.

Standard statements are NOT wrapped: ``CREATE TABLE/VIEW`` is ``exp.Create``, ``DROP`` is
``exp.Drop``, ``INSERT`` is ``exp.Insert``, queries are ``exp.Query`` subclasses.
"""

from __future__ import annotations

from typing import ClassVar

from sqlglot import exp

from streamsql.functions.scalars.calls import BUILT_IN_PTFS

# --- column constraints inside CREATE TABLE -------------------------------------------------


class MetadataColumnConstraint(exp.Expression, exp.ColumnConstraintKind):
    """``METADATA [FROM 'key'] [VIRTUAL]`` on a column definition.

    Args:
        this: the metadata key as a string literal (None when ``FROM`` is omitted, in which
            case the key is the column name).
        virtual: True for ``VIRTUAL`` (read-only: never written by a sink).
    """

    arg_types = {"this": False, "virtual": False}


# --- window table-valued functions ----------------------------------------------------------


class WindowTVF(exp.Expression):
    """Base of the windowing table-valued functions used as ``FROM TABLE(<tvf>)``.

    In a query, ``FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND)) AS w``
    parses to ``exp.TableFromRows(this=Tumble(...), alias=TableAlias(w))``.

    Common args:
        this: the input, an ``exp.Table`` (from ``TABLE t``).
        time_col: the time attribute, an ``exp.Column`` (from ``DESCRIPTOR(ts)``).
        offset: optional window offset (an ``exp.Interval``).

    ``ARG_ORDER`` lists the positional argument order after ``TABLE t, DESCRIPTOR(c)``, which
    is also Flink's named-argument name (upper-cased) for each.
    """

    ARG_ORDER: tuple[str, ...] = ()

    @property
    def kind(self) -> str:
        """The function name: TUMBLE, HOP, CUMULATE or SESSION."""
        return type(self).__name__.upper()


class Tumble(WindowTVF):
    """``TUMBLE(TABLE t, DESCRIPTOR(ts), size [, offset])``."""

    arg_types = {"this": True, "time_col": True, "size": True, "offset": False}
    ARG_ORDER = ("size", "offset")


class Hop(WindowTVF):
    """``HOP(TABLE t, DESCRIPTOR(ts), slide, size [, offset])``."""

    arg_types = {"this": True, "time_col": True, "slide": True, "size": True, "offset": False}
    ARG_ORDER = ("slide", "size", "offset")


class Cumulate(WindowTVF):
    """``CUMULATE(TABLE t, DESCRIPTOR(ts), step, size [, offset])``."""

    arg_types = {"this": True, "time_col": True, "step": True, "size": True, "offset": False}
    ARG_ORDER = ("step", "size", "offset")


class Session(WindowTVF):
    """``SESSION(TABLE t [PARTITION BY k, ...], DESCRIPTOR(ts), gap)``.

    Args:
        partition_by: list of ``exp.Column`` keys (may be empty).
    """

    arg_types = {"this": True, "partition_by": False, "time_col": True, "gap": True}
    ARG_ORDER = ("gap",)


WINDOW_TVFS: dict[str, type[WindowTVF]] = {
    cls.__name__.upper(): cls for cls in (Tumble, Hop, Cumulate, Session)
}

# --- built-in process table functions ---------------------------------------------------------


class ChangelogCall(exp.Expression):
    """``TO_CHANGELOG(...)`` or ``FROM_CHANGELOG(...)``, Flink 2.3's built-in PTFs, in FROM.

    Written ``FROM TO_CHANGELOG(input => TABLE t, ...)`` (an ``exp.Table`` whose ``this`` is this
    node) or ``FROM TABLE(TO_CHANGELOG(...))`` (an ``exp.TableFromRows``); arguments by name or
    by position in Flink's order :data:`CHANGELOG_PARAMS` (planned by
    :mod:`streamsql.plan.changelog_ptf`).

    Args:
        this: the function's name, an ``exp.Var`` (``TO_CHANGELOG`` / ``FROM_CHANGELOG``), positioned.
        input: ``TABLE t`` as an ``exp.Table`` (``meta["table_arg"]``), or another expression
            (refused by the planner).
        partition_by: ``TABLE t PARTITION BY k, ...``: a list of ``exp.Column`` (refused by Flink 2.3).
        op: ``DESCRIPTOR(c, ...)``: a ``DescriptorArg`` (list of ``exp.Column``).
        op_mapping: the MAP argument, any expression (the planner checks it is a literal).
        on_time: ``DESCRIPTOR(...)``: a ``DescriptorArg``; uid: an expression.
    """

    arg_types = {"this": True, "input": False, "partition_by": False, "op": False, "op_mapping": False,
                 "on_time": False, "uid": False}

    @property
    def function(self) -> str:
        """``TO_CHANGELOG`` or ``FROM_CHANGELOG``."""
        return self.this.name.upper()


class DescriptorArg(exp.Expression):
    """``DESCRIPTOR(a, b, ...)`` as a PTF argument: ``expressions`` are ``exp.Column`` nodes."""

    arg_types = {"expressions": True}


CHANGELOG_PARAMS: tuple[str, ...] = ("input", "op", "op_mapping", "on_time", "uid")
"""Flink 2.3's parameters of TO_CHANGELOG and FROM_CHANGELOG, in positional order (its signature
``TO_CHANGELOG(input => {TABLE, ROW SEMANTIC TABLE, ...}, op => DESCRIPTOR, op_mapping =>
MAP<STRING, STRING>, on_time => DESCRIPTOR, uid => STRING)``, the last two every PTF's)."""

CHANGELOG_FUNCTIONS: tuple[str, ...] = BUILT_IN_PTFS

# --- statements -----------------------------------------------------------------------------


class SetOption(exp.Expression):
    """``SET 'key' = 'value'``, or bare ``SET`` (list all options: both args None).

    Args:
        this: the key, a string literal.
        expression: the value, a string literal.
    """

    arg_types = {"this": False, "expression": False}

    @property
    def option(self) -> str | None:
        """The key as a plain string, or None for a bare ``SET``."""
        return self.this.name if self.this else None

    @property
    def value(self) -> str | None:
        """The value as a plain string, or None for a bare ``SET``."""
        value = self.args.get("expression")
        return value.name if value else None


class ResetOption(exp.Expression):
    """``RESET 'key'``, or bare ``RESET`` (reset all: ``this`` is None).

    Args:
        this: the key, a string literal.
    """

    arg_types = {"this": False}

    @property
    def option(self) -> str | None:
        """The key as a plain string, or None for a bare ``RESET``."""
        return self.this.name if self.this else None


class AlterTable(exp.Expression):
    """``ALTER TABLE [IF EXISTS] t <action>`` (:mod:`streamsql.sql.alter` reads the action).

    Args:
        this: an ``exp.Table``.
        action: the offset in the statement's text where the action starts.
        exists: True for ``IF EXISTS``.
    """

    arg_types = {"this": True, "action": True, "exists": False}


class ShowCreateTable(exp.Expression):
    """``SHOW CREATE TABLE t`` (``view`` is True for ``SHOW CREATE VIEW v``).

    Args:
        this: an ``exp.Table``.
    """

    arg_types = {"this": True, "view": False}


class DescribeTable(exp.Expression):
    """``DESCRIBE [EXTENDED] t`` or ``DESC [EXTENDED] t`` (EXTENDED prints the same rows in Flink 2.3).

    Args:
        this: an ``exp.Table``.
        extended: EXTENDED was written.
    """

    arg_types = {"this": True, "extended": False}


class ShowColumns(DescribeTable):
    """``SHOW COLUMNS (FROM | IN) t [[NOT] LIKE 'pattern']``: DESCRIBE's rows whose name matches.

    Args:
        this: an ``exp.Table``.
        like: the LIKE pattern's string literal, or None.
        negated: ``NOT LIKE``.
    """

    arg_types = {"this": True, "like": False, "negated": False}


class AlterView(exp.Expression):
    """``ALTER VIEW [c.][db.]v RENAME TO v2`` or ``ALTER VIEW [c.][db.]v AS <query>`` (Flink's).

    Args:
        this: the view's name (a ``Table``).
        rename: RENAME TO's new name (a ``Table``), else None.
        expression: AS's new query, else None.
        start: the offset of that query in the statement text (for the view's new CREATE VIEW text).
    """

    arg_types = {"this": True, "rename": False, "expression": False, "start": False}


class DescribeCatalog(exp.Expression):
    """``DESCRIBE | DESC CATALOG [EXTENDED] c``: the catalog's name, type, comment (and options).

    Args:
        this: the catalog's name (an identifier).
        extended: EXTENDED (the options too, as Flink's).
    """

    arg_types = {"this": True, "extended": False}


class DescribeFunction(exp.Expression):
    """``DESCRIBE | DESC FUNCTION [EXTENDED] [[c.]db.]f``: a function's info rows, as Flink's.

    Args:
        this: the function's name (a ``Table``: one to three parts).
        extended: EXTENDED (kind, determinism, signature ... too).
    """

    arg_types = {"this": True, "extended": False}


class DescribeJob(exp.Expression):
    """``DESCRIBE JOB 'id'``: a job's status and, when it failed, its whole error.

    Args:
        this: the job id, a string literal.
    """

    arg_types = {"this": True}


class Explain(exp.Expression):
    """``EXPLAIN [PLAN FOR] [detail, ...] <statement>``.

    Args:
        this: the explained statement (a query, ``exp.Insert`` or :class:`StatementSet`).
        plan_for: True when written ``EXPLAIN PLAN FOR`` (kept for round-trip only).
        expressions: Flink explain details such as ``CHANGELOG_MODE`` (``exp.Var``), if any.
    """

    arg_types = {"this": True, "plan_for": False, "expressions": False}


class StopJob(exp.Expression):
    """``STOP JOB 'id' [WITH SAVEPOINT] [WITH DRAIN]``.

    Args:
        this: the job id, a string literal.
        savepoint: True for ``WITH SAVEPOINT``.
        drain: True for ``WITH DRAIN``.
    """

    arg_types = {"this": True, "savepoint": False, "drain": False}


class PrintTopic(exp.Expression):
    """``PRINT TOPIC name [FROM BEGINNING] [LIMIT n]``.

    Args:
        this: the topic name, an ``exp.Identifier`` (or a string literal if quoted with ``'``).
        from_beginning: True for ``FROM BEGINNING``.
        limit: the row limit, a number literal.
    """

    arg_types = {"this": True, "from_beginning": False, "limit": False}


#: The first character of a hint comment's text (``/*+ OPTIONS(...) */`` is kept as the comment
#: ``"+ OPTIONS(...) "``, see ``Flink.Tokenizer.tokenize``); no other comment's text starts with it.
HINT_MARK = "+"
#: The key of an INSERT's ``meta`` holding where its text is in a statement set's (:class:`StatementSet`).
TEXT_SPAN = "text_span"


class StatementSet(exp.Expression):
    """``EXECUTE STATEMENT SET BEGIN INSERT ...; INSERT ...; END``: one job, many INSERTs.

    Args:
        expressions: the ``exp.Insert`` statements in order; each one's ``meta[TEXT_SPAN]`` is
            ``(start, end)``, the character offsets of its text (to its ``;``) in the block's.
    """

    arg_types = {"expressions": True}


class ClientCommand(exp.Expression):
    """A shell command: ``HELP [name]``, ``QUIT``, ``EXIT`` or ``CLEAR``.

    The shell's registry (``streamsql.shell.commands``) runs it, whichever entry point read it.

    Args:
        this: the command, an upper-case ``exp.Var``.
        expression: HELP's argument (a connector name, or ``connectors``), a string literal.
    """

    arg_types = {"this": True, "expression": False}


# --- statements that are only keywords ------------------------------------------------------


class KeywordStatement(exp.Expression):
    """Base of the statements that are only their keywords (no children).

    Attributes:
        keywords: the statement's text, as the generator writes it.
    """

    arg_types: dict[str, bool] = {}
    keywords: ClassVar[str]


class ShowTables(exp.Expression):
    """``SHOW TABLES [FROM | IN [catalog.]database] [[NOT] LIKE 'pattern']``.

    Args:
        this: the database's ``Table`` name, or None (the current one).
        like: the LIKE pattern's string literal, or None.
        negated: ``NOT LIKE``.
    """

    arg_types = {"this": False, "like": False, "negated": False}


class ShowViews(exp.Expression):
    """``SHOW VIEWS [FROM | IN [catalog.]database] [[NOT] LIKE 'pattern']`` (args as :class:`ShowTables`)."""

    arg_types = {"this": False, "like": False, "negated": False}


class ShowNone(exp.Expression):
    """``SHOW JARS``, ``SHOW MODELS`` and ``SHOW MATERIALIZED TABLES``: lists StreamSQL keeps empty.

    Flink 2.3 lists the jars ``ADD JAR`` added and the database's models and materialized tables;
    StreamSQL has none of these (no JVM; no CREATE MODEL or MATERIALIZED TABLE), so the list is
    Flink's empty one, under Flink's column name.

    Args:
        this: ``"JARS"``, ``"MODELS"`` or ``"MATERIALIZED TABLES"`` (a ``Var``).
        database: the ``Table`` name of ``FROM | IN [catalog.]database`` (models, materialized
            tables), or None.
        like, negated: ``[NOT] LIKE 'pattern'``, as :class:`ShowTables`.
    """

    arg_types = {"this": True, "database": False, "like": False, "negated": False}


class ShowJobs(KeywordStatement):
    """``SHOW JOBS``."""

    keywords = "SHOW JOBS"


class ShowFunctions(exp.Expression):
    """``SHOW [USER] FUNCTIONS [[NOT] LIKE | ILIKE 'pattern']``.

    ``user``: only the user-defined functions; ``like``, ``negated``, ``ilike``: the pattern, as
    :class:`ShowNamespace`.
    """

    arg_types = {"user": False, "like": False, "negated": False, "ilike": False}


class CreateFunction(exp.Expression):
    """``CREATE [TEMPORARY] [SYSTEM] FUNCTION [IF NOT EXISTS] name AS 'module.func' [LANGUAGE l]``.

    Args:
        this: the function's name (an identifier).
        expression: the implementation's path, a string literal.
        language: the LANGUAGE word (PYTHON, JAVA, SCALA), None when omitted (Flink: JAVA).
        temporary, system, exists: the optional keywords.
    """

    arg_types = {"this": True, "expression": True, "language": False, "temporary": False, "system": False,
                 "exists": False}


class DropFunction(exp.Expression):
    """``DROP [TEMPORARY] [SYSTEM] FUNCTION [IF EXISTS] name``."""

    arg_types = {"this": True, "temporary": False, "system": False, "exists": False}


class BeginStatementSet(KeywordStatement):
    """``BEGIN STATEMENT SET``: the shell collects following INSERTs until ``END``."""

    keywords = "BEGIN STATEMENT SET"


class EndStatementSet(KeywordStatement):
    """``END``: closes a ``BEGIN STATEMENT SET`` block in the shell."""

    keywords = "END"


class UseModules(exp.Expression):
    """``USE MODULES m [, m ...]`` (Flink's module order); StreamSQL has Flink's ``core`` module only.

    Args:
        expressions: the modules' names (identifiers), in the order written.
    """

    arg_types = {"expressions": True}


class ShowNamespace(exp.Expression):
    """``SHOW CATALOGS | DATABASES | CURRENT CATALOG | CURRENT DATABASE | [FULL] MODULES`` (Flink's).

    Args:
        this: the words after SHOW, upper-case, one space apart (a ``Var``).
        catalog: ``SHOW DATABASES FROM | IN c``: the catalog's name (an identifier), else None.
        like: ``SHOW CATALOGS | DATABASES [NOT] LIKE | ILIKE 'pattern'``: the string literal.
        negated: ``NOT LIKE``; ilike: ``ILIKE`` (the pattern case-insensitive).
    """

    arg_types = {"this": True, "catalog": False, "like": False, "negated": False, "ilike": False}


class CreateCatalog(exp.Expression):
    """``CREATE CATALOG [IF NOT EXISTS] name WITH ('type' = '...', ...)``.

    ``this``: the name; ``expressions``: the options as ``Property`` nodes; ``exists``: IF NOT EXISTS.
    """

    arg_types = {"this": True, "expressions": False, "exists": False}


class DropCatalog(exp.Expression):
    """``DROP CATALOG [IF EXISTS] name``."""

    arg_types = {"this": True, "exists": False}


CLIENT_COMMANDS = ("HELP", "QUIT", "EXIT", "CLEAR")

# --- calls with clauses of their own ---------------------------------------------------------


class JsonCall(exp.Expression, exp.Func):
    """``JSON_VALUE`` / ``JSON_QUERY`` / ``JSON_EXISTS`` with any of Flink's clauses (else ``exp.Anonymous``).

    ``JSON_VALUE(doc, path [RETURNING type] [{NULL | ERROR | DEFAULT x} ON EMPTY]
    [{NULL | ERROR | DEFAULT x} ON ERROR])``; ``JSON_QUERY(doc, path [RETURNING type]
    [{WITHOUT [ARRAY] | WITH [CONDITIONAL | UNCONDITIONAL] [ARRAY]} WRAPPER]
    [{NULL | ERROR | EMPTY ARRAY | EMPTY OBJECT} ON EMPTY] [... ON ERROR])``; ``JSON_EXISTS(doc, path
    [{TRUE | FALSE | UNKNOWN | ERROR} ON ERROR])``.

    Args:
        this: the document; ``path``: the path expression.
        name: ``JSON_VALUE``, ``JSON_QUERY`` or ``JSON_EXISTS`` (a str).
        returning: the RETURNING type's Flink text (a str), or None.
        wrapper: ``WITHOUT ARRAY``, ``CONDITIONAL ARRAY`` or ``UNCONDITIONAL ARRAY`` (JSON_QUERY), or None.
        on_empty, on_error: ``NULL``, ``ERROR``, ``DEFAULT``, ``EMPTY ARRAY``, ``EMPTY OBJECT``, ``TRUE``,
            ``FALSE`` or ``UNKNOWN`` (a str), or None.
        empty_default, error_default: the DEFAULT expressions.
    """

    arg_types = {"this": True, "path": True, "name": True, "returning": False, "wrapper": False,
                 "on_empty": False, "empty_default": False, "on_error": False, "error_default": False}


NODE_CLASSES: tuple[type[exp.Expression], ...] = (
    MetadataColumnConstraint, Tumble, Hop, Cumulate, Session, SetOption, ResetOption, ShowTables,
    ShowViews, ShowJobs, ShowCreateTable, DescribeTable, ShowColumns, DescribeJob, AlterView, DescribeCatalog,
    Explain, StopJob,
    PrintTopic, StatementSet, BeginStatementSet, EndStatementSet, ClientCommand, ShowNamespace, CreateCatalog,
    DropCatalog, JsonCall, ChangelogCall, DescriptorArg,
)
"""Every node defined here; the generator maps each to its ``<key>_sql`` method (or its ``keywords``)."""

