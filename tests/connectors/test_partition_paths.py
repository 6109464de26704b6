"""Partition folder names escaped and read back as Flink's ``PartitionPathUtils``.

``escapePathName`` escapes every character below a space (NUL too: an embedded NUL failed the job)
and ``"#%'*/:=?\\{}[]^`` and DEL (the whole set written by Flink 2.3: filesystem case
``special_characters``). ``unescapePathName`` reads the two characters after a ``%`` with Java's
``Integer.parseInt(s, 16)``, which takes a sign (jshell: ``+F`` is 15, ``-1`` is -1, not >= 0, so
kept as text).
"""

from __future__ import annotations

import pytest
from streamsql.connectors.partitions import escape, unescape


def test_escape_nul_and_controls():
    assert escape("a\x00b\x1fc\x7fd$e f") == "a%00b%1Fc%7Fd$e f"


@pytest.mark.parametrize(("text", "java"), [
    ("a%2Fb", "a/b"), ("%+F", "\x0f"), ("%-1", "%-1"), ("%G1", "%G1"), ("50%", "50%"), ("%2", "%2"),
])
def test_unescape_as_java(text, java):
    assert unescape(text) == java
