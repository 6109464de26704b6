"""Results → ``results.md`` (markdown tables), ``results.json``, ``throughput.png``, ``scaling.png``."""

from __future__ import annotations

import json
from pathlib import Path
from statistics import median


def _f(v, fmt="{:,.0f}", none="–"):
    return none if v is None else fmt.format(v)


def _mib(b):
    return None if not b else b / 2**20


def _mean(xs):
    return sum(xs) / len(xs) if xs else None


def _ratio(a, b):
    return _f(a / b if a and b else None, "{:.2f}")


def _header(columns: list[str]) -> list[str]:
    """A markdown table's head: two text columns, then numbers."""
    return ["| " + " | ".join(columns) + " |", "|---|---|" + "--:|" * (len(columns) - 2)]


def _failed(r: dict, columns: int) -> str | None:
    """The row of a run that did not give numbers (its error in the last column), else None."""
    if not r.get("error"):
        return None
    what = "not supported" if r.get("not_supported") else "failed"
    text = r["error"][:120] if r.get("not_supported") else r["error"].splitlines()[0][:120]
    return f"| {r['workload']} | {r['contender']} | {what} |" + " |" * (columns - 4) + f" {text} |"


def _with_numbers(rows: list[dict], columns: int, lines: list[str]):
    """The rows of runs that gave numbers; the others' rows (:func:`_failed`) go into ``lines``."""
    for r in rows:
        failed = _failed(r, columns)
        if failed:
            lines.append(failed)
        else:
            yield r


def table(rows: list[dict]) -> str:
    """The Kafka end-to-end table: one row per (workload, contender)."""
    by = {(r["workload"], r["contender"]): r for r in rows}
    columns = ["workload", "contender", "events/s", "steady events/s", "× flink (steady)", "× raw",
               "× quix", "start-up s", "CPU s / M events", "p50 latency ms", "p99 latency ms",
               "peak RSS MiB", "mean checkpoint ms", "output records (expected)"]
    lines = _header(columns)
    for r in _with_numbers(rows, len(columns), lines):
        w, c = r["workload"], r["contender"]
        eps, steady = r.get("events_per_s"), r.get("steady_events_per_s")
        raw = (by.get((w.split("/")[0], "raw")) or {}).get("events_per_s")
        quix = (by.get((w.split("/")[0], "quix")) or {}).get("events_per_s")
        flink = (by.get((w, "flink")) or {}).get("steady_events_per_s")
        exp = r.get("expected")
        out = r.get("out_records")
        if r.get("out_keys"):
            out = f"{out:,} ({r['out_keys']:,} keys)"
        elif out is not None:
            out = f"{out:,}"
        lines.append(
            f"| {w} | {c} | {_f(eps)} | {_f(steady)} | {_ratio(steady, flink)} | {_ratio(eps, raw)} "
            f"| {_ratio(eps, quix)} | {_f(r.get('startup_s'), '{:.1f}')} "
            f"| {_f(r.get('cpu_s_per_m_events'), '{:.1f}')} "
            f"| {_f(r.get('p50_ms'))} | {_f(r.get('p99_ms'))} "
            f"| {_f(_mib(r.get('peak_rss')))} | {_f(_mean(r.get('checkpoint_ms') or []), '{:,.1f}')} "
            f"| {out} ({_f(exp)}) |"
        )
    return "\n".join(lines)


def engine_table(rows: list[dict]) -> str:
    """The engine-only table (datagen → blackhole): StreamSQL and Flink per workload."""
    if not rows:
        return ""
    by = {(r["workload"], r["contender"]): r for r in rows}
    columns = ["workload", "contender", "rows", "events/s (INSERT → end)", "× flink", "start-up s",
               "CPU s / M events", "peak RSS MiB"]
    lines = _header(columns)
    for r in _with_numbers(rows, len(columns), lines):
        w, c = r["workload"], r["contender"]
        eps = r.get("events_per_s")
        flink = (by.get((w, "flink")) or {}).get("events_per_s")
        lines.append(
            f"| {w} | {c} | {_f(r.get('events'))} | {_f(eps)} | {_ratio(eps, flink)} "
            f"| {_f(r.get('startup_s'), '{:.1f}')} | {_f(r.get('cpu_s_per_m_events'), '{:.1f}')} "
            f"| {_f(_mib(r.get('peak_rss')))} |"
        )
    return "\n".join(lines)


def _spread(xs: list[float], fmt: str) -> str:
    """``median (min–max)`` of ``xs``, or ``–`` when empty."""
    if not xs:
        return "–"
    if min(xs) == max(xs):
        return fmt.format(xs[0])
    return f"{fmt.format(median(xs))} ({fmt.format(min(xs))}–{fmt.format(max(xs))})"


def median_table(rows: list[dict], rate: str, against: dict[str, str]) -> str:
    """Medians over ``--repeat`` rounds: one row per (workload, contender).

    ``rate`` is the events/s field compared; ``against`` maps a column name to the contender each
    row is divided by, within the same round (a per-round ratio, so a machine whose speed drifts
    between rounds moves both sides alike), e.g. ``{"× flink": "flink"}``. A raw or quix contender
    is looked up under the workload without its backend (they have none). Rates are events/s,
    CPU in seconds per million events, RSS in MiB, start-up in s.
    """
    ok = [r for r in rows if not r.get("error")]
    ran = {r["contender"] for r in ok}
    against = {name: c for name, c in against.items() if c in ran}  # no column for who did not run
    by = {(r["workload"], r["contender"], r.get("round", 1)): r for r in ok}
    columns = ["workload", "contender", "rounds", rate.replace("_", " "), *against,
               "CPU s / M events", "peak RSS MiB", "start-up s"]
    lines = _header(columns)
    for w, c in dict.fromkeys((r["workload"], r["contender"]) for r in ok):
        mine = [r for r in ok if (r["workload"], r["contender"]) == (w, c)]
        ratios = []
        for other in against.values():
            base = w.split("/")[0] if other in ("raw", "quix") else w
            pairs = [(r, by.get((base, other, r.get("round", 1)))) for r in mine]
            ratios.append([r[rate] / o[rate] for r, o in pairs if o and r.get(rate) and o.get(rate)])
        cells = [
            str(len(mine)),
            _spread([r[rate] for r in mine if r.get(rate)], "{:,.0f}"),
            *(_spread(x, "{:.2f}") if c not in against.values() else "–" for x in ratios),
            _spread([r["cpu_s_per_m_events"] for r in mine if r.get("cpu_s_per_m_events")], "{:.1f}"),
            _spread([r["peak_rss"] / 2**20 for r in mine if r.get("peak_rss")], "{:,.0f}"),
            _spread([r["startup_s"] for r in mine if r.get("startup_s") is not None], "{:.1f}"),
        ]
        lines.append(f"| {w} | {c} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _rounds(rows: list[dict]) -> list[int]:
    return sorted({r.get("round", 1) for r in rows})


def scaling_table(srows: list[dict]) -> str:
    if not srows:
        return ""
    out = [
        "| figure | contender | distinct keys | interval ms | events | events/s | peak RSS MiB "
        "| mean checkpoint ms |",
        "|---|---|--:|--:|--:|--:|--:|--:|",
    ]
    for r in srows:
        out.append(
            f"| {r['figure']} | {r['contender']} | {_f(r.get('keys'))} | {_f(r.get('interval_ms'))} "
            f"| {_f(r['events'])} | {_f(r.get('events_per_s')) if not r.get('error') else 'failed'} "
            f"| {_f(_mib(r.get('peak_rss')))} | {_f(_mean(r.get('checkpoint_ms') or []), '{:,.1f}')} |"
        )
    return "\n".join(out)


def charts(rows: list[dict], srows: list[dict], out_dir: Path) -> list[str]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    files = []
    workloads = list(dict.fromkeys(r["workload"] for r in rows))
    contenders = list(dict.fromkeys(r["contender"] for r in rows))
    by = {(r["workload"], r["contender"]): r for r in rows}
    fig, axes = plt.subplots(1, 3, figsize=(16, 4.5))
    width = 0.8 / max(1, len(contenders))
    for k, (metric, title, scale) in enumerate(
        [
            ("events_per_s", "throughput (events/s, log)", "log"),
            ("p99_ms", "p99 end-to-end latency (ms, log)", "log"),
            ("peak_rss", "peak RSS (MiB)", "linear"),
        ]
    ):
        ax = axes[k]
        for j, c in enumerate(contenders):
            vals = []
            for w in workloads:
                v = (by.get((w, c)) or {}).get(metric)
                vals.append((v / 2**20 if metric == "peak_rss" else v) if v else 0)
            ax.bar([i + j * width for i in range(len(workloads))], vals, width, label=c)
        ax.set_xticks([i + width * (len(contenders) - 1) / 2 for i in range(len(workloads))])
        ax.set_xticklabels(workloads)
        ax.set_yscale(scale)
        ax.set_title(title)
        ax.grid(axis="y", alpha=0.3)
    axes[0].legend()
    fig.tight_layout()
    fig.savefig(out_dir / "throughput.png", dpi=110)
    plt.close(fig)
    files.append("throughput.png")
    if srows:
        fig, axes = plt.subplots(1, 3, figsize=(16, 4.5))
        for c in dict.fromkeys(r["contender"] for r in srows):
            ks = [r for r in srows if r["figure"] == "keys" and r["contender"] == c and r.get("events_per_s")]
            axes[0].plot([r["keys"] for r in ks], [r["events_per_s"] for r in ks], "o-", label=c)
            axes[1].plot([r["keys"] for r in ks], [r["peak_rss"] / 2**20 for r in ks], "o-", label=c)
            iv = [
                r
                for r in srows
                if r["figure"] == "interval" and r["contender"] == c and r.get("events_per_s")
            ]
            axes[2].plot([r["interval_ms"] for r in iv], [r["events_per_s"] for r in iv], "o-", label=c)
        for ax, t in zip(
            axes,
            [
                "AGG events/s vs distinct keys",
                "AGG peak RSS (MiB) vs distinct keys",
                "AGG10k events/s vs checkpoint interval (ms)",
            ],
        ):
            ax.set_xscale("log")
            ax.set_title(t)
            ax.grid(alpha=0.3)
            ax.legend()
        fig.tight_layout()
        fig.savefig(out_dir / "scaling.png", dpi=110)
        plt.close(fig)
        files.append("scaling.png")
    return files


def write_report(rows: list[dict], srows: list[dict], meta: dict, out_dir: Path,
                 engine_rows: list[dict] | None = None) -> Path:
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "results.json").write_text(
        json.dumps({"meta": meta, "rows": rows, "scaling": srows, "engine": engine_rows or []},
                   indent=1, default=str)
    )
    try:
        files = charts(rows, srows, out_dir)
    except Exception as e:  # noqa: BLE001  (no matplotlib: the table still gets written)
        files = []
        print(f"charts skipped: {e}")
    ds = ", ".join(f"{d['events']:,} events / {d['keys']:,} auctions" for d in meta.get("datasets", []))
    md = [
        f"# Benchmark results ({meta['date']}, {meta['machine']}{', smoke' if meta['smoke'] else ''})",
        "",
        f"Data sets: {ds}. Commit/checkpoint interval {meta['interval_ms']} ms. Latency phase: "
        f"{meta['latency_rate']:,} events/s for {meta['latency_seconds']:.0f} s. "
        f"Run took {meta['minutes']:.1f} min.",
        "",
        "Versions: " + ", ".join(f"{k} {v}" for k, v in (meta.get("versions") or {}).items()),
        "",
    ]
    rounds = _rounds(rows + (engine_rows or []))
    if len(rounds) > 1:
        md += [f"## Medians of {len(rounds)} alternated rounds (min–max): Kafka end to end, steady", "",
               median_table(rows, "steady_events_per_s", {"× flink": "flink", "× raw (steady)": "raw"}), ""]
        if engine_rows:
            md += ["## Medians: engine only (datagen → blackhole, no Kafka)", "",
                   median_table(engine_rows, "events_per_s", {"× flink": "flink"}), ""]
    for k in rounds:
        head = [f"## Round {k}", ""] if len(rounds) > 1 else []
        md += [*head, table([r for r in rows if r.get("round", 1) == k]), ""]
        eng = [r for r in engine_rows or [] if r.get("round", 1) == k]
        if eng:
            level = "###" if len(rounds) > 1 else "##"
            md += [f"{level} Engine only (datagen → blackhole, no Kafka)", "", engine_table(eng), ""]
    if srows:
        md += ["## Scaling (AGG)", "", scaling_table(srows), ""]
    md += [f"![{f}]({f})" for f in files]
    p = out_dir / "results.md"
    p.write_text("\n".join(md) + "\n")
    return p
