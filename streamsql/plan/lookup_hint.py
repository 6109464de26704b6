"""The ``LOOKUP`` query hint, and the join hints a streaming job takes without effect, as Flink 2.3.

``SELECT /*+ LOOKUP('table' = 'd', 'retry-predicate' = 'lookup_miss', 'retry-strategy' =
'fixed_delay', 'fixed-delay' = '10s', 'max-attempts' = '3') */ ... JOIN dim FOR SYSTEM_TIME AS OF
o.proc AS d ...`` makes the lookup join of ``d`` look a key that found no row up again, after
``fixed-delay``, up to ``max-attempts`` more times (Flink's ``RetryableLookupFunctionDelegator``:
up to 1 + max-attempts lookups), for a dimension row written a little after the fact it enriches.
EXPLAIN shows it as Flink's: ``retry=[lookup_miss, FIXED_DELAY, 10000ms, 3]``.

Checked on PyFlink 2.3 (probes of session 22, JDBC dimension table):

- options are key-value (``LOOKUP('d')``: "Invalid list options in LOOKUP hint, only support
  key-value options."); ``'table'`` is required (keys are case-sensitive); other keys are
  ignored (more than 10 keys are refused); values parse as Flink's (``'async'`` and ``'shuffle'``
  true/false, ``'output-mode'`` ordered / allow_unordered, ``'capacity'`` and ``'max-attempts'``
  Java ints, positive (the capacity only when ``'async'`` is true: probes of session 23),
  ``'timeout'`` and ``'fixed-delay'`` durations, ``'retry-strategy'`` fixed_delay,
  ``'retry-predicate'`` lookup_miss, all in any case but not padded: ``' 2'``, ``' true'``
  are refused); the four retry options come together or not at all;
- a subquery in an expression (``IN (...)``, ``NOT IN``, a scalar subquery) takes the enclosing
  SELECT's hint for its lookup joins that no hint of its own names (not a FROM subquery);
- ``'table'`` must name the right input of a join (its alias, else its name as written, bare or
  qualified with its database or catalog and database; a regular join's right input is taken
  too, to no effect, as Flink) in
  the hinted SELECT or below it, else Flink's "The options of following hints cannot match the
  name of input tables or views" — checked only where there is a join at all (a SELECT without
  one takes any name, as Flink); the hint applies to the lookup joins of its own SELECT (and of
  its expression subqueries, below; one in a FROM subquery keeps its own or none), the first
  hint naming a table wins;
- ``'async'``, ``'output-mode'``, ``'capacity'``, ``'timeout'`` change nothing: Flink's JDBC
  lookup source is synchronous, and so is StreamSQL's (rows come out in input order);
- ``BROADCAST``, ``SHUFFLE_HASH``, ``SHUFFLE_MERGE``, ``NEST_LOOP`` are batch join strategies, and
  ``MULTI_JOIN`` plans Flink's multi-way join operator for the joins it names (the same rows as
  its chain of joins: probed on PyFlink 2.3, ``tests/plan/table_hints_flink.json``): a streaming
  job here takes them without effect, each name checked against the join inputs of the SELECT and
  below (Flink's same message).

Functions:
    lookup_hint_names(): the hint names handled here.
    note_lookup_join(planner, node, name): record a lookup join of the SELECT being planned.
    apply_lookup_hints(planner, sel, lookups): check the hints of ``sel``, set the retries.
    mark_subquery(sel): note whether ``sel`` takes its enclosing SELECT's hint.
    written_names(sel): the names of a SELECT's FROM and JOIN inputs as written.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from sqlglot import exp

from streamsql.core.catalog import table_parts
from streamsql.core.errors import ConfigError
from streamsql.core.values import duration_ms, parse_int
from streamsql.plan.nodes import PlanNode

#: Flink's join hints: batch strategies and MULTI_JOIN, taken without effect here (names checked).
JOIN_HINTS = ("BROADCAST", "SHUFFLE_HASH", "SHUFFLE_MERGE", "NEST_LOOP", "MULTI_JOIN")
_RETRY = ("retry-predicate", "retry-strategy", "fixed-delay", "max-attempts")
#: How many options Flink's LOOKUP hint knows (LookupJoinHintOptions' supported options, its message says):
#: a hint with more keys is refused, unknown keys or not.
_SUPPORTED = 10
_INHERITS = "lookup_hint_inherits"  # a Select's meta key: see mark_subquery
_UNMATCHED = "The options of following hints cannot match the name of input tables or views: "


@dataclass(frozen=True)
class LookupRetry:
    """A lookup join's retry on a miss: ``delay_ms`` between lookups, up to ``max_attempts`` more."""

    delay_ms: int
    max_attempts: int
    predicate: str = "lookup_miss"  # as written, for EXPLAIN (Flink prints it so)

    def describe(self) -> str:
        """Flink's EXPLAIN attribute: ``retry=[lookup_miss, FIXED_DELAY, 10000ms, 3]``."""
        return f"retry=[{self.predicate}, FIXED_DELAY, {self.delay_ms}ms, {self.max_attempts}]"


def lookup_hint_names() -> tuple[str, ...]:
    """The names of the hints after SELECT this module takes."""
    return ("LOOKUP", *JOIN_HINTS)


def note_lookup_join(planner, node: PlanNode, table: exp.Table) -> None:
    """Record lookup join ``node`` of dimension table ``table`` (as written, with its alias if any)."""
    stack = _stack(planner)
    if stack:
        stack[-1].append((node, table))


def open_block(planner) -> None:
    """A SELECT starts planning: its lookup joins are recorded apart from its subqueries'."""
    _stack(planner).append([])


def close_block(planner) -> list[tuple[PlanNode, exp.Table]]:
    """The SELECT is planned: its lookup joins."""
    return _stack(planner).pop()


def _stack(planner) -> list[list[tuple[PlanNode, exp.Table]]]:
    return vars(planner).setdefault("_lookup_blocks", [])


def apply_lookup_hints(planner, sel: exp.Select, lookups: list[tuple[PlanNode, exp.Table]], fail) -> None:
    """Check ``sel``'s LOOKUP and join hints (module docstring) and set its lookup joins' retries.

    ``fail(planner, text, message, hint_name)`` raises the SqlError at ``text`` in the hint.

    Raises:
        SqlError: an option Flink refuses, a table name no lookup join (join input) has.
    """
    hint = sel.args.get("hint")
    # (table, retry, shuffle) in hint order: the first naming a table wins
    retries: list[tuple[str, LookupRetry | None, bool]] = []
    qualify = lambda t: planner.catalog.qualify(table_parts(t))  # noqa: E731
    selects = list(sel.find_all(exp.Select))  # sel and its subqueries: the names a hint may use
    joined = [s for s in selects if s.args.get("joins")]  # Flink checks names on joins only
    for h in hint.expressions if hint is not None else ():
        name = str(h.this).upper() if isinstance(h, exp.Anonymous) else ""
        if name == "LOOKUP":
            table, retry, shuffle = _lookup_options(planner, h, fail)
            if joined and table not in _lookup_names(joined, qualify):
                fail(planner, f"'{table}'", f"{_UNMATCHED}`{table}` in `LOOKUP` ('table' is the alias, else "
                                            "the name, of the right input of a join: the table joined FOR "
                                            "SYSTEM_TIME AS OF)", "LOOKUP")
            retries.append((table, retry, shuffle))
        elif name in JOIN_HINTS and joined:
            inputs = set().union(*map(written_names, joined))
            for arg in h.expressions:
                plain = isinstance(arg, exp.Column | exp.Identifier | exp.Literal)
                written = arg.name if plain else arg.sql()
                if written not in inputs:
                    fail(planner, written, f"{_UNMATCHED}`{written}` in `{name}`", name)
    unnamed = []
    for node, table in lookups:
        names = _hint_names(table, qualify)
        named = [(retry, shuffle) for name, retry, shuffle in retries if name in names]
        node.retry, node.shuffle = named[0] if named else (None, False)
        if not named:
            unnamed.append((node, table))
    stack = _stack(planner)
    if stack and (sel.meta.get(_INHERITS) or _in_expression(sel)):  # asked before and after rewrites
        stack[-1].extend(unnamed)  # the enclosing SELECT's hint applies to them (Flink 2.3 probe)


def mark_subquery(sel: exp.Select) -> exp.Select:
    """Note on ``sel`` (as written, before the planner's rewrites copy it) whether it inherits hints."""
    if _in_expression(sel):
        sel.meta[_INHERITS] = True
    return sel


def _in_expression(sel: exp.Select) -> bool:
    """Whether ``sel`` is a subquery inside an expression (``IN (...)``, a scalar subquery).

    Flink 2.3 applies a SELECT's LOOKUP hint to the lookup joins of such subqueries (without one of
    their own naming the table), not to those of a FROM subquery, a CTE or a set operation.
    """
    node, wrapped = sel.parent, False
    while isinstance(node, (exp.Subquery, exp.Paren)):
        node, wrapped = node.parent, wrapped or isinstance(node, exp.Subquery)
    if node is None:  # a scalar subquery the planner took out of its expression, or the statement
        return wrapped
    return not isinstance(
        node, (exp.From, exp.Join, exp.CTE, exp.With, exp.SetOperation, exp.Lateral, exp.Create, exp.Insert))


class HintOptionError(Exception):
    """A hint's option Flink's hint strategy refuses: its message and the text to point at."""

    def __init__(self, message: str, text: str = "") -> None:
        """``text``: what the error is positioned at inside the hint (its name when empty)."""
        super().__init__(message)
        self.message, self.text = message, text


def _lookup_options(planner, h: exp.Anonymous, fail_at) -> tuple[str, LookupRetry | None, bool]:
    """``(table, retry or None, shuffle)`` of one LOOKUP hint after SELECT, checked as Flink's.

    ``shuffle``: ``'shuffle' = 'true'`` (any case), which Flink's EXPLAIN shows as ``shuffle=[true]``
    on the LookupJoin (it hashes the input by the lookup keys first; one task's lookups here).
    """
    options: dict[str, str] = {}
    for option in h.expressions:
        if not (isinstance(option, exp.EQ) and isinstance(option.this, exp.Literal)
                and isinstance(option.expression, exp.Literal)):
            msg = "Invalid list options in LOOKUP hint, only support key-value options."
            fail_at(planner, option.sql(), msg, "LOOKUP")
        options.setdefault(option.this.name, option.expression.name)
    try:
        table, retry = lookup_options(options)
        if retry is not None and retry.delay_ms <= 0:  # Flink's retry strategy, where a join takes it
            msg = "backoffTimeMillis should be greater than zero."
            raise HintOptionError(msg, f"'{options['fixed-delay']}'")
    except HintOptionError as e:
        fail_at(planner, e.text or "LOOKUP", e.message, "LOOKUP")
    return table, retry, options.get("shuffle", "").lower() == "true"


def lookup_options(options: dict[str, str]) -> tuple[str, LookupRetry | None]:
    """``(table, retry or None)`` of a LOOKUP hint's key-value options, as Flink's hint strategy.

    Flink checks the same wherever the hint is (after SELECT, or after a table's name where it
    is then dropped): ``'table'`` given, values that parse, ``'capacity'`` positive when
    ``'async'`` is true, the retry options all or none, ``'max-attempts'`` positive.

    Raises:
        HintOptionError: Flink's message.
    """
    if "table" not in options:
        msg = ("Invalid LOOKUP hint: incomplete required option(s): [Key: 'table' , default: null "
               "(fallback keys: [])]")
        raise HintOptionError(msg)
    if len(options) > _SUPPORTED:
        msg = (f"Too many LOOKUP hint options {len(options)} beyond max number of supported options "
               f"{_SUPPORTED}")
        raise HintOptionError(msg)

    def bad(key: str) -> HintOptionError:
        value = options[key]
        msg = f"Invalid LOOKUP hint options: Could not parse value '{value}' for key '{key}'."
        return HintOptionError(msg, f"'{value}'")

    # Flink's Configuration: enums and booleans in any case but not padded, ints as Integer.parseInt
    choices = {"async": ("true", "false"), "output-mode": ("ordered", "allow_unordered"),
               "retry-strategy": ("fixed_delay",), "shuffle": ("true", "false")}
    for key, allowed in choices.items():
        if key in options and options[key].lower() not in allowed:
            raise bad(key)
    ints, delays = {}, {}
    for key in ("capacity", "max-attempts"):
        if key in options:
            try:
                ints[key] = parse_int(options[key], key)
            except ConfigError:
                raise bad(key) from None
    for key in ("timeout", "fixed-delay"):
        if key in options:
            try:
                delays[key] = duration_ms(options[key], key)
            except ConfigError:
                raise bad(key) from None

    def positive(key: str) -> None:
        if ints[key] <= 0:
            msg = f"Invalid LOOKUP hint option: {key} value should be positive integer but was {ints[key]}"
            raise HintOptionError(msg, f"'{options[key]}'")

    if options.get("async", "").lower() == "true" and "capacity" in ints:
        positive("capacity")  # Flink looks at the capacity of an async lookup only
    given = [k in options for k in _RETRY]
    if any(given) and not all(given):
        msg = "Invalid LOOKUP hint: retry options can be both null or all not null"
        raise HintOptionError(msg)
    if not all(given):
        return options["table"], None
    predicate = options["retry-predicate"]
    if predicate.lower() != "lookup_miss":
        msg = (f"Invalid LOOKUP hint option: unsupported retry-predicate '{predicate}', only 'lookup_miss' "
               "is supported currently")
        raise HintOptionError(msg, f"'{predicate}'")
    positive("max-attempts")
    return options["table"], LookupRetry(delays["fixed-delay"], ints["max-attempts"], predicate)


def _lookup_names(selects: list[exp.Select], qualify: Callable[[exp.Table], tuple[str, ...]]) -> set[str]:
    """The names a LOOKUP hint may give: the right input of each join in ``selects``.

    Flink 2.3 matches a LOOKUP hint against the right side of every join (a regular join's too,
    where it changes nothing), never a left side: a table's alias, else its name, also qualified
    (``db.dim``, ``cat.db.dim``); a subquery's alias. ``qualify``: a table's catalog, database and
    name.
    """
    names: set[str] = set()
    for j in (j for s in selects for j in s.args.get("joins") or []):
        right = j.this
        if isinstance(right, exp.Table) and isinstance(right.this, exp.Identifier):
            names |= _hint_names(right, qualify)
        elif isinstance(right, (exp.Table, exp.Subquery)) and right.alias:
            names.add(right.alias)
    return names


def _hint_names(t: exp.Table, qualify: Callable[[exp.Table], tuple[str, ...]]) -> set[str]:
    """The names a hint may give table ``t``: its alias, else its name, bare or qualified."""
    if t.alias:
        return {t.alias}
    cat, db, name = qualify(t)
    return {name, f"{db}.{name}", f"{cat}.{db}.{name}"}


def written_names(sel: exp.Select) -> set[str]:
    """The names of ``sel``'s FROM and JOIN inputs as written: each alias, else the table name.

    The planner's scopes keep names in lower case (identifiers resolve in any case); Flink's hint
    keys are compared with the names as written, case-sensitively.
    """
    sources = [sel.args["from_"].this] if sel.args.get("from_") else []
    sources += [j.this for j in sel.args.get("joins") or []]
    names: set[str] = set()
    while sources:
        src = sources.pop()
        if isinstance(src, exp.Table | exp.Subquery) and src.alias:
            names.add(src.alias)
        elif isinstance(src, exp.Table):
            names.add(src.name)
        if isinstance(src, exp.Subquery) and isinstance(src.this, exp.Table | exp.Subquery) and not src.alias:
            sources.append(src.this)  # (t) or ((t) JOIN u): a parenthesised input
        for j in src.args.get("joins") or []:
            sources.append(j.this)
    return names
