"""benchmarks.report: the medians of ``--repeat`` rounds."""

from __future__ import annotations

from benchmarks.report import median_table, write_report


def _row(w, c, rnd, steady, cpu=5.0):
    return {"workload": w, "contender": c, "round": rnd, "steady_events_per_s": steady,
            "events_per_s": steady, "cpu_s_per_m_events": cpu, "peak_rss": 200 * 2**20, "startup_s": 1.0}


def _cells(md: str, workload: str, contender: str) -> list[str]:
    line = next(x for x in md.splitlines() if x.startswith(f"| {workload} | {contender} |"))
    return [c.strip() for c in line.strip("|").split("|")]


def test_ratios_are_taken_within_a_round_then_their_median():
    # The machine halves its speed in round 2: within each round ours is 1.2x raw; the ratio of
    # the medians (300k / 250k = 1.2) agrees here, but round 3's outlier raw shows per-round pairing.
    rows = [
        _row("Q1", "raw", 1, 400_000), _row("Q1", "streamsql", 1, 480_000),
        _row("Q1", "raw", 2, 200_000), _row("Q1", "streamsql", 2, 240_000),
        _row("Q1", "raw", 3, 100_000), _row("Q1", "streamsql", 3, 300_000, cpu=7.0),
    ]
    md = median_table(rows, "steady_events_per_s", {"× raw": "raw"})
    cells = _cells(md, "Q1", "streamsql")
    assert cells[2] == "3"
    assert cells[3] == "300,000 (240,000–480,000)"
    assert cells[4] == "1.20 (1.20–3.00)"
    assert cells[5] == "5.0 (5.0–7.0)"
    assert _cells(md, "Q1", "raw")[4] == "–"


def test_a_hashmap_row_is_divided_by_the_raw_run_of_its_workload_and_failed_runs_are_left_out():
    rows = [
        _row("AGG10k", "raw", 1, 100_000), _row("AGG10k/hashmap", "streamsql", 1, 150_000),
        _row("AGG10k", "raw", 2, 100_000), {**_row("AGG10k/hashmap", "streamsql", 2, 0), "error": "boom"},
    ]
    cells = _cells(median_table(rows, "steady_events_per_s", {"× raw": "raw"}), "AGG10k/hashmap", "streamsql")
    assert cells[2:5] == ["1", "150,000", "1.50"]


def test_the_report_of_repeated_rounds_has_the_medians_and_each_round(tmp_path):
    rows = [_row("Q0", c, r, s) for r in (1, 2) for c, s in (("raw", 100), ("streamsql", 110))]
    meta = {"date": "d", "machine": "2 cores", "smoke": False, "interval_ms": 1000, "latency_rate": 1,
            "latency_seconds": 1, "minutes": 1.0, "datasets": []}
    md = write_report(rows, [], meta, tmp_path).read_text()
    assert "## Medians of 2 alternated rounds" in md
    assert "## Round 1" in md and "## Round 2" in md
    medians = md.split("## Round")[0]
    assert "× flink" not in medians  # no flink ran: no column for it
    assert _cells(medians, "Q0", "streamsql")[4] == "1.10"
