"""Windows over a TIMESTAMP_LTZ rowtime in the session time zone, as Flink's ``TimeWindowUtil``.

Flink assigns the windows of a TIMESTAMP_LTZ time attribute on the rowtime's wall clock in
``'table.local-time-zone'`` (the "shift time zone"): a daily TUMBLE in America/New_York covers a
local day (23 or 25 hours of epoch time across a DST change), ``window_start`` / ``window_end``
are those local wall clocks (TIMESTAMP(3)) and ``window_time`` is the instant of ``window_end -
1 ms`` (TIMESTAMP_LTZ(3)). A window operator given a zone therefore works on **local
milliseconds** (the wall clock read as if it were UTC):

- rowtimes go in through :func:`to_local` (Flink's ``toUtcTimestampMills``);
- the watermark (an instant) is compared through :func:`to_local` too, kept as the running
  maximum: in a fall-back hour the wall clock repeats, and a window ``[01:00, 02:00)`` fires when
  the first 01:59:59.999 passes, as Flink's timer at ``toEpochMillsForTimer(end - 1)`` does (its
  rows of the repeated hour are late then, as in Flink);
- ``window_time`` comes out through :func:`to_instant` (``toEpochMills``: Java's
  ``LocalDateTime.atZone``, the earlier offset in an overlap, forward across a gap).

The watermark forwarded downstream is the input's, unchanged. A zone of None (a TIMESTAMP
rowtime, or the session zone UTC) leaves every time as it is.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from functools import lru_cache
from zoneinfo import ZoneInfo

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from streamsql.core.elements import MAX_WATERMARK

_EPOCH = datetime(1970, 1, 1)  # naive: local milliseconds are a wall clock read as UTC
_UTC_EPOCH = _EPOCH.replace(tzinfo=timezone.utc)


def to_local(ts: np.ndarray, zone: str | None) -> np.ndarray:
    """Instants (int64 ms since the epoch) → their wall clocks in ``zone`` (int64 local ms)."""
    if zone is None or len(ts) == 0:
        return ts
    zoned = pa.array(ts, pa.timestamp("ms", tz="UTC")).cast(pa.timestamp("ms", tz=zone))
    return pc.local_timestamp(zoned).cast(pa.int64()).to_numpy(zero_copy_only=False)


def local_watermark(wm: int, zone: str | None) -> int:
    """A watermark (instant, ms) as local ms; the end-of-input watermark stays itself."""
    if zone is None or wm >= MAX_WATERMARK or wm <= -MAX_WATERMARK:
        return wm
    return int(to_local(np.array([wm], np.int64), zone)[0])


@lru_cache(maxsize=4096)
def _instant(local_ms: int, zone: str) -> int:
    # fold=0 is Java's atZone: the earlier offset in an overlap, the offset before a gap (so a
    # wall clock in the gap moves forward by its length)
    wall = (_EPOCH + timedelta(milliseconds=local_ms)).replace(tzinfo=ZoneInfo(zone), fold=0)
    return round((wall.astimezone(timezone.utc) - _UTC_EPOCH) / timedelta(milliseconds=1))


def to_instant(local: np.ndarray, zone: str | None) -> np.ndarray:
    """Local ms (wall clocks in ``zone``) → instants (int64 ms), as Java's ``LocalDateTime.atZone``.

    Window boundaries repeat across rows, so each distinct one is converted once.
    """
    if zone is None or len(local) == 0:
        return local
    uniq, inverse = np.unique(local, return_inverse=True)
    return np.array([_instant(int(v), zone) for v in uniq], np.int64)[inverse]
