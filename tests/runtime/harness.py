"""The one harness for operator tests: open an operator on a real state backend.

Every operator test that needs keyed state goes through :func:`open_operator`, so all of them
exercise the backends the same way the job builder does (one backend, keyed state per operator
id, snapshot/restore of the whole backend).
"""

from __future__ import annotations

from streamsql.runtime.operators.base import OperatorContext
from streamsql.state.factory import create_backend


def open_operator(op, backend_name, workdir, op_id="op-1", config=None, metrics=None):
    """Open ``op`` on a fresh ``backend_name`` backend in ``workdir``.

    Args:
        op: an unopened operator.
        backend_name: ``'hashmap'`` or ``'rocksdb'``.
        workdir: the backend's working folder (created by the backend).
        op_id: the operator id that names its keyed state.
        config: engine settings the operator reads (``{'state.cache.max-entries': '0'}``).
        metrics: the counters the operator bumps (a fresh dict when None).

    Returns:
        ``(op, backend)``; the caller closes the backend.
    """
    backend = create_backend(backend_name)
    backend.open(str(workdir))
    ctx = OperatorContext(op_id, backend.keyed_state(op_id), dict(config or {}),
                          {} if metrics is None else metrics)
    op.open(ctx)
    return op, backend
