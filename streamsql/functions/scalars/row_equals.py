"""``ROW(x0, x1, ..) = ROW(y0, y1, ..)``: the fields' equalities joined by AND, as Calcite's convertlet.

Flink inherits Calcite's ``StandardConvertletTable.convertCall``: an ``=`` whose operands are both
ROW constructors (``ROW(..)`` or ``(..)``, under any CASTs, which ``RexUtil.removeCast`` drops) is
expanded to ``x0 = y0 AND x1 = y1 AND ..``, each field compared in its own type. So a field NULL on
one side makes the comparison NULL (unless another field differs: false), where ROW values compare as
records: a NULL field equal to a NULL field, unequal to a value (Flink 2.3: ``ROW(j, u) = ROW(1, u)``
is NULL for j NULL; ``p = ROW(1, 'a', NULL)`` of a ROW column ``p`` is true for ``p`` = (1, 'a',
NULL): compat case ``composite_compare``). A ROW constructor IN a list of ROW constructors is
expanded the same way (each item's fields, ORed). Only these are: ``<>``, ``IS [NOT] DISTINCT
FROM`` compare the records; the expanded fields' own ``=`` are not expanded again (nested ROW
constructors compare as records). Flink 2.3's answers: ``scripts/flink_difffuzz.py``'s regression
expressions (``# Session 33``).
"""

from __future__ import annotations

from sqlglot import exp

_EXPANDED = "row_equals_expanded"
"""Meta flag of a field's ``=`` made here (Calcite builds it without the convertlet: never expanded)."""

_POSITION = ("line", "col", "start", "end")


def _constructor(n: exp.Expression) -> exp.Expression | None:
    """The ROW constructor ``n`` is, under parentheses and CASTs, or None."""
    while isinstance(n, exp.Paren) or type(n) is exp.Cast:
        n = n.this
    if isinstance(n, exp.Tuple) or isinstance(n, exp.Anonymous) and n.name.upper() == "ROW":
        return n
    return None


def _row(n: exp.Expression) -> exp.Expression | None:
    """The ROW constructor ``n`` is under parentheses only (an IN's operands: a CAST is one key), or None."""
    while isinstance(n, exp.Paren):
        n = n.this
    return _constructor(n) if type(n) is not exp.Cast else None


def handles(n: exp.Expression) -> bool:
    """Whether ``n`` is a ROW comparison Calcite expands.

    An ``=`` of two ROW constructors of as many fields (not made here), or a ROW constructor IN a
    list of ROW constructors of as many fields (at least two).
    """
    if isinstance(n, exp.In) and not n.args.get("query") and n.expressions:
        left, items = _row(n.this), [_row(e) for e in n.expressions]
        return (left is not None and len(left.expressions) > 1
                and all(i is not None and len(i.expressions) == len(left.expressions) for i in items))
    if not isinstance(n, exp.EQ) or n.meta.get(_EXPANDED):
        return False
    left, right = _constructor(n.this), _constructor(n.expression)
    return (left is not None and right is not None
            and len(left.expressions) == len(right.expressions) > 0)


def rewrite(n: exp.EQ | exp.In) -> exp.Expression:
    """The fields' ``=`` joined by AND (uncompiled sqlglot, positioned as ``n``).

    For IN, those of each item joined by OR (Calcite's ``SqlToRelConverter.convertInToOr``: the
    left ROW's fields are the IN's keys; ``NOT IN`` is the NOT of it).
    """
    if isinstance(n, exp.In):
        left = _row(n.this).expressions
        out = exp.or_(*(_fields_equal(n, left, _row(e).expressions) for e in n.expressions), copy=False)
        out = exp.paren(out, copy=False)
    else:
        out = _fields_equal(n, _constructor(n.this).expressions, _constructor(n.expression).expressions)
    out.meta.update({k: v for k, v in n.meta.items() if k in _POSITION})
    return out


def _fields_equal(n: exp.Expression, left: list[exp.Expression], right: list[exp.Expression]
                  ) -> exp.Expression:
    """``left[0] = right[0] AND ..`` (each ``=`` marked not to expand again), positioned as ``n``."""
    equals = []
    for x, y in zip(left, right):
        eq = exp.EQ(this=x.copy(), expression=y.copy())
        eq.meta[_EXPANDED] = True
        eq.meta.update({k: v for k, v in n.meta.items() if k in _POSITION})
        equals.append(eq)
    out = exp.paren(exp.and_(*equals, copy=False), copy=False) if len(equals) > 1 else equals[0]
    out.meta.update({k: v for k, v in n.meta.items() if k in _POSITION})
    return out
