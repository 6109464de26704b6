r"""What a literal regular expression's structure guarantees, for choosing a function's fast path.

DuckDB's one-pass ``regexp_extract`` answers '' for "no match", for a group that did not take
part in the match and for a group that matched the empty string; Flink answers NULL, NULL and
''. When a group's own sub-pattern cannot match the empty string, '' can only mean one of the
first two, and NULLIF of the one pass is exact. The widths are read with Python's own regex
parser; a pattern it cannot parse (RE2-only syntax such as ``\pL``) proves nothing, so the
caller keeps its general form.
"""

from __future__ import annotations

import re
from re import _constants as sre  # the parser's opcodes (no public API gives a pattern's structure)
from re import _parser


def _parse(pattern: str):
    try:
        return _parser.parse(pattern)
    except (re.error, OverflowError, RecursionError):
        return None


def min_width(pattern: str) -> int | None:
    """The fewest characters a match of ``pattern`` spans (None: Python cannot parse it)."""
    tree = _parse(pattern)
    return None if tree is None else tree.getwidth()[0]


def group_never_empty(pattern: str, group: int) -> bool:
    """Whether group ``group`` (0: the whole match) of ``pattern`` never takes part with ''.

    True when the group's sub-pattern matches at least one character; False when it may match
    the empty string, does not exist, or Python cannot parse the pattern.
    """
    tree = _parse(pattern)
    if tree is None:
        return False
    sub = tree if group == 0 else _group(tree, group)
    return sub is not None and sub.getwidth()[0] > 0


def _group(sub, group: int):
    """The sub-pattern of group ``group`` within the parsed ``sub`` (None: not in it)."""
    for op, av in sub.data:
        if op == sre.SUBPATTERN and av[0] == group:
            return av[3]
        for child in _children(op, av):
            found = _group(child, group)
            if found is not None:
                return found
    return None


def _children(op, av) -> list:
    """The parsed sub-patterns directly inside one parser item."""
    if op == sre.SUBPATTERN:
        return [av[3]]
    if op in (sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT):
        return [av[2]]
    if op == sre.BRANCH:
        return list(av[1])
    if op == sre.GROUPREF_EXISTS:
        return [p for p in av[1:] if p is not None]
    if op in (sre.ASSERT, sre.ASSERT_NOT):
        return [av[1]]
    if op == sre.ATOMIC_GROUP:
        return [av]
    return []
