"""Completion of what the statement at the cursor can contain.

Keywords, tables and views, columns of the tables the statement mentions, connector names
after ``'connector' = '``, a connector's option keys inside ``WITH (...)``, format names and
configuration keys after ``SET '``.

Everything is read from the environment at completion time, so new tables complete at once.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document

from streamsql.sql.split import split_statements

if TYPE_CHECKING:
    from streamsql.environment import StreamEnvironment

KEYWORDS = (
    "ADD", "ALL", "AND", "AS", "ASC", "AVG", "BEGIN", "BETWEEN", "BIGINT", "BOOLEAN", "BY", "BYTES", "CASE",
    "CAST", "CLEAR", "COALESCE", "COUNT", "CREATE", "CUMULATE", "DATE", "DECIMAL", "DESC", "DESCRIBE",
    "DESCRIPTOR", "DISTINCT", "DOUBLE", "DROP", "ELSE", "END", "EXECUTE", "EXISTS", "EXPLAIN", "FALSE",
    "FLOAT", "FROM", "GROUP", "HAVING", "HELP", "HOP", "IF", "IN", "INSERT", "INT", "INTERVAL", "INTO", "IS",
    "JOB", "JOBS", "JOIN", "KEY", "LIKE", "LIMIT", "MAX", "METADATA", "MIN", "NOT", "NULL", "ON", "OR",
    "ORDER", "PRIMARY", "PRINT", "QUIT", "RESET", "SELECT", "SESSION", "SET", "SHOW", "SMALLINT", "STATEMENT",
    "STOP", "STRING", "SUM", "TABLE", "TABLES", "TEMPORARY", "THEN", "TIMESTAMP", "TIMESTAMP_LTZ", "TINYINT",
    "TOPIC", "TRUE", "TUMBLE", "UNION", "VARCHAR", "VIEW", "VIEWS", "VIRTUAL", "WATERMARK", "WHEN", "WHERE",
    "WITH", "BEGINNING", "ENFORCED", "CREATE TABLE", "GROUP BY", "ORDER BY", "PRIMARY KEY", "SHOW TABLES",
    "SHOW JOBS", "STOP JOB", "PRINT TOPIC", "EXECUTE STATEMENT SET", "INSERT INTO", "SHOW COLUMNS", "COLUMNS",
    "EXTENDED",
    # catalogs and databases; CREATE TABLE ... LIKE's options
    "CATALOG", "CATALOGS", "DATABASE", "DATABASES", "CURRENT", "FULL", "MODULES", "USE", "CASCADE",
    "RESTRICT", "INCLUDING", "EXCLUDING", "OVERWRITING", "CONSTRAINTS", "GENERATED", "OPTIONS", "PARTITIONS",
    "WATERMARKS",
    "SHOW CATALOGS", "SHOW DATABASES", "SHOW CURRENT CATALOG", "SHOW CURRENT DATABASE", "SHOW MODULES",
    "USE CATALOG", "CREATE DATABASE", "CREATE CATALOG", "DROP DATABASE", "DROP CATALOG",
)

# Strings, quoted identifiers and comments, replaced by blanks of the same length so that
# what is left shows whether the cursor is inside an open string (positions are kept).
_CLOSED = re.compile(r"--[^\n]*|/\*.*?\*/|'(?:[^']|'')*'|`(?:[^`]|``)*`", re.S)
_TABLE_CONTEXT = re.compile(r"\b(FROM|JOIN|INTO|TABLE|DESCRIBE|DESC|VIEW|EXISTS)\s+$", re.I)
_WORD = re.compile(r"[\w$]*$")


def _mask(text: str) -> str:
    return _CLOSED.sub(lambda m: " " * len(m.group()), text)


def current_statement(document: Document) -> tuple[str, str]:
    """The statement under the cursor: (its text before the cursor, its whole text)."""
    before = document.text_before_cursor
    stmts = split_statements(before)
    cur = before
    if stmts:
        last = stmts[-1]
        rest = before[last.offset + len(last.text):]
        cur = rest.lstrip()[1:] if rest.lstrip().startswith(";") else before[last.offset:]
    after = document.text_after_cursor
    masked_after = _mask(after)
    end = masked_after.find(";")
    return cur, cur + (after if end < 0 else after[:end])


class SqlCompleter(Completer):
    """Completes from an environment's catalog, connector registry and configuration."""

    def __init__(self, env: StreamEnvironment):
        self.env = env

    # -- sources of names ----------------------------------------------------------------------
    def table_names(self) -> list[str]:
        """Tables and views in the catalog."""
        return self.env.catalog.names()

    def columns_of(self, name: str) -> list[str]:
        """Columns of the table or view ``name`` ([] if unknown or unplannable)."""
        from streamsql.core.catalog import TableDef

        try:
            obj = self.env.catalog.get(name)
            if isinstance(obj, TableDef):
                return [c.name for c in obj.columns]
            from streamsql.plan.planner import Planner

            return list(Planner(self.env.catalog, self.env.config).plan_query(obj.query).schema.names)
        except Exception:  # a half-defined view must not break typing
            return []

    def option_specs(self, statement: str) -> list[tuple[str, str]]:
        """(key, description) of the options the statement's connector (and format) accept."""
        from streamsql.connectors.registry import known_connectors

        m = re.search(r"'connector'\s*=\s*'([^']*)'", statement, re.I)
        if not m:
            return [("connector", "the connector: " + ", ".join(known_connectors()))]
        spec = known_connectors().get(m.group(1).lower())
        if spec is None:
            return []
        out = [(o.key, o.description) for o in spec.options]
        out += [(p, "prefix, passed through") for p in spec.option_prefixes]
        if spec.uses_format:
            for fm in re.finditer(r"'((?:key\.|value\.)?)format'\s*=\s*'([^']*)'", statement, re.I):
                try:
                    from streamsql.connectors.formats import format_options

                    out += [(fm.group(1) + o.key, o.description) for o in format_options(fm.group(2))]
                except Exception:
                    pass
        return out

    # -- completion ----------------------------------------------------------------------------
    def get_completions(self, document: Document, complete_event: CompleteEvent) -> Iterator[Completion]:
        """Completions for the word (or string) under the cursor, by context."""
        before, statement = current_statement(document)
        masked = _mask(before)
        quote = masked.rfind("'")
        if quote >= 0:  # inside an open string literal
            yield from self._in_string(before[:quote], before[quote + 1:], masked[:quote], statement)
            return
        word = _WORD.search(before).group()
        head = masked[: len(masked) - len(word)]
        if self._in_with(head) and re.search(r"[(,]\s*$", head):
            yield from self._option_keys(statement, "", quoted=False, start=-len(word))
            return
        qualified = re.search(r"(\w+)\.$", head)
        if qualified:
            alias = self._aliases(statement).get(qualified.group(1).lower(), qualified.group(1))
            yield from _matching(word, self.columns_of(alias), "column")
            return
        if _TABLE_CONTEXT.search(head):
            yield from _matching(word, self.table_names(), "table")
            return
        masked_statement = _mask(statement)
        mentioned = [t for t in self.table_names() if t.lower() != word.lower()
                     and re.search(rf"\b{re.escape(t)}\b", masked_statement, re.I)]
        seen: set[str] = set()
        for t in mentioned:
            for c in self.columns_of(t):
                if c.lower() not in seen:
                    seen.add(c.lower())
                    yield from _matching(word, [c], f"column of {t}")
        if word:
            yield from _matching(word, self.table_names(), "table")
            yield from _matching(word, KEYWORDS, "keyword", keyword=True)

    def _in_string(self, head: str, partial: str, masked_head: str, statement: str) -> Iterable[Completion]:
        from streamsql.connectors.registry import known_connectors

        start = -len(partial)
        if re.search(r"'connector'\s*=\s*$", head, re.I):
            specs = known_connectors()
            metas = {n: s.description for n, s in specs.items()}
            return _matching(partial, list(specs), "connector", metas=metas, start=start)
        if re.search(r"'(?:key\.|value\.)?format'\s*=\s*$", head, re.I):
            from streamsql.connectors.formats import known_formats

            return _matching(partial, known_formats(), "format", start=start)
        if self._in_with(masked_head) and re.search(r"[(,]\s*$", masked_head):
            return self._option_keys(statement, partial, quoted=True, start=start)
        if re.fullmatch(r"\s*(SET|RESET)\s*", head, re.I):
            from streamsql.core.config import DEFAULTS

            keys = sorted(set(DEFAULTS) | set(self.env.config.settings))
            metas = {k: f"= '{self.env.config.get(k)}'" for k in keys}
            return _matching(partial, keys, "option", metas=metas, start=start)
        return []

    @staticmethod
    def _in_with(masked_head: str) -> bool:
        """Whether the text ends inside an open ``WITH (`` parenthesis."""
        m = None
        for m in re.finditer(r"\bWITH\s*\(", masked_head, re.I):
            pass
        if m is None:
            return False
        tail = masked_head[m.end():]
        return tail.count("(") >= tail.count(")")

    def _option_keys(self, statement: str, partial: str, quoted: bool, start: int) -> Iterator[Completion]:
        present = set(re.findall(r"'([^']*)'\s*=", statement))
        for key, desc in self.option_specs(statement):
            if key in present or not key.lower().startswith(partial.lower()):
                continue
            text = key if quoted else f"'{key}'"
            yield Completion(text, start_position=start, display=key, display_meta=desc)

    @staticmethod
    def _aliases(statement: str) -> dict[str, str]:
        out = {}
        for m in re.finditer(r"\b(?:FROM|JOIN)\s+(\w+)(?:\s+(?:AS\s+)?(\w+))?", statement, re.I):
            if m.group(2) and m.group(2).upper() not in KEYWORDS:
                out[m.group(2).lower()] = m.group(1)
        return out


def _matching(partial: str, names: Iterable[str], meta: str, metas: dict[str, str] | None = None,
              keyword: bool = False, start: int | None = None) -> Iterator[Completion]:
    """Names starting with ``partial`` (case-insensitive); keywords follow the typed case."""
    low = partial.lower()
    for name in names:
        if name.lower().startswith(low) and name.lower() != low:
            text = name.lower() if keyword and partial and partial.islower() else name
            yield Completion(text, start_position=-len(partial) if start is None else start,
                             display_meta=(metas or {}).get(name, meta))
