"""The keyed state of one job instance: one state backend, snapshotted once per checkpoint.

Every stateful operator of the job keeps its keyed state in the same backend (one RocksDB, one
block cache), each in its own namespace (its operator id). The checkpoint coordinator takes
one snapshot of that backend per checkpoint, once every task has acknowledged it.

Tasks acknowledge barrier n at different times, and a task past barrier n goes on with the next
epoch while another task still aligns its inputs. So that the one snapshot still holds every
operator's state *as of its own barrier* (what Flink gets by snapshotting each operator at its
barrier), the writes of an operator that acknowledged n are deferred: kept in memory, visible
to its own reads, and applied to the backend right after the snapshot (or when the checkpoint
fails). Outside that short window every read and write goes straight to the backend.
"""

from __future__ import annotations

from collections.abc import Iterator

from streamsql.state.base import KeyedState, MapEntry, MapPut, StateBackend
from streamsql.state.convert import restore_snapshot
from streamsql.state.exceptions import StateError


class DeferringKeyedState(KeyedState):
    """An operator's keyed state whose writes can be held back until the next snapshot.

    Args:
        state: the operator's namespace in the backend.
    """

    def __init__(self, state: KeyedState):
        self._state = state
        self._pending: dict[bytes, bytes | None] | None = None  # None: not deferring; None value: deleted
        self._pending_maps: dict[bytes, dict[bytes, bytes | None]] = {}  # prefix → entry key → as above
        self._cleared = False

    def defer(self) -> None:
        """Hold writes back from now on (the operator passed a barrier)."""
        if self._pending is None:
            self._pending = {}
            self._pending_maps = {}
            self._cleared = False

    def apply(self) -> None:
        """Write what was held back into the backend; writes go straight through again."""
        pending, self._pending = self._pending, None
        maps, self._pending_maps = self._pending_maps, {}
        if pending is None:
            return
        if self._cleared:
            self._state.clear()
        puts = [(k, v) for k, v in pending.items() if v is not None]
        deletes = [k for k, v in pending.items() if v is None]
        if puts or deletes:
            self._state.write(puts, deletes)
        map_puts = [(p, k, v) for p, m in maps.items() for k, v in m.items() if v is not None]
        map_deletes = [(p, k) for p, m in maps.items() for k, v in m.items() if v is None]
        if map_puts or map_deletes:
            self._state.write_maps(map_puts, map_deletes)

    def get_many(self, keys: list[bytes], cache: bool = True) -> list[bytes | None]:
        """Values for ``keys`` in order (None where absent), held-back writes included."""
        pending = self._pending
        if pending is None:
            return self._state.get_many(keys, cache)
        out: list[bytes | None] = [None] * len(keys)
        missing, where = [], []
        for i, k in enumerate(keys):
            if k in pending:
                out[i] = pending[k]
            elif not self._cleared:
                missing.append(k)
                where.append(i)
        if missing:
            for i, v in zip(where, self._state.get_many(missing, cache)):
                out[i] = v
        return out

    def write(self, puts: list[tuple[bytes, bytes]], deletes: list[bytes] = ()) -> None:
        """Apply ``puts`` then ``deletes`` (held back while deferring)."""
        pending = self._pending
        if pending is None:
            self._state.write(puts, deletes)
            return
        pending.update(puts)
        for k in deletes:
            pending[k] = None

    def get_maps(self, prefixes: list[bytes]) -> list[list[tuple[bytes, bytes]]]:
        """Per map prefix, its entries ``(entry key, value)``, held-back writes included."""
        if self._pending is None:
            return self._state.get_maps(prefixes)
        base = [[] for _ in prefixes] if self._cleared else self._state.get_maps(prefixes)
        out = []
        for prefix, entries in zip(prefixes, base):
            held = self._pending_maps.get(prefix)
            if held:
                merged = dict(entries)
                merged.update(held)
                entries = [(k, v) for k, v in merged.items() if v is not None]
            out.append(entries)
        return out

    def get_map_values(self, entries: list[MapEntry]) -> list[bytes | None]:
        """Values of map entries ``(prefix, entry key)`` in order, held-back writes included."""
        if self._pending is None:
            return self._state.get_map_values(entries)
        out: list[bytes | None] = [None] * len(entries)
        missing, where = [], []
        for i, (prefix, key) in enumerate(entries):
            held = self._pending_maps.get(prefix)
            if held is not None and key in held:
                out[i] = held[key]
            elif not self._cleared:
                missing.append((prefix, key))
                where.append(i)
        if missing:
            for i, v in zip(where, self._state.get_map_values(missing)):
                out[i] = v
        return out

    def write_maps(self, puts: list[MapPut], deletes: list[MapEntry] = ()) -> None:
        """Put then delete map entries (held back while deferring)."""
        if self._pending is None:
            self._state.write_maps(puts, deletes)
            return
        maps = self._pending_maps
        for prefix, key, value in puts:
            maps.setdefault(prefix, {})[key] = value
        for prefix, key in deletes:
            maps.setdefault(prefix, {})[key] = None

    def items(self) -> Iterator[tuple[bytes, bytes]]:
        """All (key, value) pairs in key order, held-back writes included."""
        if self._pending is None:
            yield from self._state.items()
            return
        held = {**self._pending, **{p + k: v for p, m in self._pending_maps.items() for k, v in m.items()}}
        overlay = sorted(held.items())
        base = iter(()) if self._cleared else self._state.items()
        i = 0
        for k, v in base:
            while i < len(overlay) and overlay[i][0] < k:
                if overlay[i][1] is not None:
                    yield overlay[i]
                i += 1
            if i < len(overlay) and overlay[i][0] == k:
                if overlay[i][1] is not None:
                    yield overlay[i]
                i += 1
            else:
                yield k, v
        yield from ((k, v) for k, v in overlay[i:] if v is not None)

    def rewrite_values(self, rewrite) -> int:
        """The backend's :meth:`~streamsql.state.base.KeyedState.rewrite_values` (at a restore).

        Raises:
            StateError: writes are held back (the operator passed a barrier: not a restore's time).
        """
        if self._pending is not None:
            msg = "Cannot rewrite an operator's state while its writes are held back for a snapshot"
            raise StateError(msg)
        return self._state.rewrite_values(rewrite)

    def column_table(self, values):
        """The backend's column table (it holds its values as of the barrier itself: see ``flush``)."""
        return self._state.column_table(values)

    def clear(self) -> None:
        """Remove every entry of this operator (held back while deferring)."""
        if self._pending is None:
            self._state.clear()
        else:
            self._pending.clear()
            self._pending_maps.clear()
            self._cleared = True


class JobState:
    """The job instance's one backend and the operators' views of it (see module docstring).

    Args:
        backend: an open state backend.
    """

    def __init__(self, backend: StateBackend):
        self.backend = backend
        self._states: dict[str, DeferringKeyedState] = {}

    def keyed_state(self, operator_id: str) -> DeferringKeyedState:
        """The keyed state of operator ``operator_id`` (one per id)."""
        if operator_id not in self._states:
            self._states[operator_id] = DeferringKeyedState(self.backend.keyed_state(operator_id))
        return self._states[operator_id]

    def barrier(self, task_id: str) -> None:
        """Task ``task_id`` acknowledged the pending checkpoint: hold its writes back."""
        state = self._states.get(task_id)
        if state is not None:
            state.defer()

    def snapshot(self, directory: str) -> int:
        """Snapshot the backend into ``directory`` (must not exist), then release held writes.

        Returns:
            The snapshot's size in bytes.
        """
        size = self.backend.snapshot(directory)
        self.release()
        return size

    def release(self) -> None:
        """Apply every held-back write (after a snapshot, or when a checkpoint failed)."""
        for state in self._states.values():
            state.apply()

    def restore(self, directory: str) -> None:
        """Replace all state with the snapshot in ``directory`` (written by either backend)."""
        restore_snapshot(self.backend, directory)

    def close(self) -> None:
        """Close the backend."""
        self.backend.close()
