"""The differential fuzzer's replay: StreamSQL must print what Apache Flink 2.3 printed.

Every case of ``difffuzz_expected.json`` (written by ``scripts/flink_difffuzz.py`` from the
expressions of ``tests/functions/difffuzz.py``) runs here through real StreamSQL jobs over the same
input table: the cases Flink answered as the columns of a few print-sink jobs (a job that fails is
split until the failing cases run alone), each printed cell compared with Flink's as text. A case
Flink refused must be refused here (at planning, or by failing the job), one whose job failed in
Flink must fail here. ``STREAMSQL_DIFFFUZZ=FILE`` replays another campaign's document instead and
prints the tally of differences (``-s`` to see it).

``difffuzz_known.json`` lists the differences not fixed yet (a strict xfail each: a fixed one must
leave the list).

The default suite replays the regression cases (``difffuzz_regressions.txt``: each difference found
and fixed, minimised) and the known differences; the rest of the fixture, the campaigns' random
sample, is marked ``slow`` (``python -m pytest -m slow tests/functions/test_difffuzz.py``; both:
``-m "slow or not slow"``). The replay runs only the selected cases.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
from collections import Counter
from pathlib import Path

import pytest

from streamsql import StreamEnvironment
from streamsql.core.errors import StreamSQLError
from tests.functions import difffuzz as fz

FIXTURE = Path(os.environ.get("STREAMSQL_DIFFFUZZ") or Path(__file__).parent / "difffuzz_expected.json")
DOC = fz.load(FIXTURE)
CASES = DOC["cases"]
RUN_GROUP = 60
# Seconds one replay job may take (a group of 60 expressions over 10 rows: about a second when the
# machine is idle; the whole replay once took 1,727 s of setup on the shared machine under load).
# A job that has not finished by then is a failure of the replay itself, reported once for its
# batch (see :class:`BatchFailed`), never read as empty answers.
JOB_TIMEOUT = float(os.environ.get("STREAMSQL_DIFFFUZZ_TIMEOUT", "900"))

# Flink's own faults (its code generator or compiler failing on a valid expression): nothing to
# compare with.
FLINK_FAULT = re.compile(r"CodeGenException|CompileException|NullPointerException|ClassCastException|"
                         r"Unsupported call")

# Differences found and not fixed yet, case → why (each fails without its entry; a fixed one must
# leave). Only for the committed fixture; STREAMSQL_DIFFFUZZ_KNOWN=write rewrites the file with the
# current differences (a new entry reads "not fixed yet: <the difference's category>").
KNOWN_FILE = Path(__file__).parent / "difffuzz_known.json"
KNOWN: dict[str, str] = {} if "STREAMSQL_DIFFFUZZ" in os.environ else json.loads(KNOWN_FILE.read_text())

# The regression expressions kept after their fix (tests/functions/difffuzz_regressions.txt).
REGRESSIONS = Path(__file__).parent / "difffuzz_regressions.txt"
REGRESSION_KEYS = set(REGRESSIONS.read_text(encoding="utf-8").splitlines())


def _in_default_suite(case: dict) -> bool:
    """A regression case or a known difference of the committed fixture (a campaign's document: all)."""
    return ("STREAMSQL_DIFFFUZZ" in os.environ or _key(case) in KNOWN
            or fz.case_key(case, "AGG ") in REGRESSION_KEYS)


class BatchFailed(Exception):  # noqa: N818  (an outcome, not an error of the code under test)
    """The replay could not get a batch's answers (its job did not finish in time, or printed rows
    that do not parse): nothing is known about its cases, so none of them may be compared."""


def _load() -> str:
    """The machine's load averages (1, 5, 15 min), for a timeout's message."""
    return "load average " + ", ".join(f"{x:.1f}" for x in os.getloadavg())


def _key(case: dict) -> str:
    return fz.case_key(case, "aggregate: ")


class Ours:
    """StreamSQL's outcome of every case: ("rows", {key: text}) | ("refused", msg) | ("error", msg)."""

    def __init__(self, tmp: Path, zone: str | None = None):
        """An environment over the input table (``DOC['data']``) in ``tmp``, in the session time zone
        ``zone`` (a case's ``"zone"``; UTC when None)."""
        data = tmp / "src.json"
        data.write_text(DOC["data"], encoding="utf-8")
        config = {"state.dir": str(tmp / "state"), "execution.checkpointing.dir": str(tmp / "cp"),
                  "table.local-time-zone": zone or "UTC", "parallelism.default": "1"}
        self.env = StreamEnvironment(config)
        self.env.execute_sql(fz.source_ddl(str(data)))
        self.sinks = 0
        self.out: dict[str, tuple] = {}

    def _statements(self, cases: list[dict]) -> list[str]:
        self.sinks += 1
        group_by = fz.AGG_KEY if cases[0].get("aggregate") else None
        return fz.insert_script(f"sink{self.sinks}", [c["expr"] for c in cases], [c["type"] for c in cases],
                                group_by or "id", group_by)

    def plan(self, cases: list[dict], typed: bool = True) -> None:
        """Record ("refused", msg) for the cases our planner refuses (groups halved on failure).

        ``typed``: the print job's INSERT into a sink of Flink's types is planned; else (cases
        Flink refused, which have no type) ``SELECT`` of the expressions.
        """
        try:
            if typed:
                ddl, insert = self._statements(cases)
                self.env.execute_sql(ddl)
            else:
                group_by = fz.AGG_KEY if cases[0].get("aggregate") else None
                items = ", ".join(f"{c['expr']} AS c{n}" for n, c in enumerate(cases))
                insert = (f"SELECT {group_by or 'id'}, {items} FROM {fz.TABLE_NAME}"
                          + (f" GROUP BY {group_by}" if group_by else ""))
            self.env.execute_sql("EXPLAIN " + insert)
        except Exception as e:  # noqa: BLE001  (anything but a StreamSQLError is a crash: recorded)
            if len(cases) == 1:
                crash = not isinstance(e, StreamSQLError)
                self.out[_key(cases[0])] = ("crash" if crash else "refused", f"{type(e).__name__}: {e}")
                return
            mid = len(cases) // 2
            self.plan(cases[:mid], typed)
            self.plan(cases[mid:], typed)

    def query(self, case: dict) -> tuple:
        """Our outcome of a case Flink refused: ("refused", msg) at planning, ("error", msg) from the
        job, else ("answered", the rows' values)."""
        agg = case.get("aggregate")
        sql = f"SELECT {fz.AGG_KEY if agg else 'id'}, {case['expr']} FROM {fz.TABLE_NAME}"
        try:
            result = self.env.execute_sql(sql + (f" GROUP BY {fz.AGG_KEY}" if agg else ""))
        except StreamSQLError as e:
            return ("refused", str(e))
        except Exception as e:  # noqa: BLE001  (a crash is recorded as such)
            return ("crash", f"{type(e).__name__}: {e}")
        try:
            rows = [row for _, row in result.collect(timeout=JOB_TIMEOUT)]
        except StreamSQLError as e:
            return ("error", str(e))
        if result.job.status != "FINISHED":  # collect gave up waiting (and cancelled the job)
            return ("batch failed", f"the replay query gave no row for {JOB_TIMEOUT:.0f} s and was "
                    f"cancelled (STREAMSQL_DIFFFUZZ_TIMEOUT; {_load()})", _key(case))
        return ("answered", rows)

    def run(self, cases: list[dict], planned: bool = False) -> None:
        """Record ("rows", ...) or ("error", msg) for ``cases`` (one job; split in four on failure).

        Unless ``planned`` (the planner accepted these cases already), a group our planner refuses
        goes through :meth:`plan` first (each case refused there is recorded so) and the others run:
        a case is planned once when its group plans, not once by EXPLAIN and again by its job.
        A job that does not finish in :data:`JOB_TIMEOUT` seconds, or whose printed rows do not
        parse, records ("batch failed", cause, first case) for every case of ``cases``: the replay
        failed, not StreamSQL's answer (see :func:`test_case`).
        """
        ddl, insert = self._statements(cases)
        buf = io.StringIO()
        try:
            with contextlib.redirect_stdout(buf):
                try:
                    self.env.execute_sql(ddl)
                    result = self.env.execute_sql(insert)
                except Exception:
                    if planned:
                        raise
                    result = None
                status = result.wait(JOB_TIMEOUT) if result is not None else None
                if result is not None and status != "FINISHED":
                    result.job.cancel()
                    msg = (f"the replay job of {len(cases)} cases ended {status} after {JOB_TIMEOUT:.0f} s "
                           f"(STREAMSQL_DIFFFUZZ_TIMEOUT; {_load()}); its output was {len(buf.getvalue())} "
                           "characters")
                    raise BatchFailed(msg)
            if result is None:  # refused by the planner: which cases (EXPLAIN, halving), then the rest
                self.plan(cases)
                rest = [c for c in cases if _key(c) not in self.out]
                if rest:
                    self.run(rest, planned=True)
                return
            try:
                table = fz.parse_lines(buf.getvalue().splitlines(), len(cases))
            except ValueError as e:
                msg = f"the replay job's output does not parse: {e}"
                raise BatchFailed(msg) from e
        except BatchFailed as e:
            for c in cases:
                self.out[_key(c)] = ("batch failed", str(e), _key(cases[0]))
            return
        except Exception as e:  # noqa: BLE001  (a job's failure is an answer; anything else a crash)
            if len(cases) == 1:
                crash = not isinstance(e, StreamSQLError) or "Internal error" in str(e)
                outcome = ("crash", f"{type(e).__name__}: {e}") if crash else ("error", str(e))
                self.out[_key(cases[0])] = outcome
                return
            step = -(-len(cases) // 4)
            for n in range(0, len(cases), step):
                self.run(cases[n:n + step], planned=True)
            return
        for n, c in enumerate(cases):
            self.out[_key(c)] = ("rows", {k: (None if v[n] == "null" else v[n])
                                          for k, v in sorted(table.items(), key=lambda kv: int(kv[0]))})


def replay(run: list[dict], tmp_path_factory, group: int = RUN_GROUP,
           batched: bool = False) -> dict[str, tuple]:
    """StreamSQL's outcome (see :class:`Ours`) of each case of ``run``, by :func:`_key`.

    Flink's answered cases run ``group`` to a job, a case whose job failed in Flink a job of its own
    (expected to fail), one Flink refused a query of its own, unless ``batched`` (a whole campaign's
    replay in the default suite): then the refused ones are planned ``group`` at a time, halving a
    group our planner refuses, and only the cases our planner takes run a query each.
    """
    out: dict[str, tuple] = {}
    for zone in dict.fromkeys(c.get("zone") for c in run):  # an environment per session time zone
        o = Ours(tmp_path_factory.mktemp("difffuzz"), zone)
        cases = [c for c in run if c.get("zone") == zone]
        try:
            typed = [c for c in cases if "type" in c]
            for part in _each([c for c in typed if "rows" in c], group):
                o.run(part)
            for c in typed:  # Flink's job failed: a job each (expected to fail here too)
                if _key(c) not in o.out:
                    o.run([c])
            refused = [c for c in cases if "refused" in c]
            if batched:
                for part in _each(refused, group):
                    o.plan(part, typed=False)
            for c in refused:
                if _key(c) not in o.out:
                    o.out[_key(c)] = o.query(c)
        finally:
            o.env.close()
        out.update(o.out)
    return out


#: A call of the variance family: Flink 2.3 rewrites every SUM / AVG of an aggregate that holds one
#: (streamsql/plan/agg_reduce.py; an AVG of TINYINTs then divides a TINYINT sum), so such calls are
#: replayed apart from the others, whose recorded answers came from jobs without them.
_VARIANCE = re.compile(r"\b(STDDEV(_POP|_SAMP)?|VARIANCE|VAR_(POP|SAMP))\s*\(", re.IGNORECASE)


def _each(cases: list[dict], size: int):
    """``cases`` in groups of at most ``size``: scalar cases, aggregate cases and those with a variance
    call apart (see :data:`_VARIANCE`)."""
    for kind in ("scalar", "aggregate", "variance"):
        part = [c for c in cases if _kind(c) == kind]
        for n in range(0, len(part), size):
            yield part[n:n + size]


def _kind(case: dict) -> str:
    if not case.get("aggregate"):
        return "scalar"
    return "variance" if _VARIANCE.search(case["expr"]) else "aggregate"


@pytest.fixture(scope="module")
def ours(request, tmp_path_factory) -> dict[str, tuple]:
    """StreamSQL's outcome of every selected case (of all cases for a campaign's tally or to rewrite
    the known list; see :class:`Ours`)."""
    assert DOC["data"] == fz.data_lines(), "the input table changed: regenerate the fixture (--fixture)"
    selected = {_key(item.callspec.params["case"]) for item in request.session.items
                if getattr(item, "originalname", None) == "test_case" and item.module.__name__ == __name__}
    every = "STREAMSQL_DIFFFUZZ" in os.environ or os.environ.get("STREAMSQL_DIFFFUZZ_KNOWN") == "write"
    run = CASES if every else [c for c in CASES if _key(c) in selected]
    out = replay(run, tmp_path_factory)
    if "STREAMSQL_DIFFFUZZ" in os.environ:
        _report(out)
    if os.environ.get("STREAMSQL_DIFFFUZZ_KNOWN") == "write":
        failed = [v for v in out.values() if v[0] == "batch failed"]
        assert not failed, (f"not rewriting {KNOWN_FILE.name}: {len(failed)} cases were not compared "
                            f"({failed[0][1]})")
        found = {_key(c): verdict(c, out[_key(c)]) for c in CASES if "skipped" not in c}
        known = {k: KNOWN.get(k) or f"not fixed yet: {v.split(':')[0]}" for k, v in found.items() if v}
        KNOWN_FILE.write_text(json.dumps(known, indent=1, ensure_ascii=False) + "\n")
    return out


def verdict(case: dict, got: tuple) -> str | None:
    """None when StreamSQL's outcome ``got`` agrees with Flink's ``case``, else the difference's
    category and a description."""
    kind, value = got[:2]
    if kind == "batch failed":
        return f"batch failed (not compared): {value}"
    if "refused" in case or "error" in case:
        flink = case.get("refused") or case["error"]
        if kind == "crash":
            return f"crashes: {value[:300]}"
        if kind in ("refused", "error") or FLINK_FAULT.search(flink):
            return None
        return f"answers what Flink refuses: Flink: {flink[:200]}; StreamSQL: {value}"
    if kind == "crash":
        return f"crashes: {value[:300]}"
    if kind != "rows":
        return f"refuses what Flink answers ({kind}): {value[:300]}"
    diffs = [f"id {k}: Flink {v!r}, StreamSQL {value.get(k, '<no row>')!r}" for k, v in case["rows"].items()
             if value.get(k, "<no row>") != v]
    extra = [f"id {k}: StreamSQL's extra row {v!r}" for k, v in value.items() if k not in case["rows"]]
    return "wrong answer: " + "; ".join(diffs + extra) if diffs or extra else None


def _report(out: dict[str, tuple]) -> None:
    """Print every difference and the tally by category (a campaign run, ``-s``)."""
    tally = Counter()
    for c in CASES:
        tally["cases"] += 1
        if "skipped" in c:
            tally["no answer of Flink's"] += 1
            continue
        v = verdict(c, out[_key(c)])
        flink = "flink refused" if "refused" in c else "flink failed" if "error" in c else "flink answered"
        tally[flink] += 1
        if v:
            tally[v.split(":")[0]] += 1
            print(f"\n[difffuzz] {_key(c)}\n    {v}")
    print(f"\n[difffuzz] {dict(tally)}")


@pytest.mark.parametrize("case", [pytest.param(c, id=_key(c)[:120], marks=() if _in_default_suite(c) else
                                               pytest.mark.slow) for c in CASES])
def test_case(ours, case):
    check(case, ours[_key(case)], KNOWN)


def check(case: dict, got: tuple, known: dict[str, str]) -> None:
    """Fail (or xfail, for a case of ``known``) unless StreamSQL's outcome ``got`` agrees with Flink's
    record ``case``; skip a case without Flink's answer or whose replay batch failed elsewhere."""
    if "skipped" in case:  # the Flink driver could not get Flink's answer (its worker died on it)
        pytest.skip(f"no answer of Flink's: {case['skipped']}")
    if got[0] == "batch failed":  # the replay failed: one failure per batch, with its cause
        _, cause, first = got
        if first == _key(case):
            pytest.fail(f"the replay of this case's batch failed, its cases are not compared: {cause}",
                        pytrace=False)
        pytest.skip(f"not compared: the replay of its batch failed (reported by the case {first[:80]!r})")
    why = verdict(case, got)
    if _key(case) in known:
        assert why, f"fixed: remove it from the known list ({known[_key(case)]})"
        pytest.xfail(f"{known[_key(case)]}: {why}")
    assert why is None, why


def test_a_batch_out_of_time_fails_once(tmp_path, monkeypatch):
    """A replay job that does not finish in time is one failure of its batch, with the cause and the
    load; its cases are not compared (they read '<no row>' each: 57 misleading failures once)."""
    monkeypatch.setitem(globals(), "JOB_TIMEOUT", 0.0)
    o = Ours(tmp_path)
    cases = [c for c in CASES if "rows" in c and not c.get("aggregate")][:5]
    try:
        o.run(cases)
    finally:
        o.env.close()
    outcomes = {o.out[_key(c)] for c in cases}
    assert len(outcomes) == 1, outcomes
    kind, cause, first = outcomes.pop()
    assert (kind, first) == ("batch failed", _key(cases[0]))
    assert cause.startswith("the replay job of 5 cases ended RUNNING after 0 s (STREAMSQL_DIFFFUZZ_TIMEOUT; "
                            "load average "), cause


# The regression cases' result types: the replay above prints through a sink of Flink's column type,
# which hides a type of StreamSQL's own (a DOUBLE where Flink has a FLOAT prints as a FLOAT there, and
# differently in a SELECT); the regression cases are planned here and their types compared.
TYPED = [c for c in CASES if "type" in c and "rows" in c and not c.get("aggregate")
         and fz.case_key(c, "AGG ") in REGRESSION_KEYS]


@pytest.fixture(scope="module")
def our_types(tmp_path_factory) -> dict[str, str]:
    """expression → StreamSQL's result type of each of :data:`TYPED` (or the planner's refusal), as
    DESCRIBE shows a view of them; the known differences are left out (their test skips)."""
    from streamsql.plan import describe as describing
    from streamsql.plan.planner import Planner
    from streamsql.sql.parser import parse_statement

    tmp = tmp_path_factory.mktemp("difffuzz_types")
    (tmp / "src.json").write_text(DOC["data"], encoding="utf-8")
    env = StreamEnvironment({"state.dir": str(tmp / "state"), "table.local-time-zone": "UTC"})
    out = {}

    def describe(exprs: list[str]) -> None:
        """The types of ``exprs`` as the columns of one query, planned once as DESCRIBE of a view
        of it plans it (halved while the planner refuses it: a refusal is recorded for the
        expression alone)."""
        try:
            items = ", ".join(f"{e} AS c{i}" for i, e in enumerate(exprs))
            sql = f"SELECT {items} FROM {fz.TABLE_NAME}"
            node = Planner(env.catalog, env.config, sql).plan_query(parse_statement(sql))
            rows = describing.view_rows(node)
            out.update({e: row[1] for e, row in zip(exprs, rows, strict=True)})
        except StreamSQLError as e:
            if len(exprs) == 1:
                out[exprs[0]] = f"refused: {e}"
                return
            describe(exprs[:len(exprs) // 2])
            describe(exprs[len(exprs) // 2:])

    try:
        env.execute_sql(fz.source_ddl(str(tmp / "src.json")))
        describe(list(dict.fromkeys(c["expr"] for c in TYPED if _key(c) not in KNOWN)))
    finally:
        env.close()
    return out


@pytest.mark.parametrize("case", TYPED, ids=[c["expr"][:120] for c in TYPED])
def test_regression_type(our_types, case):
    """A regression case's result type is Flink's (NOT NULL aside; CHAR(n) may be STRING)."""
    from tests.functions.test_conformance import flink_type

    if _key(case) in KNOWN:  # its value differs already (a strict xfail of test_case)
        pytest.skip(f"a known difference: {KNOWN[_key(case)][:120]}")
    want = case["type"]
    assert our_types[case["expr"]] in (want.replace(" NOT NULL", ""), flink_type(want)), want
