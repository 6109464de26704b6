r"""Record Apache Flink 2.3's answers for the REGEXP family over patterns that come from a column.

Flink evaluates a pattern that is not a literal with ``java.util.regex``, row by row; this script
asks it what each function gives for Java-only syntax (possessive quantifiers, atomic groups,
look-around, ``\p{javaX}``, ``\Q..\E``, ``(?i)`` mid-pattern, nested classes ...) and for patterns
Java refuses. The rows ``(s, p)`` of :data:`ROWS` are a ``VALUES`` table (a character below U+0020
written as ``CHR(n)``, so ``p`` is a column, not a literal); every function of :data:`CALLS` runs
over all of them in one job, a job that fails running again row by row. The JSON written,
``tests/functions/flink_regex_java.json``, is what ``tests/functions/test_regex_java.py`` compares
StreamSQL's answers with::

    {"generated_by", "flink", "rows": [[s, p], ...],
     "answers": {call: [value | {"error": Flink's message}, ...]}}   # one per row, in order

Usage (serialized with other Flink users)::

    flock /tmp/flink.lock /work/flinkvenv/bin/python scripts/flink_regex_java.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "scripts")]

import flink_session  # noqa: E402

OUT = ROOT / "tests" / "functions" / "flink_regex_java.json"

ROWS = [
    # possessive quantifiers, atomic groups
    ("aaa", "a*+a"), ("aaab", "a++b"), ("abc", "(?>a|ab)c"), ("abc", "(?>ab|a)c"), ("xaay", "a?+a{1}+y"),
    # look-ahead and look-behind (a bounded variable-length look-behind is Java's; an unbounded one not)
    ("foobar", "foo(?=bar)"), ("foobaz", "foo(?!bar)"), ("price $42", r"(?<=\$)\d+"),
    ("xabc yc", "(?<=a|xa)bc"), ("aab", "(?<=a{1,3})b"), ("aab", "(?<=a+)b"), ("ab", "(?<!x)b"),
    # \p{..} properties: categories, scripts, blocks, POSIX (ASCII) and java.lang.Character classes
    ("ABcdÉé", r"\p{javaLowerCase}+"), ("ABcdÉé", r"\p{javaUpperCase}+"),
    ("a\u00a0b c", r"\p{javaWhitespace}"),
    ("abγδ", r"\p{InGreek}+"), ("1aé", r"\p{IsAlphabetic}+"), ("1aé", r"\p{L}+"), ("xÉy", r"\p{Lu}"),
    ("éa", r"\p{Alpha}+"), ("日本a", r"\p{IsHan}+"), ("aé", r"\pL+"), ("aé1", r"[\p{L}&&[^a]]+"),
    ("x1", r"\P{L}"), ("é1", r"\p{IsLatin}"), ("aB", r"\p{Nope}"), ("a1", r"\p{javaLetterOrDigit}+"),
    # \Q..\E quoting
    ("a.b*c", r"\Q.b*\E"), ("axb", r"\Q.\E"), ("a.b", r"\Qa.b"), ("a[b]", r"[\Q[]\E]+"),
    # inline flags in the middle, scoped flags
    ("abcABC", "a(?i)bc"), ("xABC", "x(?i:abc)"), ("aBc", "a(?i)b(?-i)c"), ("aBC", "a(?i)b(?-i)C"),
    ("ÄÖ", "(?i)äö"), ("ÄÖ", "(?iu)äö"), ("A\nb", "(?s)a.b"), ("A\nB", "(?im)^b"), ("ab", "(?x) a b # c"),
    # escapes Java reads and Python does not, or reads otherwise
    ("a\tb", r"a\hb"), ("a\nb", r"a\vb"), ("a\r\nb", r"a\Rb"), ("ab\n", r"b\z"), ("ab\n", r"b\Z"),
    ("a\x1bb", r"\e"), ("a😀b", r"\x{1F600}"), ("a\x01b", r"\cA"), ("A", r"\0101"), ("a\rb", "a.b"),
    ("a\u2028b", "a.b"), ("ab\r\n", "b$"), ("abab", r"(?<x>ab)\k<x>"), ("aa", r"\G a"),
    # nested classes and set operations
    ("abc", "[a-c&&[^b]]+"), ("ab1", "[a[0-9]]+"), ("abc", "[abc&&b]"), ("a-b", "[a&&&]"),
    # word boundaries, white space, line terminators and case folding beyond ASCII
    ("café x", r"caf\b"), ("é1 x1", r"\b1"), ("a\x0bb", r"a\sb"), ("x\x85", "x$"), ("a\rb", "(?m)a$"),
    ("a\u2028b", "(?m)^b"), ("a\r\nb", "(?m)^b"), ("\u212a", "(?i)k"), ("\u017f", "(?i)s"),
    ("\u212a", "(?iu)k"), ("B", "(?i)[a-c]"), ("b", "(?i)[^B]"), ("aBc", "(?i)ABC"), ("x\ny", "(?s)x.y"),
    ("ab\n", "b\\z|b$"), ("Ab", "(?i:a)b"),
    # patterns Java refuses
    ("abc", "("), ("abc", "*a"), ("abc", "a{2,1}"), ("abc", "[b-a]"), ("abc", r"\k<nope>"), ("a", r"a\\"),
    ("abc", ""),
]

CALLS = ["REGEXP(s, p)", "REGEXP_REPLACE(s, p, '#')", "REGEXP_EXTRACT(s, p, 0)",
         "REGEXP_EXTRACT_ALL(s, p, 0)", "REGEXP_COUNT(s, p)", "REGEXP_INSTR(s, p)", "REGEXP_SUBSTR(s, p)"]


def sql_text(text: str) -> str:
    """A Flink SQL string expression of ``text`` (control characters as ``CHR(n)`` pieces)."""
    parts, plain = [], ""
    for ch in text:
        if ord(ch) < 0x20:
            if plain:
                parts.append("'" + plain.replace("'", "''") + "'")
                plain = ""
            parts.append(f"CHR({ord(ch)})")
        else:
            plain += ch
    if plain or not parts:
        parts.append("'" + plain.replace("'", "''") + "'")
    return "CAST(" + " || ".join(parts) + " AS STRING)"


def values(rows: list[tuple[str, str]]) -> str:
    """A ``FROM (VALUES ...)`` clause of ``rows`` with the row number ``n`` first, columns ``s``, ``p``."""
    body = ", ".join(f"({n}, {sql_text(s)}, {sql_text(p)})" for n, (s, p) in enumerate(rows))
    return f" FROM (VALUES {body}) AS t(n, s, p)"


def _value(v):
    return list(v) if isinstance(v, (list, tuple)) else v


def answers(t, call: str) -> list:
    """``call``'s value (or ``{"error": ...}``) for each row: one job, then one a row if it fails."""
    try:
        got = {r[0]: _value(r[1]) for r in flink_session.collect(t, f"SELECT n, {call}" + values(ROWS))}
        return [got[n] for n in range(len(ROWS))]
    except Exception:  # noqa: BLE001  (a row's failure: find which, each alone)
        out = []
        for row in ROWS:
            try:
                out.append(_value(flink_session.collect(t, f"SELECT {call}" + values([row]))[0][0]))
            except Exception as e:  # noqa: BLE001
                out.append({"error": flink_session.error_text(e)[:300]})
        return out


def main() -> int:
    """Write the JSON; returns the process exit code."""
    import pyflink

    t = flink_session.table_env(utc=True)
    doc = {"generated_by": "scripts/flink_regex_java.py", "flink": getattr(pyflink, "__version__", "2.3.0"),
           "rows": [list(r) for r in ROWS], "answers": {c: answers(t, c) for c in CALLS}}
    OUT.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n")
    print(f"{len(ROWS)} rows x {len(CALLS)} calls -> {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
