"""The random queries of :mod:`tests.runtime.query_fuzz` replayed against Flink 2.3's own answers.

``scripts/flink_queryfuzz.py`` ran each seed's query on PyFlink (streaming, bounded filesystem
sources over the generator's files, UTC, one task) and kept its result types and final rows, its
refusal or its job failure in ``query_fuzz_flink.json`` (:mod:`tests.runtime.flink_queries`). Here
the same query runs on StreamSQL (the seed's state backend and batch size) and must give:

- the same result types (:func:`tests.functions.test_conformance.flink_type` of both sides: NOT
  NULL aside, a CHAR(n)/VARCHAR(n) as STRING, TIMESTAMP_LTZ of any precision alike; Flink's
  `` *ROWTIME*`` mark left out), column by column;
- the same rows, a multiset (DOUBLEs within 1e-12 relative, DECIMALs with their scale); the
  final rows of a changelog have no order, so an ``ORDER BY ... LIMIT`` is checked by the rows it
  keeps;
- a refusal where Flink refuses, a failed job where Flink's fails — unless the seed is in
  :data:`ACCEPTED` (we answer what Flink refuses, with the reason it is no wrong answer).

:data:`KNOWN` lists the seeds that differ on purpose, each with its reason.

Campaigns: ``python -m tests.runtime.query_fuzz_flink`` replays every recorded seed (``--seeds
A:B`` some) and prints each difference.
"""

from __future__ import annotations

import argparse
import hashlib
import struct
import sys
import tempfile
import traceback
from pathlib import Path

from streamsql.core.errors import StreamSQLError
from tests.runtime import flink_queries as fq
from tests.runtime.oracle import make_env
from tests.runtime.query_fuzz_typed import make_flink_query
from tests.runtime.query_fuzz_wide import all_files, create_all_tables

#: seed → why StreamSQL answers a query Flink refuses (or whose job fails in Flink).
ACCEPTED: dict[int, str] = {
    200612: "Flink's planner fails with an internal java.lang.IllegalArgumentException (`Type mismatch`, no "
            "SQL position: not a refusal of the query) on COUNT(DISTINCT FLOOR(ts TO SECOND)) of the "
            "rowtime in a TUMBLE aggregate grouped by CUBE (k) (a window CUBE without that DISTINCT is "
            "answered and agrees: seed 200517); not minimised further on Flink",
    **dict.fromkeys((600000, 600105, 600107, 600188, 600322, 600367, 600572), (
        "Flink 2.3's code generator fails on UNNEST(ARRAY[x, x + 1, NULL]) of an INT column (Janino: `No "
        "applicable constructor/method found for actual parameters \"int, java.lang.Object\"` in "
        "BinaryArrayWriter.writeInt: the NULL literal element of an INT array); an internal compile error, "
        "not a refusal of the query: StreamSQL unnests the array, NULL element included")),
    600408: ("Flink 2.3 refuses a join of two SESSION aggregates grouped beyond their PARTITION BY (each a "
             "GroupAggregate over the TVF's rows, an updating result) on window_start / window_end when both "
             "sides have the same window (`StreamPhysicalWindowJoin doesn't support consuming update "
             "changes`): its planner still sees window properties through the GroupAggregate. StreamSQL "
             "joins the two updating results as a regular join, as Flink does when the two gaps differ "
             "(seeds 600121, 600176, 600289, which agree)"),
    **dict.fromkeys((600070, 600300), (
        "Flink 2.3's job fails with an internal java.lang.NullPointerException (DecimalData.toBigDecimal() "
        "of a null) on SUM(IF(g = 'apple', x, d)) of an INT and a DECIMAL(10, 2) over t (d NULL in some "
        "rows): a NULL branch of the DECIMAL IF summed; StreamSQL sums the non-NULL values")),
}
_TWO_PHASE_NAN = (" Cause: Flink's default (AUTO) plan of a mergeable window aggregate has two phases; the "
                  "local partial MIN / MAX of a bundle led by NaN is NaN, which the global merge never "
                  "takes, so the bundle's later values are lost. Where bundles end is timing: no defined "
                  "answer (tests/functions/test_float_extremes.py; ONE_PHASE answers Java's row by row)")
#: seed → why StreamSQL's answer differs from Flink's (refusals of what Flink runs included).
KNOWN: dict[int, str] = {
    100085: "a global aggregate under a WHERE that can never hold (`x IS NULL AND x BETWEEN ...`): Flink's "
            "optimizer folds the filter to an empty VALUES and the aggregate of it to one row of NULLs "
            "(Calcite's AggregateValuesRule), so Flink emits one row; a streaming aggregate that sees no "
            "row emits none (Flink's too, for a filter it does not fold away). Not followed: which "
            "contradictions Calcite's simplifier proves is not a semantics to copy.",
    300172: "ROW_NUMBER() OVER (ORDER BY lx DESC, p) over a LEFT JOIN of an aggregate with a changelog: "
            "the rows of one left key joined with several right rows tie on the whole ORDER BY (same "
            "lx and p, their rx differs), so which of them is rn 1 is their order of arrival at the "
            "Rank (Flink keeps tied rows in arrival order); the join's changes arrive in another order "
            "here. The query has no defined answer: the v4 generator's tie-break is incomplete",
    300197: "as 300172: ROW_NUMBER() OVER (ORDER BY lx DESC, p) over a LEFT JOIN with rows tied on (lx, p); "
            "which tied row (rx -760 here, -414 in Flink) is rn 2 is the arrival order",
    300146: "as 300172: ROW_NUMBER() OVER (ORDER BY a ASC, o) over an aggregate grouped by (p, o): rows of "
            "other p tie on (a, o), so which one is rn 1 is their arrival order at the Rank",
    300297: "as 300172: ROW_NUMBER() OVER (ORDER BY lx DESC, p) over a FULL JOIN with rows tied on (lx, p)",
    300333: "as 300172: ROW_NUMBER() OVER (ORDER BY lx DESC, p) over a LEFT JOIN with rows tied on (lx, p)",
    300351: "as 300172: ROW_NUMBER() OVER (ORDER BY lx DESC, p) over a JOIN with rows tied on (lx, p)",
    400018: "LISTAGG(DISTINCT g) in a TUMBLE window aggregate (with ROLLUP): refused here on purpose; "
            "Flink's two-phase window aggregate merges each local bundle's distinct MapView in its hash "
            "order, and the bundles end when the watermark (emitted on a processing-time interval) passes "
            "a window end, when a buffer fills or at a checkpoint: the order depends on timing (one "
            "window lists a,e,d,c,b, the next e,a,d,c,b). Not reproducible, so not emulated "
            "(plan/ordered_aggs.py reject_window_distinct; LISTAGG(DISTINCT ...) runs in a GROUP BY and "
            "an OVER window, where Flink keeps arrival order)",
    400236: "as 400018: LISTAGG(DISTINCT g) in a CUMULATE window aggregate (CUBE (g)), refused here on "
            "purpose",
    410092: "as 400018: LISTAGG(DISTINCT g) in a SESSION window aggregate, refused here on purpose (a "
            "session merge hands the values of the merged window's distinct MapView over in its hash "
            "order); this seed's windows hold one distinct value each, so Flink's answer does not show "
            "the order",
    400135: "MAP[g, k] with g NULL: Flink builds a map with a NULL key (MAP_ENTRIES lists (null, k)); "
            "StreamSQL's MAP values (Arrow / DuckDB maps) hold no NULL key, so the job fails naming the "
            "MAP[...]'s position instead of a silent drop (tests/functions/test_composite.py)",
    # -- session 35 (queryfuzz35): the v6 generator's edge values
    500001: ("window Top-N (ORDER BY a ASC, p DESC) over MIN(r) of FLOAT groups in a TUMBLE window: "
             "group b = 10's MIN is NaN (MIN row by row keeps a leading NaN), which Flink's comparator "
             "ties with every number, so p decides against whichever rows its TreeMap search meets: "
             "Flink ranks p = 9223372036854775807 (-3.0) third where StreamSQL ranks p = "
             "-9223372036854775808 (-Infinity). Not the two-phase aggregate: Flink answers the same with "
             "ONE_PHASE (query_fuzz_one_phase_flink.json, topnsort36). As 500156: not followed"),
    500067: ("winagg35 area: MAX(f) of a HOP window whose slices hold NaN / Infinity: Flink answers "
             "1.0E308, 2.5, 1.0 where StreamSQL answers Infinity, 1.0E308, 1.0E308 (the slices' merge of "
             "a float MAX over NaN)." + _TWO_PHASE_NAN),
    500028: ("winagg35 area: SUM(f) of a lone -0.0 in a CUMULATE window is -0.0 in Flink, 0.0 here (as "
             "funcs34b's finding); besides, CAST of the subnormal 1.0E-323 AS STRING is Java 17's "
             "'1.0E-323' in Flink (its Double.toString predates the shortest-digits algorithm), "
             "'9.9E-324' here"),
    500084: "winagg35 area: SUM(f) of -0.0 values in a HOP window is -0.0 in Flink, 0.0 here",
    500018: ("no defined answer: SUM of DOUBLE over a UNION ALL of q and the changelog qc, whose "
             "99999999.99 is added and retracted: the rounding left (2.2 in Flink, 2.2000000029802322 "
             "here) depends on how the two sources' rows interleave at the aggregate, which is timing in "
             "Flink"),
    500060: ("Calcite folds WHERE f <> f to FALSE (x <> x of a nullable x: NULL or FALSE; Java's NaN <> "
             "NaN would be TRUE), so Flink plans an empty VALUES and answers no row; StreamSQL refuses "
             "the HOP window's SUM(DISTINCT f), as Flink does when the filter is not folded away (seed "
             "500000). As 100085: which contradictions Calcite's simplifier proves is not a semantics to "
             "copy"),
    500124: ("winagg35 area: MIN(r) of a HOP window over FLOATs with NaN / -0.0 (Flink 0.0 and "
             "3.4028235E38, StreamSQL -3.0)." + _TWO_PHASE_NAN + " Confirmed: with ONE_PHASE Flink "
             "answers as StreamSQL (query_fuzz_one_phase_flink.json, topnsort36)"),
    500127: ("winagg35 area: MIN(f) FILTER (WHERE f <> 0) of a CUMULATE window holding NaN is NaN in "
             "Flink, -1.0E308 here"),
    500184: ("winagg35 area: AVG(f) of a TUMBLE window holding -Infinity and -1.0E308 is "
             "-1.1111111111111111E307 in Flink, -Infinity here"),
    500200: ("winagg35 area: AVG(f) of a lone -0.0 in a SESSION window (PARTITION BY f) is -0.0 in Flink, "
             "0.0 here"),
    500156: ("window Top-N (ROW_NUMBER ORDER BY a ASC, p ASC) over a FLOAT key p holding NaN: Flink ranks "
             "the NaN key first where StreamSQL ranks -Infinity / 0.0 first. Cause (topnsort36): Flink's "
             "generated comparator compares FLOAT/DOUBLE with < and > (GenerateUtils.generateCompare): NaN "
             "ties every number; its window Top-N's TreeMap merges a NaN row into the entry its search "
             "meets first, which follows the rows' arrival order (the window aggregate's emission order "
             "here) and the state's hash order across bundles: tests/runtime/sort_keys_flink.json records "
             "NaN ranked anywhere from 2nd to 6th of 8 over eight arrival orders of the same rows. No order "
             "gives that; StreamSQL ranks NaN after +Infinity. Not followed"),
    500169: ("window Top-N over a FLOAT key p tied on a (ORDER BY a DESC, p ASC): -0.0 ties 0.0 under "
             "Flink's comparator, as here since topnsort36 (sort_keys_flink.json), so which of the two "
             "groups is rn 3 is their arrival order at the Rank: the window aggregate's emission order of "
             "its groups, which differs (Flink's timers fire in their heap's order). As 300172: no "
             "defined answer"),
    500223: ("AVG(k) OVER of INTs whose running sum leaves INT: Flink divides the INT-wrapped SUM by the "
             "count (-306783377 beside SUM(k) -2147483644), StreamSQL averages a BIGINT sum (306783378); "
             "Calcite reduces AVG OVER to SUM / COUNT in the argument's type: not followed yet"),
    500305: ("winagg35 area: MAX(f) of a CUMULATE window over NaN / Infinity (Flink -Infinity and 2.5, "
             "StreamSQL 1.0 and 1.0E308)"),
    500113: ("a CUMULATE window's SUM of DECIMAL(38, 18) past 38 digits: Flink's sum is NULL, then starts "
             "again from the next value; StreamSQL's slicing window sums each batch's rows of a slice in "
             "DuckDB, so the job fails naming the call (tests/functions/test_decimal_sum_overflow.py)"),
    500047: ("as 500156: a window Top-N ORDER BY a DESC over SUM(DISTINCT f) values holding NaN: Flink "
             "ranks NaN where its TreeMap merged it, StreamSQL first (NaN after +Infinity, DESC)"),
    500116: ("as 500156: a window Top-N ORDER BY r DESC, id over FLOATs holding NaN: Flink ranks "
             "3.4028235E38 / Infinity first (the NaN rows merged into other entries of its TreeMap), "
             "StreamSQL NaN (after +Infinity, DESC: first)"),
    # -- session 36 (queryfuzz36): the v7 generator's shapes
    **dict.fromkeys((600127, 600203, 600445, 600491, 600557, 600577), (
        "as 400135: UNNEST(MAP[g, x]) with g NULL: Flink's map keeps the NULL key (a row (null, x)); "
        "StreamSQL's maps cannot hold one, so the job fails naming the MAP[...]")),
    600164: ("no defined answer: SUM of a DECIMAL(38, 18) CASE past 38 digits under mini-batch "
             "('table.exec.mini-batch.size' 50, distinct-agg split): Flink's sum is NULL past the precision "
             "and starts again from the next value, per local bundle of its two-phase plan, so where it "
             "starts again depends on where the bundles end (size and a 1 s latency timer); StreamSQL's "
             "one-phase sum starts again at its own place"),
    600227: ("Flink's UpdateFastStrategy Top-1 (EXPLAIN: Rank(strategy=[UpdateFastStrategy[0]]), chosen as "
             "MAX(x) FILTER is monotone and ORDER BY a DESC) emits nothing when the top row changes in a "
             "column outside the sort key: its last row is [3, 995, 27, 1] while its input's final row for p "
             "3 is [3, 995, 34] (Flink's GroupAggregate emits counts 28..34); StreamSQL's Top-N follows "
             "every update ([3, 995, 34, 1]). Not emulated yet: which plans Flink gives the update-fast "
             "strategy (its monotonicity analysis) is not reproduced here"),
    200331: "TIMESTAMPADD(HOUR, -25, dt) of DATE '0001-01-02' is 0000-12-31 23:00: Flink answers it; "
            "StreamSQL computes it too but its Python collect cannot hand over a year outside 1..9999 "
            "(Python's datetime), so the collect fails with that reason (a sink or CAST to STRING gets it)",
}


#: The v7 shapes whose recorded changelog (``log``) is checked (:func:`flink_queries.unseen_states`): a
#: GROUP BY (or a projection) over one input read in Flink's order; Top-N and joins reorder.
LOG_SHAPES = {"char_keys", "case_mixed", "lateral"}


def flink_type(text: str) -> str:
    """Flink's type text as StreamSQL spells it (:func:`tests.functions.test_conformance.flink_type`)."""
    from tests.functions.test_conformance import flink_type as spelled

    return spelled(text)


def check_data(doc: dict, files: dict[str, Path]) -> None:
    """The generator's files are the ones Flink read (else the fixture must be recorded again)."""
    ours = {k: hashlib.sha256(p.read_bytes()).hexdigest() for k, p in files.items()}
    assert {k: ours.get(k) for k in doc["data"]} == doc["data"], (
        "the generator's tables changed since Flink answered: record the fixture "
        "again (scripts/flink_queryfuzz.py --redo)")


def as_flink(value, t):
    """StreamSQL's collected ``value`` of SqlType ``t`` as PyFlink hands Flink's over, for :func:`fq.cell`:
    a ROW (a dict here) as its field values in order (a PyFlink ``Row``), a MAP (pairs here) as a dict,
    inside ARRAYs, MAPs and ROWs too."""
    if value is None or t is None:
        return value
    if t.name == "ROW" and isinstance(value, dict):
        return [as_flink(value[n], ft) for n, ft in t.fields]
    if t.name == "MAP":
        pairs = value.items() if isinstance(value, dict) else value
        return {as_flink(k, t.children[0]): as_flink(v, t.children[1]) for k, v in pairs}
    if t.name in ("ARRAY", "MULTISET") and isinstance(value, (list, tuple)):
        return [as_flink(v, t.children[0]) for v in value]
    return value


def run_ours(case: dict, files: dict[str, Path], work: Path) -> dict:
    """StreamSQL's answer to ``case``'s query: ``{"types", "rows"}``, ``{"refused"}`` or ``{"error"}``."""
    q = make_flink_query(case["seed"])
    assert q.flink == case["query"], f"seed {case['seed']}: the generator's query changed since Flink ran it"
    env = make_env(work, q.backend, q.batch_size, {"table.local-time-zone": "UTC", **q.config})
    try:
        create_all_tables(env, files)
        try:
            res = env.execute_sql(fq.text_query(q.flink, case["columns"], case["text"]) if "text" in case
                                  else q.flink)
        except StreamSQLError as e:
            return {"refused": str(e)}
        types = [str(t) for t in res.column_types]
        try:
            changes = [(kind.short, [fq.cell(as_flink(v, t)) for v, t in zip(row, res.column_types)])
                       for kind, row in res.collect(timeout=120)]
        except StreamSQLError as e:
            return {"types": types, "error": str(e)}
        assert res.job.status == "FINISHED", f"seed {case['seed']}: no row for 120 s, the job was cancelled"
        return {"types": types, "rows": fq.fold(changes), "log": changes}
    finally:
        env.close()


def _match(ours: list[list], theirs: list[list]) -> tuple[list, list]:
    """The rows of each side without a partner on the other (exact text first, then
    :func:`flink_queries.same_cell`)."""
    left = {}
    for r in theirs:
        left.setdefault(fq.row_key(r), []).append(r)
    extra = []
    for r in ours:
        bucket = left.get(fq.row_key(r))
        if bucket:
            bucket.pop()
        else:
            extra.append(r)
    missing = [r for b in left.values() for r in b]
    for r in list(extra):
        hit = next((m for m in missing if fq.same_cell(r, m)), None)
        if hit is not None:
            missing.remove(hit)
            extra.remove(r)
    return extra, missing


def _as_float32(rows: list[list], columns: list[int]) -> list[list]:
    """``rows`` with the cells of FLOAT ``columns`` rounded to a float: PyFlink's collect hands a FLOAT
    over as the double of its shortest text (227.918), StreamSQL as the float's exact value
    (227.91799926757812); both are the same FLOAT."""
    if not columns:
        return rows
    out = []
    for r in rows:
        r = list(r)
        for i in columns:
            if isinstance(r[i], dict) and "f" in r[i]:
                r[i] = {"f": repr(struct.unpack("f", struct.pack("f", float(r[i]["f"])))[0])}
        out.append(r)
    return out


def differences(case: dict, ours: dict) -> list[str]:
    """How StreamSQL's answer differs from Flink's recorded ``case`` (empty: the same)."""
    if "refused" in case or "error" in case:
        what = "refused it" if "refused" in case else "failed the job"
        if "rows" in ours:
            return [f"Flink {what} ({case.get('refused') or case.get('error')}); StreamSQL answered "
                    f"{len(ours['rows'])} rows"]
        return []
    if "rows" not in ours:
        return [f"StreamSQL {'refused' if 'refused' in ours else 'failed'}: "
                f"{(ours.get('refused') or ours.get('error'))[:600]}"]
    out = []
    # a query's column types here do not carry the time attribute (DESCRIBE of a table does)
    want = [flink_type(t.replace(" *ROWTIME*", "")) for t in case["types"]]
    for i in case.get("text", []):  # compared as the text of Flink's CAST (fq.text_query)
        want[i] = "STRING"
    # both sides spelled alike: StreamSQL's query types carry a VARCHAR(n) or TIMESTAMP_LTZ(3) where
    # they can, flink_type writes what the expression plans do not always carry (the values tell)
    got = [flink_type(t) for t in ours["types"]]
    if got != want:
        out.append(f"types: StreamSQL {got}, Flink {want}")
    if case.get("log") and ours.get("log") and case["shape"] in LOG_SHAPES and not case.get("config"):
        unseen = fq.unseen_states(ours["log"], case["log"])
        if unseen:
            out.append(f"changelog: {len(unseen)} rows inserted here that Flink's changelog never inserts: "
                       f"{unseen[:6]}")
    floats = [i for i, t in enumerate(case["types"]) if t.split(" ")[0] == "FLOAT"]
    extra, missing = _match(_as_float32(ours["rows"], floats), _as_float32(case["rows"], floats))
    if extra or missing:
        out.append(f"{len(ours['rows'])} rows here, {len(case['rows'])} in Flink; only here "
                   f"({len(extra)}): {extra[:6]}; only in Flink ({len(missing)}): {missing[:6]}")
    return out


def check_case(case: dict, files: dict[str, Path], work: Path) -> None:
    """AssertionError naming the seed, its query and the differences, when there are any."""
    diffs = differences(case, run_ours(case, files, work))
    if diffs:
        msg = f"seed {case['seed']} ({case['shape']}): {case['query']}\n  " + "\n  ".join(diffs)
        raise AssertionError(msg)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", help="A:B, the recorded seeds A..B-1 only")
    ap.add_argument("--fixture", type=Path, default=fq.FIXTURE)
    ap.add_argument("-v", "--verbose", action="store_true")
    a = ap.parse_args(argv)
    doc = fq.load(a.fixture)
    cases = [c for c in doc["cases"] if "skipped" not in c]
    if a.seeds:
        lo, hi = map(int, a.seeds.split(":"))
        cases = [c for c in cases if lo <= c["seed"] < hi]
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        files = all_files(Path(tmp))
        check_data(doc, files)
        for case in cases:
            with tempfile.TemporaryDirectory() as work:
                try:
                    check_case(case, files, Path(work))
                    if a.verbose:
                        print(f"ok seed {case['seed']} {case['shape']}", flush=True)
                except AssertionError as e:
                    failed += 1
                    known = KNOWN.get(case["seed"]) or ACCEPTED.get(case["seed"])
                    print(f"{'KNOWN' if known else 'FAIL'} {str(e)[:3000]}\n", flush=True)
                except Exception:  # noqa: BLE001  (a crash is a finding too)
                    failed += 1
                    tb = traceback.format_exc(limit=4)[-2000:]
                    print(f"ERROR seed {case['seed']}: {case['query']}\n{tb}\n", flush=True)
    print(f"{failed} of {len(cases)} seeds differ")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
