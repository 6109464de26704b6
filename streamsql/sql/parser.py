"""The SQL front end's public API: split scripts, parse statements, report positioned errors.

Every failure is a :class:`~streamsql.core.errors.SqlError` whose ``line``/``col`` (1-based) point
at the offending token, so ``str(error)`` shows the line with a caret under it::

    Syntax error: unexpected token near 'key' (line 3, column 14)
      FROM t GROUP key
                   ^^^

Functions:
    split_statements, is_complete: see :mod:`streamsql.sql.split` (re-exported here).
    parse_statement: one statement to a sqlglot tree.
    parse_script: a whole script to ``(Statement, tree)`` pairs.
    error_at: a SqlError pointing at a parsed node, for later phases (DDL checks, binding).
    error_in_script: re-position a statement's SqlError (or PlanError) inside its script.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from sqlglot import exp
from sqlglot.errors import ParseError, TokenError

from streamsql.core.config import did_you_mean
from streamsql.core.errors import InternalError, OptionError, SqlError, StatementError, StreamSQLError
from streamsql.sql import nodes
from streamsql.sql.dialect import Flink
from streamsql.sql.reserved import RESERVED
from streamsql.sql.split import Statement, is_complete, lexemes, line_col, split_statements

__all__ = [
    "Statement", "error_at", "error_in_script", "is_complete", "parse_script", "parse_statement",
    "split_statements",
]

_DIALECT = Flink()
# Statement trees parse_statement accepts (CREATE/DROP also need kind TABLE, VIEW or DATABASE;
# USE is USE CATALOG c or USE [c.]db).
_STATEMENTS = (
    exp.Query, exp.Insert, nodes.SetOption, nodes.ResetOption, nodes.ShowTables, nodes.ShowViews,
    nodes.ShowJobs, nodes.ShowCreateTable, nodes.DescribeTable, nodes.ShowColumns, nodes.DescribeJob,
    nodes.Explain,
    nodes.StopJob, nodes.PrintTopic, nodes.StatementSet, nodes.BeginStatementSet, nodes.EndStatementSet,
    nodes.ClientCommand, nodes.ShowFunctions, nodes.CreateFunction, nodes.DropFunction, nodes.ShowNamespace,
    nodes.CreateCatalog, nodes.DropCatalog, nodes.AlterTable, nodes.AlterView, nodes.DescribeCatalog,
    nodes.UseModules, nodes.ShowNone, nodes.DescribeFunction,
)
_SUPPORTED = (
    "SELECT, INSERT INTO, CREATE/DROP TABLE|VIEW|FUNCTION|DATABASE|CATALOG, ALTER TABLE, USE [CATALOG], SET, "
    "RESET, SHOW, "
    "DESCRIBE [JOB], EXPLAIN, STOP JOB, "
    "PRINT TOPIC, EXECUTE STATEMENT SET, HELP, QUIT"
)
_CREATE_KINDS = ("TABLE", "VIEW", "DATABASE")
_UNTERMINATED = {"'": "string literal", "`": "quoted identifier", '"': "quoted identifier", "/": "comment"}
# sqlglot's repr of a token in its messages ("Expected table name but got <Token token_type: ...>"):
# the error already says "near '<token text>'".
_TOKEN_REPR = re.compile(r"\s*(?:but )?got <Token token_type: [^>]*>")
_MISSING_ARG = re.compile(r"Required keyword: '\w+' missing for <class '[\w.]*?(\w+)'>")
_CLAUSES = {
    "Where": "WHERE clause", "Having": "HAVING clause",
    "Group": "GROUP BY clause", "Order": "ORDER BY clause",
}
# First words of statements: one where the parser expected more of the statement before it
# most likely means that statement's ';' is missing.
_STATEMENT_WORDS = frozenset({
    "CREATE", "DROP", "INSERT", "SELECT", "SET", "RESET", "SHOW", "DESCRIBE", "EXPLAIN", "EXECUTE",
    "STOP", "PRINT", "USE", "ALTER",
})
#: Reserved words that open or join a clause, never a name someone meant (``select a, from t``):
#: a syntax error at one of them gets no "write `from` to use it as a name" hint.
_CLAUSE_WORDS = frozenset({
    "SELECT", "FROM", "WHERE", "HAVING", "WHEN", "THEN", "ELSE", "AND", "OR", "ON", "INTO", "JOIN",
    "UNION", "EXCEPT", "INTERSECT", "LIMIT",
})
# Words a statement may start with: supported ones, and ones refused by name once parsed. A statement
# that does not parse and starts with any other word is an unknown statement (a typo such as SELEC,
# or a Flink client command such as ADD JAR), said at that word rather than at a later token.
_STARTS = _STATEMENT_WORDS | {"WITH", "VALUES", "DESC", "BEGIN", "END", "HELP", "QUIT", "EXIT"}
_FIRST_WORDS = _STARTS | {
    "CLEAR", "TABLE", "FROM", "ALTER", "UPDATE", "DELETE", "TRUNCATE", "MERGE", "CALL", "LOAD", "UNLOAD",
    "ANALYZE", "COMPILE",
}
# Flink SQL client statements that have nothing to do here, and why.
_NO_JARS = ("StreamSQL's connectors and formats are built in, and its functions are Python "
            "(CREATE FUNCTION ... LANGUAGE PYTHON): there is no JAR to load; remove the statement")
_CLIENT_ONLY = {("ADD", "JAR"): _NO_JARS, ("REMOVE", "JAR"): _NO_JARS}
_DOUBLE_QUOTE_HINT = (
    "Double quotes are not valid in Flink SQL: quote identifiers with backticks (`name`) "
    "and strings with single quotes ('text')"
)


def too_deep(text: str) -> SqlError:
    """The error for a statement nested deeper than the parser or planner can follow."""
    msg = ("The statement is nested too deeply (parentheses, subqueries, CASE or operators several "
           "hundred levels deep); split it, e.g. into views")
    return SqlError(msg, text, 1, 1)


def parse_statement(text: str) -> exp.Expr:
    """Parse one statement (a trailing ``;`` is allowed) with the Flink dialect.

    Returns:
        the syntax tree: ``exp.Create``, ``exp.Drop``, ``exp.Insert``, an ``exp.Query``, or
        a node from :mod:`streamsql.sql.nodes` for Flink client statements.

    Raises:
        SqlError: for a syntax error, an empty input, more than one statement, or a statement
            StreamSQL does not run (UPDATE, DELETE, ALTER VIEW ...); positioned (line/col
            relative to ``text``) at the offending token.
        InternalError: if sqlglot fails in an unexpected way (our bug).
    """
    _reject_double_quotes(text)
    try:
        tokens = _DIALECT.tokenize(text)
    except TokenError as e:
        raise _token_error(text) from e
    try:
        trees = [t for t in _DIALECT.parser().parse(tokens, text) if t is not None]
    except ParseError as e:
        raise (_unknown_statement(text) or _parse_error(e, text)) from e
    except (SqlError, InternalError):
        raise
    except RecursionError:
        raise too_deep(text) from None
    except Exception as e:  # a crash inside sqlglot on odd input is our bug, not the user's
        msg = f"The SQL parser failed on this statement; please report it with the statement ({e})"
        raise InternalError(msg) from e
    trees = [t for t in trees if not isinstance(t, exp.Semicolon)]
    if not trees:
        msg = "Empty statement"
        raise SqlError(msg)
    if len(trees) > 1:
        msg = ("Expected one statement but found several; run them as a script: "
               "StreamEnvironment.execute_script(text) in Python, or streamsql run FILE")
        raise error_at(trees[1], msg, text)
    tree = values_query(trees[0]) if isinstance(trees[0], exp.Values) else trees[0]
    if isinstance(tree, nodes.Explain) and isinstance(tree.this, exp.Values):
        tree.set("this", values_query(tree.this))
    _check_supported(tree, text)
    _limit_forms(tree, text)  # first: it drops LIMIT ALL's ALL
    _context_variables(tree, text)
    _check_names(tree, text)
    return tree


def _context_variables(tree: exp.Expr, text: str) -> None:
    """Read a bare ``CURRENT_USER`` as the other context variables: a name to resolve.

    sqlglot parses it as a call; Flink 2.3's validator resolves every context variable of
    :data:`_VALUE_WORDS` but the date and time ones as a column (``SELECT CURRENT_USER`` is
    ``Column 'CURRENT_USER' not found in any table``, as ``SELECT user``: none has a value in
    Flink). ``CURRENT_USER()`` (with parentheses) stays a call, which no function matches.
    """
    for call in list(tree.find_all(exp.CurrentUser)):
        start, end = call.meta.get("start"), call.meta.get("end")
        if call.meta.get("flink_name") or start is None:
            continue
        ident = exp.Identifier(this=text[start:end + 1], quoted=False)
        ident.meta.update(call.meta)
        column = exp.Column(this=ident)
        column.meta.update(call.meta)
        call.replace(column)


#: Calcite's context variables (its grammar's ``ContextVariable``): values where a column could
#: stand (``SELECT user FROM t``, ``WHERE current_date > d``), never names.
_VALUE_WORDS = frozenset({
    "USER", "CURRENT_USER", "SESSION_USER", "SYSTEM_USER", "CURRENT_ROLE", "CURRENT_PATH",
    "CURRENT_CATALOG", "CURRENT_SCHEMA", "CURRENT_DEFAULT_TRANSFORM_GROUP", "CURRENT_DATE",
    "CURRENT_TIME", "CURRENT_TIMESTAMP", "LOCALTIME", "LOCALTIMESTAMP",
})


def _check_names(tree: exp.Expr, text: str) -> None:
    """Refuse an unquoted reserved word (:data:`~streamsql.sql.reserved.RESERVED`) used as a name.

    As Flink 2.3's parser (``FlinkSqlParserImpl``), which takes no reserved word as a name unless
    it is backquoted: a table, view, CTE, column or alias (``SELECT a AS groups``, ``INSERT INTO
    out``, ``WHERE value > 1``). Where Flink reads the word as a value it stays: a context variable
    (:data:`_VALUE_WORDS`: ``SELECT user``, ``user.a``) and ``DEFAULT`` as a call's argument
    (``COUNT(default)``). Checked against Flink by ``tests/sql/test_reserved_names.py``.

    Raises:
        SqlError: ``SQL parse failed. Encountered "groups" ...``, at the word (Flink's position).
    """
    for ident in tree.find_all(exp.Identifier):
        word = ident.name.upper()
        if ident.quoted or word not in RESERVED or ident.meta.get("start") is None or _is_value(ident, word):
            continue  # quoted, not reserved, not written (made by the grammar) or a value
        msg = (f'SQL parse failed. Encountered "{ident.name}": a reserved word in Flink SQL; '
               f"write `{ident.name}` (in backquotes) to use it as a name")
        raise error_at(ident, msg, text)


def _is_value(ident: exp.Identifier, word: str) -> bool:
    """Whether Flink's parser reads reserved ``ident`` as a value (:func:`_check_names`)."""
    column = ident.parent
    if not isinstance(column, exp.Column):
        return False
    first = column.parts[0] is ident
    if word in _VALUE_WORDS:
        return first
    return word == "DEFAULT" and first and not column.table and isinstance(column.parent, exp.Func)


def _limit_forms(tree: exp.Expr, text: str) -> None:
    """Drop ``LIMIT ALL``; refuse MySQL's ``LIMIT m, n``, both as Flink 2.3 (checked on PyFlink).

    ``LIMIT ALL`` is no limit (every row; ``ORDER BY ts LIMIT ALL`` is ``ORDER BY ts``). sqlglot
    reads ``LIMIT m, n`` as ``LIMIT n OFFSET m`` (the OFFSET's count comes first in the text),
    which Flink refuses in the words used here.
    """
    for limit in list(tree.find_all(exp.Limit)):
        count = limit.expression
        if isinstance(count, exp.Column) and not count.table and not count.this.quoted \
                and count.name.upper() == "ALL":
            limit.pop()
            continue
        offset = limit.parent.args.get("offset") if limit.parent else None
        start = count.meta.get("start") if count is not None else None
        skip = offset.expression if isinstance(offset, exp.Offset) else None
        first = skip.meta.get("start") if skip is not None else None
        if start is not None and first is not None and first < start:
            msg = "'LIMIT start, count' is not allowed under the current SQL conformance level"
            raise error_at(limit, msg, text)


def values_query(values: exp.Values) -> exp.Select:
    """``VALUES (1, 'a'), ...`` as a query: ``SELECT * FROM (VALUES ...)`` (the same rows and columns).

    A statement or a view's body may be a bare VALUES, which Flink runs as a query; sqlglot parses
    it as a table expression.
    """
    return exp.Select(expressions=[exp.Star()], from_=exp.From(this=values))


def read_script(path: str) -> str:
    """The text of the SQL file ``path`` (UTF-8, as Flink's SQL client reads it).

    Raises:
        StreamSQLError: ``Cannot read init.sql: No such file or directory`` or ``init.sql is not
            UTF-8 text (byte 12: invalid start byte)``.
    """
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except OSError as e:
        msg = f"Cannot read {path}: {e.strerror or e}"
        raise StreamSQLError(msg) from None
    except UnicodeDecodeError as e:
        msg = f"{path} is not UTF-8 text (byte {e.start}: {e.reason}); save it as UTF-8"
        raise StreamSQLError(msg) from None


def parse_script(script: str, file: str | None = None) -> list[tuple[Statement, exp.Expr]]:
    """Split a script and parse each statement (``file``, when given, prefixes error messages).

    Returns:
        ``(statement, tree)`` pairs in script order.

    Raises:
        SqlError: for the first statement that does not parse, positioned in ``script``
            (its ``sql`` is the whole script, so the caret line is the script's line).
    """
    result = []
    for stmt in split_statements(script):
        try:
            tree = parse_statement(stmt.text)
        except SqlError as e:
            raise error_in_script(e, stmt, script, file) from e
        result.append((stmt, tree))
    return _statement_sets(result, script, file)


def _statement_sets(statements: list[tuple[Statement, exp.Expr]], script: str,
                    file: str | None) -> list[tuple[Statement, exp.Expr]]:
    """Each ``BEGIN STATEMENT SET; INSERT ...; ... END;`` of a script as one statement set.

    Flink's SQL client runs a script's ``BEGIN STATEMENT SET;`` block as one job (as ``EXECUTE
    STATEMENT SET BEGIN ... END``); the block becomes one :class:`nodes.StatementSet` whose text
    is the script's text from the first INSERT to ``END`` (comments and line breaks kept), after
    ``EXECUTE STATEMENT SET BEGIN`` on the line of ``BEGIN``, so errors inside it keep their script
    lines. A BEGIN without END, an END without BEGIN, a statement other than INSERT in between
    and an empty block are errors before anything runs.
    """
    out: list[tuple[Statement, exp.Expr]] = []
    begin: Statement | None = None
    for stmt, tree in statements:
        if isinstance(tree, nodes.BeginStatementSet):
            if begin is not None:
                msg = "A statement set is already open; END; runs it"
                raise error_in_script(SqlError(msg, stmt.text), stmt, script, file)
            begin, first = stmt, len(out)
            continue
        if begin is None:
            if isinstance(tree, nodes.EndStatementSet):
                msg = "No statement set is open; BEGIN STATEMENT SET; starts one"
                raise error_in_script(SqlError(msg, stmt.text), stmt, script, file)
            out.append((stmt, tree))
            continue
        if isinstance(tree, nodes.EndStatementSet):
            if len(out) == first:
                msg = "A statement set needs at least one INSERT statement"
                raise error_in_script(SqlError(msg, stmt.text), stmt, script, file)
            after_begin = begin.offset + len(begin.text)
            body = script[after_begin:stmt.offset]
            semicolon = body.index(";")
            text = "EXECUTE STATEMENT SET BEGIN" + " " * (semicolon + 1) + body[semicolon + 1:] + "END"
            block = Statement(text, begin.line, begin.col, begin.offset)
            try:
                tree = parse_statement(text)
            except SqlError as e:
                raise error_in_script(e, block, script, file) from e
            out[first:] = [(block, tree)]
            begin = None
            continue
        if not isinstance(tree, exp.Insert):
            msg = "Only INSERT statements can be added to a statement set; END; runs it"
            raise error_in_script(SqlError(msg, stmt.text), stmt, script, file)
        out.append((stmt, tree))
    if begin is not None:
        msg = "BEGIN STATEMENT SET has no END; to run it"
        raise error_in_script(SqlError(msg, begin.text), begin, script, file)
    return out


def error_at(node: exp.Expr | None, message: str, sql: str | None) -> SqlError:
    """A SqlError pointing at ``node`` (its first token that has a recorded position).

    sqlglot records positions on identifiers and some other leaves; the first one found
    walking ``node`` is used, underlined for its length. Without one, the error has no
    position.

    Returns:
        the error, for the caller to raise.
    """
    if node is not None and sql is not None:
        for sub in node.walk():
            meta = sub.meta
            if meta.get("start") is not None:
                start, end = meta["start"], meta.get("end", meta["start"])
                line, col = line_col(sql, start)
                return SqlError(message, sql, line, col, _length(sql, start, end))
    return SqlError(message, sql)


def _length(sql: str, start: int, end: int) -> int:
    newline = sql.find("\n", start)
    stop = end + 1 if newline == -1 else min(end + 1, newline)
    return max(1, stop - start)


def error_in_script(error: StatementError, stmt: Statement, script: str,
                    file: str | None = None, earlier: Sequence[Statement] = ()) -> StatementError:
    """Re-position an error raised for ``stmt.text`` inside the whole script.

    Unlike ``StatementError.with_offset`` (lines only), this also shifts the column when the
    error is on the statement's first line and the statement does not start at column 1. An
    error without a position is placed at the statement's start. An :class:`OptionError`
    (positioned in a CREATE TABLE's text) is placed in the last of ``earlier`` (the script's
    statements so far) with that text.

    Returns:
        the re-positioned error, of the same class (a SqlError, PlanError or OptionError);
        ``file``, when given, prefixes the message.
    """
    if isinstance(error, OptionError):
        stmt = next((c for c in reversed(earlier) if c.text == error.sql), stmt)
    message = f"{file}: {error.message}" if file else error.message
    if error.line is None:
        return type(error)(message, script, stmt.line, stmt.col, 1)
    if error.line == 1:
        return type(error)(message, script, stmt.line, error.col + stmt.col - 1, error.length)
    return error.with_offset(script, stmt.line - 1, file)


def _check_supported(tree: exp.Expr, text: str) -> None:
    """Reject what sqlglot parses but StreamSQL does not run (e.g. UPDATE, CREATE FUNCTION)."""
    if isinstance(tree, nodes.Explain):
        if not isinstance(tree.this, (exp.Query, exp.Insert, nodes.StatementSet)):
            msg = "EXPLAIN supports SELECT, INSERT and EXECUTE STATEMENT SET"
            raise error_at(tree.this, msg, text)
        return
    if isinstance(tree, _STATEMENTS):
        return
    if isinstance(tree, exp.Drop) and len(tree.args.get("tables") or []) > 1:
        msg = "DROP one table or view at a time"
        raise error_at(tree.args["tables"][1], msg, text)
    if isinstance(tree, (exp.Create, exp.Drop)) and (tree.kind or "").upper() in _CREATE_KINDS:
        return
    if isinstance(tree, exp.Use) and (tree.text("kind").upper() in ("", "CATALOG")):
        return
    first = next((lx for lx in lexemes(text) if lx.kind not in ("ws", "comment")), None)
    words = [lx.text for lx in lexemes(text) if lx.kind == "word"][:2]
    what = " ".join(words) if words else "this statement"
    line, col = line_col(text, first.start) if first else (None, None)
    raise SqlError(_unsupported(what), text if line else None, line, col)


def _unknown_statement(text: str) -> SqlError | None:
    """For a statement that did not parse: the error at its first word, if no statement starts so.

    ``SELEC * FROM t`` was "Missing operand near 'FROM'" and ``ADD JAR '...'`` "unexpected token
    near '...'": errors at a later token of a statement that was never one.
    """
    words = [lx for lx in lexemes(text) if lx.kind not in ("ws", "comment")][:2]
    if not words or words[0].kind != "word" or words[0].text.upper() in _FIRST_WORDS:
        return None
    first = words[0]
    pair = tuple(lx.text.upper() for lx in words)
    line, col = line_col(text, first.start)
    if pair in _CLIENT_ONLY:
        msg = f"{' '.join(pair)} is not supported: {_CLIENT_ONLY[pair]}"
        last = words[1].start + len(words[1].text) - 1
        return SqlError(msg, text, line, col, _length(text, first.start, last))
    return SqlError(_unsupported(first.text), text, line, col, len(first.text))


def _unsupported(what: str) -> str:
    """``Unsupported statement 'WHAT ...'``: with the statement its first word is a typo of, else the list."""
    word = what.split(" ")[0].upper()
    hint = "" if word in _STARTS else did_you_mean(word, _STARTS)
    return f"Unsupported statement '{what} ...'{hint or f'; supported: {_SUPPORTED}'}"


def _reject_double_quotes(text: str) -> None:
    # sqlglot's tokenizer would see stray '"' characters and report a confusing error.
    for lx in lexemes(text):
        if lx.kind in ("ident", "open") and lx.text.startswith('"'):
            line, col = line_col(text, lx.start)
            length = _length(text, lx.start, lx.start + len(lx.text) - 1)
            raise SqlError(_DOUBLE_QUOTE_HINT, text, line, col, length)


def _token_error(text: str) -> SqlError:
    for lx in lexemes(text):
        if lx.kind == "open":
            line, col = line_col(text, lx.start)
            msg = f"Unterminated {_UNTERMINATED.get(lx.text[0], 'token')}"
            return SqlError(msg, text, line, col, 2 if lx.text.startswith("/*") else 1)
    msg = "Cannot read this statement (invalid characters or number literal)"
    return SqlError(msg, text)


def _parse_error(error: ParseError, text: str) -> SqlError:
    info = error.errors[0] if error.errors else {}
    message = _describe(info.get("description") or str(error))
    start, end = info.get("start"), info.get("end")
    if start is None:  # not raised through FlinkParser.raise_error: use sqlglot's line/col
        line, col = info.get("line"), info.get("col")
        return SqlError(message, text if line else None, line, col)
    token_text = text[start:end + 1]
    if info.get("at_end"):
        message, start, end = f"{message} at end of input", end + 1, end + 1
    elif token_text and not info.get("validation"):
        quoted = token_text if token_text[0] == "'" else f"'{token_text}'"
        message = f"{message} near {quoted}"
        if token_text.upper() in _STATEMENT_WORDS and message.startswith("Syntax error: unexpected token"):
            message += "; is the ';' before it missing?"
        elif token_text.upper() in RESERVED - _CLAUSE_WORDS and not token_text.isupper():  # written as a name
            message += f" (a reserved word in Flink SQL: write `{token_text}` to use it as a name)"
    line, col = line_col(text, start)
    return SqlError(message, text, line, col, _length(text, start, end))


def _describe(description: str) -> str:
    """Reword sqlglot's internal messages for users."""
    description = _TOKEN_REPR.sub("", description)
    if description.startswith("Invalid expression / Unexpected token"):
        return "Syntax error: unexpected token"
    m = _MISSING_ARG.match(description)
    if m:
        name = m.group(1)
        if isinstance(getattr(exp, name, None), type) and issubclass(getattr(exp, name), exp.Binary):
            return "Missing operand"
        return f"Incomplete {_CLAUSES.get(name, name)}"
    return description
