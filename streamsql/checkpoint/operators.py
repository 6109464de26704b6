"""Which operator state of a checkpoint the new plan claims, as Flink maps state on a restore.

Every checkpoint's ``_metadata`` records ``operators``: per operator id, the signature of what
its state means (:mod:`streamsql.plan.state_signature`). Before a job restores a checkpoint (its
own after a failure, or a savepoint on purpose) :func:`claim_state` compares them with the new
plan's, the way Flink maps the operator states of a savepoint onto the new job graph
(``Checkpoints.loadAndValidateCheckpoint``):

- an operator of the checkpoint whose id the new plan has with the same signature: restored;
- an operator of the checkpoint that the new plan does not have, or has with another
  signature (another GROUP BY key, aggregate, window size, join key...): its state is
  *unclaimed*. The restore fails, naming each such operator and what differs, unless
  ``'execution.state-recovery.ignore-unclaimed-state'`` (Flink's key; before 2.0
  ``'execution.savepoint.ignore-unclaimed-state'``) is true: then that state is dropped
  (Flink's ``--allowNonRestoredState``) and an operator of the new plan at that id starts empty;
- an operator whose id now feeds none of the sink tables it fed, while the job still writes one
  of them (or wrote, before, one it feeds now), is another INSERT's: ids are positions in the
  plan, and an INSERT added before the others of a statement set, or one removed, moves the later
  INSERTs' operators to other ids (signatures recorded before sinks were, and an INSERT whose sink
  alone changed, are not checked for this);
- an operator whose rows (the filters on its input, its signature's ``rows``) are now those of
  another operator of the same state in the job (``twins``: two GROUP BYs of a statement set
  that differ in their WHERE only, into the same table or not), or were those of another before,
  is another INSERT's too: two INSERTs that changed places, one added before its twin or one
  removed. An edited WHERE is not refused (its rows are no other operator's): the state is still
  this operator's, as Flink restores it;
- an operator of the new plan that the checkpoint has no state for starts empty (Flink too);
- state Flink does not keep (a signature with ``droppable``: a watermark assigner's per-split
  progress) is dropped when unclaimed, with a log line, never refused.

A checkpoint written before signatures were recorded (no ``operators``) cannot be checked: it is
restored as before, with a warning.

A checkpoint of StreamSQL up to f3e00a5a, which computed GROUP BY calls nobody reads, records the
signatures of the plan before those calls were pruned: a new signature carries them as
``before_pruning`` (:mod:`streamsql.plan.agg_prune_upgrade`), and a recorded signature equal to it is
claimed too (:func:`pruned_upgrades` names the aggregates whose state is then rewritten), unless
its ``refused`` says why the state cannot follow. ``before_pruning`` is never recorded
(:func:`recordable`).

A parallel task's checkpoint also records its run's key-group assignment (which task owns which key
groups, :func:`~streamsql.state.layout.task_of_key_groups`): ``_metadata``'s
``key_group_assignment``, checked at restore (:func:`check_assignment`). A run whose assignment is
not Flink's ranges also writes it into every signature's ``layout`` (:func:`mark_layouts`:
``"1 (key groups: assignment 2)"``), so that a StreamSQL that knows only the ranges (up to 735568b)
refuses the checkpoint as another state layout instead of restoring it into the wrong tasks;
:func:`unmarked` reads it back for comparison.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Mapping
from typing import Any

from streamsql.checkpoint.identity import JobIdentityError
from streamsql.core.values import parse_bool

log = logging.getLogger(__name__)

#: Flink's key, then its name before Flink 2.0 (both read, the first set wins).
IGNORE_UNCLAIMED_KEYS = ("execution.state-recovery.ignore-unclaimed-state",
                         "execution.savepoint.ignore-unclaimed-state")
#: Comparable parts of a signature, in the order a message lists differences.
_PARTS = {"operator": "operator kind", "parameters": "state parameters", "input": "input columns",
          "output": "output column types", "layout": "state layout version"}


#: A new signature's entry for the plan before pruning (:mod:`streamsql.plan.agg_prune_upgrade`).
BEFORE_PRUNING = "before_pruning"
#: A pruned GROUP BY's signature: the EXPLAIN labels of the calls it does not compute (recorded, never
#: compared: a restore into a query that reads one names it).
PRUNED_CALLS = "pruned_calls"

#: ``_metadata`` key of a parallel task's checkpoint: its run's key-group assignment (an int).
ASSIGNMENT_KEY = "key_group_assignment"
#: The assignment a StreamSQL that records none used: Flink's ranges (``KG_ASSIGNMENT_RANGES``).
RANGES = 1
_MARKED = re.compile(r"^(\d+) \(key groups: assignment (\d+)\)$")


class StateMappingError(JobIdentityError):
    """Checkpointed operator state that the new plan cannot claim: restarting cannot help."""


def recordable(operators: dict[str, dict]) -> dict[str, dict]:
    """``operators`` as a checkpoint records them: without ``before_pruning`` (a restore's, not state's)."""
    return {op: {k: v for k, v in sig.items() if k != BEFORE_PRUNING} if isinstance(sig, dict) else sig
            for op, sig in operators.items()}


def pruned_upgrades(recorded: dict[str, dict] | None, current: dict[str, dict]) -> dict[str, list[int]]:
    """The aggregates whose recorded state is that of their calls before pruning: id -> kept calls.

    Each kept call by its index among the calls as planned (:mod:`streamsql.plan.agg_prune_upgrade`);
    only operators :func:`claim_state` claims that way (not refused).
    """
    out = {}
    for op_id, old in (recorded or {}).items():
        new = current.get(op_id)
        if new is None or not _differences(old, new):
            continue
        before = _before_pruning(old, new)
        if before is not None and before.get("kept") is not None and not before.get("refused"):
            out[op_id] = list(before["kept"])
    return out


def _before_pruning(old: dict, new: dict) -> dict | None:
    """``new``'s ``before_pruning`` entry when ``old`` is its signature; else None."""
    before = new.get(BEFORE_PRUNING)
    if isinstance(before, dict) and not _differences(old, before["signature"]):
        return before
    return None


def mark_layouts(operators: dict[str, dict], assignment: int | None) -> dict[str, dict]:
    """``operators`` as a parallel task's checkpoint records them under ``assignment`` (module docstring).

    Unchanged for a single-process job (None) and for the ranges, which every version reads alike.
    """
    if assignment is None or assignment == RANGES:
        return operators
    return {op: {**sig, "layout": f"{sig.get('layout')} (key groups: assignment {assignment})"}
            if isinstance(sig, dict) else sig for op, sig in operators.items()}


def unmarked(sig: Any) -> Any:
    """A recorded signature with the assignment taken out of its ``layout`` (:func:`mark_layouts`)."""
    layout = sig.get("layout") if isinstance(sig, dict) else None
    found = _MARKED.match(layout) if isinstance(layout, str) else None
    return {**sig, "layout": int(found.group(1))} if found else sig


def recorded_assignment(meta: Mapping[str, Any]) -> int | None:
    """The key-group assignment a checkpoint's ``_metadata`` records; None when it records none.

    None for a single-process job's checkpoint and for a parallel task's written before the
    assignment was recorded (its run's is then ``_key_groups``'s, or the ranges).
    """
    value = meta.get(ASSIGNMENT_KEY)
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    for sig in (meta.get("operators") or {}).values():  # a record without the key: its layouts say
        layout = sig.get("layout") if isinstance(sig, dict) else None
        found = _MARKED.match(layout) if isinstance(layout, str) else None
        if found:
            return int(found.group(2))
    return None


def check_assignment(meta: Mapping[str, Any], assignment: int, location: str, job: str) -> None:
    """Refuse to restore a parallel task's checkpoint recorded under another key-group assignment.

    Its state holds the key groups its run's assignment gave the task; restored into a run that
    routes by another one, records of its keys would reach other tasks, and the answer would be
    wrong without an error.

    Raises:
        StateMappingError: the checkpoint records another assignment than ``assignment``.
    """
    recorded = recorded_assignment(meta)
    if recorded is None or recorded == assignment:
        return
    msg = (f"Job '{job}': checkpoint {location} was written by a parallel run that spreads key groups over "
           f"its tasks by assignment {recorded}, but this run routes them by assignment {assignment}: its "
           "state would be restored into tasks that no longer receive its keys. The checkpoints of the "
           "run decide its assignment; the job folder's _key_groups disagrees with them or is not this "
           "run's. Restore it with the run's own files, or start the job afresh from a savepoint "
           "('execution.savepoint.path')")
    raise StateMappingError(msg)


def ignore_unclaimed(config: Mapping[str, str]) -> bool:
    """Whether ``'execution.state-recovery.ignore-unclaimed-state'`` (or its old name) is true.

    Raises:
        ConfigError: a value that is not a boolean.
    """
    for key in IGNORE_UNCLAIMED_KEYS:
        value = config.get(key)
        if value is not None:
            return parse_bool(value, key)
    return False


def claim_state(recorded: dict[str, dict] | None, current: dict[str, dict], *, location: str, job: str,
                ignore: bool) -> list[str]:
    """Check a checkpoint's operator state against the new plan; the operator ids to drop.

    Args:
        recorded: the checkpoint's ``operators`` (None: written before they were recorded).
        current: the new plan's signatures (of this task's operators, for a parallel job).
        location: the checkpoint, as messages name it.
        job: the job's name, for messages.
        ignore: ``'execution.state-recovery.ignore-unclaimed-state'``.

    Returns:
        The ids whose state must be dropped after the restore (unclaimed, and ignored or
        droppable), before any record is processed.

    Raises:
        StateMappingError: state nothing in the new plan claims (without ``ignore``), with one
            paragraph per operator saying what differs and the ways on.
    """
    if recorded is None:
        log.warning("job %s restores %s, written before operator state signatures were recorded: "
                    "it is not checked against this job's plan", job, location)
        return []
    drop, refused = [], []
    for op_id, old in sorted(recorded.items()):
        new = current.get(op_id)
        if new is not None and _differences(old, new) == []:
            continue
        before = _before_pruning(old, new) if new is not None else None
        if before is not None and not before.get("refused"):
            continue  # written before the unread calls were pruned: pruned_upgrades
        why = _unclaimed(op_id, old, new, before)
        if old.get("droppable") or ignore:
            because = "" if old.get("droppable") else " ('execution.state-recovery.ignore-unclaimed-state')"
            log.warning("job %s: %s; its state is dropped%s", job, why, because)
            drop.append(op_id)
        else:
            refused.append(why)
    for op_id, new in sorted(current.items()):
        why = None if op_id in recorded else _shared_before(op_id, new, recorded, current)
        if why is None:
            continue
        if ignore:
            log.warning("job %s: %s; it starts empty ('execution.state-recovery.ignore-unclaimed-state')",
                        job, why)
        else:
            refused.append(why)
    if refused:
        msg = (f"Job '{job}': failed to rollback to checkpoint/savepoint {location}. "
               + " ".join(f"{r}." for r in refused) + _pruned_apart(recorded, current)
               + " Restore it with the query that wrote it; or start this job afresh (without "
               "'execution.state-recovery.path' / 'execution.savepoint.path', under another "
               "'pipeline.name'); "
               "or, to skip that state, SET 'execution.state-recovery.ignore-unclaimed-state' = 'true': "
               "it is dropped and the operator of this job at that id starts empty, reading on from the "
               "checkpoint's source positions")
        raise StateMappingError(msg)
    return drop


def _unclaimed(op_id: str, old: dict, new: dict | None, before: dict | None = None) -> str:
    """Flink's sentence for one unclaimed operator, with what differs (or why pruned calls' state cannot)."""
    head = (f"Cannot map checkpoint/savepoint state for operator {op_id} ({old.get('explain', '?')}) to the "
            "new program")
    if new is None:
        return f"{head}, because the operator is not available in the new program"
    if before is not None:
        return f"{head} ({new.get('explain', '?')}), because {before['refused']}"
    diffs = "; ".join(_differences(old, new))
    for why in (_pruned_call_read(old, new), *_call_changes(old, new)):
        if why:
            diffs = f"{diffs}; {why}"
    return (f"{head}, because the operator {op_id} of the new program ({new.get('explain', '?')}) keeps "
            f"other state: {diffs}")


def _pruned_apart(recorded: dict[str, dict], current: dict[str, dict]) -> str:
    """A sentence when the new plan pruned a GROUP BY and has fewer or more operators than the checkpoint.

    It names the shared GROUP BY and the operators in its place when the signatures show them
    (:func:`_split_apart`), else says what may have happened.

    StreamSQL up to f3e00a5a computed every call, so INSERTs of a statement set that read other calls
    of one view's GROUP BY shared it (sub-plan reuse); pruned, each has its own now, and the operators
    after them have other ids: such a checkpoint does not map.
    """
    if not any(BEFORE_PRUNING in sig for sig in current.values() if isinstance(sig, dict)):
        return ""
    if set(recorded) == set(current):
        return ""
    named = _split_apart(recorded, current)
    if named:
        return "".join(f" {sentence}." for sentence in named)
    return (" This program's GROUP BYs no longer compute calls nothing reads (as Flink's "
            "PruneAggregateCallRule): if the checkpoint was written by StreamSQL up to f3e00a5a and "
            "INSERTs of this statement set read different calls of one GROUP BY, which they shared then "
            "(sub-plan reuse), each INSERT has its own now and the operators after them have other ids, "
            "so its state does not map.")


def _split_apart(recorded: dict[str, dict], current: dict[str, dict]) -> list[str]:
    """Per checkpoint GROUP BY that INSERTs shared and pruning split into several: a sentence naming them.

    Found by signature: an operator of the checkpoint feeding several sinks, and operators of this
    program feeding some of those sinks whose signature before pruning is its own.
    """
    out = []
    for old_id, old in sorted(recorded.items()):
        sinks = set(old.get("sinks") or ()) if isinstance(old, dict) else set()
        if len(sinks) < 2:
            continue
        takers = sorted(op for op, sig in current.items() if isinstance(sig, dict)
                        and isinstance(sig.get(BEFORE_PRUNING), dict)
                        and all(sig[BEFORE_PRUNING]["signature"].get(p) == old.get(p) for p in _PARTS)
                        and sinks & set(sig.get("sinks") or ()))
        if len(takers) < 2:
            continue
        each = "; ".join(f"{op} ({current[op].get('explain', '?')}) for "
                         f"{_tables(current[op].get('sinks') or [])}" for op in takers)
        out.append(f"The checkpoint's operator {old_id} ({old.get('explain', '?')}) is the GROUP BY that "
                   f"the INSERTs into {_tables(sorted(sinks))} shared (sub-plan reuse) while it computed "
                   "every call (StreamSQL up to f3e00a5a); each INSERT's computes only the calls it reads "
                   "now (as Flink's PruneAggregateCallRule), so this program has "
                   f"{len(takers)} operators in its place: {each}, and the operators after them have other "
                   f"ids: the state of one operator is not restored into {len(takers)}")
    return out


#: Why a call's state changed between StreamSQL versions in a way no restore can convert, by what changed.
_CALL_CHANGES = {
    "accumulator": "its accumulator changed format (StreamSQL since sumdist31: a floating SUM's fixed-width "
                   "record starts at -0.0 as Flink's, a floating SUM/AVG(DISTINCT) keeps its running sum in "
                   "input order), and the older one does not give Flink's answer",
    "retract": "this program computes it without retraction, as Flink's plan for an argument that only "
               "grows (MAX) or only shrinks (MIN) (StreamSQL since float30), keeping the extreme ever seen, "
               "where the checkpoint kept the values present, from which that extreme cannot be told",
}


def _call_changes(old: dict, new: dict) -> list[str]:
    """Per aggregate call whose state changed between versions in a known, unconvertible way: a phrase."""
    was = (old.get("parameters") or {}).get("aggs") if isinstance(old.get("parameters"), dict) else None
    now = (new.get("parameters") or {}).get("aggs") if isinstance(new.get("parameters"), dict) else None
    if not (isinstance(was, list) and isinstance(now, list)) or len(was) != len(now):
        return []
    found: dict[str, list[str]] = {}
    for i, (a, b) in enumerate(zip(was, now)):
        if not (isinstance(a, dict) and isinstance(b, dict)) or a == b:
            continue
        a_rest = {k: v for k, v in a.items() if k not in ("accumulator", "func")}
        b_rest = {k: v for k, v in b.items() if k not in ("accumulator", "func")}
        if a_rest != b_rest:
            continue  # another call: the differences say so
        func_a, func_b = str(a.get("func")), str(b.get("func"))
        if func_a == func_b and a.get("accumulator") != b.get("accumulator"):
            found.setdefault("accumulator", []).append(
                f"call {i + 1} ({func_b}: accumulator format {a.get('accumulator') or 1} -> "
                f"{b.get('accumulator') or 1})")
        elif func_a.removesuffix("_retract") == func_b and func_a != func_b:
            found.setdefault("retract", []).append(f"call {i + 1} ({func_a} -> {func_b})")
    return [f"{', '.join(calls)}: {_CALL_CHANGES[kind]}" for kind, calls in found.items()]


def _pruned_call_read(old: dict, new: dict) -> str | None:
    """A hint when the new operator computes a call the checkpoint's pruned (its ``pruned_calls``)."""
    pruned, explain = old.get(PRUNED_CALLS), new.get("explain")
    if not isinstance(pruned, list) or not isinstance(explain, str):
        return None
    read = [label for label in pruned if isinstance(label, str) and label in explain]
    if not read:
        return None
    return (f"the checkpoint's operator did not compute {', '.join(read)}: read by nothing in the query "
            "that wrote it, the call was pruned (as Flink's PruneAggregateCallRule), so the checkpoint has "
            "no state for it, and it cannot start empty next to the others")


def _shared_before(op_id: str, new: dict, recorded: dict[str, dict], current: dict[str, dict]) -> str | None:
    """An operator new at ``op_id`` whose INSERT's state is another id's, shared before; else None.

    Sub-plan reuse plans two INSERTs of one statement set that compute the same as one operator
    feeding both sinks. When they no longer do (one INSERT's WHERE edited), the changed one gets
    an operator of its own at a new id, which would start empty and read on from the checkpoint's
    source positions: its sink would lose every row before them. Recognized as an operator of the
    checkpoint with the same signature that fed this one's sink, which the operator now at its id
    no longer feeds. Not when a new scan feeds its sink too (sub-plan reuse switched off: the INSERT
    reads its tables again from their startup mode, as a new INSERT does).
    """
    if new.get("droppable") or new.get("sinks") is None or new.get("operator") == "scan":
        return None  # a new scan reads from its startup mode, as Flink's new sources do
    sinks = set(new["sinks"])
    if any(sig.get("operator") == "scan" and scan not in recorded and sinks & set(sig.get("sinks") or ())
           for scan, sig in current.items()):
        return None  # the INSERT reads its table again from the startup mode (reuse switched off)
    for old_id, old in sorted(recorded.items()):
        if old.get("sinks") is None or any(old.get(part) != new.get(part) for part in _PARTS):
            continue  # another state (rows may differ: an edited WHERE keeps the state)
        lost = set(old["sinks"]) - set((current.get(old_id) or {}).get("sinks") or ())
        if old_id in current and sinks & lost:
            return (f"The operator {op_id} of the new program ({new.get('explain', '?')}), feeding "
                    f"{_tables(new['sinks'])}, has no state in the checkpoint/savepoint, but its state is "
                    f"that of operator {old_id} ({old.get('explain', '?')}), which fed "
                    f"{_tables(old['sinks'])} and now feeds {_tables(current[old_id].get('sinks') or [])}: "
                    "the INSERTs shared it "
                    "(sub-plan reuse: 'table.optimizer.reuse-sub-plan-enabled') and no longer do; it would "
                    "start empty and miss every row before the checkpoint's source positions")
    return None


def _differences(old: dict, new: dict) -> list[str]:
    """What differs between two signatures, one phrase per part (empty: the same state)."""
    out = []
    for moved in (_sink_difference(old, new), _rows_difference(old, new)):
        if moved:
            out.append(moved)
    for part, label in _PARTS.items():
        a, b = old.get(part), new.get(part)
        if a == b:
            continue
        if part == "input" and isinstance(a, list) and isinstance(b, list):
            out.append(_column_difference(a, b, old.get("columns") or a, new.get("columns") or b))
        elif part == "parameters" and isinstance(a, dict) and isinstance(b, dict):
            keys = [k for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)]
            out.append(f"{label} {', '.join(f'{k} {_short(a.get(k))} -> {_short(b.get(k))}' for k in keys)}")
        else:
            out.append(f"{label} {_short(a)} -> {_short(b)}")
    return out


def _sink_difference(old: dict, new: dict) -> str | None:
    """The operator at this id is another INSERT's (module docstring), as a phrase; else None."""
    was, now = old.get("sinks"), new.get("sinks")
    if was is None or now is None or set(was) & set(now):
        return None
    if not set(was) & set(new.get("job_sinks") or ()) and not set(now) & set(old.get("job_sinks") or ()):
        return None  # the INSERT writes another table now: its state is still its own
    return (f"it feeds {_tables(now)}, not {_tables(was)}: another INSERT's operator has this id (in a "
            "statement set, ids follow the INSERTs' order: add new INSERTs after the others, remove "
            "only the last)")


def _rows_difference(old: dict, new: dict) -> str | None:
    """The operator at this id is its twin's, of another INSERT (module docstring), as a phrase; else None."""
    was, now = old.get("rows"), new.get("rows")
    if was is None or now is None or was == now:
        return None
    if was not in (new.get("twins") or []) and now not in (old.get("twins") or []):
        return None  # an edited WHERE: the state is still this operator's
    return (f"its input rows pass {_filters(new)}, not {_filters(old)}, the filters of another operator "
            "with the same state: another INSERT's operator has this id (in a statement set, ids follow the "
            "INSERTs' order: keep their order, add new INSERTs after the others, remove only the last)")


def _filters(sig: dict) -> str:
    """The filters a signature's input rows passed, in Flink SQL: ``WHERE src.v > 0``."""
    per_input = sig.get("filters") or sig.get("rows") or []
    shown = [f"WHERE {' AND '.join(fs)}" if fs else "no filter" for fs in per_input]
    if len(shown) == 1:
        return shown[0]
    return ", ".join(f"input {i}: {s}" for i, s in enumerate(shown))


def _tables(names: list[str]) -> str:
    return ", ".join(f"'{n}'" for n in names) or "no sink"


def _column_difference(old: list[list[str]], new: list[list[str]], old_shown: list[list[str]],
                       new_shown: list[list[str]]) -> str:
    """The first input column that differs, as ``input 0 column 1: t.a INT -> t.b INT``.

    Columns are compared by their exact origins and shown by their ``columns`` (Flink SQL).
    """
    if len(old) != len(new):
        return f"{len(old)} inputs -> {len(new)}"

    def at(columns: list[list[str]], i: int, c: int) -> str:
        return _short(columns[i][c]) if i < len(columns) and c < len(columns[i]) else "(none)"

    for i, (a, b) in enumerate(zip(old, new)):
        for c in range(max(len(a), len(b))):
            if (a[c] if c < len(a) else None) != (b[c] if c < len(b) else None):
                where = f"input {i} column {c}" if len(old) > 1 else f"input column {c}"
                was, now = at(old_shown, i, c), at(new_shown, i, c)
                if was == now:  # they differ where Flink SQL does not show it (a Python UDF's module)
                    was, now = at(old, i, c), at(new, i, c)
                return f"{where}: {was} -> {now}"
    return "input columns differ"


def _short(value: Any) -> str:
    text = _render(value)
    return text if len(text) <= 200 else text[:197] + "..."


def _render(value: Any) -> str:
    """A signature value as text: ``AggSpec(func=sum, arg=1, out_type=BIGINT)`` for a recorded object."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "[" + ", ".join(_render(v) for v in value) + "]"
    if isinstance(value, dict):
        fields = ", ".join(f"{k}={_render(v)}" for k, v in value.items() if k)
        return f"{value.get('', '')}({fields})" if "" in value else "{" + fields + "}"
    return json.dumps(value)
