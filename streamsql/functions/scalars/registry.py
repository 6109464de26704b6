"""The scalar function registry: one entry per Flink built-in, and the rules that match a call.

An entry (:class:`ScalarFunction`) holds the function's names, its argument type rules (the
signatures: one family per argument, see :data:`FAMILIES`), Flink's result type, its NULL
behaviour and determinism (documentation, listed in docs/functions.md), and ``build``: the
DuckDB expression that computes it over a whole batch, made from the compiled arguments. An
entry may also have ``fast``: a cheaper expression for the calls whose literal arguments prove
it gives ``build``'s values (:meth:`ScalarFunction.compile` tries it first).

Types are :class:`~streamsql.core.types.SqlType` values; ``None`` is a type the binder could not
infer (it matches every family, so an untyped argument is never refused for its type), and
:data:`NULL` the type of an untyped ``NULL`` literal (it matches every family, as in Flink).
"""

from __future__ import annotations

import re
import string
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from functools import cache

from sqlglot import exp
from sqlglot.dialects.dialect import Dialect

from streamsql.core.types import SqlType, duckdb_cast
from streamsql.functions.python_functions import VectorFunction, register

NULL = SqlType("NULL")
"""The type of an untyped NULL literal."""

INTEGERS = ("TINYINT", "SMALLINT", "INT", "BIGINT")
FAMILIES: dict[str, tuple[str, ...]] = {
    "STRING": ("STRING",),
    "INTEGER": INTEGERS,
    "NUMERIC": (*INTEGERS, "FLOAT", "DOUBLE", "DECIMAL"),
    "BOOLEAN": ("BOOLEAN",),
    "DATE": ("DATE",),
    "TIMESTAMP": ("TIMESTAMP", "TIMESTAMP_LTZ"),
    "DATETIME": ("DATE", "TIMESTAMP", "TIMESTAMP_LTZ"),
    "TIME": ("TIME",),
    "BYTES": ("BYTES",),
    "ARRAY": ("ARRAY",),
    "MAP": ("MAP",),
    "JSON": ("STRING", "VARIANT"),
    "BITMAP": ("BITMAP",),
}
"""Argument families of the signatures ('ANY' matches every type). ``JSON``: a JSON document, its
text or a VARIANT (JSON_VALUE and JSON_QUERY read a VARIANT's JSON text, as Flink 2.3 does)."""

_CALCITE_FAMILY = {"STRING": "CHARACTER", "BOOLEAN": "BOOLEAN", "DATE": "DATE", "TIMESTAMP": "TIMESTAMP",
                   "TIMESTAMP_LTZ": "TIMESTAMP", "TIME": "TIME", "BYTES": "BINARY", "NULL": "NULL"}


def family_name(t: SqlType | None) -> str:
    """How Flink (Calcite) names a type's family in 'No match found for function signature'."""
    if t is None:
        return "ANY"
    if t.is_numeric:
        return "NUMERIC"
    return _CALCITE_FAMILY.get(t.name, t.name)


def _calcite(family: str) -> str:
    base = family.removesuffix("...")
    return ("CHARACTER" if base in ("STRING", "JSON") else base) + ("..." if family.endswith("...") else "")


def matches(family: str, t: SqlType | None) -> bool:
    """Whether an argument of type ``t`` fits ``family``."""
    return t is None or t == NULL or t.name == "NULL" or family == "ANY" or t.name in FAMILIES[family]


class FunctionError(Exception):
    """A call that cannot be planned; ``node`` is where (the planner positions the error)."""

    def __init__(self, message: str, node: exp.Expression):
        super().__init__(message)
        self.message = message
        self.node = node


@dataclass
class Arg:
    """One compiled argument of a call.

    Attributes:
        sql: the DuckDB expression computing it.
        type: its Flink type (None: unknown; :data:`NULL`: an untyped NULL).
    """

    sql: exp.Expression
    type: SqlType | None

    @property
    def is_literal(self) -> bool:
        """True for a constant: a literal, a negated literal or a (typed) NULL."""
        return _literal(self.sql) is not _NOT_LITERAL

    def value(self):
        """The constant's Python value (None for NULL).

        Raises:
            ValueError: when the argument is not a constant.
        """
        v = _literal(self.sql)
        if v is _NOT_LITERAL:
            msg = "not a literal"
            raise ValueError(msg)
        return v

    @property
    def text(self) -> str:
        """The DuckDB SQL of the argument, parenthesized (safe inside any template)."""
        return f"({self.sql.sql(dialect='duckdb')})"


_NOT_LITERAL = object()


def _literal(node: exp.Expression):
    if isinstance(node, exp.Paren):
        return _literal(node.this)
    if isinstance(node, exp.Null) or (isinstance(node, exp.Cast) and isinstance(node.this, exp.Null)):
        return None
    if isinstance(node, exp.Neg):
        v = _literal(node.this)
        return -v if isinstance(v, (int, float)) else _NOT_LITERAL
    if isinstance(node, exp.Literal):
        if node.is_string:
            return node.this
        text = node.this
        return int(text) if text.lstrip("-").isdigit() else float(text)
    return _NOT_LITERAL


@dataclass
class Call:
    """A call being compiled: its name as written, its arguments and its keyword.

    ``unit`` is the time unit of EXTRACT/TIMESTAMPDIFF/TIMESTAMPADD/FLOOR TO/CEIL TO, or the
    side (BOTH/LEADING/TRAILING) of TRIM.
    """

    name: str
    args: list[Arg]
    node: exp.Expression
    unit: str | None = None

    def fail(self, message: str) -> FunctionError:
        """A planning error positioned at this call."""
        return FunctionError(message, self.node)

    def literal(self, i: int, what: str):
        """The constant value of argument ``i``.

        Raises:
            FunctionError: when it is not a literal (``what`` names it in the message).
        """
        if not self.args[i].is_literal:
            msg = f"{self.name}: {what} must be a literal"
            raise self.fail(msg)
        return self.args[i].value()


ResultRule = Callable[[Call], "SqlType | None"]


Refusal = Callable[[str, "list[SqlType | None]"], "str | None"]
"""Flink's message refusing a call (name as written, argument types) that fits no signature; None:
Calcite's ``No match found for function signature`` (the binder's)."""


def invalid_call(name: str, types: list[SqlType | None], why: str) -> str:
    """Flink's new type inference's refusal of ``name(types)``, as Flink 2.3's ``TypeInferenceUtil``.

    ``Invalid function call:``, the call with its argument types (``ANY`` where unknown), then
    ``why`` (one line or more).
    """
    shown = ", ".join(str(t) if t is not None else "ANY" for t in types)
    return f"Invalid function call:\n{name}({shown})\n{why}"


def expected_signatures(name: str, *signatures: tuple[str, ...]) -> Refusal:
    """The :data:`Refusal` of a function typed by Flink's new type inference.

    Flink shows its signatures as ``name(param, ...)``; ``signatures`` are each one's parameters as
    Flink writes them (``("a <BITMAP>", "b <BITMAP>")``, ``("<CHARACTER_STRING>",)``).

    A call with one signature's number of arguments but other types is refused in Flink's words,
    ``Invalid function call`` ... ``Invalid input arguments. Expected signatures are:`` and the
    signatures one a line; a call of another arity gets None (Calcite's ``No match found``).
    """
    listed = "\n".join(f"{name}({', '.join(s)})" for s in signatures)

    def refuse(written: str, types: list[SqlType | None]) -> str | None:
        if not any(len(s) == len(types) for s in signatures):
            return None
        return invalid_call(written, types, f"Invalid input arguments. Expected signatures are:\n{listed}")

    return refuse


@dataclass(frozen=True)
class ScalarFunction:
    """A built-in scalar function.

    Attributes:
        names: the names it is called by (the first is the one documented).
        group: the docs group (string, conditional, arithmetic, temporal, hash).
        signatures: argument families per accepted arity; a last family ending in ``...``
            repeats (e.g. ``("STRING", "STRING...")``: one or more strings).
        result: Flink's result type for a call (from the argument types).
        build: the DuckDB expression for a call (over ``Call.args``).
        nulls: the NULL behaviour, in words.
        deterministic: False for functions whose value changes between evaluations.
        differences: a deliberate difference with Flink, and why ("" when none).
        cast: cast the built expression to the result type (DuckDB's natural type differs).
        failures: how its failures on a value read (:class:`Failure`; docs/functions.md lists
            them), for those DuckDB raises rather than the function (:func:`fail_sql`).
        fast: a cheaper DuckDB expression for a call, or None when the call's literal arguments
            do not prove it exact (e.g. one regex pass where ``build`` needs two because the
            pattern's group may match nothing); None: ``build`` only.
        refusal: Flink's own message for a call whose argument types fit no signature, from the name
            as written and the types (:data:`Refusal`): :func:`expected_signatures` for a function
            typed by Flink's new type inference (``Invalid function call`` ... ``Expected signatures
            are:``), or the function's own input type strategy's words (BITMAP_FROM_BYTES'
            ``Unsupported argument type. Expected type of family 'BINARY_STRING' ...``); None, or a
            refusal answering None: Calcite's ``No match found for function signature``.
    """

    names: tuple[str, ...]
    group: str
    signatures: tuple[tuple[str, ...], ...]
    result: ResultRule
    build: Callable[[Call], exp.Expression]
    nulls: str = "NULL if any argument is NULL"
    deterministic: bool = True
    differences: str = ""
    cast: bool = True
    failures: tuple[Failure, ...] = ()
    fast: Callable[[Call], exp.Expression | None] | None = None
    refusal: Refusal | None = None

    def compile(self, call: Call) -> exp.Expression:
        """The DuckDB expression of ``call``: :attr:`fast`'s where it applies, else :attr:`build`'s.

        A temporal function's TIMESTAMP(7..9) / TIMESTAMP_LTZ(7..9) argument (DuckDB's
        ``TIMESTAMP_NS``) is given as its microseconds, cut down (:func:`micro_args`); EXTRACT
        and TIMESTAMPADD put the nanoseconds back (:mod:`.nanos`).
        """
        nanos = (self.group == "temporal" or self.names[0] in ("FLOOR", "CEIL")) and _ns_args(call)
        if nanos:
            call = Call(call.name, micro_args(call.args, up=self.names[0] == "CEIL"), call.node, call.unit)
        out = self.fast(call) if self.fast is not None else None
        out = self.build(call) if out is None else out
        if nanos:
            from streamsql.functions.scalars.nanos import restore_nanos

            out = restore_nanos(call, nanos, out)
        return out

    def accepts(self, types: list[SqlType | None]) -> bool:
        """Whether some signature fits argument types ``types``."""
        return any(_fits(sig, types) for sig in self.signatures)

    def signature_list(self) -> list[str]:
        """The accepted signatures, Flink style: ``LPAD(<CHARACTER>, <INTEGER>, <CHARACTER>)``."""
        return [f"{self.names[0]}(" + ", ".join(f"<{_calcite(f)}>" for f in sig) + ")"
                for sig in self.signatures]

    def signature_text(self) -> str:
        """:meth:`signature_list` as one line."""
        return ", ".join(self.signature_list())


def _fits(sig: tuple[str, ...], types: list[SqlType | None]) -> bool:
    if sig and sig[-1].endswith("..."):
        head, rest = sig[:-1], sig[-1][:-3]
        if len(types) < len(sig):
            return False
        return (all(matches(f, t) for f, t in zip(head, types))
                and all(matches(rest, t) for t in types[len(head):]))
    return len(sig) == len(types) and all(matches(f, t) for f, t in zip(sig, types))


TYPE = "flink_type"
#: True while the binder compiles a part of an expression that Flink's simplification drops before
#: it generates code (a ``CASE WHEN FALSE`` branch; the operand of a TIMESTAMPADD whose unit makes it
#: NULL): what Flink refuses only in code generation is a typed NULL there, never evaluated.
DEAD_CODE: ContextVar[bool] = ContextVar("streamsql_dead_code", default=False)
"""The meta key under which compiled nodes carry their inferred Flink type."""


def type_of(node: exp.Expression) -> SqlType | None:
    """The Flink type the binder inferred for a compiled node (None: unknown)."""
    return node.meta.get(TYPE)


REGISTRY: dict[str, ScalarFunction] = {}
"""Every registered scalar function by each of its (upper-case) names."""


@dataclass
class _Options:
    sig: tuple[tuple[str, ...], ...]
    result: ResultRule
    extra: dict = field(default_factory=dict)


def _ns_args(call: Call) -> list[Arg]:
    """The arguments of ``call`` that are timestamps of precision 7 to 9 (as given, nanoseconds)."""
    return [a for a in call.args if a.type is not None and a.type.name in ("TIMESTAMP", "TIMESTAMP_LTZ")
            and (a.type.precision or 0) > 6]


def micro_args(args: list[Arg], up: bool = False) -> list[Arg]:
    """``args`` with each TIMESTAMP(7..9) / TIMESTAMP_LTZ(7..9) cut down to its microsecond, precision 6.

    DuckDB's functions take a ``TIMESTAMP_NS`` as a ``TIMESTAMP`` through a cast that *rounds*
    (``23:59:59.9999995`` is the next day for YEAR, DAY, HOUR ...), where Flink reads the fields
    of its millisecond and nano-of-millisecond: cut down first, the fields are Flink's. ``up``
    (CEIL): a value with nanoseconds below its microsecond is taken as the next microsecond, so a
    CEIL to any unit of a microsecond or more is Flink's (``10:00:00.0000001`` TO SECOND is 10:00:01).
    """
    from streamsql.core.timestamp_precision import floor_ns_sql

    out = []
    for a in args:
        t = a.type
        if t is None or t.name not in ("TIMESTAMP", "TIMESTAMP_LTZ") or (t.precision or 0) <= 6:
            out.append(a)
            continue
        micro = SqlType(t.name, 6, nullable=t.nullable)
        cut = floor_ns_sql(a.text, 6, t.name == "TIMESTAMP_LTZ")
        value: exp.Expression = exp.Cast(this=template("{0}", cut), to=micro.duckdb_type())
        if up:
            more = "to_microseconds(CAST(epoch_ns({1}) % 1000 <> 0 AS BIGINT))"
            value = template(f"({{0}} + {more})", Arg(value, micro), a)
        out.append(Arg(value, micro))
    return out


def scalar(*names: str, group: str, sig: tuple[tuple[str, ...], ...], result: ResultRule, **extra):
    """Register the decorated ``build(call) -> exp.Expression`` as the scalar function ``names``."""

    def register(build: Callable[[Call], exp.Expression]) -> Callable[[Call], exp.Expression]:
        fn = ScalarFunction(names=names, group=group, signatures=sig, result=result, build=build, **extra)
        for n in names:
            REGISTRY[n.upper()] = fn
        return build

    return register


def template(text: str, *args: Arg | str) -> exp.Expression:
    """A DuckDB expression from ``text`` with ``{0}``, ``{1}`` ... replaced by the arguments.

    The arguments are parenthesized and the result is too, so templates nest safely. An argument
    written more than once in ``text`` is computed once per row (:func:`_shared`): a function's
    arguments are evaluated once, before the call, as in Flink, and nested templates that repeat
    their arguments would otherwise grow the SQL exponentially (TIMESTAMPDIFF(MONTH,
    TO_TIMESTAMP(s), ...) was 93 KB of SQL and seconds a batch).
    """
    parts = [a.text if isinstance(a, Arg) else a for a in args]
    if "lambda" in text:
        text = _unshadowed(text, parts)
    shared = _shared(text, parts)
    if not shared:
        return exp.Var(this="(" + text.format(*parts) + ")")
    # Named by nesting depth: deeper than every let inside the parts, so it hides none of theirs,
    # and an enclosing template's, made later, is deeper still; deeper too than a column of the
    # user's named like one (`__let0_0`), which the lambda would hide. One lambda per argument: a
    # struct_pack of them would come back from sqlglot as a {'a0': ...} literal, and callers
    # format SQL that holds a template's output.
    depth = max((int(d) for p in parts for d in _LET.findall(p)), default=-1) + 1
    names = {i: f"__let{depth}_{i}" for i in shared}
    body = text.format(*(names.get(i, p) for i, p in enumerate(parts)))
    for i in reversed(shared):
        body = bind(parts[i], names[i], body)
    return exp.Var(this="(" + body + ")")


def sql_node(text: str) -> exp.Expression:
    """A DuckDB expression from finished SQL ``text``, parenthesized.

    No placeholders: braces in it (in a string literal) stay as they are, where :func:`template`
    would read them as placeholders.
    """
    return exp.Var(this="(" + text + ")")


#: DuckDB SQL that costs nothing to repeat: a column or a literal, in parentheses or not.
_TRIVIAL = re.compile(r"""\(*(?:"[^"]*"|'(?:[^']|'')*'|-?[0-9]+(?:\.[0-9]+)?|NULL|TRUE|FALSE)\)*""",
                      re.IGNORECASE)
#: Calls whose every evaluation may give another value or run user code: computed once however
#: short (DuckDB eliminates no repeated volatile call).
_VOLATILE = re.compile(r"\b(?:random|uuid)\(\)|\b__udf_")
#: The names :func:`template` binds shared arguments under, ``__let<depth>_<argument>``, wherever
#: named (a column too: DuckDB's names are case-insensitive).
_LET = re.compile(r"__let([0-9]+)_", re.IGNORECASE)
#: A string literal or a quoted name (group 1), or a lambda's parameters (group 2).
_QUOTED_OR_PARAMS = re.compile(r"""'(?:[^']|'')*'|("(?:[^"]|"")*")|\blambda\s+([A-Za-z_][A-Za-z0-9_, ]*):""")


def _name_at(name: str) -> str:
    """A regular expression of ``name`` as a whole name."""
    return rf"(?<![A-Za-z0-9_$]){re.escape(name)}(?![A-Za-z0-9_$])"


def _named(name: str, text: str) -> bool:
    """Whether ``text`` names ``name``, bare or quoted (DuckDB matches names case-insensitively)."""
    return re.search(_name_at(name), text, re.IGNORECASE) is not None


def _unshadowed(text: str, parts: list[str]) -> str:
    """``text`` with each lambda parameter that a part names renamed.

    Inside a lambda DuckDB reads the parameter's name as the parameter, even quoted: a column of
    the user's called ``__x`` (or an outer lambda's parameter) in an argument placed in the body
    was read as the element (ARRAY_REMOVE(arr, __x) removed every element).
    """
    found = [m for m in _QUOTED_OR_PARAMS.finditer(text) if m.group(1) or m.group(2)]
    columns = [m.group(1) for m in found if m.group(1)]
    params = {p.strip() for m in found if m.group(2) for p in m.group(2).split(",")}
    for name in sorted(params):
        if not any(_named(name, p) for p in (*parts, *columns)):
            continue
        k = 1
        while any(_named(f"{name}_{k}", p) for p in (text, *parts)):
            k += 1
        # renamed outside string literals and quoted names (a user's literal may spell it)
        text = re.sub(r"""'(?:[^']|'')*'|"(?:[^"]|"")*"|""" + _name_at(name),
                      lambda m, new=f"{name}_{k}": m.group(0) if m.group(0)[0] in "'\"" else new, text)
    return text
#: Below this many characters of repeats, a repeated argument is cheaper written again than bound
#: (binding builds a one-element list per row): ``("i" + "j")`` twice is, a CONCAT read seven
#: times by a timestamp reader is not.
_SHORT = 40


def _shared(text: str, parts: list[str]) -> list[int]:
    """The indexes of the arguments ``text`` names more than once that cost something to repeat."""
    uses = Counter(int(f) for _, f, _, _ in string.Formatter().parse(text) if f is not None and f.isdigit())
    return [i for i, n in sorted(uses.items()) if _worth_binding(parts[i], n, "lambda" in text)]


def _worth_binding(value: str, uses: int, in_lambda: bool) -> bool:
    """Whether SQL naming ``value`` ``uses`` times should compute it once (see :func:`template`).

    A volatile value is bound wherever a lambda may run it once per element, named once or not
    (ARRAY_REMOVE(arr, RAND_INTEGER(3)) compared each element with another number).
    """
    if _TRIVIAL.fullmatch(value):
        return False
    if uses > 1 and (uses - 1) * len(value) >= _SHORT:
        return True
    return (uses > 1 or in_lambda) and _VOLATILE.search(value) is not None


def volatile(sql: str) -> bool:
    """Whether DuckDB SQL calls something whose every evaluation may differ.

    RAND(), UUID(), a Python function: such a value is computed once, however often the SQL
    around it names it.
    """
    return _VOLATILE.search(sql) is not None


def once(value: str, body: Callable[[str], str]) -> str:
    """DuckDB SQL of ``body(value)``, ``value`` computed once per row as :func:`template` binds.

    For SQL written around a value outside a template (a CAST to STRING writes a timestamp's
    text from it eleven times): bound where it is volatile or long, else written in place.
    """
    name = f"__let{max((int(d) for d in _LET.findall(value)), default=-1) + 1}_0"
    text = body(name)
    if _worth_binding(value, len(re.findall(_name_at(name), text)), "lambda" in text):
        return bind(value, name, text)
    return body(value)


def bind(value: str, name: str, body: str) -> str:
    """DuckDB SQL of ``body`` in which the name ``name`` is ``value``, computed once per row.

    DuckDB eliminates a repeated subexpression only in a projection and only outside CASE
    branches: written n times in a THEN or in a WHERE, it is computed n times. A lambda over a
    one-element list computes ``value`` once. Nothing is eliminated inside ``body`` either, so
    what repeats there must be bound too. A lambda's name hides an outer one of the same name.
    """
    return f"list_transform([{value}], lambda {name}: {body})[1]"


def duckdb_call(fn: str) -> Callable[[Call], exp.Expression]:
    """A ``build`` that calls DuckDB's function ``fn`` with the arguments as they are."""

    def build(c: Call) -> exp.Expression:
        return template(f"{fn}(" + ", ".join(f"{{{i}}}" for i in range(len(c.args))) + ")", *c.args)

    return build


_ZONE: ContextVar[str] = ContextVar("session_time_zone", default="UTC")
_RESOLVE: ContextVar[Callable[[str], "ScalarFunction | None"]] = ContextVar("resolve_function")
_DATABASE: ContextVar[str] = ContextVar("current_database", default="default_database")


@contextmanager
def planning_session(zone: str | None, resolve: Callable[[str], ScalarFunction | None] | None = None,
                     database: str = "default_database") -> Iterator[None]:
    """Plan with the session's time zone, functions and current database.

    Args:
        zone: Flink's ``'table.local-time-zone'``, read at planning time (the compiled DuckDB
            expressions carry it as a literal); None keeps UTC, StreamSQL's default (Flink's
            default is the JVM's zone).
        resolve: the function a name means (user functions included); None: the built-ins.
        database: the session's current database when the statement is planned (``USE``), the
            value of ``CURRENT_DATABASE()``.
    """
    tokens = _ZONE.set(zone or "UTC"), _RESOLVE.set(resolve or REGISTRY.get), _DATABASE.set(database)
    try:
        yield
    finally:
        _ZONE.reset(tokens[0])
        _RESOLVE.reset(tokens[1])
        _DATABASE.reset(tokens[2])


def lookup(name: str) -> ScalarFunction | None:
    """The function a call of ``name`` (upper case) means in the session being planned."""
    return _RESOLVE.get(REGISTRY.get)(name)


def family_of(t: SqlType) -> str:
    """The argument family a declared type accepts (e.g. NUMERIC for BIGINT)."""
    if t.is_numeric:
        return "NUMERIC"
    families = ("STRING", "BOOLEAN", "DATE", "TIMESTAMP", "BYTES")
    return next((f for f in families if t.name in FAMILIES[f]), "ANY")


def session_database() -> str:
    """The current database of the session planning the statement (``USE``'s, as written there)."""
    return _DATABASE.get()


def session_zone() -> str:
    """The session time zone of the statement being planned (an IANA name or 'UTC')."""
    return _ZONE.get()


def python_call(label: str, fn: Callable, params: tuple[str, ...], returns: str,
                deterministic: bool = True) -> Callable[[Call], exp.Expression]:
    """A ``build`` that calls the Python function ``fn`` over whole Arrow arrays.

    ``fn(*arrays) -> pa.Array`` is registered as a :class:`VectorFunction` named after
    ``label``; the arguments are cast to the DuckDB types ``params``.
    """
    name = f"__streamsql_{label.lower()}_{len(params)}"
    f = register(VectorFunction(name, f"Function {label}", fn, params, returns, deterministic))

    def build(c: Call) -> exp.Expression:
        casts = ", ".join(f"CAST({{{i}}} AS {t})" for i, t in enumerate(params[: len(c.args)]))
        return template(f"{f.name}({casts})", *c.args)

    return build


FAILURE = "StreamSQL: "
"""How a failure raised by :func:`fail_sql` starts, within DuckDB's error text."""


_PLAIN = re.compile(r"^[A-Za-z_][A-Za-z0-9_$]*$")


#: meta key of a column that stands for an expression the user wrote (an aggregate call or a
#: grouping expression after a GROUP BY): its Flink SQL, which :func:`written` puts back
AS_WRITTEN = "as_written"


def _atomic(text: str) -> bool:
    """Whether ``text`` needs no parentheses as an operand: a name, or one call ``F(...)``."""
    if _PLAIN.match(text):
        return True
    m = _CALL.match(text)
    if not m:
        return False
    depth = 0
    for i, ch in enumerate(text[m.end() - 1:], m.end() - 1):
        depth += (ch == "(") - (ch == ")")
        if depth == 0:
            return i == len(text) - 1  # the call's own parenthesis closes the text
    return False


_CALL = re.compile(r"^[A-Za-z_][A-Za-z0-9_$]*\(")


def written(resolved: exp.Expression) -> str:
    """Flink SQL of a resolved expression, as a message or EXPLAIN names it to the user.

    Columns are the input's names, unquoted where plain (``id / 0``, not ```id` / 0``); a column
    marked :data:`AS_WRITTEN` is the expression it stands for (``SUM(v) / MIN(w)``, not
    ``__agg0 / __agg1``).
    """
    tree = resolved.copy()
    for col in list(tree.find_all(exp.Column)):
        text = col.meta.get(AS_WRITTEN)
        if text:
            col.replace(exp.var(text) if _atomic(text) else exp.Paren(this=exp.var(text)))
    for ident in tree.find_all(exp.Identifier):
        if _PLAIN.match(ident.name):
            ident.set("quoted", False)
    return _flink_dialect().generate(tree, copy=False)  # tree is our own copy


@cache
def _flink_dialect() -> Dialect:
    """The Flink dialect, made once (``.sql(dialect="flink")`` builds one per call)."""
    return Dialect.get_or_raise("flink")


def fail_sql(message: str) -> str:
    """DuckDB SQL that fails the query with ``message`` (DuckDB SQL of a string).

    Where Flink fails the job: the evaluator reports the message without DuckDB's wording.
    """
    return f"error({sql_string(FAILURE)} || {message})"


def big_decimal_of(value: str, what: str, then: str | None = None) -> str:
    """DuckDB SQL of ``value`` (a DOUBLE), failing the job where it is NaN or infinite, as Flink.

    Flink 2.3 reads a DOUBLE as a ``BigDecimal`` in ROUND and in a CAST to DECIMAL, whose text
    ``Infinity`` / ``NaN`` is its ``NumberFormatException`` ("Character I is neither a decimal
    digit number, decimal point, nor "e" notation exponential mark"). ``what``: the operation, for
    the message (plain text); ``then``: the SQL of the result for a finite value (``value`` itself
    when None).
    """
    char = f"CASE WHEN isnan({value}) THEN 'N' ELSE 'I' END"
    message = (f"{sql_string(what + ' failed: Character ')} || {char} || ' is neither a decimal digit "
               "number, decimal point, nor \"e\" notation exponential mark (Flink reads an infinite or NaN "
               "DOUBLE as a BigDecimal and fails the job too)'")
    return f"CASE WHEN isnan({value}) OR isinf({value}) THEN {fail_sql(message)} ELSE {then or value} END"


@dataclass(frozen=True)
class Failure:
    """How a function's (or an operator's) failure on a value reads, in Flink's terms.

    Attributes:
        pattern: a regular expression over DuckDB's error text that this failure raises (for a
            failure raised by :func:`fail_sql`, the text after :data:`FAILURE`).
        message: the user's message from the match: what failed, on which value, and what to
            write instead.
    """

    pattern: str
    message: Callable[[re.Match], str]


FAILURES: list[Failure] = []
"""The failures of the operators (division, CAST, integer arithmetic), declared where they are
compiled; a function's own are :attr:`ScalarFunction.failures`."""


def declare_failure(pattern: str, message: Callable[[re.Match], str]) -> None:
    """Declare an operator's failure (see :class:`Failure`)."""
    FAILURES.append(Failure(pattern, message))


_DUCK_PREFIXES = ("Invalid Input Error: ", "Conversion Error: ", "Out of Range Error: ")
# A failure raised by fail_sql is DuckDB's whole message (after its error class). The marker can
# also appear further on, inside the SQL of an expression another failure quotes (a division by
# zero quoting a divisor that holds a CAST's fail_sql): that failure is the other one.
_OWN_FAILURE = re.compile(rf"^(?:[A-Za-z ]+ Error: )?{re.escape(FAILURE)}(.*)", re.DOTALL)


def failure_message(text: str) -> str:
    """What a user reads when an expression fails on a value, from DuckDB's first error line.

    The failure a function raised itself (:func:`fail_sql`) is its own message; else the first
    declared failure (of the operators, then of the registered functions) whose pattern matches;
    else DuckDB's text without its error-class prefix.
    """
    own = _OWN_FAILURE.match(text)
    if own:
        return own.group(1)
    functions = {id(f): f for f in REGISTRY.values()}.values()
    for failure in [*FAILURES, *(x for f in functions for x in f.failures)]:
        m = re.search(failure.pattern, text)
        if m:
            return failure.message(m)
    for prefix in _DUCK_PREFIXES:
        text = text.replace(prefix, "")
    return f"Expression evaluation failed: {text}"


def java_instant(zone: str, wall: str) -> str:
    """DuckDB SQL of the instant (TIMESTAMPTZ) that the wall clock ``wall`` (TIMESTAMP) is in ``zone``.

    As Java's ``LocalDateTime.atZone(zone)``, which Flink's CAST(TIMESTAMP AS TIMESTAMP_LTZ)
    uses: a wall clock in a spring-forward gap moves forward by the gap (ICU does the same), and
    one in a fall-back overlap takes the *earlier* offset, where DuckDB's ICU takes the later one
    (America/New_York 2024-11-03 01:30 is 05:30Z, not 06:30Z). The earlier instant is the one an
    hour before read an hour later, when that is less: exact for DST shifts of up to an hour.

    Args:
        zone: a DuckDB string literal of the zone.
        wall: DuckDB SQL of a TIMESTAMP.
    """
    return once(wall, lambda w: f"least(timezone({zone}, {w}), timezone({zone}, {w} - INTERVAL 1 HOUR) "
                                "+ INTERVAL 1 HOUR)")


def to_time(sql: str, source: SqlType, target: SqlType) -> str:
    """DuckDB SQL of a TIMESTAMP or TIMESTAMP_LTZ value (``sql``, of type ``source``) as ``target``.

    As Flink's cast between the two kinds, in the session time zone: a wall clock is the instant it
    is there (:func:`java_instant`), an instant its wall clock there; a target of fewer digits cuts
    them as Flink (:func:`~streamsql.core.types.duckdb_cast`). Flink 2.3 brings a TIMESTAMP and a
    TIMESTAMP_LTZ to one kind this way in CASE, IF, COALESCE, UNION, VALUES and comparisons (but not
    in GREATEST/LEAST, see :mod:`.conditional`): with DuckDB's implicit cast the wall clock would be
    read in UTC.
    """
    zone = sql_string(session_zone())
    if source.name == "TIMESTAMP" and target.name == "TIMESTAMP_LTZ":
        sql = java_instant(zone, f"CAST({sql} AS TIMESTAMP)")
    elif source.name == "TIMESTAMP_LTZ" and target.name == "TIMESTAMP":
        sql = f"CAST(timezone({zone}, {sql}) AS TIMESTAMP)"
    return duckdb_cast(sql, SqlType(target.name, source.precision), target)


def cast_value(sql: str, source: SqlType, target: SqlType) -> str:
    """:func:`~streamsql.core.types.duckdb_cast`, or :func:`to_time` between TIMESTAMP kinds."""
    if source.is_time and target.is_time:
        return to_time(sql, source, target)
    return duckdb_cast(sql, source, target)


def time_operand(node: exp.Expression, target: SqlType) -> exp.Expression:
    """A compiled TIMESTAMP/TIMESTAMP_LTZ operand brought to the kind of ``target`` (:func:`to_time`).

    ``node`` itself when it is of that kind already, or not a time value (an untyped NULL...).
    """
    source = type_of(node)
    if source is None or not source.is_time or source.name == target.name:
        return node
    kind = SqlType(target.name, source.precision)
    out = exp.Var(this="(" + to_time(f"({node.sql(dialect='duckdb')})", source, kind) + ")")
    out.meta[TYPE] = kind
    return out


def sql_string(value: str) -> str:
    """A DuckDB string literal."""
    return "'" + value.replace("'", "''") + "'"


# -- result type rules ---------------------------------------------------------------------------
def fixed(name: str, precision: int | None = None) -> ResultRule:
    """Always the type ``name``."""
    t = SqlType(name, precision)
    return lambda call: t


def same_as(i: int) -> ResultRule:
    """The type of argument ``i`` (unknown if that is unknown or an untyped NULL)."""
    return lambda call: _known(call.args[i].type) if i < len(call.args) else None


def _known(t: SqlType | None) -> SqlType | None:
    return None if t is None or t.name == "NULL" else t.with_nullable(True)
