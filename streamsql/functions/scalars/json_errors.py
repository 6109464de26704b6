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
