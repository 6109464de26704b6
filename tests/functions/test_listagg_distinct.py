"""LISTAGG(DISTINCT ...)'s accumulator: Flink's distinct view (a count per value) before ListAggWs.

The whole statements are compat cases ``listagg_distinct_*`` (Flink 2.3's answers); this checks the
folding rules they rest on, one at a time.
"""

from streamsql.functions.ordered_aggregates import ListAggDistinct


def fold(rows):
    f = ListAggDistinct()
    acc = f.create_accumulator()
    for sign, value in rows:
        (f.accumulate if sign == "+" else f.retract)(acc, value, "|")
    return f, acc


def test_each_value_once_in_first_arrival_order():
    f, acc = fold([("+", "x"), ("+", "y"), ("+", "x"), ("+", None), ("+", "z")])
    assert f.get_value(acc) == "x|y|z"


def test_a_value_leaves_at_its_last_retraction_and_comes_back_last():
    f, acc = fold([("+", "x"), ("+", "y"), ("+", "x"), ("-", "x")])
    assert f.get_value(acc) == "x|y"  # one x is left
    f.retract(acc, "x", "|")
    assert f.get_value(acc) == "y"
    f.accumulate(acc, "x", "|")
    assert f.get_value(acc) == "y|x"


def test_retracting_an_absent_value_or_null_changes_nothing():
    f, acc = fold([("+", "x"), ("-", "q"), ("-", None)])
    assert f.get_value(acc) == "x"


def test_null_without_a_value():
    f, acc = fold([("+", None), ("+", "x"), ("-", "x")])
    assert f.get_value(acc) is None


def test_merge_adds_counts_and_appends_new_values():
    f, acc = fold([("+", "x"), ("+", "y")])
    _, other = fold([("+", "y"), ("+", "z")])
    f.merge(acc, [other])
    assert f.get_value(acc) == "x|y|z"
    f.retract(acc, "y", "|")
    assert f.get_value(acc) == "x|y|z"  # y was counted twice
