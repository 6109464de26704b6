"""What the BITMAP recorder and its replay share: the windows' input rows and a collected value's text.

``scripts/flink_bitmap.py`` (PyFlink's venv imports it by path) writes Flink 2.3's answers with
:func:`collected_text` over the rows of :data:`TSRC_ROWS`; ``test_bitmap.py`` writes ours the same way
over the same rows and compares.
"""

from __future__ import annotations

#: The lines of ``tsrc.json``, the windows script's source (``k STRING, i INT, ts TIMESTAMP(3)``).
TSRC_ROWS = ['{"k": "a", "i": 1, "ts": "2024-01-01 00:00:01"}',
             '{"k": "a", "i": 2, "ts": "2024-01-01 00:00:02"}',
             '{"k": "b", "i": 3, "ts": "2024-01-01 00:00:03"}',
             '{"k": "a", "i": 2, "ts": "2024-01-01 00:00:11"}',
             '{"k": "a", "i": -5, "ts": "2024-01-01 00:00:12"}']


def collected_text(v: object) -> str | None:
    """A collected value as text: bytes as ``x'..'`` lowercase hex, a list as ``[1, NULL]``, NULL as None."""
    if v is None:
        return None
    if isinstance(v, (bytes, bytearray)):
        return f"x'{bytes(v).hex()}'"
    if isinstance(v, list):
        return "[" + ", ".join("NULL" if e is None else str(e) for e in v) + "]"
    return str(v)
