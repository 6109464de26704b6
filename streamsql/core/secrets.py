"""Secrets kept secret: which options are sensitive, and masking them wherever text is shown.

An option is sensitive when its lower-cased name contains one of :data:`SENSITIVE_KEYS` — the
list of Flink's ``GlobalConfiguration.isSensitive`` (2.3) plus ``ssl.key`` (librdkafka's
``ssl.key.pem`` / ``ssl.key.password`` hold private-key material).

**The rule** (:func:`hidden`): an option's value is not shown when its key is sensitive, or when
its connector does not know the key — a misspelt key (``'properties.sasl.passwd'``) may hold a
secret all the same. Such a value is shown as :data:`MASK` (fixed width: the mask tells nothing
of the value's length) by SHOW CREATE TABLE, ``SET;``, EXPLAIN's hint options, the shell's history
file, error messages and warnings (their statement excerpt: :func:`mask_pairs`), job notices and
StreamSQL's log records. Where a connector's unknown keys are not known (a log line, an error
raised far from the table, a history line), the keys of the text's ``'key' = 'value'`` pairs are
judged by :func:`unknown_in`: a key no connector named in the text knows (every connector and
engine setting when none is named: a ``SET`` or a hint) is masked too. Flink 2.3 prints every
option in clear in SHOW CREATE TABLE; StreamSQL never prints a secret.

Two mechanisms, because a secret reaches text in two ways:

- *as an option*: ``'properties.sasl.password' = 'hunter2'`` in a statement's text (the
  history, an error's caret line) — :func:`redact` masks the value of every
  ``'sensitive-key' = 'value'`` pair it finds;
- *as a bare value* inside another message (a client library quoting its configuration) — the
  values of sensitive options are :func:`remember`-ed when a table or SET takes them, and
  :func:`redact` masks each wherever it appears (values shorter than :data:`MIN_REMEMBERED`
  characters are not remembered: masking every ``"ab"`` would garble messages).

Log records of the ``streamsql`` loggers are redacted when they are created (a log record
factory installed on import), so every handler — a file, the console, pytest's caplog — sees
masked text.
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Callable, Collection

#: Substrings of option names whose values are secret (Flink's list, plus ``ssl.key``).
SENSITIVE_KEYS = ("password", "secret", "fs.azure.account.key", "apikey", "api-key", "auth-params",
                  "service-key", "token", "basic-auth", "jaas.config", "http-headers", "ssl.key")
#: What a secret value is shown as (Flink's ``GlobalConfiguration.HIDDEN_CONTENT``).
MASK = "******"
#: Shortest value :func:`remember` keeps.
MIN_REMEMBERED = 4

_remembered: set[str] = set()
_lock = threading.Lock()
# 'key' = 'value' (SQL string literals, '' escaping a quote), as in WITH (...) and SET.
_PAIR = re.compile(r"""(?P<key>'(?:[^']|'')*'|"(?:[^"]|"")*")(?P<eq>\s*=\s*)(?P<value>'(?:[^']|'')*')""")
# In a hint (/*+ OPTIONS(...) */) a key may also be an identifier, `quoted` or plain:
# OPTIONS(password = '...'); outside hints such a pair is a column compared with a literal.
_HINT = re.compile(r"/\*\+.*?\*/", re.DOTALL)
_HINT_PAIR = re.compile(r"""(?P<key>'(?:[^']|'')*'|`(?:[^`]|``)*`|\b[A-Za-z_][A-Za-z_0-9$]*)"""
                        r"""(?P<eq>\s*=\s*)(?P<value>'(?:[^']|'')*')""")
# A hint of a hint comment other than OPTIONS(...), with its arguments.
_OTHER_HINT = re.compile(r"\b(?!OPTIONS\b)[A-Za-z_]+\s*\([^()]*\)", re.IGNORECASE)
# Secrets inside a JAAS config value: password="..." (also username-less forms).
_JAAS_SECRET = re.compile(r"""(?:password|secret|token)\s*=\s*"([^"]*)\"""", re.IGNORECASE)


#: ``(pairs) -> keys``: the keys of ``[(key, value), ...]`` (one text's option pairs) that no
#: connector of theirs knows; installed by :func:`set_unknown_judge` (the connector registry).
_judge: Callable[[list[tuple[str, str]]], frozenset[str]] | None = None


def set_unknown_judge(judge: Callable[[list[tuple[str, str]]], frozenset[str]]) -> None:
    """Install the judge :func:`unknown_in` asks (``streamsql.connectors.registry.unknown_option_keys``).

    The core cannot ask the connectors itself (they sit above it); the registry installs its
    judge when it is imported, before any table or SET is taken.
    """
    global _judge
    _judge = judge


def unknown_in(text: str | None) -> frozenset[str]:
    """The keys of ``text``'s ``'key' = 'value'`` pairs that no connector named in it knows.

    Statement text, or a message quoting it: ``CREATE TABLE ... WITH ('connector' = 'datagen',
    'fields.a.passwd' = 'x')`` gives ``{'fields.a.passwd'}``; with no ``'connector'`` pair (a SET,
    a hint) a key is unknown when no connector and no engine setting knows it. Empty before the
    judge is installed (:func:`set_unknown_judge`) or when ``text`` has no pair.
    """
    if _judge is None or not text or "=" not in text:
        return frozenset()
    # a hint other than OPTIONS names no option (STATE_TTL('orders' = '1d'), LOOKUP('table' = 'c'))
    text = _HINT.sub(lambda hint: _OTHER_HINT.sub("", hint.group(0)), text)
    pairs = [(m.group("key")[1:-1], m.group("value")[1:-1]) for m in _PAIR.finditer(text)]
    return _judge(pairs) if pairs else frozenset()


def is_sensitive(key: str) -> bool:
    """True when option ``key``'s value must not be shown (see :data:`SENSITIVE_KEYS`)."""
    k = key.lower()
    return any(s in k for s in SENSITIVE_KEYS)


def hidden(key: str, unknown: Collection[str] = ()) -> bool:
    """The rule: True when option ``key``'s value must not be shown.

    Args:
        key: the option's key as written (``'properties.sasl.passwd'``).
        unknown: the keys the table's connector does not know (a misspelt key may hold a secret),
            e.g. Kafka's ``'properties.*'`` keys no client knows; empty where they are not known.
    """
    return is_sensitive(key) or key in unknown


def masked(key: str, value: str, unknown: Collection[str] = ()) -> str:
    """``value``, or :data:`MASK` when :func:`hidden` (``key``, ``unknown``)."""
    return MASK if hidden(key, unknown) else value


def mask_options(options: dict[str, str], unknown: Collection[str] = ()) -> dict[str, str]:
    """A copy of ``options`` with the values of :func:`hidden` keys masked."""
    return {k: masked(k, v, unknown) for k, v in options.items()}


def mask_pairs(text: str, unknown: Collection[str] = (), col: int | None = None) -> tuple[str, int | None]:
    """``text`` with the value of each ``'key' = 'value'`` pair whose key is :func:`hidden` masked.

    Args:
        text: statement text (one line of it, for ``col``).
        unknown: see :func:`hidden`.
        col: a 1-based column of ``text`` (a caret's), or None.

    Returns:
        The masked text (each hidden value shown as ``'******'``), and ``col`` moved by the
        masks before it so that it points at the same character (None stays None).
    """
    shift = 0

    def pair(m: re.Match) -> str:
        nonlocal shift
        key = m.group("key")[1:-1]
        if not hidden(key, unknown):
            return m.group(0)
        out = f"{m.group('key')}{m.group('eq')}'{MASK}'"
        if col is not None and m.end() < col:
            shift += len(out) - len(m.group(0))
        return out

    text = _PAIR.sub(pair, text)
    return text, None if col is None else col + shift


# An option key as written ('k' or "k"), then '=' with whitespace or comments around it.
_GAP = r"(?:\s|/\*.*?\*/|--[^\n]*(?:\n|$))*"
_SPAN_KEY = re.compile(rf"""(?P<key>'(?:[^']|'')*'|"(?:[^"]|"")*"){_GAP}={_GAP}""", re.DOTALL)
_GAP_AT = re.compile(_GAP, re.DOTALL)


def _value_end(sql: str, i: int) -> int:
    """Where the option value starting at ``sql[i]`` ends.

    Quoted parts (closed or not: an unterminated literal runs to the end), adjacent literals
    ('a' 'b', a SQL concatenation) and any other text up to a top-level ``,``, ``)`` or ``;``.
    """
    n, j = len(sql), i
    while j < n:
        c = sql[j]
        if c in "'\"`":
            k = j + 1
            while True:
                k = sql.find(c, k)
                if k < 0:
                    return n
                if sql[k + 1:k + 2] != c:
                    break
                k += 2
            j = k + 1
        elif c in ",);":
            break
        elif c.isspace() or sql.startswith(("/*", "--"), j):
            k = _GAP_AT.match(sql, j).end()
            if k < n and sql[k] == "'":
                j = k
                continue
            break
        else:
            j += 1
    return j


def secret_spans(sql: str | None, unknown: Collection[str] = ()) -> list[tuple[int, int]]:
    """The ``[start, end)`` offsets in ``sql`` of every :func:`hidden` option's value, however written.

    Unlike :func:`mask_pairs` (one ``'key' = 'literal'`` at a time, on one line) a value here is
    whatever follows the key's ``=``: on the next line, after a comment, unterminated (to the end
    of the text), a ``U&'...'`` or double-quoted literal, a bare word, adjacent literals. A
    statement whose error is on the value's line would otherwise show it (break32).
    """
    if not sql or "=" not in sql:
        return []
    spans = []
    for m in _SPAN_KEY.finditer(sql):
        if hidden(m.group("key")[1:-1], unknown):
            end = _value_end(sql, m.end())
            if end > m.end():
                spans.append((m.end(), end))
    return spans


def mask_spans(sql: str, spans: list[tuple[int, int]], line: int, col: int) -> tuple[str, int]:
    """Line ``line`` (1-based, as ``sql.splitlines()``) with the parts of ``spans`` on it masked.

    Returns the line and ``col`` (1-based) moved by the masks before it. A part that starts with a
    quote is shown as ``'******'``, any other part as ``******``.
    """
    lines = sql.splitlines(keepends=True)
    start = sum(len(x) for x in lines[:line - 1])
    ends = "\r\n\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"  # what splitlines() splits at
    text = lines[line - 1].rstrip(ends) if 0 < line <= len(lines) else ""
    out, pos, shift = [], 0, 0
    for s, e in spans:
        lo, hi = max(s - start, pos), min(e - start, len(text))
        if lo >= hi:
            continue
        part = text[lo:hi].strip()
        if not part:
            continue
        lo = text.index(part, lo)
        hi = lo + len(part)
        mask = f"'{MASK}'" if part[0] == "'" else MASK
        out.append(text[pos:lo] + mask)
        if hi < col:
            shift += len(mask) - len(part)
        pos = hi
    out.append(text[pos:])
    return "".join(out), col + shift


def mask_values(message: str, sql: str, spans: list[tuple[int, int]]) -> str:
    """``message`` with the text of each of ``sql``'s ``spans`` (a hidden value) masked where it is quoted."""
    for s, e in spans:
        value = sql[s:e].strip()
        pieces = {value, value.strip("'\"`"), *re.findall(r"'((?:[^']|'')*)'?", value)}
        for piece in sorted(pieces, key=len, reverse=True):
            if piece == value or len(piece) >= MIN_REMEMBERED:
                message = message.replace(piece, MASK)
    return message


def remember(options: dict[str, str]) -> None:
    """Remember the values of the sensitive keys of ``options`` (and secrets inside JAAS text)."""
    found = []
    for k, v in options.items():
        if v and is_sensitive(k):
            found.append(v)
            found += _JAAS_SECRET.findall(v)
    with _lock:
        _remembered.update(s for s in found if len(s) >= MIN_REMEMBERED)


def redact(text: str) -> str:
    """``text`` with every hidden ``'key' = 'value'`` pair's value and every remembered secret masked.

    A pair is hidden when its key is sensitive or unknown (:func:`unknown_in` ``(text)``); in a
    hint (``/*+ OPTIONS(k = 'v') */``) an identifier key is masked when sensitive.
    """
    if not text:
        return text

    def pair(m: re.Match) -> str:
        key = m.group("key")
        key = key[1:-1] if key[0] in "'\"`" else key
        return m.group(0) if not is_sensitive(key) else f"{m.group('key')}{m.group('eq')}'{MASK}'"

    unknown = unknown_in(text)
    text = mask_pairs(text, unknown)[0]
    for start, end in reversed(secret_spans(text, unknown)):  # a value however written (break32)
        value = text[start:end].rstrip()
        text = text[:start] + (f"'{MASK}'" if value[:1] == "'" else MASK) + text[start + len(value):]
    text = _HINT.sub(lambda hint: _HINT_PAIR.sub(pair, hint.group(0)), text)
    with _lock:
        secrets = sorted(_remembered, key=len, reverse=True)  # longest first: a JAAS text before its password
    for s in secrets:
        if s in text:
            text = text.replace(s, MASK)
    return text


_base_factory = logging.getLogRecordFactory()


def _redacting_factory(*args, **kwargs) -> logging.LogRecord:
    record = _base_factory(*args, **kwargs)
    if record.name.startswith("streamsql"):
        message = record.getMessage()
        clean = redact(message)
        if clean != message:
            record.msg, record.args = clean, ()
    return record


logging.setLogRecordFactory(_redacting_factory)
