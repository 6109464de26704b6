"""Flink's ``json`` row converter replayed token by token, for records it reads out of step.

With ``'json.ignore-parse-errors' = 'true'``, Flink 2.3's ``JsonParserToRowDataConverters`` turns a
value that does not convert into NULL *where the parser stands*: a converter that rejects a JSON
object or array (an object for an INT, an array for a ROW) fails on its first token and never
skips the rest of it, so the row converter goes on reading inside it, taking the inner tokens
for the outer object's field names and values. The record's later fields are then lost or
misread, and where the walk runs past the end of the message the whole record is dropped. With
columns ``(id, v INT, w INT)``, ``{"id":1,"v":{"x":1},"w":5}`` is ``(1, NULL, NULL)`` and
``{"id":2,"v":[1,2],"w":5}`` is no row (compat case ``kafka_json_container_into_scalar_ignored``,
recorded from Flink 2.3).

:class:`~.json.RowConverter` converts a record as a dict first; when a lenient converter rejects
an object or array (:class:`Misaligned`), the record is read again here, its tokens walked as
Flink's converters walk them. Without ``ignore-parse-errors`` such a value fails the record and
the walk never matters.
"""

from __future__ import annotations

from typing import Any, Callable

from streamsql.connectors.formats.convert import RECORD_FAULTS, Dropped, Misaligned, json_text, make_converter
from streamsql.connectors.formats.json_depth import TooDeep, deep_tokens

from streamsql.core.json_nesting import MAX_DEPTH
from streamsql.core.types import Schema, SqlType

__all__ = ["Dropped", "Misaligned", "replay", "replay_deep"]



_OPEN = {"{": "}", "[": "]"}
_TEXT = {"{": "{", "}": "}", "[": "[", "]": "]"}


def tokens(v: Any, out: list) -> list:
    """Jackson's tokens of a parsed value (objects with ``.pairs`` keep every field, in order).

    Each token is ``(kind, value)``: kind ``{ } [ ]``, ``"F"`` (a field name) or ``"V"`` (a scalar).
    """
    if isinstance(v, dict):
        out.append(("{", None))
        for k, x in getattr(v, "pairs", v.items()):
            out.append(("F", k))
            tokens(x, out)
        out.append(("}", None))
    elif isinstance(v, list):
        out.append(("[", None))
        for x in v:
            tokens(x, out)
        out.append(("]", None))
    else:
        out.append(("V", v))
    return out


class _Cursor:
    """Jackson's parser over tokens: ``next()`` raises :class:`~.json_depth.TooDeep` as Jackson does.

    Jackson opens the level's context, then checks its depth: the cursor stands on the token
    that went past the limit (Jackson's current token is still the one before it, which no
    converter reads again) and the next ``next()`` goes on after it, one level deeper.
    """

    def __init__(self, toks: list):
        self.toks, self.i = toks, 0
        self.depth = 1 if toks and toks[0][0] in _OPEN else 0
        #: the token is Jackson's null after a limit met on an object member's value (see next())
        self.phantom = False
        self._phantom_next = False

    def cur(self):
        if self.phantom:
            return None
        return self.toks[self.i] if self.i < len(self.toks) else None

    def next(self):
        """The next token (None past the end); raises TooDeep where Jackson's ``nextToken`` does.

        An object member's value is opened by the call after the one that gave its name
        (``_nextAfterName``), which clears the value it had read ahead before the limit throws:
        the call after that gives null (the parser's current token is still the name), and only
        the one after it reads on, inside the new level.
        """
        if self._phantom_next:
            self._phantom_next, self.phantom = False, True
            return None
        self.phantom = False
        self.i += 1
        tok = self.cur()
        if tok is not None and tok[0] in _OPEN:
            self.depth += 1
            if self.depth > MAX_DEPTH:
                self._phantom_next = self.toks[self.i - 1][0] == "F"
                raise TooDeep  # at the first level past the limit, as Jackson
        elif tok is not None and tok[0] in ("}", "]"):
            self.depth -= 1
        return tok

    def value_at(self) -> Any:
        """The parsed value starting at the current token (Jackson's ``readValueAsTree``), consumed."""
        kind, v = self.cur()
        if kind not in _OPEN:
            return v
        depth, start = 0, self.i
        while True:
            k = self.cur()[0]
            depth += (k in _OPEN) - (k in ("}", "]"))
            if depth == 0:
                break
            self.next()
        return _rebuild(self.toks[start:self.i + 1])


def _rebuild(toks: list) -> Any:
    stack: list = [[]]
    for kind, v in toks:
        if kind == "{":
            stack.append({})
        elif kind == "[":
            stack.append([])
        elif kind in ("}", "]"):
            done = stack.pop()
            _put(stack[-1], done)
        elif kind == "F":
            stack[-1]["\0key"] = v
        else:
            _put(stack[-1], v)
    return stack[0][0]


def _put(into: Any, v: Any) -> None:
    if isinstance(into, dict):
        into[into.pop("\0key")] = v
    else:
        into.append(v)


Conv = Callable[[_Cursor], Any]


def _nullable(conv: Conv) -> Conv:
    """``wrapIntoNullableConverter`` with ignore-parse-errors: NULL for a null token or any failure."""

    def run(c: _Cursor):
        tok = c.cur()
        if tok is None or (tok[0] == "V" and tok[1] is None):
            return None
        try:
            return conv(c)
        except Dropped:
            raise
        except RECORD_FAULTS:
            return None

    return run


def converter(t: SqlType, iso: bool) -> Conv:
    """Flink's lenient converter of ``t`` over a token cursor (the cursor left where Flink's is)."""
    return _nullable(_not_null(t, iso))


def _not_null(t: SqlType, iso: bool) -> Conv:
    if t.name == "ROW":
        return row_converter(list(t.field_names), [converter(c, iso) for c in t.children])
    if t.name == "ARRAY":
        elem = converter(t.children[0], iso)

        def array(c: _Cursor):
            if c.cur()[0] != "[":
                msg = "Illegal JSON array data"
                raise ValueError(msg)
            out = []
            while ((tok := c.next()) is not None or c.phantom) and (tok is None or tok[0] != "]"):
                out.append(elem(c))  # Jackson's null token (c.phantom): a NULL element, read on
            if tok is None:
                raise Dropped
            return out

        return array
    if t.name == "MAP":
        key, value = converter(t.children[0], iso), converter(t.children[1], iso)

        def mapping(c: _Cursor):
            if c.cur()[0] != "{":
                msg = "Illegal JSON map data"
                raise ValueError(msg)
            out = {}
            while ((tok := c.next()) is not None or c.phantom) and (tok is None or tok[0] != "}"):
                k = key(c)
                c.next()
                out[k] = value(c)
            if tok is None:
                raise Dropped
            return [(k, v) for k, v in out.items() if k is not None]

        return mapping
    scalar = make_converter(t, iso=iso)

    def convert(c: _Cursor):
        kind, v = c.cur()
        if kind == "V":
            return scalar(v)
        if t.name == "STRING" and kind in _OPEN:
            return json_text(c.value_at())  # readValueAsTree().toString()
        if t.name == "BYTES":
            msg = "not a string token"
            raise ValueError(msg)
        return scalar(v if kind == "F" else _TEXT[kind])  # getText() of a structural token

    return convert


def row_converter(names: list[str], convs: list[Conv]) -> Conv:
    """``createRowConverter``: fields in order, counted up to the arity, the rest skipped."""
    index = {n: i for i, n in enumerate(names)}

    def row(c: _Cursor):
        if c.cur()[0] != "{":
            msg = "Illegal JSON object data"
            raise ValueError(msg)
        out: list = [None] * len(names)
        cnt = 0
        c.next()
        while (tok := c.cur()) is None or tok[0] != "}":
            if tok is None and not c.phantom:
                raise Dropped  # Flink: skipToNextField switches on a null token (NullPointerException)
            if cnt >= len(names):
                _skip(c)  # on Jackson's null token too: the NullPointerException (Dropped)
                continue
            name = None if tok is None else tok[1] if tok[0] == "F" else _TEXT.get(tok[0], tok[1])
            c.next()
            i = index.get(name) if isinstance(name, str) else None
            if i is not None:
                out[i] = convs[i](c)
                c.next()
                cnt += 1
            else:
                _skip(c)
        return dict(zip(names, out))

    return row


def _skip(c: _Cursor) -> None:
    """``skipToNextField``: past the current value (a whole object or array), then one token on."""
    tok = c.cur()
    if tok is None:
        raise Dropped
    if tok[0] in _OPEN:
        depth = 1
        while depth > 0:
            nxt = c.next()
            if nxt is None and c.phantom:  # Jackson's null token: neither opens nor closes
                continue
            if nxt is None:
                raise Dropped
            depth += (nxt[0] in _OPEN) - (nxt[0] in ("}", "]"))
    c.next()


def replay(obj: dict, schema: Schema, iso: bool) -> tuple:
    """The row Flink's lenient converter reads from ``obj`` (parsed keeping every field, in order).

    Raises:
        Dropped: Flink drops the record (its walk ran past the end).
    """
    return _replay(tokens(obj, []), schema, iso)


def replay_deep(v: bytes, schema: Schema, iso: bool) -> tuple:
    """The row Flink's lenient converter reads from a record nested past Jackson's limit.

    A column whose converter walks into the deep value is NULL and the walk goes on (compat case
    ``kafka_json_deep_nesting_ignored_read``); a limit met outside one drops the record.

    Raises:
        Dropped: Flink drops the record.
    """
    try:
        return _replay(deep_tokens(v), schema, iso)
    except TooDeep as e:  # out of every field's converter: Flink's row is null, the record dropped
        raise Dropped(str(e)) from None


def _replay(toks: list, schema: Schema, iso: bool) -> tuple:
    conv = row_converter(schema.names, [converter(f.type, iso) for f in schema])
    row = conv(_Cursor(toks))
    return tuple(row[n] for n in schema.names)
