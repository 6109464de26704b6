"""What the oracle scripts over Flink 2.3's JSON formats share: a filesystem table of records, its rows.

``scripts/flink_json_nesting.py``, ``flink_debezium_nesting.py`` and ``flink_json_arrays.py`` each
write records (one a line) to a folder, read it with a filesystem table in a JSON format
(``json`` or ``debezium-json``, ``'<format>.ignore-parse-errors'`` on or off) in PyFlink's local
mini-cluster (streaming, parallelism 1), and record the rows of a query, or the job's error as the
last ``Caused by`` line of the Java exception (the recordings hold that line, 300 characters at
most). Runs in the Flink venv only (imports ``pyflink`` when called).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path


def streaming_tenv():
    """A streaming TableEnvironment of parallelism 1."""
    from pyflink.table import EnvironmentSettings, TableEnvironment  # noqa: PLC0415  (the Flink venv's)

    tenv = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    tenv.get_config().set("parallelism.default", "1")
    return tenv


def caused_by(e: Exception) -> str:
    """The last ``Caused by`` line of a Java exception (Flink's own reason), else its first line."""
    causes = [ln for ln in str(e).splitlines() if ln.startswith("Caused by: ")]
    return (causes[-1] if causes else str(e).splitlines()[0])[:300]


def lines_table(tenv, name: str, columns: str, folder: Path, lines: list[str], fmt: str,
                ignore: bool) -> None:
    """(Re)create table ``name (columns)`` over ``folder/r.json`` holding ``lines``, in format ``fmt``."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "r.json").write_text("\n".join(lines) + "\n")
    tenv.execute_sql(f"DROP TABLE IF EXISTS {name}")
    tenv.execute_sql(f"CREATE TABLE {name} ({columns}) WITH ('connector' = 'filesystem', "
                     f"'path' = '{folder}', 'format' = '{fmt}', "
                     f"'{fmt}.ignore-parse-errors' = '{str(ignore).lower()}')")


def rows_or_error(tenv, query: str, text: Callable = list) -> list | dict:
    """``query``'s rows, each as ``text(row)``, sorted; or ``{"error": caused_by(...)}``."""
    try:
        with tenv.execute_sql(query).collect() as rows:
            return sorted(text(r) for r in rows)
    except Exception as e:  # noqa: BLE001  (PyFlink's wrappers and Py4JJavaError)
        return {"error": caused_by(e)}
