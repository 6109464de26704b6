"""The one harness for operator tests: open an operator on a real state backend.

Every operator test that needs keyed state goes through :func:`open_operator`, so all of them
exercise the backends the same way the job builder does (one backend, keyed state per operator
id, snapshot/restore of the whole backend).
"""

from __future__ import annotations

import pyarrow as pa

from streamsql.core.elements import Batch, Watermark
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


def play_steps(op, steps: list, schema: pa.Schema) -> list[tuple]:
    """Feed an opened operator ``("batch", rows)`` and ``("wm", ms)`` steps; collect the rows it emits.

    Args:
        op: an opened operator (see :func:`open_operator`).
        steps: ``("batch", [row tuple, ...])`` (one value per field of ``schema``; timestamps as
            int ms) or ``("wm", watermark ms)``.
        schema: the input batches' schema.

    Returns:
        The rows of every output batch, in order, as tuples.
    """
    out = []
    for what, arg in steps:
        if what == "batch":
            arrays = [pa.array(col, pa.int64()).cast(f.type) if pa.types.is_timestamp(f.type)
                      else pa.array(col, f.type) for col, f in zip(zip(*arg), schema)]
            elements = op.process_batch(Batch(pa.Table.from_arrays(arrays, schema=schema)), 0)
        else:
            elements = op.process_watermark(Watermark(arg))
        out += [tuple(r.values()) for el in elements if isinstance(el, Batch) for r in el.table.to_pylist()]
    return out
