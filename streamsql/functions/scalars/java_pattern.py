r"""Java's regular expression syntax (``java.util.regex``, Java 17) written for the ``regex`` module.

Flink 2.3 runs a pattern that is not a literal through ``java.util.regex``; the ``regex`` module
(version 1 behaviour) reads most of Java's syntax the same way — possessive quantifiers, atomic
groups, look-around of any width, inline flags that hold to the end of their group, nested
classes and ``&&`` — and :func:`translate` writes the rest as Java reads it (Flink 2.3's answers:
``tests/functions/flink_regex_java.json``):

- ``\Q...\E`` quoting, ``\x{h..h}``, ``\0ooo`` (octal), ``\cX``, ``\e``, ``\h`` / ``\H``,
  ``\v`` / ``\V`` (vertical white space), ``\R``, ``\z`` and ``\Z``, ``\k<name>``;
- ``\w \d \s`` and ``\b`` as Java's defaults: ASCII classes, and a word boundary between a letter
  or digit (any script: Java 17's ``Character.isLetterOrDigit``) or ``_`` and anything else;
- ``.`` (no line terminator: ``\n \r \u0085 \u2028 \u2029``, ``\n`` only under ``(?d)``; any
  character under ``(?s)``), ``^`` and ``$`` (``$`` before a final line terminator, ``\r\n``
  included; per line under ``(?m)``);
- ``(?i)`` without ``(?u)`` folds ASCII letters only (written out as ``[aA]`` here); with
  ``(?u)`` the module's Unicode case folding;
- ``\p{..}`` / ``\P{..}``: general categories, scripts (``Is`` / ``sc=``), blocks (``In`` /
  ``blk=``), Java's ASCII POSIX classes (``Alpha``, ``Punct`` ...), binary properties
  (``IsAlphabetic`` ...) and ``java.lang.Character`` classes (``javaLowerCase`` ...).

A pattern Java refuses raises :class:`JavaRefuses` (Flink: REGEXP false, the others NULL); one this
translation cannot give Java's meaning raises ``UnsupportedPattern`` (the job fails with the
reason) — ``(?U)``, a back-reference under ASCII-only ``(?i)``, and the ``java...`` identifier
classes. The Unicode data is the module's (newer than Java 17's 13.0) for characters assigned
since.
"""

from __future__ import annotations

import re
import unicodedata
from typing import NoReturn

from streamsql.functions.scalars.java_properties import POSIX_CLASSES


class JavaRefuses(ValueError):  # noqa: N818  (Java's PatternSyntaxException, by its meaning)
    """A pattern ``java.util.regex`` refuses (Flink answers it as an invalid pattern)."""


class NotTranslatable(ValueError):  # noqa: N818
    """Java syntax this translation cannot give Java's meaning (the message says which)."""


_TERMINATORS = "\\n\\r\\x85\\u2028\\u2029"
_WORD = "[\\p{L}\\p{Nd}_]"  # Java 17's \b: Character.isLetterOrDigit or '_'
_SHORTHANDS = {"w": "a-zA-Z_0-9", "d": "0-9", "s": " \\t\\n\\x0B\\f\\r",
               "h": " \\t\\xA0\\u1680\\u180E\\u2000-\\u200A\\u202F\\u205F\\u3000",
               "v": "\\n\\x0B\\f\\r\\x85\\u2028\\u2029"}
_CATEGORIES = frozenset("""
    L Lu Ll Lt Lm Lo M Mn Mc Me N Nd Nl No P Pc Pd Ps Pe Pi Pf Po S Sm Sc Sk So Z Zs Zl Zp C Cc Cf Cs Co Cn LC
""".split())
_BINARY = {"alphabetic": "\\p{Alphabetic}", "letter": "\\p{L}", "digit": "\\p{Nd}", "punctuation": "\\p{P}",
           "control": "\\p{Cc}", "white_space": "\\p{White_Space}", "whitespace": "\\p{White_Space}",
           "uppercase": "\\p{Uppercase}", "lowercase": "\\p{Lowercase}", "titlecase": "\\p{Lt}",
           "ideographic": "\\p{Ideographic}", "hex_digit": "\\p{Hex_Digit}", "hexdigit": "\\p{Hex_Digit}",
           "join_control": "\\p{Join_Control}", "joincontrol": "\\p{Join_Control}",
           "noncharacter_code_point": "\\p{Noncharacter_Code_Point}",
           "noncharactercodepoint": "\\p{Noncharacter_Code_Point}", "assigned": "\\P{Cn}",
           "emoji": "\\p{Emoji}", "emoji_presentation": "\\p{Emoji_Presentation}",
           "emoji_modifier": "\\p{Emoji_Modifier}", "emoji_modifier_base": "\\p{Emoji_Modifier_Base}",
           "emoji_component": "\\p{Emoji_Component}", "extended_pictographic": "\\p{Extended_Pictographic}"}
# java.lang.Character's is*() methods, as classes (Java 17's definitions)
_JAVA = {"javaLowerCase": "\\p{Lowercase}", "javaUpperCase": "\\p{Uppercase}", "javaTitleCase": "\\p{Lt}",
         "javaDigit": "\\p{Nd}", "javaLetter": "\\p{L}", "javaLetterOrDigit": "\\p{L}\\p{Nd}",
         "javaAlphabetic": "\\p{Alphabetic}", "javaIdeographic": "\\p{Ideographic}",
         "javaSpaceChar": "\\p{Z}", "javaISOControl": "\\x00-\\x1F\\x7F-\\x9F", "javaDefined": "\\P{Cn}",
         "javaMirrored": "\\p{Bidi_Mirrored}",
         "javaWhitespace": "[[\\t-\\r\\x1C-\\x1F\\p{Z}]--[\\xA0\\u2007\\u202F]]",
         "javaIdentifierIgnorable": "\\x00-\\x08\\x0E-\\x1B\\x7F-\\x9F\\p{Cf}"}
_QUANTIFIER = re.compile(r"\{(\d+)(,(\d*))?\}")
_FLAGS = re.compile(r"\(\?([idmsuxU]*)(?:-([idmsuxU]*))?([:)])")


def _members(name: str) -> str:
    r"""The class members (``regex`` syntax) of Java's ``\p{name}``.

    Raises:
        JavaRefuses: a name Java does not know.
        NotTranslatable: a class whose Java meaning is not written here.
    """
    if name in _CATEGORIES:
        return "\\p{LC}" if name == "LC" else f"\\p{{{name}}}"
    if name == "LD":
        return "\\p{L}\\p{Nd}"
    if name in POSIX_CLASSES:
        return POSIX_CLASSES[name]
    if name in _JAVA:
        return _JAVA[name]
    if name.startswith("java"):
        msg = f"\\p{{{name}}} (a java.lang.Character identifier class)"
        raise NotTranslatable(msg)
    key, _, value = name.partition("=")
    if value:
        k = key.lower()
        if k in ("gc", "general_category") and (value in _CATEGORIES or value == "LD"):
            return _members(value)
        if k in ("sc", "script"):
            return f"\\p{{Script={value}}}"
        if k in ("blk", "block"):
            return f"\\p{{Block={value}}}"
        raise JavaRefuses(name)
    if name.startswith("Is") and len(name) > 2:
        rest = name[2:]
        if rest in _CATEGORIES or rest == "LD":
            return _members(rest)
        if rest.lower() in _BINARY:
            return _BINARY[rest.lower()]
        return f"\\p{{Script={rest}}}"
    if name.startswith("In") and len(name) > 2:
        return f"\\p{{Block={name[2:]}}}"
    raise JavaRefuses(name)


class _Writer:
    """One pass over a Java pattern, writing the ``regex`` (V1) pattern; flags tracked per group."""

    def __init__(self, pattern: str):
        self.p, self.i, self.out = pattern, 0, []
        self.flags = set()
        self.stack: list[set[str]] = []
        self.groups = _count_groups(pattern)

    def fail(self, why: str) -> NoReturn:
        """Raise Java's refusal of the pattern (its description of the fault, at ``self.i``)."""
        msg = f"{why} near index {self.i}"
        raise JavaRefuses(msg)

    def run(self) -> str:
        while self.i < len(self.p):
            ch = self.p[self.i]
            if ch == "\\":
                self.out.append(self.escape(in_class=False))
            elif ch == "[":
                self.i += 1
                self.out.append(self.klass())
            elif ch == "(":
                self.group()
            elif ch == ")":
                if not self.stack:
                    self.fail("Unmatched closing ')'")
                self.flags = self.stack.pop()
                self.out.append(")")
                self.i += 1
            elif ch == "{":
                m = _QUANTIFIER.match(self.p, self.i)
                if m is None or (m.group(3) and int(m.group(3)) < int(m.group(1))):
                    self.fail("Illegal repetition")
                self.out.append(m.group())
                self.i = m.end()
            elif ch == ".":
                self.out.append("(?s:.)" if "s" in self.flags else "[^\\n]" if "d" in self.flags
                                else f"[^{_TERMINATORS}]")
                self.i += 1
            elif ch in "^$":
                self.out.append(self.anchor(ch))
                self.i += 1
            elif "x" in self.flags and ch == "#":
                end = self.p.find("\n", self.i)
                self.i = len(self.p) if end < 0 else end + 1
            elif "x" in self.flags and ch in " \t\n\x0b\f\r":
                self.i += 1
            else:
                self.out.append(ch if ch in "|*+?" else self.literal(ch))
                self.i += 1
        if self.stack:
            self.fail("Unclosed group")
        return "".join(self.out)

    def literal(self, ch: str) -> str:
        """A character outside a class, ASCII-folded under ``(?i)`` without ``(?u)``."""
        if "i" in self.flags and "u" not in self.flags and ch.isascii() and ch.isalpha():
            return f"[{ch.lower()}{ch.upper()}]"
        return ch if ch.isalnum() else _class_char(ch)

    def anchor(self, ch: str) -> str:
        unix, multi = "d" in self.flags, "m" in self.flags
        if ch == "^":
            if not multi:
                return "\\A"
            return "(?:\\A|(?<=\\n)(?!\\Z))" if unix else \
                f"(?:\\A|(?<=[{_TERMINATORS}])(?<!\\r(?=\\n))(?!\\Z))"
        if unix:
            return "(?=\\n|\\Z)" if multi else "(?=\\n?\\Z)"
        if multi:
            return "(?=\\r\\n|(?<!\\r)\\n|[\\r\\x85\\u2028\\u2029]|\\Z)"
        return f"(?=(?:\\r\\n|[{_TERMINATORS}])?\\Z)"

    def group(self) -> None:
        p, i = self.p, self.i
        m = _FLAGS.match(p, i)
        if m is not None:
            on, off, end = set(m.group(1)), set(m.group(2) or ""), m.group(3)
            if "U" in on:
                msg = "(?U) (Unicode character classes)"
                raise NotTranslatable(msg)
            new = (self.flags | on) - off
            # only Unicode case folding ((?iu)) reaches the module: the other flags are written out
            before, after = {"i", "u"} <= self.flags, {"i", "u"} <= new
            head = "(?" + ("" if before == after else "i" if after else "-i")
            if end == ")":
                self.flags = new
                if before != after:
                    self.out.append(head + ")")
            else:
                self.stack.append(self.flags)
                self.flags = new
                self.out.append(head + ":")
            self.i = m.end()
            return
        self.stack.append(set(self.flags))
        if p.startswith("(?<", i) and not p.startswith(("(?<=", "(?<!"), i):
            name = re.match(r"\(\?<([A-Za-z][A-Za-z0-9]*)>", p[i:])
            if name is None:
                self.fail("named capturing group is missing trailing '>'")
            self.out.append(f"(?P<{name.group(1)}>")
            self.i += name.end()
            return
        for head in ("(?:", "(?=", "(?!", "(?<=", "(?<!", "(?>"):
            if p.startswith(head, i):
                self.out.append(head)
                self.i += len(head)
                return
        if p.startswith("(?", i):
            self.fail("Unknown inline modifier")
        self.out.append("(")
        self.i += 1

    def escape(self, in_class: bool) -> str:
        """The escape at ``self.i`` (a backslash), as ``regex`` syntax (class members if ``in_class``)."""
        p = self.p
        if self.i + 1 >= len(p):
            self.fail("Unexpected internal error")
        c = p[self.i + 1]
        self.i += 2
        if c == "Q":
            end = p.find("\\E", self.i)
            text = p[self.i:] if end < 0 else p[self.i:end]
            self.i = len(p) if end < 0 else end + 2
            if in_class:
                return "".join(_class_char(ch) for ch in text)
            return "".join(self.literal(ch) for ch in text)
        if c in "pP":
            if self.i < len(p) and p[self.i] == "{":
                end = p.find("}", self.i)
                if end < 0:
                    self.fail("Unclosed character family")
                name, self.i = p[self.i + 1:end], end + 1
            elif self.i < len(p):
                name, self.i = p[self.i], self.i + 1
            else:
                self.fail("Illegal character family")
            members = _members(name)
            if c == "P":
                return f"[^{members}]"
            return members if in_class else f"[{members}]"
        if c in "wdshv" or c in "WDSHV":
            members = _SHORTHANDS[c.lower()]
            if c.islower():
                return members if in_class else f"[{members}]"
            return f"[^{members}]"
        if in_class and c in "bBAGzZRXk" or (in_class and c.isdigit() and c != "0"):
            self.fail("Illegal/unsupported escape sequence")
        if c == "b":
            return f"(?:(?<={_WORD})(?!{_WORD})|(?<!{_WORD})(?={_WORD}))"
        if c == "B":
            return f"(?:(?<={_WORD})(?={_WORD})|(?<!{_WORD})(?!{_WORD}))"
        if c == "z":
            return "\\Z"
        if c == "Z":
            return "(?=\\n?\\Z)" if "d" in self.flags else f"(?=(?:\\r\\n|[{_TERMINATORS}])?\\Z)"
        if c == "R":
            return "(?>\\r\\n|[\\n\\x0B\\f\\r\\x85\\u2028\\u2029])"
        if c in "AGX":
            return "\\" + c
        if c == "k":
            m = re.match(r"<([A-Za-z][A-Za-z0-9]*)>", p[self.i:])
            if m is None:
                self.fail("\\k is not followed by '<' for named capturing group")
            self.i += m.end()
            return self.backref(f"(?P={m.group(1)})")
        if c.isdigit() and c != "0":
            digits = c
            while self.i < len(p) and p[self.i].isdigit() and int(digits + p[self.i]) <= self.groups:
                digits += p[self.i]
                self.i += 1
            if int(digits) > self.groups:
                return "(?!)"  # Java: a reference to a group the pattern has not never matches
            return self.backref(f"(?:\\g<{digits}>)")
        code = self.code_point(c)
        if code is not None:
            ch = chr(code)
            return _class_char(ch) if in_class else self.literal(ch)
        if c == "N" and p.startswith("{", self.i):
            end = p.find("}", self.i)
            try:
                ch = unicodedata.lookup(p[self.i + 1:end]) if end > 0 else None
            except KeyError:
                ch = None
            if ch is None:
                self.fail("Unknown character name")
            self.i = end + 1
            return _class_char(ch) if in_class else self.literal(ch)
        if c.isascii() and c.isalpha():
            self.fail("Illegal/unsupported escape sequence")
        return _class_char(c) if in_class else self.literal(c)

    def backref(self, text: str) -> str:
        if "i" in self.flags and "u" not in self.flags:
            msg = "a back-reference under (?i) (Java compares it ignoring ASCII case only)"
            raise NotTranslatable(msg)
        return text

    def code_point(self, c: str) -> int | None:
        r"""The character of a ``\t``, ``\x41``, ``\u0041``, ``\0101``, ``\cA`` ... escape (None: none)."""
        p = self.p
        simple = {"t": 9, "n": 10, "r": 13, "f": 12, "a": 7, "e": 27}
        if c in simple:
            return simple[c]
        if c == "x":
            m = re.match(r"\{([0-9a-fA-F]+)\}|([0-9a-fA-F]{2})", p[self.i:])
            if m is None:
                self.fail("Illegal hexadecimal escape sequence")
            self.i += m.end()
            value = int(m.group(1) or m.group(2), 16)
            if value > 0x10FFFF:
                self.fail("Hexadecimal codepoint is too big")
            return value
        if c == "u":
            m = re.match(r"[0-9a-fA-F]{4}", p[self.i:])
            if m is None:
                self.fail("Illegal Unicode escape sequence")
            self.i += 4
            return int(m.group(), 16)
        if c == "0":
            m = re.match(r"[0-3][0-7]{2}|[0-7]{1,2}", p[self.i:])
            if m is None:
                self.fail("Illegal octal escape sequence")
            self.i += m.end()
            return int(m.group(), 8)
        if c == "c":
            if self.i >= len(p):
                self.fail("Illegal control escape sequence")
            self.i += 1
            return ord(p[self.i - 1]) ^ 64
        return None

    def klass(self) -> str:
        """The class after a ``[`` (at ``self.i``), up to its ``]``: a ``regex`` V1 set."""
        p, out = self.p, ["["]
        if self.i < len(p) and p[self.i] == "^":
            out.append("^")
            self.i += 1
        first = True
        fold = "i" in self.flags and "u" not in self.flags
        while True:
            if self.i >= len(p):
                self.fail("Unclosed character class")
            ch = p[self.i]
            if ch == "]" and not first:
                self.i += 1
                break
            first = False
            if ch == "[":
                self.i += 1
                out.append(self.klass())
                continue
            if p.startswith("&&", self.i):
                self.i += 2
                if not p.startswith(("&", "]"), self.i):  # Java ignores an empty right operand
                    out.append("&&")
                continue
            if "x" in self.flags and ch in " \t\n\x0b\f\r":
                self.i += 1
                continue
            if ch == "\\":
                start = self.i
                member = self.escape(in_class=True)
                single = self.p[start + 1] not in "pPQwdshvWDSHV"
                lo = _decode(member) if single else None
            else:
                self.i += 1
                lo, member = ch, _class_char(ch)
            ranged = p.startswith("-", self.i) and self.i + 1 < len(p) and p[self.i + 1] not in "[]"
            if lo is not None and ranged:
                self.i += 1
                if p[self.i] == "\\":
                    hi = _decode(self.escape(in_class=True))
                    if hi is None:
                        self.fail("Illegal character range")
                else:
                    hi = p[self.i]
                    self.i += 1
                if hi < lo:
                    self.fail("Illegal character range")
                out.append(f"{_class_char(lo)}-{_class_char(hi)}")
                if fold:
                    out.append(_folded_range(lo, hi))
                continue
            out.append(member)
            if fold and lo is not None and lo.isascii() and lo.isalpha():
                out.append(_class_char(lo.swapcase()))
        return "".join(out) + "]"


def _class_char(ch: str) -> str:
    """One character as a member of a ``regex`` V1 set (or a literal outside one), escaped."""
    code = ord(ch)
    if ch.isalnum() and (ch.isascii() or ch.isprintable()):
        return ch
    return f"\\x{code:02X}" if code < 0x100 else f"\\u{code:04X}" if code < 0x10000 else f"\\U{code:08X}"


def _decode(member: str) -> str | None:
    """The one character a written class member stands for (None: a class, not a character)."""
    if len(member) == 1:
        return member
    m = re.fullmatch(r"\\(?:x([0-9A-F]{2})|u([0-9A-F]{4})|U([0-9A-F]{8}))", member)
    return chr(int(next(g for g in m.groups() if g), 16)) if m else None


def _folded_range(lo: str, hi: str) -> str:
    """The other case of the ASCII letters in ``lo``-``hi`` (Java's ASCII-only ``(?i)``)."""
    extra = []
    for a, b in (("a", "z"), ("A", "Z")):
        start, end = max(lo, a), min(hi, b)
        if start <= end:
            extra.append(f"{start.swapcase()}-{end.swapcase()}")
    return "".join(extra)


def _count_groups(pattern: str) -> int:
    """The capturing groups of ``pattern`` (``(`` not followed by ``?``, and ``(?<name>``)."""
    count, i, depth = 0, 0, 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\":
            if pattern.startswith("Q", i + 1):
                end = pattern.find("\\E", i + 2)
                i = len(pattern) if end < 0 else end + 2
                continue
            i += 2
            continue
        if ch == "[":
            depth += 1
        elif ch == "]" and depth:
            depth -= 1
        elif ch == "(" and not depth:
            if not pattern.startswith("(?", i) or (pattern.startswith("(?<", i)
                                                   and not pattern.startswith(("(?<=", "(?<!"), i)):
                count += 1
        i += 1
    return count


def translate(pattern: str) -> str:
    """``pattern`` (Java syntax) as a ``regex`` V1 pattern with Java's meaning.

    Raises:
        JavaRefuses: a pattern Java refuses (``PatternSyntaxException``).
        NotTranslatable: Java syntax whose meaning is not written here.
    """
    return _Writer(pattern).run()
