"""The one harness for operator tests: open an operator on a real state backend.

Every operator test that needs keyed state goes through :func:`open_operator`, so all of them
exercise the backends the same way the job builder does (one backend, keyed state per operator
id, snapshot/restore of the whole backend).
"""

from __future__ import annotations

from streamsql.runtime.operators.base import OperatorContext
from streamsql.state.factory import create_backend


def open_operator(op, backend_name, workdir, op_id="op-1", config=None, metrics=None, clock=None):
    """Open ``op`` on a fresh ``backend_name`` backend in ``workdir``.

    Args:
        op: an unopened operator.
        backend_name: ``'hashmap'`` or ``'rocksdb'``.
        workdir: the backend's working folder (created by the backend).
        op_id: the operator id that names its keyed state.
        config: engine settings the operator reads (``{'state.cache.max-entries': '0'}``).
        metrics: the counters the operator bumps (a fresh dict when None).
        clock: the processing-time clock (ms) for state TTL (the wall clock when None).

    Returns:
        ``(op, backend)``; the caller closes the backend.
    """
    backend = create_backend(backend_name)
    backend.open(str(workdir))
    ctx = OperatorContext(op_id, backend.keyed_state(op_id), dict(config or {}),
                          {} if metrics is None else metrics)
    if clock is not None:
        ctx.clock = clock
    op.open(ctx)
    return op, backend


def replay_across_restore(open_op, play, steps: list, cut: int, workdir):
    """Replay ``steps`` once uninterrupted, and once with a snapshot at ``cut`` and a restore.

    The interrupted attempt snapshots after ``steps[:cut]``, goes on (its later output is lost,
    as after a failure), and a fresh operator restored from that snapshot replays
    ``steps[cut:]``.

    Args:
        open_op: ``workdir → (operator, backend)``, opening a fresh operator (see :func:`open_operator`).
        play: ``(operator, steps) → output rows``.
        steps: the inputs, whatever ``play`` takes.
        cut: how many steps run before the snapshot.
        workdir: a folder for the three backends and the snapshot.

    Returns:
        ``(expected rows, rows before the cut + rows after the restore, the uninterrupted
        operator's metrics, the number of timers pending at the cut)``.
    """
    ref, ref_backend = open_op(workdir / "ref")
    expected = play(ref, steps)
    ref_backend.close()
    first, b1 = open_op(workdir / "first")
    before = play(first, steps[:cut])
    pending = len(first.timers)
    first.snapshot_state(1)
    b1.snapshot(str(workdir / "snap"))
    play(first, steps[cut:])
    b1.close()
    second, b2 = open_op(workdir / "second")
    b2.restore(str(workdir / "snap"))
    after = play(second, steps[cut:])
    b2.close()
    return expected, before + after, ref.ctx.metrics, pending
