r"""Java's ``\p{..}`` / ``\P{..}`` character properties in a literal pattern, written for RE2.

``java.util.regex`` reads a property by its name (Flink 2.3's answers, flink_difffuzz session 26):

- a general category, bare or after ``Is`` / ``gc=`` / ``general_category=`` (``\p{L}``,
  ``\pL``, ``\p{IsLu}``, ``\p{gc=Lu}``), and Java's ``LC`` (cased letter) and ``LD`` (letter or
  digit): RE2 has the same categories (``LC`` / ``LD`` are written as their parts);
- a script after ``Is`` / ``sc=`` / ``script=`` (``\p{IsLatin}``, ``\p{sc=Han}``): RE2's script
  names, where RE2 knows the script;
- the POSIX classes ``Lower Upper ASCII Alpha Digit Alnum Punct Graph Print Blank Cntrl XDigit
  Space``, ASCII only (as Java without ``UNICODE_CHARACTER_CLASS``): written as their ranges;
- the binary properties ``IsLetter``, ``IsDigit``, ``IsPunctuation``, ``IsControl`` and
  ``IsWhite_Space``, which are categories or a fixed set.

Others Java reads with a meaning RE2 has no class for (``IsAlphabetic``, ``IsUppercase``,
``IsIdeographic``, blocks ``InGreek`` / ``blk=``, ``javaLowerCase`` ...) are refused at planning,
as is a name Java refuses (``\p{Latin}`` without ``Is``: Flink answers as for any pattern Java
refuses, which a literal pattern is refused for here).
"""

from __future__ import annotations

import re

_CATEGORIES = frozenset("""
    L Lu Ll Lt Lm Lo M Mn Mc Me N Nd Nl No P Pc Pd Ps Pe Pi Pf Po S Sm Sc Sk So Z Zs Zl Zp C Cc Cf Cs Co
""".split())
_UNIONS = {"LC": ("Lu", "Ll", "Lt"), "LD": ("L", "Nd")}  # Java's own: cased letter, letter or digit
# Java's POSIX classes (US-ASCII only), as the members of an RE2 character class
_POSIX = {"Lower": "a-z", "Upper": "A-Z", "ASCII": "\\x00-\\x7F", "Alpha": "a-zA-Z", "Digit": "0-9",
          "Alnum": "a-zA-Z0-9", "Punct": "!-/:-@\\[-`{-~", "Graph": "!-~", "Print": " -~", "Blank": " \\t",
          "Cntrl": "\\x00-\\x1F\\x7F", "XDigit": "0-9a-fA-F", "Space": " \\t\\n\\x0B\\f\\r"}
POSIX_CLASSES = _POSIX
"""Java's POSIX classes (``\\p{Alpha}`` ...: US-ASCII only) as class members (RE2's, ``regex``'s syntax)."""
_BINARY = {"letter": "\\p{L}", "digit": "\\p{Nd}", "punctuation": "\\p{P}", "control": "\\p{Cc}",
           "white_space": "\\x09-\\x0D\\x20\\x{85}\\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}"
                          "\\x{202F}\\x{205F}\\x{3000}"}
_BINARY["whitespace"] = _BINARY["white_space"]
_PROPERTY = re.compile(r"\\([pP])(?:\{([^}]*)\}|([A-Za-z]))")


class PropertyError(ValueError):
    """A property RE2 cannot read as Java does (the message says which and why)."""


def _members(name: str) -> str:
    r"""The RE2 class members (``\p{Lu}\p{Ll}``, ``a-z``) of Java's property ``name``.

    Raises:
        PropertyError: a name Java refuses, or one RE2 has no class for.
    """
    if name in _CATEGORIES:
        return f"\\p{{{name}}}"
    if name in _UNIONS:
        return "".join(f"\\p{{{n}}}" for n in _UNIONS[name])
    if name in _POSIX:
        return _POSIX[name]
    key, _, value = name.partition("=")
    if value:
        if key.lower() in ("gc", "general_category") and value in _CATEGORIES | _UNIONS.keys():
            return _members(value)
        if key.lower() in ("sc", "script"):
            return "\\p{" + "_".join(p.capitalize() for p in value.split("_")) + "}"
        msg = f"\\p{{{name}}} (Unicode blocks and other properties have no RE2 class)"
        raise PropertyError(msg)
    if name.startswith("Is") and len(name) > 2:
        rest = name[2:]
        if rest in _CATEGORIES | _UNIONS.keys():
            return _members(rest)
        if rest.lower() in _BINARY:
            return _BINARY[rest.lower()]
        if rest.lower() in ("alphabetic", "uppercase", "lowercase", "ideographic", "titlecase", "hex_digit",
                            "hexdigit", "join_control", "joincontrol", "noncharacter_code_point",
                            "assigned", "emoji", "emoji_presentation", "emoji_modifier",
                            "emoji_modifier_base", "emoji_component", "extended_pictographic"):
            msg = f"\\p{{{name}}} (a binary property RE2 has no class for)"
            raise PropertyError(msg)
        return "\\p{" + "_".join(p.capitalize() for p in rest.split("_")) + "}"  # a script
    what = "a Unicode block" if name.startswith("In") else "a java.lang.Character class" \
        if name.startswith("java") else "a name Java does not know"
    msg = f"\\p{{{name}}} ({what})"
    raise PropertyError(msg)


def translate(pattern: str) -> tuple[str, str]:
    r"""(the pattern for RE2, a stand-in for Python's parser) with Java's properties written out.

    The stand-in has ``a`` for each property (one character, no group), so Python's parser can
    count the groups and check the rest. A pattern without ``\p`` / ``\P`` is returned as it is.

    Raises:
        PropertyError: a property RE2 cannot read as Java does, or a negated multi-part property
            inside a character class.
    """
    if "\\p" not in pattern and "\\P" not in pattern:
        return pattern, pattern
    re2, stand_in, i, in_class = [], [], 0, False
    while i < len(pattern):
        ch = pattern[i]
        m = _PROPERTY.match(pattern, i) if ch == "\\" else None
        if m is not None:
            negated, name = m.group(1) == "P", m.group(2) if m.group(2) is not None else m.group(3)
            members = _members(name)
            single = re.fullmatch(r"\\p\{\w+\}", members) is not None
            if single:  # RE2 reads \p{X} and \P{X} themselves, in a class too
                re2.append(members.replace("\\p", "\\P") if negated else members)
            elif in_class and negated:
                msg = f"\\P{{{name}}} inside a character class (RE2 cannot negate a set there)"
                raise PropertyError(msg)
            else:
                re2.append(members if in_class else f"[{'^' if negated else ''}{members}]")
            stand_in.append("a")
            i = m.end()
            continue
        if ch == "\\" and i + 1 < len(pattern):
            re2.append(pattern[i:i + 2])
            stand_in.append(pattern[i:i + 2])
            i += 2
            continue
        if not in_class and ch == "[":
            in_class = True
            start = i + (2 if pattern.startswith("[^", i) else 1)
            start += pattern.startswith("]", start)  # a ']' first in the class is a literal one
            re2.append(pattern[i:start])
            stand_in.append(pattern[i:start])
            i = start
            continue
        if in_class and ch == "]":
            in_class = False
        re2.append(ch)
        stand_in.append(ch)
        i += 1
    return "".join(re2), "".join(stand_in)
