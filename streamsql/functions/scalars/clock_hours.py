"""The hour letters ``k``, ``K`` and ``H`` of a Java pattern that a text is parsed with (TO_TIMESTAMP[_LTZ]).

strptime has neither; java.time (``DateTimeFormatter.ofPattern``, SMART resolution, as Flink's
``DateTimeUtils.parseTimestampData``) reads them so (Flink 2.3's answers, regression expressions
``# Session 33``):

- ``k``, the clock hour of the day 1-24: 0 to 24 pass (SMART lets 0 through), 24 is the hour 0 of
  the same day: read here as ``HH``, its value modulo 24 (``'2024-01-01 24'`` with ``'yyyy-MM-dd
  k'`` is 2024-01-01 00:00; ``'25'`` with ``'k'`` does not parse);
- ``K``, the hour of AM/PM 0-11: with ``a`` the hour is K, +12 for PM: read as ``hh`` (0 is 12);
  without ``a`` it sets no hour: checked (0 to 11) and, with an hour of the day (``k`` or ``H``),
  that hour modulo 12 must be K, then dropped (``'2024-01-01 11'`` with ``'yyyy-MM-dd K'`` is
  2024-01-01 00:00, ``'13 2'`` with ``'k K'`` does not parse).

- ``H``, the hour of the day 0-23: SMART also reads 24 when the minute, second and fraction the
  pattern has are 0 (or it has none): the next day's midnight (``'2024-01-01 24:00'`` with
  ``'yyyy-MM-dd HH:mm'`` is 2024-01-02 00:00; ``'24:30'`` does not parse). Read here as the hour
  ``value % 24``, a day added for 24 (``scripts/flink_funcs33.py``, ``to_timestamp``).

A text java.time does not parse goes to Flink's fallback (java.sql's ``Timestamp.valueOf`` /
``Date.valueOf``), as for every other pattern.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from streamsql.functions.scalars.registry import bind, sql_string

_TOKEN = re.compile(r"'([^']*)'|([A-Za-z])\2*|.")
_NUMBERS = frozenset("yMLdDHhmsSkK")
"""Letters read as digits (``M`` / ``L`` up to two): one letter any number, n letters exactly n."""


def _regex(m: re.Match) -> str:
    text = m.group(0)
    if m.group(1) is not None or text == "''":
        return re.escape(m.group(1) or "'")
    if m.group(2):
        if text[0] in _NUMBERS and (text[0] not in "ML" or len(text) <= 2):
            return "[0-9]+" if len(text) == 1 else f"[0-9]{{{len(text)}}}"
        return ".*?"
    return re.escape(text)


def rewrite(java: str) -> tuple[str, Callable[[str], str]] | None:
    """``java`` without ``k`` / ``K``, and how to read the text with it, or None if it has neither.

    Returns:
        (the pattern: ``k`` as ``HH``, ``K`` as ``hh`` with ``a`` else dropped; a function of the
        DuckDB SQL reading the rewritten text ``__kh`` with that pattern, giving the DuckDB SQL over
        ``{0}`` of the whole reading: the text's groups taken once (one regular expression), NULL
        unless java.time resolves the hours: the text has the pattern's shape, each value in
        range, ``K`` agreeing with the hour of the day). The SQL is a template (braces doubled).
    """
    tokens = list(_TOKEN.finditer(java))
    letters = [m.group(0) for m in tokens if m.group(2)]
    if not any(t[0] in "kKH" for t in letters):
        return None
    ampm = any(t[0] == "a" for t in letters)
    regex = "^" + "".join(f"({_regex(m)})" for m in tokens) + "$"
    names = ", ".join(f"'g{i}'" for i in range(len(tokens)))
    extract = f"regexp_extract({{0}}, {sql_string(regex)}, [{names}])"
    groups = "__hg"
    pieces, checks, pattern = [], [f"regexp_full_match({{0}}, {sql_string(regex)})"], []
    hour = k_hour = h24 = None
    zeros = []  # the minute, second and fraction values: 0 for an hour 24 to be the next midnight
    for i, m in enumerate(tokens):
        value = f"TRY_CAST(({groups})['g{i}'] AS INTEGER)"
        letter = m.group(2)
        if letter == "k":
            checks.append(f"{value} <= 24")
            k_hour = hour = f"({value} % 24)"
            pieces.append(f"lpad(CAST({hour} AS VARCHAR), 2, '0')")
            pattern.append("HH")
        elif letter == "K":
            checks.append(f"{value} <= 11")
            if ampm:
                twelve = f"CASE WHEN {value} = 0 THEN 12 ELSE {value} END"
                pieces.append(f"lpad(CAST({twelve} AS VARCHAR), 2, '0')")
                pattern.append("hh")
            else:
                checks.append(f"__K{i}")  # placeholder: the cross-check, once the hour of the day is known
        elif letter == "H":
            checks.append(f"{value} <= 24")
            h24, hour = value, f"({value} % 24)"
            two = len(m.group(0)) == 2  # 'HH': two digits ('H': lpad would cut 23 to 2)
            pieces.append(f"lpad(CAST({hour} AS VARCHAR), 2, '0')" if two else f"CAST({hour} AS VARCHAR)")
            pattern.append(m.group(0))
        else:
            if letter in ("m", "s", "S"):
                zeros.append(f"{value} = 0")
            pieces.append(f"({groups})['g{i}']")
            pattern.append(m.group(0))
    for i, m in enumerate(tokens):
        if m.group(2) == "K" and not ampm:
            value = f"TRY_CAST(({groups})['g{i}'] AS INTEGER)"
            check = f"{hour or k_hour} % 12 = {value}" if (hour or k_hour) else "true"
            checks[checks.index(f"__K{i}")] = check
    if h24 is not None and zeros:
        checks.append(f"{h24} < 24 OR ({' AND '.join(zeros)})")
    text = "concat(" + ", ".join(pieces) + ")" if pieces else "''"
    ok = "coalesce(" + " AND ".join(f"({c})" for c in checks) + ", false)"
    escape = str.maketrans({"{": "{{", "}": "}}"})

    def template(sql: str) -> str:  # braces doubled, but the placeholder {0}
        return sql.translate(escape).replace("{{0}}", "{0}")

    def read(inner: str) -> str:
        body = f"CASE WHEN {template(ok)} THEN {bind(template(text), '__kh', inner)} END"
        if h24 is not None:  # the hour 24: the next day's midnight
            body = f"({body} + CASE WHEN {template(h24)} = 24 THEN INTERVAL 1 DAY ELSE INTERVAL 0 DAY END)"
        return bind(template(extract), "__hg", body)

    return "".join(pattern), read
