"""The pattern automaton of MATCH_RECOGNIZE: Flink CEP's ``NFACompiler`` and ``NFA``, for SQL patterns.

SQL patterns are what ``StreamExecMatch`` hands to CEP: a sequence of unique variables joined by
``next()`` (strict contiguity), each looping one ``consecutive()``, so no state has an IGNORE
edge. This module keeps CEP's semantics step for step, because the answer depends on them:

- **compile** (``NFACompiler``, traversing the pattern from its end): a looping variable is a
  state with a PROCEED edge to what follows and a TAKE edge to itself, after ``times``
  mandatory copies; ``{n,m}`` is ``n`` mandatory states then ``m - n`` optional ones (a PROCEED
  edge to what follows); a *greedy* quantifier ANDs ``NOT its condition`` into every edge of
  the state that follows it (``updateWithGreedyCondition``);
- **process one row** (``NFA.doProcess``): every partial match, in the array order of CEP's
  ``PriorityQueue``, follows the TAKE edges reachable through PROCEED edges whose conditions hold
  (``createDecisionGraph``, a stack), and reaches the final state when a PROCEED path leads
  there after the take (``findFinalStateAfterProceed``, conditions evaluated on the partial
  match *before* the take); the start state stays;
- **emit** (``processMatchesAccordingToSkipStrategy``): a completed match waits until no
  partial match started earlier (ordered by start row: CEP's ``COMPUTATION_STATE_COMPARATOR``);
  then the skip strategy prunes the partial and the completed matches that start before its
  pruning row (PAST LAST ROW: at or before the match's last row; TO NEXT ROW: at or before its
  first; TO FIRST/LAST v: before v's first/last row, and v missing or v's row being the match's
  first fails the job, as CEP's ``throwExceptionOnMiss``);
- **advance time** (``NFA.advanceTime``, WITHIN): a partial match whose first row is ``within``
  or more before the time is dropped, then the waiting matches are emitted as above.

The queues are emulated exactly (:class:`JavaPriorityQueue`), because the order in which
partial matches are visited decides which of several matches completing on one row is kept.
A row is identified by ``(rowtime, sequence)`` as CEP's ``EventId`` (its order is the order rows
are processed in).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from streamsql.core.errors import ExecutionError
from streamsql.plan.match_recognize import (
    SKIP_PAST_LAST_ROW,
    SKIP_TO_FIRST,
    SKIP_TO_LAST,
    SKIP_TO_NEXT_ROW,
    PatternStep,
)

TAKE, PROCEED = 0, 1
_MAX = (1 << 63, 1 << 31)  # the start state's place in the queues: after every partial match


@dataclass
class State:
    """An NFA state: the variable it maps rows to (None for the final state) and its edges.

    ``edges``: ``(action, target state, condition)``; a condition is a tuple of
    ``(variable index, expected truth)`` that must all hold (``()``: true).
    """

    var: int | None
    final: bool = False
    edges: list[tuple[int, int, tuple[tuple[int, bool], ...]]] = field(default_factory=list)


def compile_states(steps: tuple[PatternStep, ...]) -> tuple[list[State], int]:
    """The states of ``steps`` and the index of the start state, as ``NFACompiler.compileFactory``."""
    states: list[State] = [State(None, final=True)]

    def new(var: int) -> int:
        states.append(State(var))
        return len(states) - 1

    def singleton(var: int, sink: int, proceed: int | None, optional: bool) -> int:
        s = new(var)
        states[s].edges.append((TAKE, sink, ((var, True),)))
        if optional:
            states[s].edges.append((PROCEED, proceed, ()))
        return s

    def greedy(sink: int, var: int) -> None:
        states[sink].edges = [(a, t, (*c, (var, False))) for a, t, c in states[sink].edges]

    sink = 0
    for step in reversed(steps):
        var = step.variable
        low = max(step.min, 1)
        target = sink
        if step.max is None:  # createLooping, then createTimesState(times = (low, low))
            loop = new(var)
            states[loop].edges.append((PROCEED, sink, ()))
            if step.greedy:
                greedy(sink, var)
            states[loop].edges.append((TAKE, loop, ((var, True),)))
            target, high = loop, low
        else:
            high = step.max
            if step.greedy and low != high:
                greedy(sink, var)
        last = target
        for _ in range(low, high):
            last = singleton(var, last, sink, True)
        for _ in range(low - 1):
            last = singleton(var, last, None, False)
        sink = singleton(var, last, sink, step.min == 0)
    return states, sink


@dataclass
class Partial:
    """A computation state: the NFA state, the rows taken (``(row id, variable)``) and its start row id."""

    state: int
    events: tuple[tuple[tuple[int, int], int], ...]
    start: tuple[int, int] | None

    @property
    def key(self) -> tuple[int, int]:
        """Its place in CEP's queues (the start row's id; the start state last)."""
        return self.start if self.start is not None else _MAX


class JavaPriorityQueue:
    """``java.util.PriorityQueue`` ordered by :attr:`Partial.key`, array order included."""

    def __init__(self, items: list[Partial] | None = None):
        self.items: list[Partial] = items if items is not None else []

    def add(self, x: Partial) -> None:
        """``offer``: sift up from the end (equal keys stay below)."""
        es = self.items
        es.append(x)
        k = len(es) - 1
        while k > 0:
            parent = (k - 1) >> 1
            if x.key >= es[parent].key:
                break
            es[k] = es[parent]
            k = parent
        es[k] = x

    def peek(self) -> Partial | None:
        """The head, or None."""
        return self.items[0] if self.items else None

    def poll(self) -> Partial:
        """Remove the head: the last element sifts down from the root."""
        es = self.items
        head = es[0]
        last = es.pop()
        if es:
            self._sift_down(0, last)
        return head

    def remove_all(self, doomed: list[Partial]) -> None:
        """``removeAll`` (a bulk remove, then ``heapify``)."""
        gone = {id(p) for p in doomed}
        self.items = [p for p in self.items if id(p) not in gone]
        for i in range((len(self.items) >> 1) - 1, -1, -1):
            self._sift_down(i, self.items[i])

    def _sift_down(self, k: int, x: Partial) -> None:
        es = self.items
        n = len(es)
        half = n >> 1
        while k < half:
            child = 2 * k + 1
            c = es[child]
            right = child + 1
            if right < n and c.key > es[right].key:
                child = right
                c = es[child]
            if x.key <= c.key:
                break
            es[k] = c
            k = child
        es[k] = x


Condition = Callable[[int, Partial, tuple[int, int], tuple], bool]
"""``(variable, partial match, row id, row) -> whether the variable's DEFINE holds``."""


class Nfa:
    """One partition's automaton state and the steps of CEP's ``NFA`` over it.

    Args:
        states: from :func:`compile_states`.
        start: the start state.
        skip: the AFTER MATCH SKIP strategy and its variable.
        within: WITHIN in ms (0: none).
        names: the variable names (for error messages).
        partials: the partial matches (the start state's included), in queue array order.
        completed: matches waiting for earlier partial matches to end, in queue array order.
    """

    def __init__(self, states: list[State], start: int, skip: tuple[str, int | None], within: int,
                 names: tuple[str, ...], partials: list[Partial] | None = None,
                 completed: list[Partial] | None = None):
        self.states = states
        self.skip, self.skip_var = skip
        self.within = within
        self.names = names
        self.partials = JavaPriorityQueue(partials if partials is not None else [Partial(start, (), None)])
        self.completed = JavaPriorityQueue(completed)

    def process(self, row_id: tuple[int, int], row: tuple, holds: Condition) -> list[Partial]:
        """Feed one row (``NFA.doProcess``); return the matches to emit, in order."""
        partials = JavaPriorityQueue()
        potential = JavaPriorityQueue()
        for p in self.partials.items:
            for q in self._next(p, row_id, row, holds):
                (potential if self.states[q.state].final else partials).add(q)
        return self._emit(potential, partials)

    def advance_time(self, time: int) -> list[Partial]:
        """Drop the partial matches WITHIN ends at ``time`` (``NFA.advanceTime``); return matches to emit."""
        partials = JavaPriorityQueue()  # CEP re-adds the survivors to a new queue, in array order
        for p in self.partials.items:
            if self.within <= 0 or p.start is None or time - p.start[0] < self.within:
                partials.add(p)
        return self._emit(JavaPriorityQueue(), partials)

    # -- CEP's steps --------------------------------------------------------------------------

    def _next(self, p: Partial, row_id: tuple[int, int], row: tuple, holds: Condition) -> list[Partial]:
        """``computeNextStates`` without IGNORE edges."""
        cache: dict[int, bool] = {}

        def check(condition) -> bool:
            for var, truth in condition:
                value = cache.get(var)
                if value is None:
                    value = cache[var] = holds(var, p, row_id, row)
                if value is not truth:
                    return False
            return True

        takes = []
        stack = [p.state]
        while stack:
            s = stack.pop()
            for action, target, condition in self.states[s].edges:
                if check(condition):
                    if action == PROCEED:
                        stack.append(target)
                    else:
                        takes.append((s, target))
        out = []
        start = row_id if p.start is None else p.start
        for source, target in takes:
            events = (*p.events, (row_id, self.states[source].var))
            out.append(Partial(target, events, start))
            final = self._final_after_proceed(target, check)
            if final is not None:
                out.append(Partial(final, events, start))
        if p.start is None:
            out.append(Partial(p.state, (), None))
        return out

    def _final_after_proceed(self, state: int, check) -> int | None:
        stack = [state]
        while stack:
            s = stack.pop()
            for action, target, condition in self.states[s].edges:
                if action == PROCEED and check(condition):
                    if self.states[target].final:
                        return target
                    stack.append(target)
        return None

    def _emit(self, potential: JavaPriorityQueue, partials: JavaPriorityQueue) -> list[Partial]:
        """``processMatchesAccordingToSkipStrategy``; ``partials`` becomes the partial matches."""
        for m in potential.items:
            self.completed.add(m)
        out = []
        while (m := self.completed.peek()) is not None:
            earliest = partials.peek()
            if earliest is not None and m.key > earliest.key:
                break
            self.completed.poll()
            pruning = self._pruning_id(m)
            if pruning is not None:
                for queue in (partials, self.completed):
                    queue.remove_all([q for q in queue.items
                                      if q.start is not None and self._prunes(q.start, pruning)])
            out.append(m)
        self.partials = partials
        return out

    def _pruning_id(self, m: Partial) -> tuple[int, int] | None:
        ids = [rid for rid, _ in m.events]
        if self.skip == SKIP_PAST_LAST_ROW:
            return max(ids)
        if self.skip == SKIP_TO_NEXT_ROW:
            return min(ids)
        mine = [rid for rid, var in m.events if var == self.skip_var]
        name = self.names[self.skip_var]
        if not mine:
            msg = (f"Could not skip to {name}. No such element in the found match "
                   f"(AFTER MATCH SKIP {self.skip} {name})")
            raise ExecutionError(msg)
        pruning = mine[0] if self.skip == SKIP_TO_FIRST else mine[-1]
        if pruning == min(ids):
            msg = (f"Could not skip to first element of a match. (AFTER MATCH SKIP {self.skip} {name} "
                   "would start the next match where this one started)")
            raise ExecutionError(msg)
        return pruning

    def _prunes(self, start: tuple[int, int], pruning: tuple[int, int]) -> bool:
        if self.skip in (SKIP_TO_FIRST, SKIP_TO_LAST):
            return start < pruning
        return start <= pruning
