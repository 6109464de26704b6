"""The harness's steady rate: input events per second after the first half, from the output's timestamps."""

from __future__ import annotations

from benchmarks import datagen
from benchmarks.output import steady_rate


def _sample(append_ms: int, event: int) -> tuple[int, bytes]:
    """An output record written at ``append_ms`` that reflects input event ``event``."""
    return append_ms, datagen.fmt_ts(datagen.START_MS + event // 10).encode()  # 10 events per ms


def test_rate_after_the_first_half_leaves_start_up_out():
    # a slow start (events 0..50k over 10 s), then 50k..100k in 2 s: the steady rate is 25k/s
    samples = [_sample(1_000 + i * 200, i * 1_000) for i in range(51)]
    samples += [_sample(11_000 + i * 40, 50_000 + i * 1_000) for i in range(1, 51)]
    out = steady_rate(samples, 100_000, 0.1)
    assert out["first_output_ms"] == 1_000
    assert abs(out["steady_events_per_s"] - 25_000) < 1


def test_progress_is_the_furthest_event_seen_so_far_and_order_of_reading_does_not_matter():
    # upsert outputs of keys updated late carry older event times: they must not pull P(t) back
    samples = [_sample(0, 0), _sample(1_000, 60_000), _sample(1_500, 10_000), _sample(3_000, 100_000)]
    out = steady_rate(list(reversed(samples)), 100_000, 0.1)
    assert abs(out["steady_events_per_s"] - 40_000 / 2) < 1


def test_no_output_gives_no_rate():
    assert steady_rate([], 10, 0.1) == {"steady_events_per_s": None, "first_output_ms": None}
