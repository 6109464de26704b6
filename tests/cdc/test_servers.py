"""The local database servers are what the mysql-cdc source and the jdbc sink need."""


def test_mariadb_writes_a_row_based_binlog_with_full_images(mariadb_db):
    with mariadb_db.mysql() as c, c.cursor() as cur:
        cur.execute("SELECT @@log_bin, @@binlog_format, @@binlog_row_image, @@server_id > 0")
        assert cur.fetchone() == (1, "ROW", "FULL", 1)
        cur.execute("SHOW MASTER STATUS")
        assert cur.fetchone()[0].startswith("binlog.")


def test_postgres_accepts_the_test_user_over_tcp(postgres_db):
    with postgres_db.pg() as c:
        assert c.execute("SELECT current_user, current_database()").fetchone() == (
            "streamsql", postgres_db.database)
