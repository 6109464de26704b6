r"""``s SIMILAR TO pattern [ESCAPE e]`` over a pattern that is not a literal: Flink's rules, row by row.

Flink 2.3 (``SqlLikeUtils``, Calcite's ``Like.sqlToRegexSimilar``) translates the SQL pattern to a
Java regular expression and answers ``Pattern.matches`` (the whole string):

- ``_`` is ``.``, ``%`` is ``.*``; ``\\`` and ``$`` are literal characters; the other regex
  characters (``( ) | * + ? { } . ^``) keep their regex meaning;
- ``[...]`` is a character enumeration: ``-`` and ``^`` as in Java, ``[:alpha:]``, ``[:upper:]``,
  ``[:lower:]``, ``[:digit:]``, ``[:space:]`` (a space only), ``[:whitespace:]``, ``[:alnum:]``
  (each also upper case) its classes; another SIMILAR special character in it is an error, as is a
  ``]`` outside one or an unclosed ``[``;
- with ESCAPE, the escape character before a special character (or itself) makes it literal; an
  escape before anything else is an error (and, when the escape is itself special, anywhere).

Every error, and a translated pattern Java refuses, fails Flink's job: here too, with a message.
The regex runs on Python's engine with Java's meaning (:func:`~.java_regex.compile_java`).
"""

from __future__ import annotations

import pyarrow as pa

from streamsql.functions.scalars import java_regex

_SQL_SPECIALS = "[]()|^-+*_%?{}"
_JAVA_SPECIALS = "[]()|^-+*?{}$\\."
# Calcite's REG_CHAR_CLASSES, written as the members of a class Python's engine reads as Java does
_CLASSES = {"alpha": "a-zA-Z", "upper": "A-Z", "lower": "a-z", "digit": "\\d", "space": " ",
            "whitespace": "\\s", "alnum": "a-zA-Z0-9"}


class SimilarError(ValueError):
    """A pattern Flink's translation (or Java) refuses: its job fails."""


def _invalid(pattern: str) -> SimilarError:
    return SimilarError(f"Invalid regular expression '{pattern}'")


def _bad_escape(pattern: str, i: int) -> SimilarError:
    return SimilarError(f"Invalid escape sequence '{pattern}', {i}")


def _check_escapes(pattern: str, escape: str | None) -> None:
    """Calcite's ``similarEscapeRuleChecking`` (SQL 2003 Part 2, 8.6 General Rules 3.b and 3.c)."""
    if escape is None:
        return
    if escape in _SQL_SPECIALS:
        for i, c in enumerate(pattern):
            if c == escape:
                nxt = pattern[i + 1] if i + 1 < len(pattern) else None
                if nxt is None or (nxt not in _SQL_SPECIALS and nxt != escape):
                    raise _bad_escape(pattern, i)
    if escape == ":" and ("[:" not in pattern or ":]" not in pattern):
        raise _bad_escape(pattern, -1)


def _enumeration(pattern: str, out: list[str], pos: int, escape: str | None) -> int:
    """The members of the ``[`` at ``pos`` into ``out``; the index before its ``]`` (or the end)."""
    i = pos + 1
    while i < len(pattern):
        c = pattern[i]
        if c == "]":
            return i - 1
        if c == escape:
            i += 1
            if i >= len(pattern):
                raise _invalid(pattern)
            nxt = pattern[i]
            if nxt in _SQL_SPECIALS:
                out.append(("\\" if nxt in _JAVA_SPECIALS else "") + nxt)
            elif nxt == escape:
                out.append(nxt)
            else:
                raise _invalid(pattern)
        elif c in "-^":
            out.append(c)
        elif pattern.startswith("[:", i):
            name = next((n for n in _CLASSES if pattern.startswith(f"[:{n}:]", i)
                         or pattern.startswith(f"[:{n.upper()}:]", i)), None)
            if name is None:
                raise _invalid(pattern)
            out.append(_CLASSES[name])
            i += len(name) + 3
        elif c in _SQL_SPECIALS:
            raise _invalid(pattern)
        else:
            out.append("\\\\" if c == "\\" else c)
        i += 1
    return i - 1


def to_java(pattern: str, escape: str | None = None) -> str:
    """The Java regular expression Flink matches for SQL pattern ``pattern`` (module docstring).

    Raises:
        SimilarError: an escape that is not one character, or a pattern Flink's translation refuses.
    """
    if escape is not None and len(escape) != 1:
        msg = f"Invalid escape character '{escape}'"
        raise SimilarError(msg)
    _check_escapes(pattern, escape)
    out: list[str] = []
    in_enum = False
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if c == escape:
            if i == len(pattern) - 1:
                raise _bad_escape(pattern, i)
            nxt = pattern[i + 1]
            if nxt in _SQL_SPECIALS:
                out.append(("\\" if nxt in _JAVA_SPECIALS else "") + nxt)
            elif nxt == escape:
                out.append(nxt)
            else:
                raise _bad_escape(pattern, i)
            i += 1
        elif c == "_":
            out.append(".")
        elif c == "%":
            out.append(".*")
        elif c == "[":
            out.append("[")
            in_enum = True
            i = _enumeration(pattern, out, i, escape)
        elif c == "]":
            if not in_enum:
                raise _invalid(pattern)
            in_enum = False
            out.append("]")
        elif c == "\\":
            out.append("\\\\")
        elif c == "$":
            out.append("\\$")
        else:
            out.append(c)
        i += 1
    if in_enum:
        raise _invalid(pattern)
    return "".join(out)


def similar(s: str, pattern: str, escape: str | None = None) -> bool:
    """``s SIMILAR TO pattern [ESCAPE escape]`` as Flink: ``Pattern.matches`` of the translation.

    Raises:
        SimilarError: a pattern Flink's translation or Java refuses (Flink's job fails).
        UnsupportedPattern: Java syntax Python's engine reads otherwise.
    """
    regex = to_java(pattern, escape)
    rx = java_regex.compile_java(regex)
    if rx is None:
        msg = (f"the pattern '{pattern}' is '{regex}' in Java's syntax, which Java refuses "
               "(PatternSyntaxException)")
        raise SimilarError(msg)
    return rx.fullmatch(s) is not None


SIMILAR = java_regex.dynamic_call("SIMILAR_TO", similar, pa.bool_(), ("VARCHAR", "VARCHAR"), "BOOLEAN")
SIMILAR_ESCAPE = java_regex.dynamic_call("SIMILAR_TO", similar, pa.bool_(), ("VARCHAR", "VARCHAR", "VARCHAR"),
                                         "BOOLEAN")
