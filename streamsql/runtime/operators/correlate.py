"""Correlate: each row joined with the rows a Python table function gives for it (Flink's Correlate).

Stateless. Per batch, the function is called once per row with its argument columns' values
(:meth:`~streamsql.functions.udtf.UserTableFunction.rows`); the output repeats the row's kept
columns (and its row kind, so a changelog stays one) once per result row, followed by the
result columns. With ``left`` (``LEFT JOIN LATERAL TABLE(...) ON TRUE``) a row with no result
row is emitted once with NULL result columns. A failing call names the record it was made for
(``Batch.origin``), and each output row keeps its input row's origin.
"""

from __future__ import annotations

import itertools

import numpy as np
import pyarrow as pa

from streamsql.core.elements import Batch, Element
from streamsql.core.errors import ExecutionError
from streamsql.core.py_values import user_values
from streamsql.functions.udtf import UserTableFunction
from streamsql.runtime.operators.base import Operator


class CorrelateOperator(Operator):
    """See module docstring.

    Args:
        function: the table function.
        args: the input columns of its arguments.
        keep: the first ``keep`` input columns are passed on.
        left: keep rows without result rows (NULL result columns).
        output_schema: the kept columns, then the function's.
    """

    def __init__(
        self, function: UserTableFunction, args: list[int], keep: int, left: bool, output_schema: pa.Schema
    ):
        self.function = function
        self.args = args
        self.keep = keep
        self.left = left
        self.output_schema = output_schema

    def process_batch(self, batch: Batch, input_index: int) -> list[Element]:
        """The joined rows of ``batch`` (nothing when no row gives one).

        Raises:
            ExecutionError: the function raised or gave a row of the wrong width.
        """
        table = batch.table
        columns = [user_values(table.column(i)) for i in self.args]
        width = len(self.function.results)
        nulls = [(None,) * width]
        source, results = [], []
        for i, args in enumerate(zip(*columns) if columns else itertools.repeat((), table.num_rows)):
            try:
                rows = self.function.rows(args) or (nulls if self.left else [])
            except ExecutionError as e:
                if batch.origin is None:
                    raise
                msg = f"{e} (record {batch.origin(i)})"
                raise ExecutionError(msg) from None
            source += [i] * len(rows)
            results += rows
        if not source:
            return []
        take = pa.array(source, pa.int64())
        arrays = [table.column(k).take(take) for k in range(self.keep)]
        fields = list(self.output_schema)[self.keep :]
        arrays += [self._column(col, f, source, batch) for col, f in zip(zip(*results), fields)]
        kinds = None if batch.kinds is None else batch.kinds[np.array(source)]
        origin = None if batch.origin is None else (lambda r, o=batch.origin: o(source[r]))
        return [Batch(pa.Table.from_arrays(arrays, schema=self.output_schema), kinds, origin=origin)]

    def _column(self, values: tuple, field: pa.Field, source: list[int], batch: Batch) -> pa.Array:
        """One result column as an Arrow array of its declared type.

        Raises:
            ExecutionError: a value the function yielded does not fit the declared result type
                (named with the function, the column and the input record).
        """
        try:
            return pa.array(list(values), field.type)
        except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError, TypeError):
            for n, value in enumerate(values):
                try:
                    pa.array([value], field.type)
                except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError, TypeError):
                    where = "" if batch.origin is None else f" (record {batch.origin(source[n])})"
                    position = list(self.output_schema).index(field) - self.keep
                    declared = self.function.results[position]
                    msg = (f"Python table function '{self.function.name}' yielded {value!r} as its result "
                           f"column {position + 1}, which is declared {declared}{where}")
                    raise ExecutionError(msg) from None
            raise
