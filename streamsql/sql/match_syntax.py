"""``MATCH_RECOGNIZE`` syntax, as Flink 2.3's parser (Calcite's ``matchRecognize`` rule) reads it.

``FROM t MATCH_RECOGNIZE ( [PARTITION BY ...] [ORDER BY ...] [MEASURES m AS name, ...]
[ONE ROW PER MATCH | ALL ROWS PER MATCH] [AFTER MATCH SKIP ...] PATTERN (...)
[WITHIN INTERVAL ...] [DEFINE v AS cond, ...] ) [[AS] alias]`` parses to a
:class:`MatchRecognize` in the SELECT's ``match`` argument (sqlglot's query modifier), with

- ``pattern``: a tree of :class:`PatternVariable` (a variable and its quantifier),
  :class:`PatternConcat`, :class:`PatternAlternation`, :class:`PatternGroup` and
  :class:`PatternUnsupported` (``PERMUTE``, anchors, exclusions): everything Calcite parses,
  so the planner can refuse in Flink's words what Flink's CEP translation refuses;
- ``after``: a :class:`MatchSkip` (``None`` when the clause is absent);
- ``within``: the ``WITHIN`` interval (Flink's extension of the standard), or None.

Each node is positioned at its first token, for errors with line:column.
"""

from __future__ import annotations

import typing as t

from sqlglot import exp
from sqlglot.generator import Generator
from sqlglot.tokens import Token, TokenType

if t.TYPE_CHECKING:
    from collections.abc import Callable

    from sqlglot.parser import Parser

T = t.TypeVar("T")


class MatchRecognize(exp.MatchRecognize):
    """sqlglot's node plus Flink's ``WITHIN`` interval."""

    arg_types = {**exp.MatchRecognize.arg_types, "within": False}


class MatchSkip(exp.Expression):
    """``AFTER MATCH SKIP ...``.

    Args:
        this: ``"PAST LAST ROW"``, ``"TO NEXT ROW"``, ``"TO FIRST"`` or ``"TO LAST"``
            (``SKIP TO v`` is ``TO LAST``, as Calcite).
        variable: the pattern variable of ``TO FIRST`` / ``TO LAST`` (an Identifier).
    """

    arg_types = {"this": True, "variable": False}


class PatternVariable(exp.Expression):
    """A pattern variable and its quantifier.

    Args:
        this: the variable (an Identifier, case-sensitive as Flink's).
        min: the least number of rows (1 without a quantifier).
        max: the most (None: unbounded).
        reluctant: True for a reluctant quantifier (``*?``, ``+?``, ``{n,m}?``...).
        quantifier: the quantifier as written (``""`` without one), for error messages.
    """

    arg_types = {"this": True, "min": True, "max": False, "reluctant": False, "quantifier": False}

    @property
    def name(self) -> str:
        """The variable's name as written."""
        return self.this.name


class PatternConcat(exp.Expression):
    """Concatenation ``A B C`` (strict contiguity)."""

    arg_types = {"expressions": True}


class PatternAlternation(exp.Expression):
    """Alternation ``A | B``."""

    arg_types = {"expressions": True}


class PatternGroup(exp.Expression):
    """A parenthesized sub-pattern, with its quantifier (``""`` without one)."""

    arg_types = {"this": True, "quantifier": False}


class PatternUnsupported(exp.Expression):
    """``PERMUTE (...)``, an anchor ``^``/``$`` or an exclusion ``{- ... -}``: ``this`` names it."""

    arg_types = {"this": True}


_ENDS = (TokenType.PIPE, TokenType.R_PAREN)


def parse_match_recognize(self: Parser) -> MatchRecognize | None:
    """Parse the clause after its ``MATCH_RECOGNIZE`` keyword (the parser's hook)."""
    if not self._match(TokenType.MATCH_RECOGNIZE):
        return None
    self._match_l_paren()
    partition = self._parse_partition_by()
    order = self._parse_order()
    measures = None
    if self._match_text_seq("MEASURES"):
        measures = _in_clause(self, "MEASURES", lambda: self._parse_csv(lambda: _measure(self)))
    rows = _parse_rows(self)
    after = _parse_after(self)
    if not self._match_text_seq("PATTERN"):
        self.raise_error("Expecting PATTERN (...)")
    self._match_l_paren()
    pattern = _alternation(self)
    self._match_r_paren()
    within = None
    if self._match_text_seq("WITHIN"):
        within = self._parse_interval() or self.raise_error("Expecting an INTERVAL after WITHIN")
    define = _in_clause(self, "DEFINE", lambda: self._parse_csv(self._parse_name_as_expression)) \
        if self._match_text_seq("DEFINE") else None
    self._match_r_paren()
    return self.expression(MatchRecognize(
        partition_by=partition, order=order, measures=measures, rows=rows, after=after, pattern=pattern,
        within=within, define=define, alias=self._parse_table_alias()))


def _in_clause(self: Parser, clause: str, parse: Callable[[], T]) -> T:
    """``parse()`` with the parser's ``match_clause`` set to ``clause`` (see :func:`frame_operand`)."""
    outer, self.match_clause = getattr(self, "match_clause", None), clause
    try:
        return parse()
    finally:
        self.match_clause = outer


#: Why a RUNNING measure is refused (Flink 2.3 fails the query: "Unsupported call: RUNNING(INT)").
RUNNING_REFUSED = ("RUNNING is not supported: ONE ROW PER MATCH computes each measure once, at the end "
                   "of the match (FINAL, the default); Flink 2.3 fails such a query too (Unsupported call: "
                   "RUNNING)")


def frame_operand(self: Parser) -> exp.Expr | None:
    """``RUNNING call(...)`` / ``FINAL call(...)`` inside a MEASURES or DEFINE expression, or None.

    Calcite reads RUNNING and FINAL as prefix operators of the MEASURES and DEFINE expressions;
    Flink 2.3 then refuses either in DEFINE (its validator's "Cannot use RUNNING/FINAL in DEFINE",
    at the word) and fails a RUNNING measure in code generation (:data:`RUNNING_REFUSED`, here at
    the word), while FINAL is what a ONE ROW PER MATCH measure computes anyway: the operand.
    None (parse as usual) outside those clauses or when the word is no prefix of a call.
    """
    clause, word, after = getattr(self, "match_clause", None), self._curr, self._tokens[self._index + 2:][:1]
    if (clause is None or word is None or word.text.upper() not in ("RUNNING", "FINAL") or self._next is None
            or not after or after[0].token_type != TokenType.L_PAREN):
        return None
    self._advance()
    operand = self._parse_unary()
    if clause == "DEFINE":
        self._refuse(f"Cannot use RUNNING/FINAL in DEFINE '{word.text} {operand.sql()}'", word, self._prev)
    if word.text.upper() == "RUNNING":
        self._refuse(RUNNING_REFUSED, word, word)
    return operand


def _measure(self: Parser) -> exp.MatchRecognizeMeasure:
    """``[FINAL] expression AS name`` (the AS is required, as Calcite's grammar); RUNNING refused."""
    if self._curr is not None and self._curr.text.upper() == "RUNNING":
        self._refuse(RUNNING_REFUSED, self._curr, self._curr)
    frame = self._match_texts(("FINAL",)) and self._prev.text.upper()
    expression = self._parse_assignment()
    if not self._match(TokenType.ALIAS):
        self.raise_error("A measure needs a name: MEASURES expression AS name")
    alias = self._parse_id_var(any_token=True)
    return self.expression(exp.MatchRecognizeMeasure(window_frame=frame, this=exp.Alias(this=expression,
                                                                                        alias=alias)))


def _parse_rows(self: Parser) -> exp.Var | None:
    token = self._curr
    if self._match_text_seq("ONE", "ROW", "PER", "MATCH"):
        text = "ONE ROW PER MATCH"
    elif self._match_text_seq("ALL", "ROWS", "PER", "MATCH"):
        text = "ALL ROWS PER MATCH"
        for words in (("SHOW", "EMPTY", "MATCHES"), ("OMIT", "EMPTY", "MATCHES"),
                      ("WITH", "UNMATCHED", "ROWS")):
            if self._match_text_seq(*words):
                text += " " + " ".join(words)
    else:
        return None
    return exp.var(text).update_positions(token)


def _parse_after(self: Parser) -> MatchSkip | None:
    if not self._match_text_seq("AFTER", "MATCH"):
        return None
    token = self._curr
    if not self._match_text_seq("SKIP"):
        self.raise_error("Expecting SKIP after AFTER MATCH")
    if self._match_text_seq("PAST", "LAST", "ROW"):
        return MatchSkip(this="PAST LAST ROW").update_positions(token)
    if not self._match_text_seq("TO"):
        self.raise_error("Expecting TO or PAST after AFTER MATCH SKIP")
    if self._match_text_seq("NEXT", "ROW"):
        return MatchSkip(this="TO NEXT ROW").update_positions(token)
    kind = "TO FIRST" if self._match_text_seq("FIRST") else "TO LAST"
    self._match_text_seq("LAST")
    variable = _variable_name(self) or self.raise_error(f"Expecting a pattern variable after SKIP {kind}")
    return MatchSkip(this=kind, variable=variable).update_positions(token)


def _variable_name(self: Parser) -> exp.Identifier | None:
    """A pattern variable: a quoted or plain identifier (keywords such as ``FIRST`` included)."""
    token = self._curr
    plain = (token is not None and token.token_type != TokenType.NUMBER
             and token.text.replace("_", "a").isalnum())
    if token is None or not (plain or token.token_type == TokenType.IDENTIFIER):
        return None
    self._advance()
    quoted = token.token_type == TokenType.IDENTIFIER
    return exp.Identifier(this=token.text, quoted=quoted).update_positions(token)


def _alternation(self: Parser) -> exp.Expression:
    token = self._curr
    branches = [_concat(self)]
    while self._match(TokenType.PIPE):
        branches.append(_concat(self))
    if len(branches) == 1:
        return branches[0]
    return PatternAlternation(expressions=branches).update_positions(token)


def _concat(self: Parser) -> exp.Expression:
    token = self._curr
    terms = []
    while self._curr and self._curr.token_type not in _ENDS:
        terms.append(_term(self))
    if not terms:
        self.raise_error("Expecting a pattern variable")
    return terms[0] if len(terms) == 1 else PatternConcat(expressions=terms).update_positions(token)


def _term(self: Parser) -> exp.Expression:
    token: Token = self._curr
    if self._match(TokenType.L_PAREN):
        inner = _alternation(self)
        self._match_r_paren()
        low, high, reluctant, text = _quantifier(self)
        return PatternGroup(this=inner, quantifier=text).update_positions(token)
    if token.token_type == TokenType.L_BRACE or token.text in ("^", "$"):
        self.raise_error("Anchors (^, $) and exclusions ({- ... -}) are not supported in PATTERN", token)
    if token.text.upper() == "PERMUTE" and self._next and self._next.token_type == TokenType.L_PAREN:
        self._advance()
        depth = 0
        while self._curr and not (depth == 1 and self._curr.token_type == TokenType.R_PAREN):
            depth += {TokenType.L_PAREN: 1, TokenType.R_PAREN: -1}.get(self._curr.token_type, 0)
            self._advance()
        self._match_r_paren()
        return PatternUnsupported(this="PERMUTE").update_positions(token)
    name = _variable_name(self)
    if name is None:
        self.raise_error(f"Unexpected '{token.text}' in PATTERN", token)
    low, high, reluctant, text = _quantifier(self)
    return PatternVariable(this=name, min=low, max=high, reluctant=reluctant, quantifier=text
                           ).update_positions(token)


def _quantifier(self: Parser) -> tuple[int, int | None, bool, str]:
    """``(min, max, reluctant, text)`` of the quantifier at the cursor; ``(1, 1, False, "")`` without one."""
    start = self._index
    if self._match(TokenType.STAR):
        low, high = 0, None
    elif self._match(TokenType.PLUS):
        low, high = 1, None
    elif self._match(TokenType.PLACEHOLDER):
        low, high = 0, 1
    elif self._curr and self._curr.text == "??":  # one token: the reluctant optional A??
        self._advance()
        text = "".join(tok.text for tok in self._tokens[start:self._index])
        return 0, 1, True, text
    elif self._match(TokenType.L_BRACE):
        first = _number(self)
        if self._match(TokenType.COMMA):
            second = _number(self)
            low, high = (0 if first is None else first), second
        else:
            low = high = first
        if low is None or (first is None and second is None) or not self._match(TokenType.R_BRACE):
            self.raise_error("Expecting {n}, {n,}, {n,m} or {,m}")
    else:
        return 1, 1, False, ""
    reluctant = bool(self._match(TokenType.PLACEHOLDER))
    text = "".join(tok.text for tok in self._tokens[start:self._index])
    return low, high, reluctant, text


def _number(self: Parser) -> int | None:
    """The whole number at the cursor (consumed), or None when there is none."""
    token = self._curr
    if token is None or token.token_type != TokenType.NUMBER:
        return None
    if not token.text.isdigit():
        self.raise_error("Expecting a whole number in a quantifier", token)
    self._advance()
    return int(token.text)


def _pattern_sql(gen: Generator, e: exp.Expression) -> str:
    """Flink SQL of a pattern tree."""
    if isinstance(e, PatternVariable):
        return gen.sql(e.this) + (e.args.get("quantifier") or "")
    if isinstance(e, PatternConcat):
        return " ".join(_pattern_sql(gen, x) for x in e.expressions)
    if isinstance(e, PatternAlternation):
        return " | ".join(_pattern_sql(gen, x) for x in e.expressions)
    if isinstance(e, PatternGroup):
        return f"({_pattern_sql(gen, e.this)}){e.args.get('quantifier') or ''}"
    return f"{e.this} (...)" if e.this == "PERMUTE" else str(e.this)


def _match_recognize_sql(gen: Generator, e: MatchRecognize) -> str:
    parts = []
    if e.args.get("partition_by"):
        parts.append("PARTITION BY " + ", ".join(gen.sql(p) for p in e.args["partition_by"]))
    if e.args.get("order") is not None:
        parts.append(gen.sql(e.args["order"]).strip())
    if e.args.get("measures"):
        parts.append("MEASURES " + ", ".join(gen.sql(m) for m in e.args["measures"]))
    if e.args.get("rows") is not None:
        parts.append(gen.sql(e.args["rows"]))
    if e.args.get("after") is not None:
        parts.append(_skip_sql(gen, e.args["after"]))
    parts.append(f"PATTERN ({_pattern_sql(gen, e.args['pattern'])})")
    if e.args.get("within") is not None:
        parts.append("WITHIN " + gen.sql(e.args["within"]))
    if e.args.get("define"):
        parts.append("DEFINE " + ", ".join(f"{gen.sql(d, 'alias')} AS {gen.sql(d, 'this')}"
                                           for d in e.args["define"]))
    alias = gen.sql(e, "alias")
    return f" MATCH_RECOGNIZE ({' '.join(parts)}){' ' + alias if alias else ''}"


def _skip_sql(gen: Generator, e: MatchSkip) -> str:
    variable = e.args.get("variable")
    return f"AFTER MATCH SKIP {e.this}{' ' + gen.sql(variable) if variable is not None else ''}"


TRANSFORMS: dict[type[exp.Expression], t.Callable[..., str]] = {
    MatchRecognize: _match_recognize_sql,
    MatchSkip: _skip_sql,
    **{cls: _pattern_sql for cls in (PatternVariable, PatternConcat, PatternAlternation, PatternGroup,
                                      PatternUnsupported)},
}
"""How a generator writes these nodes (the Flink generator's and sqlglot's default one)."""
Generator.TRANSFORMS.update(TRANSFORMS)
