"""Deliver 7 of issue 12: the soak's verdict (the soak itself is a documented command, not CI)."""

from streamsql.testing.soak import peak, verdict

BASE = {"rss_kib": 200_000, "fds": 30, "threads": 51}


def test_flat_run_passes():
    assert verdict(BASE, {"rss_kib": 219_000, "fds": 34, "threads": 51}) == []


def test_rss_growth_over_10_percent_fails():
    assert verdict(BASE, {"rss_kib": 221_000, "fds": 30, "threads": 51}) == [
        "RSS grew 200000 -> 221000 KiB (> 10%)"]


def test_a_leak_of_files_or_threads_fails():
    broken = verdict(BASE, {"rss_kib": 200_000, "fds": 300, "threads": 60})
    assert broken == ["fds grew 30 -> 300 (> 8 more)", "threads grew 51 -> 60 (> 2 more)"]


def test_peak_takes_the_highest_of_each_measure_in_the_window():
    samples = [(0.0, {"rss_kib": 1, "fds": 9, "threads": 1}),
               (1.0, {"rss_kib": 5, "fds": 2, "threads": 3}),
               (1.4, {"rss_kib": 4, "fds": 6, "threads": 2}),
               (9.0, {"rss_kib": 99, "fds": 99, "threads": 99})]
    assert peak(samples, 0.5, 1.5) == {"rss_kib": 5, "fds": 6, "threads": 3}
