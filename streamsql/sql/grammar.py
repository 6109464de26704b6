"""The Flink parser: sqlglot's base parser plus hooks for the syntax Flink adds.

Find a construct by its method name, ``_parse_<construct>``:

- client statements (``SET``, ``SHOW ...``, ``EXPLAIN``, ``STOP JOB``, ``PRINT TOPIC``,
  ``EXECUTE STATEMENT SET``, ``HELP`` ...) are dispatched on their first word by
  :attr:`FlinkParser.FLINK_STATEMENTS` from :meth:`FlinkParser._parse_statement`;
- column constraints ``METADATA [FROM 'k'] [VIRTUAL]`` and the schema item
  ``WATERMARK FOR c AS expr`` come through ``CONSTRAINT_PARSERS``;
- window TVFs ``TUMBLE/HOP/CUMULATE/SESSION(TABLE t, DESCRIPTOR(c), ...)`` come through
  ``FUNCTION_PARSERS`` and ``TABLE(...)`` becomes ``exp.TableFromRows``;
- ``MATCH_RECOGNIZE (...)`` after a table: :mod:`streamsql.sql.match_syntax`;
- the built-in PTFs ``TO_CHANGELOG`` / ``FROM_CHANGELOG`` through ``FUNCTION_PARSERS``:
  :mod:`streamsql.sql.ptf_syntax`.
"""

from __future__ import annotations

import re
import typing as t

from sqlglot import exp, parser
from sqlglot.dialects.dialect import build_date_delta
from sqlglot.errors import ParseError
from sqlglot.helper import seq_get
from sqlglot.tokens import Token, TokenType

from streamsql.functions.scalars.interval_qualifier import PRECISIONS, parse_qualifier, qualifier_error
from streamsql.sql import nodes
from streamsql.sql.match_syntax import frame_operand, parse_match_recognize
from streamsql.sql.ptf_syntax import parse_changelog_call

# Flink's named TVF parameters mapped to node args.
_TVF_PARAM_NAMES = {
    "DATA": "this", "TIMECOL": "time_col", "SIZE": "size", "SLIDE": "slide", "STEP": "step",
    "OFFSET": "offset", "GAP": "gap",
}
_EXPLAIN_DETAILS = ("ESTIMATED_COST", "CHANGELOG_MODE", "PLAN_ADVICE", "JSON_EXECUTION_PLAN")
_SET_PREFIX = ["EXECUTE", "STATEMENT", "SET", "BEGIN"]
_CONFLICT_ACTIONS = ("ERROR", "NOTHING", "DEDUPLICATE")  # INSERT ... ON CONFLICT DO <action>
# The {...} ON EMPTY / ON ERROR behaviours each JSON function takes (Calcite's grammar)
_JSON_BEHAVIOURS = {"JSON_VALUE": ("NULL", "ERROR", "DEFAULT"),
                    "JSON_QUERY": ("NULL", "ERROR", "EMPTY ARRAY", "EMPTY OBJECT"),
                    "JSON_EXISTS": ("TRUE", "FALSE", "UNKNOWN", "ERROR")}
_SIMPLE_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def _unit_upper(node: exp.Expr) -> exp.Expr:
    unit = node.args.get("unit")
    node.set("unit", exp.var((unit.name if unit else "DAY").upper()))
    return node


def _map_value(expressions: list[exp.Expr]) -> exp.VarMap:
    """``MAP[k1, v1, ...]`` as keys and values arrays (an odd count leaves the last key valueless)."""
    keys, values = expressions[0::2], expressions[1::2]
    return exp.VarMap(keys=exp.Array(expressions=keys), values=exp.Array(expressions=values))


_POSITIONED_CALLS = (exp.ArrayAgg, exp.JSONArrayAgg)


def _position(node: t.Any, token: Token | None) -> None:
    """Give ``node`` the source position of ``token`` unless it already has one."""
    if isinstance(node, exp.Expr) and token is not None and node.meta.get("line") is None:
        node.update_positions(token)


def chunk_tokens(tokens: list[Token]) -> list[list[Token]]:
    """Split a token stream into statements at ``;``.

    Unlike sqlglot's default, the semicolons inside ``EXECUTE STATEMENT SET BEGIN ... END``
    do not end the statement, so the whole block parses as one :class:`nodes.StatementSet`.

    Returns:
        one token list per statement (possibly empty lists for empty statements).
    """
    chunks: list[list[Token]] = [[]]
    in_set = False
    for i, token in enumerate(tokens):
        chunk = chunks[-1]
        # Only a short chunk can be the block's start (EXPLAIN PLAN FOR EXECUTE STATEMENT SET BEGIN is
        # 7 tokens): upper-casing every chunk whole at each token made a 1,000-row VALUES take 19 s.
        words = [x.text.upper() for x in chunk] if len(chunk) <= 8 else []
        if words and words[0] == "EXPLAIN":  # EXPLAIN [PLAN FOR] EXECUTE STATEMENT SET BEGIN ...
            words = [w for w in words[1:] if w not in ("PLAN", "FOR")]
            if words[:2] == ["STATEMENT", "SET"]:
                words = ["EXECUTE"] + words
        if not in_set and words == _SET_PREFIX:
            in_set = True
        if in_set:
            prev = chunk[-1] if chunk else None
            # END closes the block only at a statement boundary (CASE ... END does not).
            at_boundary = prev and prev.token_type in (TokenType.SEMICOLON, TokenType.BEGIN)
            if token.text.upper() == "END" and at_boundary:
                in_set = False
            chunk.append(token)
        elif token.token_type == TokenType.SEMICOLON:
            if token.comments:  # as sqlglot does: keep the comment as its own exp.Semicolon
                chunks.append([token])
            if i < len(tokens) - 1:
                chunks.append([])
        else:
            chunk.append(token)
    return chunks


#: Tokens that cannot begin a list item: after a ',' they mean the item is missing (FROM:
#: ``SELECT a, FROM t`` was taken as ``SELECT a FROM t``; Flink's parser refuses it).
_NO_ITEM = frozenset({
    TokenType.COMMA, TokenType.R_PAREN, TokenType.R_BRACKET, TokenType.SEMICOLON, TokenType.FROM,
})


# SHOW statements about the catalog namespace (nodes.ShowNamespace), longest first.
_SHOW_NAMESPACE = (
    ("CURRENT", "CATALOG"), ("CURRENT", "DATABASE"), ("FULL", "MODULES"), ("CATALOGS",), ("DATABASES",),
    ("MODULES",),
)
# What a CREATE TABLE ... LIKE option can name (Flink's SqlTableLike.FeatureOption).
_LIKE_FEATURES = ("ALL", "CONSTRAINTS", "DISTRIBUTION", "GENERATED", "METADATA", "OPTIONS", "PARTITIONS",
                  "WATERMARKS")


_DECIMAL_TEXT = re.compile(r"\s*([+-]?)(\d*\.\d*)\s*")


def _decimal_literal(p: parser.Parser, this: exp.Expr, to: exp.DataType) -> exp.Expr:
    """``DECIMAL 'x.y'``: the numeric literal ``x.y`` (its sign a negation), typed as Calcite types it.

    Every digit written counts (``DECIMAL '1.50'`` is DECIMAL(3, 2), as the literal ``1.50``); a text
    without a point, or not a plain decimal number, stays a CAST to DECIMAL (a bad text is refused there).
    """
    m = _DECIMAL_TEXT.fullmatch(this.name) if isinstance(this, exp.Literal) and this.is_string else None
    if m is None or m[2] == "." or to.expressions:
        return p.expression(exp.Cast(this=this, to=to))
    number = exp.Literal.number(m[2])
    number.meta.update(this.meta)
    return exp.Neg(this=number) if m[1] == "-" else number


class FlinkParser(parser.Parser):
    """sqlglot's parser with Flink's statements, column constraints and window TVFs."""

    FUNCTIONS = {
        **parser.Parser.FUNCTIONS,
        # TIMESTAMPDIFF(unit, t1, t2) = t2 - t1, as in MySQL.
        "TIMESTAMPDIFF": build_date_delta(exp.TimestampDiff),
        "TIMESTAMPADD": lambda args: _unit_upper(build_date_delta(exp.TimestampAdd)(args)),
        # FROM TABLE(<tvf>) — the base parser hoists alias/joins onto TableFromRows.
        "TABLE": lambda args: exp.TableFromRows(this=seq_get(args, 0)),
        # TYPEOF(x [, force_serializable]): sqlglot's Typeof takes one argument.
        "TYPEOF": lambda args: exp.Anonymous(this="TYPEOF", expressions=args),
        # LOWER(HEX(x)) / UPPER(HEX(x)) as written: sqlglot folds them into LowerHex / Hex, whose
        # argument is x (LOWER(HEX(b)) was refused as LOWER of a number)
        "LOWER": lambda args: exp.Lower(this=seq_get(args, 0)),
        "UPPER": lambda args: exp.Upper(this=seq_get(args, 0)),
        # ARRAY_AGG(a, b): kept whole for the planner to refuse (sqlglot's ArrayAgg drops b).
        "ARRAY_AGG": lambda args, dialect: exp.Anonymous(this="ARRAY_AGG", expressions=args) if len(args) > 1
        else parser.Parser.FUNCTIONS["ARRAY_AGG"](args, dialect),
    }

    # DECIMAL '1.50' is Calcite's exact numeric literal 1.50, DECIMAL(3, 2) (Flink 2.3's DESCRIBE:
    # scripts/flink_query_gaps.py), not a CAST to DECIMAL(10, 0) (it was 2 here)
    TYPE_LITERAL_PARSERS = {**parser.Parser.TYPE_LITERAL_PARSERS,
                            exp.DType.DECIMAL: lambda self, this, to: _decimal_literal(self, this, to)}

    # LOCALTIMESTAMP and LOCALTIME are Flink's niladic functions (reserved words), not columns.
    NO_PAREN_FUNCTIONS = {**parser.Parser.NO_PAREN_FUNCTIONS, TokenType.LOCALTIMESTAMP: exp.Localtimestamp,
                          TokenType.LOCALTIME: exp.Localtime}

    # MAP[k, v, ...] is Flink's map value constructor (ARRAY[...] is sqlglot's already).
    ARRAY_CONSTRUCTORS = {**parser.Parser.ARRAY_CONSTRUCTORS, "MAP": _map_value}

    # SESSION is a keyword token in sqlglot; Flink also uses it as the session window TVF.
    FUNC_TOKENS = {*parser.Parser.FUNC_TOKENS, TokenType.SESSION}

    PRIMARY_PARSERS = {
        **parser.Parser.PRIMARY_PARSERS,
        # NULL keeps its position: a VALUES cell refuses an untyped NULL at it (plan/values.py)
        TokenType.NULL: lambda self, token: self.expression(exp.Null()).update_positions(token),
    }
    FUNCTION_PARSERS = {
        **parser.Parser.FUNCTION_PARSERS,
        **{name: (lambda self, n=name: self._parse_window_tvf(n)) for name in nodes.WINDOW_TVFS},
        **{name: (lambda self, n=name: parse_changelog_call(self, n)) for name in nodes.CHANGELOG_FUNCTIONS},
        "JSON_ARRAYAGG": lambda self: self._parse_json_arrayagg(),
        "JSON_ARRAY": lambda self: self._parse_json_array(),
        "JSON_VALUE": lambda self: self._parse_json_call("JSON_VALUE"),
        "JSON_QUERY": lambda self: self._parse_json_call("JSON_QUERY"),
        "JSON_EXISTS": lambda self: self._parse_json_call("JSON_EXISTS"),
    }

    CONSTRAINT_PARSERS = {
        **parser.Parser.CONSTRAINT_PARSERS,
        "METADATA": lambda self: self._parse_metadata_constraint(),
        "WATERMARK": lambda self: self._parse_watermark(),
    }

    # Teradata's CREATE ... SET property: after a CREATE TABLE whose ';' is missing it took the
    # next SET statement's 'key' = 'value' as one more table option (see _parse_as_command).
    PROPERTY_PARSERS = {k: v for k, v in parser.Parser.PROPERTY_PARSERS.items() if k != "SET"}
    # Flink 2.x's DISTRIBUTED BY [HASH | RANGE](c) [INTO n BUCKETS]: Doris' DISTRIBUTED BY ...
    # BUCKETS n in sqlglot, which failed at INTO with a bare syntax error; refused by name
    PROPERTY_PARSERS["DISTRIBUTED"] = lambda self: self.raise_error(
        "DISTRIBUTED BY / DISTRIBUTED INTO n BUCKETS is not supported: StreamSQL's tables have no "
        "buckets (no connector here takes them); remove the clause", self._prev)

    SCHEMA_UNNAMED_CONSTRAINTS = {*parser.Parser.SCHEMA_UNNAMED_CONSTRAINTS, "WATERMARK"}

    _in_limit = False  # parsing a LIMIT clause (not FETCH): see _parse_limit_options

    # Clauses (WHERE, GROUP BY, ORDER BY, LIMIT, OFFSET ...) remember their keyword's position,
    # so the planner can point at e.g. LIMIT when it rejects one.
    QUERY_MODIFIER_PARSERS = {
        token_type: (lambda self, p=parse: self._parse_positioned_modifier(p))
        for token_type, parse in parser.Parser.QUERY_MODIFIER_PARSERS.items()
    }

    FLINK_STATEMENTS: t.ClassVar[dict[str, t.Callable[[FlinkParser], exp.Expr | None]]] = {
        "SET": lambda self: self._parse_set_option(),
        "RESET": lambda self: self.expression(nodes.ResetOption(this=self._parse_option_text(optional=True))),
        "SHOW": lambda self: self._parse_show(),
        "DESCRIBE": lambda self: self._parse_describe(),
        "DESC": lambda self: self._parse_describe(),
        "EXPLAIN": lambda self: self._parse_explain(),
        "STOP": lambda self: self._parse_stop_job(),
        "PRINT": lambda self: self._parse_print_topic(),
        "EXECUTE": lambda self: self._parse_statement_set(),
        "BEGIN": lambda self: self._parse_begin_statement_set(),
        "CREATE": lambda self: self._parse_create_or_drop(create=True),
        "DROP": lambda self: self._parse_create_or_drop(create=False),
        "END": lambda self: nodes.EndStatementSet(),
        "ALTER": lambda self: self._parse_alter_table(),
        "USE": lambda self: self._parse_use_modules(),
        **{
            name: (lambda self, n=name: self._parse_client_command(n))
            for name in nodes.CLIENT_COMMANDS
        },
    }
    """Statements recognised by their first word (case-insensitive), checked before the
    base parser's ``STATEMENT_PARSERS``. A hook returning None falls back to the base parser."""

    def raise_error(self, message: str, token: Token | None = None) -> None:
        """Raise (or record) a ParseError that also carries the token's character offsets.

        sqlglot's error dict has ``line``/``col`` of the token's last character; we add
        ``start``/``end`` so callers can point at the token's first character, and
        ``at_end`` when the input ran out (the token is then the last one).
        """
        at_end = not token and not self._curr  # sqlglot uses a falsy sentinel token at the end
        token = token or self._curr or self._prev or Token.string("")
        where = {"start": token.start, "end": token.end, "at_end": at_end}
        try:
            super().raise_error(message, token)
        except ParseError as e:
            e.errors[0].update(where)
            raise
        if self.errors:
            self.errors[-1].errors[0].update(where)

    def _parse_unary(self):  # noqa: D102 - sqlglot's private hook
        # RUNNING / FINAL before a call in MATCH_RECOGNIZE's MEASURES and DEFINE (match_syntax)
        return frame_operand(self) or super()._parse_unary()

    def _refuse(self, message: str, first: Token, last: Token) -> None:
        """A validation error (Flink's own wording, no "near ...") over the tokens ``first``..``last``."""
        span = Token(TokenType.STRING, self.sql[first.start:last.end + 1], first.line, first.col, first.start,
                     last.end)
        try:
            self.raise_error(message, span)
        except ParseError as e:
            e.errors[0]["validation"] = True
            raise
        if self.errors:
            self.errors[-1].errors[0]["validation"] = True

    def _parse_interval_span(self, this, parse_function_unit=True):  # noqa: D102 - sqlglot's private hook
        # Calcite's qualifier: YEAR(4), DAY(3) TO SECOND(3), SECOND(2, 3) (streamsql.sql.interval_qualifier)
        literal = this is not None and this.is_string and self._prev is not None \
            and self._prev.token_type == TokenType.STRING and self._index >= 2
        keyword = self._tokens[self._index - 2] if literal else None  # INTERVAL
        read = parse_qualifier(self) if literal else None
        if read is None:
            return super()._parse_interval_span(this, parse_function_unit)
        node = self.expression(exp.Interval(this=this, unit=read[0]))
        if read[1] != (None, None):
            node.meta[PRECISIONS] = read[1]
        refused = qualifier_error(node)
        if refused is not None:
            self._refuse(refused, keyword, self._prev)
        return node

    def _parse_as_command(self, start: Token) -> exp.Command:
        # sqlglot turns a CREATE TABLE/VIEW with tokens left after it (a ';' missing before the
        # next statement, a stray word after WITH (...)) into an opaque exp.Command, which
        # parse_statement then refused as "Unsupported statement 'CREATE TABLE ...'" at its
        # first word. Point at the first token left instead.
        left = self._curr
        if start.token_type == TokenType.CREATE and left is not None and self._creates_table_or_view(start):
            self.raise_error("Syntax error: unexpected token", left)
        return super()._parse_as_command(start)

    def _creates_table_or_view(self, create: Token) -> bool:
        """Whether the statement at ``create`` is ``CREATE [OR REPLACE] [TEMPORARY] TABLE|VIEW``."""
        index = next(i for i, token in enumerate(self._tokens) if token is create)
        for token in self._tokens[index + 1:index + 5]:
            word = token.text.upper()
            if word in ("TABLE", "VIEW"):
                return True
            if word not in ("OR", "REPLACE", "TEMPORARY"):
                return False
        return False

    def _warn_unsupported(self) -> None:
        # sqlglot logs a warning before falling back to exp.Command; parse_statement rejects
        # unsupported statements with a positioned SqlError instead, so stay quiet.
        return

    def _parse(self, parse_method, raw_tokens, sql=None):  # noqa: D102 - sqlglot's private hook
        # Same as sqlglot's, but chunked by chunk_tokens() so statement sets stay whole.
        self.reset()
        self.sql = sql or ""
        self._chunks = chunk_tokens(raw_tokens)
        return self._parse_batch_statements(parse_method=parse_method, sep_first_statement=False)

    def _parse_statement(self) -> exp.Expr | None:
        token = self._curr
        hook = token and token.token_type not in (TokenType.STRING, TokenType.IDENTIFIER) and (
            self.FLINK_STATEMENTS.get(token.text.upper())
        )
        if hook:
            index = self._index
            self._advance()
            stmt = hook(self)
            if stmt is not None:
                return stmt
            self._retreat(index)
        return super()._parse_statement()

    # --- keyword positions ------------------------------------------------------------------
    # sqlglot records positions on identifiers and literals only. The planner rejects whole
    # constructs (SELECT DISTINCT, LIMIT, UNION, WITH ...), so their nodes also get the position
    # of their keyword; ``streamsql.plan.scope.position_of`` reads a node's own position first.

    def _parse_positioned_modifier(self, parse: t.Callable[[FlinkParser], tuple[str, t.Any]]
                                   ) -> tuple[str, t.Any]:
        token = self._curr
        key, node = parse(self)
        _position(node, token)
        return key, node

    def _parse_limit(self, this: exp.Expr | None = None, top: bool = False,
                     skip_limit_token: bool = False) -> exp.Expr | None:  # noqa: D102 - sqlglot's hook
        self._in_limit = not top and self._curr is not None and self._curr.token_type == TokenType.LIMIT
        try:
            return super()._parse_limit(this, top, skip_limit_token)
        finally:
            self._in_limit = False

    def _parse_limit_options(self) -> exp.LimitOptions | None:  # noqa: D102 - sqlglot's hook
        # Flink's LIMIT takes a count and then only OFFSET: 'LIMIT 10 PERCENT' and 'LIMIT 3 ROWS'
        # are parse errors there (they ran as LIMIT 10 and LIMIT 3 here). FETCH takes ROWS ONLY;
        # its PERCENT / WITH TIES are refused by the planner.
        token = self._curr
        if self._in_limit and token is not None and (
                token.token_type in (TokenType.PERCENT, TokenType.MOD)
                or token.text.upper() in ("ROW", "ROWS", "ONLY", "WITH")):
            self.raise_error("Invalid expression / Unexpected token", token)
        return super()._parse_limit_options()

    def _parse_select(self, *args: t.Any, **kwargs: t.Any) -> exp.Expr | None:
        start = self._index
        query = super()._parse_select(*args, **kwargs)
        token = self._tokens[start] if start < len(self._tokens) else None
        if token is None or token.token_type != TokenType.SELECT:
            return query
        select = query
        while isinstance(select, exp.SetOperation):  # SELECT ... UNION ...: the leftmost SELECT
            select = select.this
        if isinstance(select, exp.Select):
            _position(select, token)
            distinct = select.args.get("distinct")
            if distinct is not None:
                word = next((tok for tok in self._tokens[start + 1:self._index]
                             if tok.token_type in self.DISTINCT_TOKENS), None)
                _position(distinct, word)
        return query

    def parse_set_operation(  # noqa: D102 - sqlglot's hook
        self, this: exp.Expr | None, *args: t.Any, **kwargs: t.Any
    ) -> exp.SetOperation | None:
        start = self._index
        setop = super().parse_set_operation(this, *args, **kwargs)
        if setop is not None:
            words = self._tokens[start:self._index]
            _position(setop, next((tok for tok in words if tok.token_type in self.SET_OPERATIONS), None))
        return setop

    def _parse_with(self, *args: t.Any, **kwargs: t.Any) -> exp.With | None:
        token = self._curr
        with_ = super()._parse_with(*args, **kwargs)
        if token and token.token_type == TokenType.WITH:
            _position(with_, token)
        return with_

    def _parse_group(self, skip_group_by_token: bool = False) -> exp.Group | None:  # noqa: D102 - sqlglot's hook
        group = super()._parse_group(skip_group_by_token)
        if group is not None and not any(group.args.get(k) for k in group.arg_types):
            # sqlglot took GROUP BY with nothing after it as no grouping: a global aggregate ran
            self._incomplete("GROUP BY")
        if group is not None:
            # sqlglot's GROUP BY list ended at a ',' before HAVING / ORDER BY (GROUP BY a, HAVING ...),
            # which Flink 2.3's parser refuses there (Encountered ", HAVING"; checked with PyFlink)
            self._no_trailing_comma()
        return group

    def _parse_partition_by(self) -> list[exp.Expr]:  # noqa: D102 - sqlglot's hook
        by = self._curr is not None and self._curr.token_type == TokenType.PARTITION_BY
        keys = super()._parse_partition_by()
        if by and not keys:  # OVER (PARTITION BY ORDER BY ...) ran unpartitioned
            self._incomplete("PARTITION BY")
        self._no_trailing_comma()  # OVER (PARTITION BY a, ORDER BY ts): Flink's Encountered ", ORDER"
        return keys

    def _parse_join(self, *args: t.Any, **kwargs: t.Any) -> exp.Join | None:  # noqa: D102 - sqlglot's hook
        join = super()._parse_join(*args, **kwargs)
        if join is None:
            self._no_trailing_comma()  # FROM t, WHERE ...: sqlglot took the ',' and no table
        return join

    def _no_trailing_comma(self) -> None:
        """Refuse a list sqlglot ended at a ',' (the item after it missing), as Flink 2.3's parser."""
        if self._prev is not None and self._prev.token_type == TokenType.COMMA:
            self.raise_error("Syntax error: an item is missing after ','")

    def _incomplete(self, clause: str) -> None:
        """``Incomplete <clause> clause``, at the token after it or at the end of the input."""
        self.raise_error(f"Incomplete {clause} clause", self._curr)  # no token: "at end of input"

    def _parse_window(self, this: exp.Expr | None, alias: bool = False) -> exp.Expr | None:
        token = self._curr  # OVER, when this call is a window function
        node = super()._parse_window(this, alias=alias)
        if isinstance(node, exp.Window) and token is not None and token.text.upper() == "OVER":
            _position(node, token)
        return node

    # --- client statements ------------------------------------------------------------------

    def _parse_match_recognize(self) -> exp.MatchRecognize | None:  # noqa: D102 - sqlglot's hook
        return parse_match_recognize(self)  # with Flink's WITHIN and a parsed PATTERN

    def _parse_option_text(self, optional: bool = False) -> exp.Literal | None:
        """A ``'quoted'`` option key/value, or an unquoted one such as ``a.b-c`` (legacy)."""
        if self._match(TokenType.STRING):
            return exp.Literal.string(self._prev.text)
        parts: list[str] = []
        while self._curr and self._curr.token_type not in (TokenType.EQ, TokenType.SEMICOLON):
            if parts and self._curr.start != self._prev.end + 1:
                break  # whitespace ends an unquoted name
            parts.append(self._curr.text)
            self._advance()
        if not parts:
            if optional:
                return None
            self.raise_error("Expecting a quoted option such as 'parallelism.default'")
        return exp.Literal.string("".join(parts))

    def _parse_set_option(self) -> nodes.SetOption:
        if not self._curr:
            return self.expression(nodes.SetOption())
        key = self._parse_option_text()
        if not self._match(TokenType.EQ):
            self.raise_error("Expecting = after the option key (SET 'key' = 'value')")
        return self.expression(nodes.SetOption(this=key, expression=self._parse_option_text()))

    def _parse_table_name(self) -> exp.Table:
        table = self._parse_table_parts()
        if not table or not table.name:
            self.raise_error("Expecting a table name")
        return table

    def _parse_alter_table(self) -> exp.Expr | None:
        """``ALTER TABLE [IF EXISTS] t`` and the offset of its action (read by :mod:`.alter`); ALTER VIEW."""
        if self._match(TokenType.VIEW):
            return self._parse_alter_view()
        if not self._match(TokenType.TABLE):
            return None  # ALTER DATABASE ...: the base parser, then refused by name
        exists = self._match_text_seq("IF", "EXISTS")
        table = self._parse_table_name()
        if self._curr is None:
            self.raise_error("ALTER TABLE needs an action: ADD, MODIFY, DROP, RENAME, SET or RESET")
        action = self._curr.start
        while self._curr and self._curr.token_type != TokenType.SEMICOLON:
            self._advance()
        return self.expression(nodes.AlterTable(this=table, action=action, exists=exists))

    def _parse_alter_view(self) -> exp.Expr:
        """``ALTER VIEW v RENAME TO v2`` | ``ALTER VIEW v AS <query>`` (Flink's SqlAlterView*)."""
        view = self._parse_table_name()
        if self._match_text_seq("RENAME", "TO"):
            return self.expression(nodes.AlterView(this=view, rename=self._parse_table_name()))
        if not self._match(TokenType.ALIAS):
            self.raise_error("ALTER VIEW needs RENAME TO <name> or AS <query>")
        start = self._curr.start if self._curr else None
        query = self._parse_select()
        if not isinstance(query, exp.Query):
            self.raise_error("Expecting a query after ALTER VIEW ... AS")
        return self.expression(nodes.AlterView(this=view, expression=query, start=start))

    def _parse_describe(self) -> exp.Expr:
        """``DESCRIBE JOB 'id'``, ``DESCRIBE CATALOG | FUNCTION [EXTENDED] c``, else a table.

        A quoted id only: ``DESCRIBE job`` is a table named job; ``DESCRIBE catalog`` likewise.
        """
        nxt = self._next
        if self._curr and self._curr.text.upper() == "JOB" and nxt and nxt.token_type == TokenType.STRING:
            self._advance()
            return self.expression(nodes.DescribeJob(this=self._parse_string()))
        if (self._curr and self._curr.text.upper() == "CATALOG" and nxt is not None
                and nxt.token_type not in (TokenType.DOT, TokenType.SEMICOLON, TokenType.SENTINEL)):
            self._advance()
            extended = self._next is not None and self._match_text_seq("EXTENDED")
            name = self._parse_id_var(any_token=False)
            if name is None:
                self.raise_error("Expecting a catalog name after DESCRIBE CATALOG")
            return self.expression(nodes.DescribeCatalog(this=name, extended=extended))
        if (self._curr and self._curr.token_type == TokenType.FUNCTION and nxt is not None
                and nxt.token_type not in (TokenType.DOT, TokenType.SEMICOLON, TokenType.SENTINEL)):
            self._advance()
            extended = self._next is not None and self._match_text_seq("EXTENDED")
            name = self._parse_table_parts()
            return self.expression(nodes.DescribeFunction(this=name, extended=extended))
        nxt = self._next
        extended = nxt is not None and self._match_text_seq("EXTENDED")  # DESCRIBE extended: a table
        return self.expression(nodes.DescribeTable(this=self._parse_table_name(), extended=extended))

    _nested_types = 0  # how many ARRAY/MAP/ROW type brackets the type being read is inside

    def _parse_types(self, *args, **kwargs):  # noqa: D102 - sqlglot's private hook
        # Flink's ROW<a INT> / ROW(a INT) type is sqlglot's STRUCT; ROW stays a function name
        # elsewhere (ROW(1, 'a') is a value), so only a type position reads it as STRUCT.
        token, nxt = self._curr, self._next
        element = self._nested_types > 0
        cast = self._prev is not None and self._prev.token_type == TokenType.ALIAS  # CAST(x AS <type>)
        opens = nxt is not None and nxt.token_type in (TokenType.LT, TokenType.L_PAREN)
        if opens and token.text.upper() == "MULTISET":
            self.raise_error("MULTISET is not supported yet; declare MAP<T, INT> (each element to its "
                             "count), which the json formats read from the same JSON object", token)
        if token is not None and token.text.upper() == "STRUCTURED" and nxt is not None \
                and nxt.token_type == TokenType.LT:
            return self._parse_structured_type()
        row = token is not None and token.token_type == TokenType.ROW and opens
        if row:
            token.token_type = TokenType.STRUCT
        nested = int(opens and token.token_type in self.NESTED_TYPE_TOKENS)
        self._nested_types += nested
        try:
            node = super()._parse_types(*args, **kwargs)
        finally:
            self._nested_types -= nested
            if row:
                token.token_type = TokenType.ROW
        # Inside ARRAY<...>, MAP<...>, ROW<...> an element, value or field type may be NOT NULL
        # (Flink's ARRAY<INT NOT NULL>); a column's own NOT NULL stays its constraint.
        if element and isinstance(node, exp.DataType) and self._match_text_seq("NOT", "NULL"):
            node.set("nullable", False)
        elif cast and not element and self._curr is not None and self._curr.text.upper() in ("NOT", "NULL"):
            # CAST(a AS INT NOT NULL): Flink 2.3's parser stops at NOT (or NULL), a CAST's type
            # has no nullability (checked with PyFlink: scripts/flink_statements.py)
            self._refuse(f'Encountered "{self._curr.text}": a CAST\'s type takes no NOT NULL or NULL in '
                         "Flink SQL (the result is NOT NULL when the value is)", self._curr, self._curr)
        return node

    def _parse_structured_type(self) -> exp.DataType:
        """Flink's ``STRUCTURED<'com.example.User', name STRING, ...>``, kept as its text.

        A user-defined type node whose text ``SqlType.parse`` reads (the column's type).
        """
        start, depth = self._curr, 0
        self._advance()  # STRUCTURED, then its brackets
        while self._curr is not None:
            depth += (self._curr.token_type == TokenType.LT) - (self._curr.token_type == TokenType.GT)
            end = self._curr
            self._advance()
            if depth == 0:
                break
        if depth:
            self.raise_error("Expecting > to close STRUCTURED<...>", start)
        text = self.sql[start.start:end.end + 1]
        return exp.DataType(this=exp.DataType.Type.USERDEFINED, kind=text)

    def _parse_struct_types(self, *args, **kwargs):  # noqa: D102 - sqlglot's private hook
        # A field whose type is a ROW (`ROW<a ROW<b INT>>`): sqlglot looks for a type token after
        # the field name, so that ROW is read as STRUCT here. A field may end with its
        # description, `ROW<a INT NOT NULL 'the a'>` (documentation only): it is read and dropped.
        after = self._tokens[self._index + 1: self._index + 3]
        bitmap = after and after[0].token_type == TokenType.VAR and after[0].text.upper() == "BITMAP"
        structured = len(after) == 2 and after[0].text.upper() == "STRUCTURED" \
            and after[1].token_type == TokenType.LT
        if bitmap or structured:
            # `ROW<a BITMAP>`, `ROW<a STRUCTURED<'C', x INT>>` (the sinks of ROW(BITMAP_BUILD(..)),
            # ROW(OBJECT_OF(..))): names sqlglot does not read as a field's type (a column's it does)
            name = self._parse_id_var()
            if structured:
                kind = self._parse_structured_type()
            else:
                self._advance()
                kind = exp.DataType(this=exp.DataType.Type.USERDEFINED, kind="BITMAP")
            if self._match_text_seq("NOT", "NULL"):
                kind.set("nullable", False)
            self._match(TokenType.STRING)
            return self.expression(exp.ColumnDef(this=name, kind=kind))
        row = after[0] if len(after) == 2 and after[0].token_type == TokenType.ROW \
            and after[1].token_type in (TokenType.LT, TokenType.L_PAREN) else None
        if row is not None:
            row.token_type = TokenType.STRUCT
        try:
            node = super()._parse_struct_types(*args, **kwargs)
        finally:
            if row is not None:
                row.token_type = TokenType.ROW
        self._match(TokenType.STRING)
        return node

    def _parse_function_call(self, *args, **kwargs):  # noqa: D102 - sqlglot's private hook
        # Calls without parentheses (LOCALTIMESTAMP, CURRENT_DATE), and aggregates the planner refuses
        # in some placements, get their keyword's position.
        # An aggregate built by a parse hook (STRING_AGG) or an alias (MAX_BY) gets its name as written
        # and its position too, so a refusal names what the user wrote.
        token = self._curr
        called = self._next is not None and self._next.token_type == TokenType.L_PAREN
        node = super()._parse_function_call(*args, **kwargs)
        if type(node) in self.NO_PAREN_FUNCTIONS.values() or isinstance(node, _POSITIONED_CALLS):
            _position(node, token)
        elif isinstance(node, exp.Window) and isinstance(node.this, _POSITIONED_CALLS):  # call OVER (...)
            _position(node.this, token)
        call = node.this if isinstance(node, exp.Window) else node
        if called and isinstance(call, exp.AggFunc) and not isinstance(call, exp.Anonymous):
            call.meta.setdefault(self.dialect.ORIGINAL_NAME_META_KEY, token.text)
            _position(call, token)
        return node

    def _parse_null(self) -> exp.Expr | None:  # noqa: D102 - sqlglot's hook
        node = super()._parse_null()
        if isinstance(node, exp.Null) and self._prev.token_type == TokenType.UNKNOWN:
            # x IS UNKNOWN: IS NULL of a BOOLEAN only (Flink refuses another type; checked when typed)
            node.meta["unknown"] = True
        return node

    def _parse_in(self, this: exp.Expr | None, alias: bool = False) -> exp.In:  # noqa: D102 - sqlglot's hook
        # Calcite's IN list takes one value at least: ``a IN ()`` is Flink 2.3's syntax error at the
        # ")" (checked with PyFlink); sqlglot read an IN of nothing, false on every row (rows dropped)
        if self._curr is not None and self._next is not None and self._curr.token_type == TokenType.L_PAREN \
                and self._next.token_type == TokenType.R_PAREN:
            self._refuse('Encountered ")"', self._next, self._next)
        return super()._parse_in(this, alias)

    def _parse_position(self, haystack_first: bool = False) -> exp.StrPosition:  # noqa: D102 - sqlglot's hook
        # Calcite's POSITION(sub IN s FROM start): LOCATE(sub, s, start). Its parser reads ``sub`` as
        # an atomic expression: a parenthesised one is its syntax error (Flink 2.3: Encountered "(")
        if self._curr is not None and self._curr.token_type == TokenType.L_PAREN:
            self._refuse('Encountered "("', self._curr, self._curr)
        node = super()._parse_position(haystack_first)
        if self._match(TokenType.FROM):
            node.set("position", self._parse_bitwise())
        return node

    def _parse_function_statement(self, cls: type[exp.Expression]) -> exp.Expr | None:
        """``CREATE``/``DROP [TEMPORARY] [SYSTEM] FUNCTION ...`` (None for any other CREATE/DROP)."""
        temporary = self._match(TokenType.TEMPORARY)
        system = self._match_text_seq("SYSTEM")
        if not self._match(TokenType.FUNCTION):
            return None
        if cls is nodes.CreateFunction:
            exists = self._match_text_seq("IF", "NOT", "EXISTS")
        else:
            exists = self._match_text_seq("IF", "EXISTS")
        name = self._parse_id_var(any_token=False)
        if name is None:
            self.raise_error("Expecting the function's name")
        if cls is nodes.DropFunction:
            return self.expression(cls(this=name, temporary=temporary, system=system, exists=exists))
        if not self._match(TokenType.ALIAS):
            self.raise_error("Expecting AS 'module.function' after the function's name")
        path = self._parse_string()
        if path is None:
            self.raise_error("Expecting the implementation as a string: AS 'module.function'")
        language = self._parse_var(any_token=True) if self._match_text_seq("LANGUAGE") else None
        return self.expression(cls(this=name, expression=path, language=language, temporary=temporary,
                                   system=system, exists=exists))

    def _parse_create_or_drop(self, create: bool) -> exp.Expr | None:
        """CREATE/DROP of a FUNCTION or a CATALOG (None for the base parser's: TABLE, VIEW, DATABASE)."""
        index = self._index
        stmt = self._parse_function_statement(nodes.CreateFunction if create else nodes.DropFunction)
        if stmt is not None:
            return stmt
        self._retreat(index)
        return self._parse_catalog(create)

    def _parse_catalog(self, create: bool) -> exp.Expr | None:
        """``CREATE CATALOG [IF NOT EXISTS] c WITH (...)`` / ``DROP CATALOG [IF EXISTS] c`` (else None)."""
        if not self._match_text_seq("CATALOG"):
            return None
        exists = self._match_text_seq("IF", *(("NOT",) if create else ()), "EXISTS")
        name = self._parse_id_var(any_token=False)
        if name is None:
            self.raise_error("Expecting the catalog's name")
        if not create:
            return self.expression(nodes.DropCatalog(this=name, exists=exists))
        if not self._match(TokenType.WITH):
            self.raise_error("Expecting WITH ('type' = '...') after the catalog's name")
        props = self._parse_wrapped_properties()
        return self.expression(nodes.CreateCatalog(this=name, expressions=props, exists=exists))

    def _parse_create_like(self) -> exp.LikeProperty | None:  # noqa: D102 - sqlglot's hook
        # Flink's LIKE t [(INCLUDING | EXCLUDING | OVERWRITING  ALL | CONSTRAINTS | ... , ...)]:
        # sqlglot's reads the parenthesis as a column list and knows neither OVERWRITING nor ALL.
        # Each option is a Property(this=strategy, value=feature) with the strategy's position.
        table = self._parse_table_parts(schema=True)
        options = []
        if self._match(TokenType.L_PAREN):
            while not self._match(TokenType.R_PAREN):
                if not self._match_texts(("INCLUDING", "EXCLUDING", "OVERWRITING")):
                    self.raise_error("Expecting INCLUDING, EXCLUDING or OVERWRITING in the LIKE options")
                token = self._prev
                if not self._match_texts(_LIKE_FEATURES):
                    features = ", ".join(_LIKE_FEATURES)
                    self.raise_error(f"Expecting one of {features} after {token.text.upper()}")
                feature = exp.var(self._prev.text.upper())
                option = exp.Property(this=exp.var(token.text.upper()), value=feature)
                _position(option, token)
                options.append(option)
                self._match(TokenType.COMMA)
        return self.expression(exp.LikeProperty(this=table, expressions=options))

    def _parse_use_modules(self) -> nodes.UseModules | None:
        """``USE MODULES m [, m ...]``; None for another USE (``USE [CATALOG] name``: the base parser's)."""
        if self._curr is None or self._curr.token_type == TokenType.IDENTIFIER \
                or self._curr.text.upper() != "MODULES":
            return None
        self._advance()
        names = self._parse_csv(self._parse_id_var)
        if not names:
            self.raise_error("Expecting a module name after USE MODULES")
        return self.expression(nodes.UseModules(expressions=names))

    def _parse_show(self) -> exp.Expr:
        """A SHOW statement.

        An ``ILIKE`` after one that does not take it is refused as Flink 2.3's parser refuses it
        (:meth:`_refuse_ilike`).
        """
        shown = self._parse_show_what()
        if self._curr and self._curr.text.upper() == "ILIKE":  # SHOW JARS, JOBS, MODULES: nothing more
            self._refuse_ilike(())
        return shown

    def _refuse_ilike(self, expected: tuple[str, ...]) -> None:
        """Flink 2.3's parse error at an ``ILIKE`` its SHOW statement does not take.

        Only SHOW CATALOGS, DATABASES and [USER] FUNCTIONS take ``[NOT] ILIKE`` (and PROCEDURES); the
        others fail in Flink's parser, which lists what it expected there (scripts/flink_statements.py
        ``show_ilike``, whose answers were checked with the full text): ``expected`` the words besides
        the end of the statement, in Flink's order.
        """
        if expected == ('"LIKE"',):  # after NOT
            words = expected
        else:
            dot = tuple(w for w in expected if w == '"."')
            words = ("<EOF>", *(w for w in expected if w != '"."'), '";"', *dot)
        self._refuse(f'SQL parse failed. Encountered "ILIKE". Was expecting one of: {", ".join(words)}',
                     self._curr, self._curr)

    def _parse_show_what(self) -> exp.Expr:
        for words in _SHOW_NAMESPACE:
            if self._match_text_seq(*words):
                args: dict = {}
                if words == ("DATABASES",) and self._match_set((TokenType.FROM, TokenType.IN)):
                    args["catalog"] = self._parse_id_var(any_token=False)
                    if args["catalog"] is None:
                        self.raise_error("Expecting a catalog name after SHOW DATABASES FROM | IN")
                if words in (("CATALOGS",), ("DATABASES",)):
                    args.update(self._parse_show_like(ilike=True))
                return self.expression(nodes.ShowNamespace(this=exp.var(" ".join(words)), **args))
        if self._match_text_seq("FUNCTIONS"):
            return self.expression(nodes.ShowFunctions(**self._parse_show_like(ilike=True)))
        if self._match_text_seq("USER", "FUNCTIONS"):
            return self.expression(nodes.ShowFunctions(user=True, **self._parse_show_like(ilike=True)))
        if self._match_texts(("TABLES", "VIEWS", "JOBS")):
            kind = self._prev.text.upper()
            cls = {"TABLES": nodes.ShowTables, "VIEWS": nodes.ShowViews, "JOBS": nodes.ShowJobs}[kind]
            if kind == "JOBS":
                return self.expression(cls())
            where = self._parse_table_parts() if self._match_set((TokenType.FROM, TokenType.IN)) else None
            return self.expression(cls(this=where, **self._parse_show_like(named=where is not None)))
        if self._match_text_seq("JARS"):
            return self.expression(nodes.ShowNone(this=exp.var("JARS")))
        if self._match_text_seq("MODELS") or self._match_text_seq("MATERIALIZED", "TABLES"):
            what = "MODELS" if self._prev.text.upper() == "MODELS" else "MATERIALIZED TABLES"
            where = self._parse_table_parts() if self._match_set((TokenType.FROM, TokenType.IN)) else None
            like = self._parse_show_like(named=where is not None)
            return self.expression(nodes.ShowNone(this=exp.var(what), database=where, **like))
        if self._match_text_seq("COLUMNS"):
            if not self._match_set((TokenType.FROM, TokenType.IN)):
                self.raise_error("Expecting FROM or IN after SHOW COLUMNS")
            table = self._parse_table_parts()
            like = self._parse_show_like(named=True, takes_from=False)
            return self.expression(nodes.ShowColumns(this=table, **like))
        if self._match(TokenType.CREATE):
            if self._match(TokenType.TABLE):
                return self.expression(nodes.ShowCreateTable(this=self._parse_table_name()))
            if self._match(TokenType.VIEW):
                return self.expression(nodes.ShowCreateTable(this=self._parse_table_name(), view=True))
            self.raise_error("Expecting TABLE or VIEW after SHOW CREATE")
        self.raise_error("Expecting TABLES, VIEWS, COLUMNS, JOBS, [USER] FUNCTIONS, CREATE TABLE, CATALOGS, "
                         "DATABASES, CURRENT CATALOG|DATABASE, [FULL] MODULES, JARS, MODELS or MATERIALIZED "
                         "TABLES after SHOW")
        return exp.Null()  # unreachable with ErrorLevel.IMMEDIATE

    def _parse_show_like(self, ilike: bool = False, named: bool = False, takes_from: bool = True) -> dict:
        """``[NOT] LIKE 'pattern'`` after SHOW: the node's args (none: {}).

        ``ilike``: ``ILIKE`` (case-insensitive) is taken too, as Flink 2.3's SHOW CATALOGS,
        DATABASES and FUNCTIONS take it; its other SHOW statements refuse it (:meth:`_refuse_ilike`).
        ``named``: a name was just read (``FROM db``, ``COLUMNS FROM t``: a ``.`` may follow);
        ``takes_from``: a ``FROM | IN`` may still follow (when not ``named``).
        """
        negated = self._match(TokenType.NOT)
        if self._curr and self._curr.text.upper() == "ILIKE" and not ilike:
            source = ('"FROM"', '"IN"') if takes_from and not named else ()
            dot = ('"."',) if named else ()
            self._refuse_ilike(('"LIKE"',) if negated else (*source, '"LIKE"', '"NOT"', *dot))
        case_insensitive = ilike and self._match_texts(("ILIKE",))
        if not case_insensitive and not self._match(TokenType.LIKE):
            if negated:
                self.raise_error("Expecting LIKE after NOT")
            return {}
        if not self._curr or self._curr.token_type != TokenType.STRING:
            self.raise_error("Expecting a string literal after LIKE, e.g. LIKE 'orders%'")
        args = {"like": self._parse_string(), "negated": bool(negated)}
        return {**args, "ilike": True} if case_insensitive else args

    def _parse_explain(self) -> nodes.Explain:
        plan_for = self._match_text_seq("PLAN", "FOR")
        details = []
        while self._match_texts(_EXPLAIN_DETAILS):
            details.append(exp.var(self._prev.text.upper()))
            self._match(TokenType.COMMA)
        if not self._curr:
            self.raise_error("Expecting a statement after EXPLAIN")
        if self._curr.text.upper() == "STATEMENT":  # Flink's EXPLAIN STATEMENT SET BEGIN ... END
            stmt = self._parse_statement_set()
        else:
            stmt = self._parse_statement()
        return self.expression(nodes.Explain(this=stmt, plan_for=plan_for, expressions=details))

    def _parse_csv(self, parse_method: t.Callable[[], t.Any], sep: TokenType = TokenType.COMMA) -> list:
        # sqlglot's skips an item that is not there: VALUES (1,,2) was the row (1, 2), (1, 2,) and
        # (1, 2), (3, 4), were taken, and so were COALESCE(1,,2), ARRAY[1,,2] and SELECT 1,, 2.
        # Calcite's lists have no empty item; Flink's parser stops at the second ',' (or the ')').
        # Only a separator followed by another, a closing bracket or the end is refused: a None
        # from parse_method is also how sqlglot tries one reading of an item and backs off.
        if sep == TokenType.COMMA and self._curr and self._curr.token_type == TokenType.COMMA:
            self.raise_error("Syntax error: an item is missing before ','")
        item = parse_method()
        items = [item] if item is not None else []
        while self._match(sep):
            if sep == TokenType.COMMA and (not self._curr or self._curr.token_type in _NO_ITEM):
                self.raise_error("Syntax error: an item is missing after ','")
            if isinstance(item, exp.Expr):
                self._add_comments(item)
            item = parse_method()
            if item is not None:
                items.append(item)
        return items

    def _parse_derived_table_values(self, allow_value_synonym: bool = False) -> exp.Values | None:
        # Calcite's table constructor: VALUES row, row ... in a statement, an INSERT, a view, a
        # UNION or a FROM; (VALUES ...) AS t(a, b) in a FROM. sqlglot's also took an alias right
        # after the rows, inside the parentheses too, and a bare column list as one: the missing
        # comma of VALUES (1, 'a') (2, 'b') made (2, 'b') an alias and the row was dropped
        # silently. Flink's parser stops at that '(' ("Encountered \"(\""); so does this one.
        # INSERT INTO t VALUE (1) is Flink's too (checked on Flink 2.3); FORMAT VALUES is not.
        is_derived = self._match_pair(TokenType.L_PAREN, TokenType.VALUES)
        if not is_derived and not (self._match(TokenType.VALUES)
                                   or (allow_value_synonym and self._match_text_seq("VALUE"))):
            return None
        rows = self._parse_csv(self._parse_value)
        if self._curr and self._curr.token_type == TokenType.L_PAREN:
            self.raise_error("Syntax error: a comma is missing between two rows of VALUES")
        if is_derived:
            self._match_r_paren()
        return self.expression(exp.Values(expressions=rows, alias=self._parse_table_alias()))

    def _parse_on_conflict(self) -> exp.OnConflict | None:
        # Flink 2.3's INSERT ... ON CONFLICT DO ERROR | DO NOTHING | DO DEDUPLICATE (FLIP-558), and
        # nothing else of PostgreSQL's / MySQL's forms (a conflict target, DO UPDATE, ON DUPLICATE
        # KEY): Flink's parser stops at them. The node keeps the ON token's position.
        start = self._curr
        if not self._match_text_seq("ON", "CONFLICT"):
            return None
        if not self._match_text_seq("DO"):
            self.raise_error("Expecting DO ERROR, DO NOTHING or DO DEDUPLICATE after ON CONFLICT")
        if not self._match_texts(_CONFLICT_ACTIONS):
            self.raise_error("Expecting ERROR, NOTHING or DEDUPLICATE after ON CONFLICT DO")
        node = exp.OnConflict(action=exp.var(f"DO {self._prev.text.upper()}"))
        _position(node, start)
        return node

    def _parse_stop_job(self) -> nodes.StopJob | None:
        if not self._match_text_seq("JOB"):
            return None
        job = self._parse_string()
        if not job:
            self.raise_error("Expecting a quoted job id (STOP JOB 'id')")
        savepoint = drain = False
        while self._match(TokenType.WITH):
            if self._match_text_seq("SAVEPOINT"):
                savepoint = True
            elif self._match_text_seq("DRAIN"):
                drain = True
            else:
                self.raise_error("Expecting SAVEPOINT or DRAIN after WITH")
        return self.expression(nodes.StopJob(this=job, savepoint=savepoint, drain=drain))

    def _parse_client_command(self, name: str) -> nodes.ClientCommand:
        """``HELP [word]``, ``QUIT``, ``EXIT``, ``CLEAR``: HELP's one argument (a name, quoted or not).

        Anything else after the command is left for the caller's "unexpected token" error.
        """
        arg = None
        if name == "HELP" and self._curr and self._curr.token_type != TokenType.SEMICOLON:
            self._advance()
            tok = self._prev
            arg = exp.Literal.string(tok.text)
            arg.meta.update(line=tok.line, col=tok.col, start=tok.start, end=tok.end)  # errors point at it
        return self.expression(nodes.ClientCommand(this=exp.var(name), expression=arg))

    def _parse_print_topic(self) -> nodes.PrintTopic | None:
        if not self._match_text_seq("TOPIC"):
            return None
        topic = self._parse_topic_name()
        from_beginning = self._match_text_seq("FROM", "BEGINNING")
        limit = None
        if self._match(TokenType.LIMIT):
            limit = self._parse_number()
            if not limit:
                self.raise_error("Expecting a number after LIMIT")
        return self.expression(nodes.PrintTopic(this=topic, from_beginning=from_beginning, limit=limit))

    def _parse_topic_name(self) -> exp.Expr:
        """A topic name; adjacent tokens join so that ``orders.v1`` and ``my-topic`` work.

        The name carries its position (all of its characters), for errors about the topic.
        """
        if self._match(TokenType.STRING):
            return exp.Literal.string(self._prev.text).update_positions(self._prev)
        if self._match(TokenType.IDENTIFIER):
            return exp.to_identifier(self._prev.text, quoted=True).update_positions(self._prev)
        first = self._curr
        parts: list[str] = []
        while self._curr and self._curr.token_type not in (TokenType.SEMICOLON, TokenType.STRING):
            if parts and self._curr.start != self._prev.end + 1:
                break
            parts.append(self._curr.text)
            self._advance()
        if not parts:
            self.raise_error("Expecting a topic name after PRINT TOPIC")
        name = "".join(parts)
        ident = exp.to_identifier(name, quoted=not _SIMPLE_NAME.match(name))
        ident.update_positions(first)
        ident.meta["end"] = self._prev.end
        return ident

    def _parse_statement_set(self) -> nodes.StatementSet | None:
        if not self._match_text_seq("STATEMENT", "SET"):
            return None
        if not self._match(TokenType.BEGIN):
            self.raise_error("Expecting BEGIN after EXECUTE STATEMENT SET")
        inserts = []
        while not self._match_text_seq("END"):
            if not self._curr:
                self.raise_error("Expecting END to close the statement set")
            start = self._curr
            if start.token_type != TokenType.INSERT:  # before parsing it: a CTAS's errors would come first
                self.raise_error(f'Only INSERT statements are allowed inside a statement set (Flink 2.3: '
                                 f'Encountered "{start.text.upper()}"); a CREATE TABLE ... AS SELECT runs '
                                 'as a job of its own, outside', start)
            stmt = self._parse_statement()
            if not isinstance(stmt, exp.Insert):
                self.raise_error("Only INSERT statements are allowed inside a statement set", start)
            inserts.append(stmt)
            if not self._match(TokenType.SEMICOLON) and not self._match_text_seq("END", advance=False):
                self.raise_error("Expecting ; after the INSERT statement")
            # where its text is in the block's (its table hints are found there: plan/unsupported.py)
            stmt.meta[nodes.TEXT_SPAN] = (start.start, self._curr.start if self._curr else len(self.sql))
        if not inserts:
            self.raise_error("A statement set needs at least one INSERT statement", self._prev)
        return self.expression(nodes.StatementSet(expressions=inserts))

    def _parse_begin_statement_set(self) -> nodes.BeginStatementSet | None:
        if not self._match_text_seq("STATEMENT", "SET"):
            return None  # plain BEGIN: leave it to the base parser
        return self.expression(nodes.BeginStatementSet())

    # --- CREATE TABLE -----------------------------------------------------------------------

    def _parse_watermark(self) -> exp.WatermarkColumnConstraint:
        """``WATERMARK FOR col AS expr`` (a schema item, as in sqlglot's RisingWave parser)."""
        if not self._match(TokenType.FOR):
            self.raise_error("Expecting WATERMARK FOR <column> AS <expression>")
        column = self._parse_column()
        if not self._match(TokenType.ALIAS):
            self.raise_error("Expecting AS <expression> after WATERMARK FOR <column>")
        expression = self._parse_disjunction()
        return self.expression(exp.WatermarkColumnConstraint(this=column, expression=expression))

    def _parse_metadata_constraint(self) -> nodes.MetadataColumnConstraint:
        key = None
        if self._match(TokenType.FROM):
            key = self._parse_string()
            if not key:
                self.raise_error("Expecting a quoted metadata key after METADATA FROM")
        virtual = self._match_text_seq("VIRTUAL")
        return self.expression(nodes.MetadataColumnConstraint(this=key, virtual=virtual))

    # --- window TVFs ------------------------------------------------------------------------

    def _parse_json_key_value(self) -> exp.JSONKeyValue | None:
        # [KEY] name VALUE value of JSON_OBJECT / JSON_OBJECTAGG. Flink's (Calcite's) value is a
        # whole expression, comparisons and AND/OR included: JSON_OBJECT(KEY 'a' VALUE x > 2) is
        # {"a":false} (sqlglot reads a bitwise expression only: a syntax error at the '>')
        self._match_text_seq("KEY")
        key = self._parse_column()
        self._match_set(self.JSON_KEY_VALUE_SEPARATOR_TOKENS)
        self._match_text_seq("VALUE")
        value = self._parse_assignment()
        if not key and not value:
            return None
        return self.expression(exp.JSONKeyValue(this=key, expression=value))

    def _parse_json_arrayagg(self) -> exp.JSONArrayAgg:
        # JSON_ARRAYAGG(value [ABSENT ON NULL | NULL ON NULL]), Flink's (sqlglot reads no ON NULL)
        this = self._parse_assignment()
        nulls = self._parse_on_handling("NULL", "NULL", "ABSENT")
        return self.expression(exp.JSONArrayAgg(this=this, null_handling=nulls))

    def _parse_json_array(self) -> exp.JSONArray:
        # JSON_ARRAY([value, ...] [ABSENT ON NULL | NULL ON NULL]), Flink's (sqlglot reads no ON NULL)
        # (no clause without a value: Flink's parser refuses JSON_ARRAY(NULL ON NULL))
        values: list[exp.Expression] = []
        nulls = None
        while nulls is None and not self._match(TokenType.R_PAREN, advance=False):
            values.append(self._parse_assignment())
            nulls = self._parse_on_handling("NULL", "NULL", "ABSENT")
            if nulls is None and not self._match(TokenType.COMMA):
                break
        return self.expression(exp.JSONArray(expressions=values, null_handling=nulls))

    def _parse_json_call(self, name: str) -> exp.Expr:
        """Parse a JSON_VALUE / JSON_QUERY / JSON_EXISTS call's arguments and clauses after the ``(``.

        The clauses make a ``nodes.JsonCall``.

        Without a clause the call is an ``exp.Anonymous``, as any call; a clause the function does
        not take, or one given twice, is a syntax error at it.
        """
        name_token = self._tokens[self._index - 2]  # the name: the call's position
        args = self._parse_csv(self._parse_assignment)
        clauses: dict[str, t.Any] = {}
        if len(args) == 2 and self._match(TokenType.RETURNING):
            returning = self._parse_types(check_func=False, allow_identifiers=False)
            clauses["returning"] = returning.sql(dialect=self.dialect)
        if len(args) == 2 and name == "JSON_QUERY":
            wrapper = self._parse_json_wrapper()
            if wrapper:
                clauses["wrapper"] = wrapper
        kinds = _JSON_BEHAVIOURS[name]
        ons = ("ERROR",) if name == "JSON_EXISTS" else ("EMPTY", "ERROR")  # Calcite: no ON EMPTY there
        expected = " | ".join(f"ON {w}" for w in ons)
        while len(args) == 2 and self._curr and self._curr.token_type != TokenType.R_PAREN:
            first = self._curr
            kind = next((k for k in kinds if self._match_text_seq(*k.split())), None)
            if kind is None:
                self.raise_error(f"Expecting one of {', '.join(kinds)} {expected}, or )")
                break
            default = self._parse_bitwise() if kind == "DEFAULT" else None
            on = next((w.lower() for w in ons if self._match_text_seq("ON", w)), None)
            if on is None:
                self.raise_error(f"Expecting {' or '.join(f'ON {w}' for w in ons)}")
                break
            if f"on_{on}" in clauses:  # either order is Flink's (ON ERROR first too)
                self._refuse(f"{name}: ON {on.upper()} given twice", first, self._prev)
            clauses[f"on_{on}"] = kind
            if default is not None:
                clauses[f"{on}_default"] = default
        if not clauses:
            return self.expression(exp.Anonymous(this=name, expressions=args)).update_positions(name_token)
        node = nodes.JsonCall(this=args[0], path=args[1], name=name, **clauses)
        return self.expression(node).update_positions(name_token)

    def _parse_json_wrapper(self) -> str | None:
        # {WITHOUT [ARRAY] | WITH [CONDITIONAL | UNCONDITIONAL] [ARRAY]} WRAPPER (Calcite's grammar)
        index = self._index
        if self._match_text_seq("WITHOUT"):
            self._match_text_seq("ARRAY")
            if self._match_text_seq("WRAPPER"):
                return "WITHOUT ARRAY"
        elif self._match(TokenType.WITH):
            kind = "CONDITIONAL" if self._match_text_seq("CONDITIONAL") else "UNCONDITIONAL"
            self._match_text_seq("UNCONDITIONAL")
            self._match_text_seq("ARRAY")
            if self._match_text_seq("WRAPPER"):
                return f"{kind} ARRAY"
        self._retreat(index)
        return None

    def _parse_window_tvf(self, name: str) -> exp.Expr:
        """Parse the arguments of TUMBLE/HOP/CUMULATE/SESSION after the ``(``.

        Without a ``TABLE t`` (or ``DATA =>``) first argument this is not a TVF (e.g. the
        legacy ``GROUP BY TUMBLE(ts, INTERVAL ...)``), so it becomes an ``exp.Anonymous``.
        """
        first_named = self._curr and self._next and self._next.token_type == TokenType.FARROW
        if not (self._match(TokenType.TABLE, advance=False) or first_named):
            args = self._parse_function_args(alias=True)
            return self.expression(exp.Anonymous(this=name, expressions=args))

        cls = nodes.WINDOW_TVFS[name]
        positional = ["this", "time_col", *cls.ARG_ORDER]
        args: dict[str, t.Any] = {}
        index = 0
        while True:
            token = self._curr
            key = None
            if self._next and self._next.token_type == TokenType.FARROW:
                if token.token_type == TokenType.OFFSET:  # reserved in Flink: only `OFFSET` => parses
                    self.raise_error("OFFSET is a reserved keyword: write `OFFSET` => to name it", token)
                key = _TVF_PARAM_NAMES.get(token.text.upper())
                if key not in cls.arg_types:
                    self.raise_error(f"{name} has no parameter {token.text}", token)
                self._advance(2)
            elif index < len(positional):
                key = positional[index]
            else:
                self.raise_error(f"Too many arguments for {name}", token)
            index += 1
            args[key] = self._parse_tvf_arg(key, name, args)
            if not self._match(TokenType.COMMA):
                break
        for required in cls.required_args:
            if args.get(required) is None:
                self.raise_error(f"{name} is missing its {required.replace('_', ' ')} argument")
        return self.expression(cls(**args))

    def _parse_tvf_arg(self, key: str, name: str, args: dict[str, t.Any]) -> exp.Expr | None:
        if key == "this":
            if not self._match(TokenType.TABLE):
                self.raise_error(f"Expecting TABLE <name> as the first argument of {name}")
            table = self._parse_table_name()
            if self._match(TokenType.PARTITION_BY):
                if name != "SESSION":
                    self.raise_error(f"PARTITION BY is only allowed in SESSION, not {name}", self._prev)
                # One key, or a parenthesised list: a bare comma already ends the argument.
                wrapped = self._match(TokenType.L_PAREN, advance=False)
                keys = self._parse_wrapped_csv(self._parse_column) if wrapped else [self._parse_column()]
                if not keys or None in keys:  # PARTITION BY, DESCRIPTOR(...): ran unpartitioned
                    self._incomplete("PARTITION BY")
                args["partition_by"] = keys
            return table
        if key == "time_col":
            if not (self._match_text_seq("DESCRIPTOR") and self._match(TokenType.L_PAREN)):
                self.raise_error(f"Expecting DESCRIPTOR(<time column>) as the second argument of {name}")
            column = self._parse_column()
            self._match_r_paren()
            return column
        return self._parse_disjunction()
