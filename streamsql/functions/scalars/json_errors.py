"""The errors of Flink's JSON path evaluation (:mod:`.json_path` and its filter and function steps)."""

from __future__ import annotations


class JsonError(Exception):
    """What Flink's JSON functions take for an error (ON ERROR applies); the message is Flink's."""


class JsonPathFailure(JsonError):
    """An exception Jayway raises whatever the mode: an error in lax mode too.

    A lax path's ``SUPPRESS_EXCEPTIONS`` does not cover it: a function over what it cannot take,
    a filter over a scalar. Flink's
    ``SqlJsonUtils`` catches it as an error of the path: the ON ERROR behaviour, in lax mode too.
    """


class FlinkJobFailure(Exception):  # noqa: N818  (named for what it is: Flink's job fails)
    """A path whose evaluation fails Flink 2.3's job whatever ON ERROR says (not a :class:`JsonError`).

    Flink shades Jayway JsonPath without its json-smart dependency: Jayway's default
    configuration (a filter's existence test, ``[?(@.a)]``) and its permissive parser (a filter's
    JSON literal, ``in ['x']``) throw ``NoClassDefFoundError: net/minidev/json/writer/JsonReaderI``
    once evaluated, an ``Error`` that neither Jayway nor ``SqlJsonUtils`` catch
    (``tests/functions/flink_json_paths.json``).
    """
