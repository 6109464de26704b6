"""examples/cdc/revenue.sql plans as the README says: a changelog from mysql-cdc, two sinks."""

from pathlib import Path

import pytest

from streamsql.environment import StreamEnvironment
from streamsql.sql.split import split_statements

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "cdc" / "revenue.sql"


def test_the_example_plans_into_upsert_kafka_and_postgres():
    env = StreamEnvironment()
    statements = [s.text for s in split_statements(EXAMPLE.read_text())]
    for text in statements[:-1]:
        env.execute_sql(text)
    plan = env.execute_sql("EXPLAIN " + statements[-1]).message
    # one binlog reader and one GROUP BY feed both sinks (a statement set is one plan, as in Flink)
    assert plan.count("connector=[mysql-cdc]") == 1 and "Reused(reference_id=[1])" in plan
    assert "revenue_kafka: exactly-once" in plan
    assert "revenue_pg: at-least-once (jdbc upserts and deletes by primary key" in plan
    assert "streamsql-test-password" not in plan


def test_shop_setup_prepares_what_the_example_writes():
    """shop.py setup creates revenue.sql's sink topic (StreamSQL creates none without
    'sink.topic.auto-create': the README's walkthrough failed with "topic 'customer-revenue' does
    not exist") and forgets the run of its job, so the names must stay the example's."""
    import importlib.util
    import re

    spec = importlib.util.spec_from_file_location("shop", EXAMPLE.parent / "shop.py")
    shop = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(shop)
    text = EXAMPLE.read_text()
    assert re.search(rf"'pipeline.name' = '{shop.JOB}'", text)
    assert re.search(rf"'connector' = 'upsert-kafka', 'topic' = '{shop.TOPIC}'", text)
    assert "sink.topic.auto-create" not in text and "transactional-id-prefix" not in text


def test_shop_help_and_unknown_commands_print_the_usage():
    """``shop.py --help`` (or any word but setup/change) ran ``check``: a pymysql traceback
    ("Unknown database 'shop'") before ``setup``. Now argparse: usage, exit 0 / 2."""
    import subprocess
    import sys

    shop = [sys.executable, str(EXAMPLE.parent / "shop.py")]
    helped = subprocess.run([*shop, "--help"], capture_output=True, text=True, timeout=60)
    assert helped.returncode == 0 and "{setup,change,check}" in helped.stdout
    wrong = subprocess.run([*shop, "chek"], capture_output=True, text=True, timeout=60)
    assert wrong.returncode == 2 and "invalid choice: 'chek'" in wrong.stderr and not wrong.stdout


def test_shop_check_before_setup_says_to_run_setup(monkeypatch, capsys):
    import importlib.util

    spec = importlib.util.spec_from_file_location("shop", EXAMPLE.parent / "shop.py")
    shop = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(shop)
    monkeypatch.setattr(shop, "_has_shop", lambda address, database=None: False)  # a server without it
    assert shop.main(["check"]) == 1 and shop.main(["change", "1"]) == 1
    assert "has no database 'shop': run `python examples/cdc/shop.py setup` first" in capsys.readouterr().err


def test_shop_name_before_or_after_the_command(monkeypatch, capsys):
    """README: "give every shop.py command the same --name NAME"; `shop.py --name x setup` failed
    with argparse's "invalid choice: 'x'" as --name was only an option of each command."""
    shop = _shop()
    monkeypatch.setattr(shop, "_has_shop", lambda address, database=None: False)
    assert shop.main(["--name", "nc", "check"]) == 1
    assert shop.main(["change", "1", "--name", "nc"]) == 1
    err = capsys.readouterr().err
    said = "has no database 'shop_nc': run `python examples/cdc/shop.py setup --name nc` first"
    assert err.count(said) == 2


def _shop():
    import importlib.util

    spec = importlib.util.spec_from_file_location("shop", EXAMPLE.parent / "shop.py")
    shop = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(shop)
    return shop


def test_named_runs_share_no_name():
    """``--name``: two people running the walkthrough on the same servers (setup dropped and
    recreated the one database and topic, and the two jobs fenced each other's transactions and
    took the same binlog server-id). Each name's script plans, and differs from revenue.sql and
    from another name's in exactly the database, topic, job and server-id."""
    import re

    shop = _shop()
    base = EXAMPLE.read_text()
    assert shop.Names().script() == base
    scripts = {n: shop.Names(n).script() for n in ("alice", "bob")}
    for n, text in scripts.items():
        names = shop.Names(n)
        assert f"'database-name' = 'shop_{n}'" in text and f"/shop_{n}'" in text
        assert f"'topic' = 'customer-revenue-{n}'" in text and f"'pipeline.name' = 'cdc-revenue-{n}'" in text
        assert f"'server-id' = '{names.server_id}'" in text and names.server_id != 5501
        changed = [(a, b) for a, b in zip(base.splitlines(), text.splitlines()) if a != b]
        assert len(changed) == 4 and len(text.splitlines()) == len(base.splitlines()), changed
        env = StreamEnvironment()
        statements = [s.text for s in split_statements(text)]
        for st in statements[:-1]:
            env.execute_sql(st)
        assert "connector=[mysql-cdc]" in env.execute_sql("EXPLAIN " + statements[-1]).message
        env.close()
    ids = {re.search(r"'server-id' = '(\d+)'", t).group(1) for t in scripts.values()}
    assert len(ids) == 2
    with pytest.raises(SystemExit, match="--name takes letters"):
        shop.Names("a-b; DROP")
