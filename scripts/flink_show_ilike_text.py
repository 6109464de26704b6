"""Print Apache Flink 2.3's whole parse error (with "Was expecting one of") for SHOW ... ILIKE.

``scripts/flink_statements.py`` (script ``show_ilike``) records the first line of each error; the
words Flink expected instead are on the following lines, which this prints, for
``tests/sql/test_show_ilike.py``. Run::

    flock /tmp/flink.lock /work/flinkvenv/bin/python scripts/flink_show_ilike_text.py
"""

from __future__ import annotations

STATEMENTS = ("SHOW MODELS ILIKE 'm%'", "SHOW TABLES ILIKE 'm%'", "SHOW COLUMNS FROM x ILIKE 'a'",
              "SHOW JARS ILIKE 'x'")


def main() -> None:
    """Print each statement's parse error up to the stack trace."""
    from pyflink.table import EnvironmentSettings, TableEnvironment

    tenv = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    for st in STATEMENTS:
        try:
            tenv.execute_sql(st)
        except Exception as e:  # noqa: BLE001 - Flink's error is the answer
            text = str(e)
            text = text[text.find("SQL parse failed"):]
            print("=====", st)
            print(text[:text.find("\tat ")].rstrip())


if __name__ == "__main__":
    main()
