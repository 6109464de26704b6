"""The Flink generator: turns syntax trees back into Flink SQL text.

Only what differs from sqlglot's base generator is here: Flink type names (``STRING``,
``BYTES``, ``TIMESTAMP_LTZ(p)``), ``WITH ('k' = 'v')`` options, ``COMMENT '...'``, and one
``<node>_sql`` method per node in :mod:`streamsql.sql.nodes`.
"""

from __future__ import annotations

from sqlglot import exp, generator
from sqlglot.dialects.dialect import rename_func, trim_sql, unit_to_var

from streamsql.functions.scalars.interval_qualifier import PRECISIONS, qualifier_sql
from streamsql.sql import match_syntax, nodes


def _node_sql(cls: type[exp.Expression]):
    """How the generator writes one of our nodes: a keyword statement is its text, others ``<key>_sql``."""
    if issubclass(cls, nodes.KeywordStatement):
        return lambda self, e: e.keywords
    return lambda self, e: getattr(self, f"{e.key}_sql")(e)


class FlinkGenerator(generator.Generator):
    """sqlglot's generator with Flink spellings and the custom statement nodes."""

    def sanitize_comment(self, comment: str) -> str:
        """As sqlglot's; a hint's comment (``nodes.HINT_MARK``) is written back as ``/*+ ... */``.

        A hint's text is written as it is: a ``*/`` in it is inside a quoted value (it would have
        ended the hint otherwise), which sqlglot's ``* /`` would change.
        """
        if comment.startswith(nodes.HINT_MARK) and comment[1:].strip():
            body = comment[1:]
            return f"{nodes.HINT_MARK}{' ' if body[0].strip() else ''}{body}{' ' if body[-1].strip() else ''}"
        return super().sanitize_comment(comment)

    TYPE_MAPPING = {
        **generator.Generator.TYPE_MAPPING,
        exp.DType.TEXT: "STRING",
        exp.DType.BLOB: "BYTES",
        exp.DType.TIMESTAMPLTZ: "TIMESTAMP_LTZ",
    }

    TRANSFORMS = {
        **generator.Generator.TRANSFORMS,
        exp.Length: rename_func("CHAR_LENGTH"),  # Flink has no LENGTH()
        exp.SchemaCommentProperty: lambda self, e: self.naked_property(e),
        exp.PartitionedByProperty: lambda self, e: f"PARTITIONED BY {self.sql(e, 'this')}",
        exp.CurrentTimestamp: lambda *_: "CURRENT_TIMESTAMP",
        exp.CurrentDate: lambda *_: "CURRENT_DATE",
        exp.If: rename_func("IF"),
        exp.Trim: trim_sql,  # TRIM(BOTH 'x' FROM s): Flink's LTRIM/RTRIM take one argument
        exp.TimestampDiff: lambda self, e: self.func("TIMESTAMPDIFF", unit_to_var(e), e.expression, e.this),
        exp.TimestampAdd: lambda self, e: self.func("TIMESTAMPADD", unit_to_var(e), e.expression, e.this),
        # sqlglot finds `<key>_sql` methods only for its own classes; register ours explicitly.
        **{cls: _node_sql(cls) for cls in nodes.NODE_CLASSES},
        **match_syntax.TRANSFORMS,  # MATCH_RECOGNIZE and its PATTERN
    }

    PROPERTIES_LOCATION = {
        **generator.Generator.PROPERTIES_LOCATION,
        exp.PartitionedByProperty: exp.Properties.Location.POST_SCHEMA,
    }

    def interval_sql(self, expression: exp.Interval) -> str:
        """The literal with its qualifier's precisions written (``INTERVAL '8000' YEAR(4)``)."""
        text = super().interval_sql(expression)
        unit = expression.args.get("unit")
        if PRECISIONS not in expression.meta or unit is None:
            return text
        plain = self.sql(unit)
        if not text.endswith(plain):
            return text
        return text[:len(text) - len(plain)] + qualifier_sql(expression, plain)

    # --- catalog statements ---------------------------------------------------------------

    def showtables_sql(self, expression: nodes.ShowTables) -> str:
        """``SHOW TABLES [FROM db] [[NOT] LIKE 'p']``."""
        where = f" FROM {self.sql(expression, 'this')}" if expression.this else ""
        return f"SHOW TABLES{where}{self._show_like(expression)}"

    def shownone_sql(self, expression: nodes.ShowNone) -> str:
        """``SHOW JARS``, ``SHOW MODELS | MATERIALIZED TABLES [FROM db] [[NOT] LIKE 'p']``."""
        db = expression.args.get("database")
        where = f" FROM {self.sql(db)}" if db is not None else ""
        return f"SHOW {expression.name}{where}{self._show_like(expression)}"

    def showviews_sql(self, expression: nodes.ShowViews) -> str:
        """``SHOW VIEWS [FROM db] [[NOT] LIKE 'p']``."""
        where = f" FROM {self.sql(expression, 'this')}" if expression.this else ""
        return f"SHOW VIEWS{where}{self._show_like(expression)}"

    def showcolumns_sql(self, expression: nodes.ShowColumns) -> str:
        """``SHOW COLUMNS FROM t [[NOT] LIKE 'p']``."""
        return f"SHOW COLUMNS FROM {self.sql(expression, 'this')}{self._show_like(expression)}"

    def _show_like(self, expression: exp.Expression) -> str:
        like = expression.args.get("like")
        if like is None:
            return ""
        keyword = "ILIKE" if expression.args.get("ilike") else "LIKE"
        return f"{' NOT' if expression.args.get('negated') else ''} {keyword} {self.sql(like)}"

    def likeproperty_sql(self, expression: exp.LikeProperty) -> str:
        """``LIKE t [(INCLUDING ALL EXCLUDING OPTIONS ...)]`` (Flink's parenthesised like options)."""
        options = " ".join(f"{o.name} {o.text('value')}" for o in expression.expressions)
        return f"LIKE {self.sql(expression, 'this')}" + (f" ({options})" if options else "")

    def shownamespace_sql(self, expression: nodes.ShowNamespace) -> str:
        """``SHOW CATALOGS``, ``SHOW DATABASES [FROM c] [[NOT] LIKE 'p']``, ``SHOW FULL MODULES`` ..."""
        where = f" FROM {self.sql(expression, 'catalog')}" if expression.args.get("catalog") else ""
        return f"SHOW {expression.name}{where}{self._show_like(expression)}"

    def showfunctions_sql(self, expression: nodes.ShowFunctions) -> str:
        """``SHOW [USER] FUNCTIONS [[NOT] LIKE | ILIKE 'p']``."""
        user = "USER " if expression.args.get("user") else ""
        return f"SHOW {user}FUNCTIONS{self._show_like(expression)}"

    def createcatalog_sql(self, expression: nodes.CreateCatalog) -> str:
        """``CREATE CATALOG [IF NOT EXISTS] c WITH ('type' = '...')``."""
        exists = " IF NOT EXISTS" if expression.args.get("exists") else ""
        options = ", ".join(self.sql(p) for p in expression.expressions)
        return f"CREATE CATALOG{exists} {self.sql(expression, 'this')} WITH ({options})"

    def dropcatalog_sql(self, expression: nodes.DropCatalog) -> str:
        """``DROP CATALOG [IF EXISTS] c``."""
        exists = " IF EXISTS" if expression.args.get("exists") else ""
        return f"DROP CATALOG{exists} {self.sql(expression, 'this')}"

    # --- expressions whose base spelling is not Flink's -------------------------------------

    def varmap_sql(self, expression: exp.VarMap) -> str:
        """``MAP[k1, v1, k2, v2, ...]``."""
        pairs = zip(expression.args["keys"].expressions, expression.args["values"].expressions)
        return "MAP[" + ", ".join(f"{self.sql(k)}, {self.sql(v)}" for k, v in pairs) + "]"

    def array_sql(self, expression: exp.Array) -> str:
        """``ARRAY[a, b, ...]``."""
        return f"ARRAY[{self.expressions(expression, flat=True)}]"

    def arraysort_sql(self, expression: exp.ArraySort) -> str:
        """``ARRAY_SORT(a[, ascending[, nulls_first]])`` as written (the base drops the third argument)."""
        args = [expression.this, expression.args.get("expression"), expression.args.get("asc")]
        return self.func("ARRAY_SORT", *(a for a in args if a is not None))

    def datatype_sql(self, expression: exp.DataType) -> str:
        """Flink's ``ROW<...>`` for STRUCT and ``T NOT NULL`` inside composite types; else as the base."""
        text = super().datatype_sql(expression)
        text = "ROW" + text[len("STRUCT"):] if expression.is_type(exp.DType.STRUCT) else text
        return text + " NOT NULL" if expression.args.get("nullable") is False else text

    def not_sql(self, expression: exp.Not) -> str:
        """``a IS NOT NULL`` rather than the base generator's ``NOT a IS NULL``."""
        inner = expression.this
        if isinstance(inner, exp.Is):
            return f"{self.sql(inner, 'this')} IS NOT {self.sql(inner, 'expression')}"
        return super().not_sql(expression)

    def version_sql(self, expression: exp.Version) -> str:
        """``FOR SYSTEM_TIME AS OF t.proctime`` (lookup and temporal joins)."""
        if expression.name == "TIMESTAMP":
            return f"FOR SYSTEM_TIME {expression.text('kind')} {self.sql(expression, 'expression')}"
        return super().version_sql(expression)

    def strposition_sql(self, expression: exp.StrPosition) -> str:
        """``POSITION(sub IN s)``, or ``LOCATE(sub, s[, from])`` (note the argument order)."""
        substr, string = expression.args.get("substr"), expression.this
        position = expression.args.get("position")
        if position or self.function_name(expression).upper() == "LOCATE":
            return self.func("LOCATE", substr, string, position)
        return f"POSITION({self.sql(substr)} IN {self.sql(string)})"

    # --- CREATE TABLE -----------------------------------------------------------------------

    def property_sql(self, expression: exp.Property) -> str:
        """``'key' = 'value'`` inside ``WITH (...)``: Flink option keys are string literals."""
        if type(expression) is exp.Property:
            return f"{self.property_name(expression, string_key=True)} = {self.sql(expression, 'value')}"
        return super().property_sql(expression)

    def metadatacolumnconstraint_sql(self, expression: nodes.MetadataColumnConstraint) -> str:
        """``METADATA [FROM 'key'] [VIRTUAL]``."""
        key = self.sql(expression, "this")
        key = f" FROM {key}" if key else ""
        virtual = " VIRTUAL" if expression.args.get("virtual") else ""
        return f"METADATA{key}{virtual}"

    # --- window TVFs ------------------------------------------------------------------------

    def windowtvf_sql(self, expression: nodes.WindowTVF) -> str:
        """``TUMBLE(TABLE t, DESCRIPTOR(ts), ...)`` and siblings, always with positional args."""
        table = f"TABLE {self.sql(expression, 'this')}"
        keys = expression.args.get("partition_by") or []
        if len(keys) == 1:
            table += f" PARTITION BY {self.sql(keys[0])}"
        elif keys:
            table += f" PARTITION BY ({self.expressions(expression, key='partition_by', flat=True)})"
        descriptor = self.func("DESCRIPTOR", expression.args.get("time_col"))
        rest = [expression.args.get(k) for k in expression.ARG_ORDER]
        return self.func(expression.kind, table, descriptor, *rest)

    tumble_sql = hop_sql = cumulate_sql = session_sql = windowtvf_sql

    def changelogcall_sql(self, expression: nodes.ChangelogCall) -> str:
        """``TO_CHANGELOG(input => TABLE t [PARTITION BY k], op => DESCRIPTOR(c), ...)``, named args."""
        table = expression.args.get("input")
        args = []
        if table is not None:
            text = f"TABLE {self.sql(table)}"
            keys = expression.args.get("partition_by") or []
            if keys:
                text += f" PARTITION BY ({self.expressions(expression, key='partition_by', flat=True)})"
            args.append(f"input => {text}")
        for key in nodes.CHANGELOG_PARAMS[1:]:
            value = expression.args.get(key)
            if value is not None:
                args.append(f"{key} => {self.sql(value)}")
        return f"{expression.function}({', '.join(args)})"

    def descriptorarg_sql(self, expression: nodes.DescriptorArg) -> str:
        """``DESCRIPTOR(a, b)``."""
        return f"DESCRIPTOR({self.expressions(expression, flat=True)})"

    # --- client statements ------------------------------------------------------------------

    def setoption_sql(self, expression: nodes.SetOption) -> str:
        """``SET 'key' = 'value'`` or ``SET``."""
        if not expression.this:
            return "SET"
        return f"SET {self.sql(expression, 'this')} = {self.sql(expression, 'expression')}"

    def resetoption_sql(self, expression: nodes.ResetOption) -> str:
        """``RESET 'key'`` or ``RESET``."""
        key = self.sql(expression, "this")
        return f"RESET {key}" if key else "RESET"

    def showcreatetable_sql(self, expression: nodes.ShowCreateTable) -> str:
        """``SHOW CREATE TABLE t`` / ``SHOW CREATE VIEW v``."""
        kind = "VIEW" if expression.args.get("view") else "TABLE"
        return f"SHOW CREATE {kind} {self.sql(expression, 'this')}"

    def describetable_sql(self, expression: nodes.DescribeTable) -> str:
        """``DESCRIBE [EXTENDED] t`` (``DESC t`` is normalised to ``DESCRIBE``)."""
        extended = "EXTENDED " if expression.args.get("extended") else ""
        return f"DESCRIBE {extended}{self.sql(expression, 'this')}"

    def alterview_sql(self, expression: nodes.AlterView) -> str:
        """``ALTER VIEW v RENAME TO v2`` / ``ALTER VIEW v AS <query>``."""
        if expression.args.get("rename") is not None:
            return f"ALTER VIEW {self.sql(expression, 'this')} RENAME TO {self.sql(expression, 'rename')}"
        return f"ALTER VIEW {self.sql(expression, 'this')} AS {self.sql(expression, 'expression')}"

    def describefunction_sql(self, expression: nodes.DescribeFunction) -> str:
        """``DESCRIBE FUNCTION [EXTENDED] f``."""
        extended = "EXTENDED " if expression.args.get("extended") else ""
        return f"DESCRIBE FUNCTION {extended}{self.sql(expression, 'this')}"

    def describecatalog_sql(self, expression: nodes.DescribeCatalog) -> str:
        """``DESCRIBE CATALOG [EXTENDED] c``."""
        extended = "EXTENDED " if expression.args.get("extended") else ""
        return f"DESCRIBE CATALOG {extended}{self.sql(expression, 'this')}"

    def describejob_sql(self, expression: nodes.DescribeJob) -> str:
        """``DESCRIBE JOB 'id'``."""
        return f"DESCRIBE JOB {self.sql(expression, 'this')}"

    def explain_sql(self, expression: nodes.Explain) -> str:
        """``EXPLAIN [PLAN FOR] [detail, ...] <statement>``."""
        plan_for = " PLAN FOR" if expression.args.get("plan_for") else ""
        details = self.expressions(expression, flat=True)
        details = f" {details}" if details else ""
        return f"EXPLAIN{plan_for}{details} {self.sql(expression, 'this')}"

    def stopjob_sql(self, expression: nodes.StopJob) -> str:
        """``STOP JOB 'id' [WITH SAVEPOINT] [WITH DRAIN]``."""
        savepoint = " WITH SAVEPOINT" if expression.args.get("savepoint") else ""
        drain = " WITH DRAIN" if expression.args.get("drain") else ""
        return f"STOP JOB {self.sql(expression, 'this')}{savepoint}{drain}"

    def printtopic_sql(self, expression: nodes.PrintTopic) -> str:
        """``PRINT TOPIC name [FROM BEGINNING] [LIMIT n]``."""
        start = " FROM BEGINNING" if expression.args.get("from_beginning") else ""
        limit = self.sql(expression, "limit")
        limit = f" LIMIT {limit}" if limit else ""
        return f"PRINT TOPIC {self.sql(expression, 'this')}{start}{limit}"

    def statementset_sql(self, expression: nodes.StatementSet) -> str:
        """``EXECUTE STATEMENT SET BEGIN <insert>; ... END``."""
        sep = "\n" if self.pretty else " "
        body = sep.join(f"{self.sql(e)};" for e in expression.expressions)
        return f"EXECUTE STATEMENT SET{sep}BEGIN{sep}{body}{sep}END"

    def jsoncall_sql(self, expression: nodes.JsonCall) -> str:
        """``JSON_VALUE(doc, path RETURNING ... ON EMPTY ... ON ERROR)`` / ``JSON_QUERY(...)`` as written."""
        parts = [f"{self.sql(expression, 'this')}, {self.sql(expression, 'path')}"]
        if expression.args.get("returning"):
            parts.append(f"RETURNING {expression.args['returning']}")
        wrapper = expression.args.get("wrapper")
        if wrapper:
            parts.append("WITHOUT ARRAY WRAPPER" if wrapper == "WITHOUT ARRAY" else f"WITH {wrapper} WRAPPER")
        for on in ("empty", "error"):
            kind = expression.args.get(f"on_{on}")
            if kind:
                text = f"DEFAULT {self.sql(expression, on + '_default')}" if kind == "DEFAULT" else kind
                parts.append(f"{text} ON {on.upper()}")
        return f"{expression.args['name']}({' '.join(parts)})"

    def clientcommand_sql(self, expression: nodes.ClientCommand) -> str:
        """``HELP [name]``, ``QUIT``, ``EXIT`` or ``CLEAR``."""
        arg = expression.args.get("expression")
        return f"{expression.name} {arg.name}" if arg is not None else expression.name
