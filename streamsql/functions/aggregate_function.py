"""The interface of an aggregate function object: one call of an operator, in every form it has.

:class:`AggregateFunction` is what every aggregate of :mod:`streamsql.functions.aggregates`
implements (forms and states: that module's docstring); here are also the helpers their
fixed-width forms share and the error of BIGINT arithmetic that leaves its range.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

import numpy as np
import pyarrow as pa

from streamsql.core.errors import ExecutionError
from streamsql.core.py_values import py_values
from streamsql.core.types import SqlType

if TYPE_CHECKING:
    from streamsql.functions.aggregates import AggSpec

BIGINT_MIN, BIGINT_MAX = -(2**63), 2**63 - 1


def overflow_error(context: str, detail: str) -> ExecutionError:
    """The error of an aggregate whose BIGINT arithmetic left the range (``context``: the operator)."""
    return ExecutionError(f"{context} aggregate overflow: {detail}")


@dataclass(eq=False)
class AggregateFunction:
    """One aggregate call of an operator (its forms: :mod:`streamsql.functions.aggregates`).

    Args:
        index: the position of this state among the operator's; names its partial columns
            (``__p{index}_{k}``) and fixed-width fields (``p{index}_{name}``).
        spec: the call.
        arg: the argument as a quoted DuckDB column (None for COUNT(*)).
        arg_type: the argument's Arrow type (None for COUNT(*)).
        out_type: the Arrow type of the result column.
        label: the result column's name, for errors.
        context: the operator, for errors (e.g. ``GROUP BY``).
    """

    func: ClassVar[str] = ""
    #: Partial state columns (0: the object form reads a multiset query instead).
    width: ClassVar[int] = 1
    #: The object accumulator is a {value: multiplicity} of the argument.
    multiset: ClassVar[bool] = False
    #: The object accumulator is an immutable scalar, and it is the result as is.
    scalar: ClassVar[bool] = False
    #: Has a DuckDB combine form (partial states of several batches or slices merge in SQL).
    combinable: ClassVar[bool] = True
    #: The object accumulator is folded from the input rows in order (``fold_rows``: a Python
    #: aggregate, :mod:`streamsql.functions.udaf`), not from partial states.
    rowwise: ClassVar[bool] = False

    index: int
    spec: AggSpec
    arg: str | None
    arg_type: pa.DataType | None
    out_type: pa.DataType
    label: str
    context: str

    def __post_init__(self) -> None:
        self.columns = [f"__p{self.index}_{k}" for k in range(self.width)]
        #: The partial state depends on the rows' order within a DuckDB query (``first``,
        #: ``list``): the operator's DuckDB runs one thread, which keeps the input's order.
        self.ordered = False

    @staticmethod
    def result_type(arg: SqlType | None) -> SqlType:
        """The SQL type of the result for an argument of type ``arg``."""
        return arg

    @classmethod
    def accumulator_format(cls, spec: AggSpec, fixed: bool) -> int | None:
        """The version of the state call ``spec`` keeps, when it changed since state signatures exist.

        None (the first format) for most functions; a number when what the accumulator holds or
        means changed, recorded with the call in state signatures
        (:mod:`streamsql.plan.state_signature`), so a checkpoint of the old format is refused, never
        misread.

        Args:
            spec: the call.
            fixed: the operator keeps the fixed-width form (a GROUP BY whose calls all have one).
        """
        return None

    # -- DuckDB partial / combine ----------------------------------------------------------------

    def partial(self, sign: str | None) -> list[str]:
        """DuckDB aggregate expressions of the partial state, one per :attr:`columns`.

        Args:
            sign: the column of the row's sign (+1 / -1) over a changelog, None for insert-only.
        """
        raise NotImplementedError

    def ordered_partial(self, sign: str | None) -> list[str]:
        """The partial state a fold into an accumulator reads (:meth:`fold`, :meth:`fold_fixed`).

        :meth:`partial`'s, unless the result depends on the order the values are added in and the
        state keeps the order (a floating-point SUM's list of the values).
        """
        return self.partial(sign)

    def combine(self) -> list[str]:
        """DuckDB aggregate expressions that combine partial states (over :attr:`columns`)."""
        raise NotImplementedError

    def finish(self, parts: list[pa.ChunkedArray]) -> pa.ChunkedArray | pa.Array:
        """The result column from combined partial state columns."""
        return parts[0]

    # -- fixed width ------------------------------------------------------------------------------

    def fixed_fields(self) -> list[tuple[str, str]] | None:
        """The numpy fields ``(field name, dtype)`` of the fixed-width form, or None (no such form)."""
        return None

    def field(self, name: str) -> str:
        """The full name of this state's fixed-width field ``name``."""
        return f"p{self.index}_{name}"

    def partial_numpy(self, values: pa.Array | None, groups: np.ndarray, n: int) -> list[pa.Array] | None:
        """The partial state columns of an insert-only batch, grouped with numpy; None: use DuckDB.

        The same columns (types and values) as :meth:`partial` gives DuckDB without a sign, one
        row per group. None when this call has no such form or these values need DuckDB's.

        Args:
            values: the argument column (one chunk), None for ``COUNT(*)``.
            groups: the group (``0 .. n - 1``) of each row.
            n: the number of groups.
        """
        return None

    def fixed_of_object(self, acc) -> dict[str, object] | None:
        """The fixed-width fields (name -> value) of the object accumulator ``acc``; None: no such conversion.

        Where both forms hold the same numbers (a count, an integer sum), a restore moves a GROUP BY's
        state from one form to the other (:mod:`streamsql.runtime.operators.group_agg_upgrade`).
        """
        return None

    def start_fixed(self, cols: dict[str, np.ndarray], slots: np.ndarray) -> None:
        """Set the fields of new records at ``slots`` (zeroed) to a new accumulator's; zeros by default."""

    def fold_fixed(self, cols: dict[str, np.ndarray], slots: np.ndarray, parts: list[pa.ChunkedArray],
                   ) -> None:
        """Fold a batch's partial states (one row per slot in ``slots``) into the fields ``cols``."""
        raise NotImplementedError

    def result_fixed(self, cols: dict[str, np.ndarray], slots: np.ndarray,
                     ) -> tuple[np.ndarray, np.ndarray | None]:
        """The results at ``slots``: ``(values, validity)``, validity None when never NULL."""
        raise NotImplementedError

    # -- objects ---------------------------------------------------------------------------------

    def create(self):
        """An empty object accumulator."""
        return 0

    def to_objects(self, part: pa.ChunkedArray) -> list:
        """A partial state column as the Python values :meth:`fold` takes (:func:`py_values`)."""
        return py_values(part)

    def fold(self, accs: list[list], slot: int, parts: list[list]) -> None:
        """Fold partial states (Python lists, one item per accumulator) into ``acc[slot]`` of ``accs``."""
        raise NotImplementedError

    def fold_columns(self, accs: list[list], slot: int, columns: list[pa.ChunkedArray]) -> None:
        """:meth:`fold` of a batch's partial state columns (Arrow), row i into ``accs[i]``."""
        self.fold(accs, slot, [self.to_objects(c) for c in columns])

    def fold_multiset(self, accs: list[list], slot: int, rows: list[int], values: list,
                      mults: list[int]) -> None:
        """Add multiplicity ``mults[i]`` of ``values[i]`` to the multiset ``accs[rows[i]][slot]``."""
        for i, v, d in zip(rows, values, mults):
            ms = accs[i][slot]
            n = ms.get(v, 0) + d
            if n > 0:
                ms[v] = n
            else:
                ms.pop(v, None)

    def merge(self, a, b):
        """The accumulator of the union of the rows of accumulators ``a`` and ``b`` (may reuse ``a``)."""
        return a + b

    def result(self, acc):
        """The result value of an object accumulator."""
        return acc

    # -- Flink's row-by-row emission (streamsql.runtime.operators.group_agg_rows) ------------------

    @property
    def residue(self) -> bool:
        """Retracting every row added may leave a state other than a new accumulator's.

        Flink starts a key whose last row was retracted from new accumulators; a GROUP BY cuts a
        batch where that happens when some state keeps a residue: a Python aggregate's accumulator
        (or any row-wise one) does, unless a subclass knows better.
        """
        return self.rowwise

    def zero_sign_rows(self, values: pa.ChunkedArray) -> np.ndarray | None:
        """Per row of argument ``values``: may it flip the sign of a zero result that stays equal?

        Flink's equaliser takes -0.0 for 0.0, so such a flip is not emitted. By default a
        floating result over a floating argument may flip on any zero value; None: this call's
        result never flips (not floating).
        """
        if self.arg_type is None or not pa.types.is_floating(self.out_type) \
                or not pa.types.is_floating(self.arg_type):
            return None
        return zero_mask(values)


def zero_mask(values: pa.ChunkedArray | pa.Array, sign: int = 0) -> np.ndarray:
    """Per value: a floating zero (``sign`` -1: -0.0 only, 1: 0.0 only, 0: either); a NULL is none."""
    v = values.to_numpy(zero_copy_only=False) if isinstance(values, pa.Array) \
        else np.asarray(values.to_numpy(), dtype=np.float64)
    v = np.asarray(v, dtype=np.float64)  # NULLs are NaN here: no zero
    zero = v == 0
    if sign:
        zero &= np.signbit(v) == (sign < 0)
    return zero


def valid_mask(arr: pa.ChunkedArray | pa.Array) -> np.ndarray:
    """True where ``arr`` is not NULL (bool array)."""
    if arr.null_count == 0:
        return np.ones(len(arr), bool)
    return arr.is_valid().to_numpy(zero_copy_only=False)


def numpy_values(arr: pa.ChunkedArray | pa.Array, dtype) -> np.ndarray:
    """Values as ``dtype`` (NULL → 0; dates and timestamps as their integer storage)."""
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks()
    t = arr.type
    if pa.types.is_timestamp(t) or pa.types.is_date(t):
        arr = arr.view(pa.int64() if t.bit_width == 64 else pa.int32())
    if arr.null_count:
        arr = arr.fill_null(0)
    return arr.to_numpy(zero_copy_only=False).astype(dtype, copy=False)
