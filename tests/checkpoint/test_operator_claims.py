"""claim_state (streamsql/checkpoint/operators.py): the new plan claims a checkpoint's operator state
as Flink maps a savepoint's state onto a new job graph, by id, here also by signature."""

from __future__ import annotations

import logging

import pytest

from streamsql.checkpoint.operators import StateMappingError, claim_state, ignore_unclaimed
from streamsql.core.errors import ConfigError


def _sig(kind="group-agg", inputs=("src.a INT",), aggs="count_star", droppable=False,
         explain="GroupAggregate"):
    return {"operator": kind, "explain": explain, "layout": 1, "parameters": {"aggs": aggs},
            "input": [list(inputs)], "output": ["INT", "BIGINT NOT NULL"], "droppable": droppable}


def _claim(recorded, current, ignore=False):
    return claim_state(recorded, current, location="/cp/job/chk-4", job="job", ignore=ignore)


def test_the_same_signatures_restore_everything():
    sigs = {"group-agg-2": _sig(), "scan-0": _sig("scan")}
    assert _claim(sigs, {**sigs, "explain-only": _sig()}) == []


def test_an_operator_new_in_the_plan_starts_empty():
    assert _claim({"scan-0": _sig("scan")}, {"scan-0": _sig("scan"), "group-agg-2": _sig()}) == []


def test_another_signature_at_the_same_id_is_refused_naming_the_operator_and_the_difference():
    with pytest.raises(StateMappingError) as err:
        _claim({"group-agg-2": _sig(explain="GroupAggregate(groupBy=[a])")},
               {"group-agg-2": _sig(inputs=("src.b INT",), explain="GroupAggregate(groupBy=[b])")})
    text = str(err.value)
    assert text.startswith("Job 'job': failed to rollback to checkpoint/savepoint /cp/job/chk-4. "
                           "Cannot map checkpoint/savepoint state for operator group-agg-2 "
                           "(GroupAggregate(groupBy=[a]))")
    assert "operator group-agg-2 of the new program (GroupAggregate(groupBy=[b]))" in text
    assert "input column 0: src.a INT -> src.b INT" in text
    assert "'execution.state-recovery.ignore-unclaimed-state' = 'true'" in text


def test_every_unclaimed_operator_is_named_at_once():
    with pytest.raises(StateMappingError) as err:
        _claim({"group-agg-2": _sig(), "join-5": _sig("join")}, {"group-agg-2": _sig(aggs="sum")})
    text = str(err.value)
    assert "state parameters aggs count_star -> sum" in text
    assert ("operator join-5 (GroupAggregate) to the new program, because the operator is not available"
            in text)


def test_ignore_unclaimed_state_drops_it(caplog):
    with caplog.at_level(logging.WARNING):
        drop = _claim({"group-agg-2": _sig(), "join-5": _sig("join")}, {"group-agg-2": _sig(aggs="sum")},
                      ignore=True)
    assert drop == ["group-agg-2", "join-5"]
    assert "its state is dropped" in caplog.text


def test_state_flink_does_not_keep_is_dropped_not_refused():
    assert _claim({"watermark-1": _sig("watermark", droppable=True)}, {}) == ["watermark-1"]


def test_a_checkpoint_without_signatures_is_restored_unchecked_with_a_warning(caplog):
    with caplog.at_level(logging.WARNING):
        assert _claim(None, {"group-agg-2": _sig()}) == []
    assert "not checked" in caplog.text


@pytest.mark.parametrize("settings, expected", [
    ({}, False),
    ({"execution.state-recovery.ignore-unclaimed-state": "TRUE"}, True),
    ({"execution.savepoint.ignore-unclaimed-state": "true"}, True),  # Flink's name before 2.0
    ({"execution.state-recovery.ignore-unclaimed-state": "false",
      "execution.savepoint.ignore-unclaimed-state": "true"}, False),
])
def test_the_option_and_its_old_name(settings, expected):
    assert ignore_unclaimed(settings) is expected


def test_a_bad_option_value_is_refused_naming_the_key():
    with pytest.raises(ConfigError, match="ignore-unclaimed-state"):
        ignore_unclaimed({"execution.state-recovery.ignore-unclaimed-state": "yes please"})


def _fed(sinks, job_sinks, **kw):
    return {**_sig(**kw), "sinks": list(sinks), "job_sinks": list(job_sinks)}


@pytest.mark.parametrize(("old", "new", "claimed"), [
    # the same INSERT's operator, the statement set grown or shrunk around it
    (_fed(["agg"], ["agg"]), _fed(["agg"], ["agg", "agg2"]), True),
    (_fed(["agg", "agg2"], ["agg", "agg2"]), _fed(["agg2"], ["agg2"]), True),
    # an INSERT added before it, or the one before it removed: another INSERT's operator at its id
    (_fed(["agg"], ["agg"]), _fed(["agg2"], ["agg", "agg2"]), False),
    (_fed(["agg"], ["agg", "agg2"]), _fed(["agg2"], ["agg2"]), False),
    # a lone INSERT whose sink table changed keeps its state, as before sinks were recorded
    (_fed(["agg"], ["agg"]), _fed(["other"], ["other"]), True),
    # recorded before sinks were: not checked for this
    (_sig(), _fed(["agg2"], ["agg", "agg2"]), True),
])
def test_an_operator_that_now_feeds_another_inserts_sink_is_refused(old, new, claimed):
    if claimed:
        assert _claim({"group-agg-2": old}, {"group-agg-2": new}) == []
        return
    with pytest.raises(StateMappingError, match="it feeds 'agg2', not 'agg': another INSERT's operator"):
        _claim({"group-agg-2": old}, {"group-agg-2": new})
    assert _claim({"group-agg-2": old}, {"group-agg-2": new}, ignore=True) == ["group-agg-2"]


def _passing(where, *twins):
    """A GROUP BY's signature whose input rows passed ``where`` ([] : none); ``twins``: its twins' filters."""
    rows = [[where]] if where else [[]]
    return {**_fed(["s"], ["s"]), "rows": rows, "filters": rows,
            "twins": [[[t]] if t else [[]] for t in twins]}


@pytest.mark.parametrize(("old", "new", "claimed"), [
    # two INSERTs into one table that differ in their WHERE only, swapped: each has its twin's id
    (_passing("src.v > 0", "src.v <= 0"), _passing("src.v <= 0", "src.v > 0"), False),
    # the first of the two removed: the second now has the first one's id
    (_passing("src.v > 0", "src.v <= 0"), _passing("src.v <= 0"), False),
    # a twin added before it: that twin now has its id
    (_passing("src.v > 0"), _passing("src.v <= 0", "src.v > 0"), False),
    # an edited WHERE (its rows are no other operator's): still its state, as Flink restores it
    (_passing("src.v > 0", "src.v <= 0"), _passing("src.v > 10", "src.v <= 0"), True),
    (_passing("src.v > 0"), _passing(None), True),
    # the same set, or one added after it: claimed
    (_passing("src.v > 0", "src.v <= 0"), _passing("src.v > 0", "src.v <= 0"), True),
    (_passing("src.v > 0"), _passing("src.v > 0", "src.v <= 0"), True),
    # recorded before rows were: not checked for this
    (_fed(["s"], ["s"]), _passing("src.v <= 0", "src.v > 0"), True),
])
def test_an_operator_whose_rows_are_now_its_twins_is_refused(old, new, claimed):
    if claimed:
        assert _claim({"group-agg-2": old}, {"group-agg-2": new}) == []
        return
    moved = (r"its input rows pass WHERE src\.v <= 0, not WHERE src\.v > 0, the filters of another operator "
             "with the same state: another INSERT's operator has this id")
    with pytest.raises(StateMappingError, match=moved):
        _claim({"group-agg-2": old}, {"group-agg-2": new})
    assert _claim({"group-agg-2": old}, {"group-agg-2": new}, ignore=True) == ["group-agg-2"]


def _agg(sinks, rows=None, kind="group-agg"):
    return {**_fed(sinks, ["a", "b"], kind=kind), "rows": [[rows] if rows else []], "twins": []}


@pytest.mark.parametrize(("recorded", "current", "refused"), [
    # one GROUP BY shared by two INSERTs; the second one's WHERE edited: a GROUP BY of its own, new
    ({"scan-0": _agg(["a", "b"], kind="scan"), "group-agg-2": _agg(["a", "b"])},
     {"scan-0": _agg(["a", "b"], kind="scan"), "group-agg-2": _agg(["a"]),
      "group-agg-6": _agg(["b"], "src.v > 1")}, True),
    # reuse switched off: the second INSERT has a scan of its own too, reading from the startup mode
    ({"scan-0": _agg(["a", "b"], kind="scan"), "group-agg-2": _agg(["a", "b"])},
     {"scan-0": _agg(["a"], kind="scan"), "group-agg-2": _agg(["a"]), "scan-4": _agg(["b"], kind="scan"),
      "group-agg-6": _agg(["b"])}, False),
    # an INSERT added after the other into the same table: the other still feeds it, a new operator
    ({"scan-0": _agg(["a"], kind="scan"), "group-agg-2": _agg(["a"], "src.v > 0")},
     {"scan-0": _agg(["a"], kind="scan"), "group-agg-2": _agg(["a"], "src.v > 0"),
      "group-agg-6": _agg(["a"], "src.v <= 0")}, False),
    # an INSERT into a new table added: no operator fed it before
    ({"scan-0": _agg(["a"], kind="scan"), "group-agg-2": _agg(["a"])},
     {"scan-0": _agg(["a", "b"], kind="scan"), "group-agg-2": _agg(["a"]), "group-agg-6": _agg(["b"])},
     False),
])
def test_an_insert_whose_state_was_shared_never_starts_empty(recorded, current, refused):
    if not refused:
        assert _claim(recorded, current) == []
        return
    shared = ("The operator group-agg-6 of the new program .*, feeding 'b', has no state in the "
              "checkpoint/savepoint, but its state is that of operator group-agg-2")
    with pytest.raises(StateMappingError, match=shared):
        _claim(recorded, current)
    assert _claim(recorded, current, ignore=True) == []  # it starts empty, on purpose
