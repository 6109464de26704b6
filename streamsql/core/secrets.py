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

    text = mask_pairs(text, unknown_in(text))[0]
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
