#!/usr/bin/env bash
# Run a small local PostgreSQL server on 127.0.0.1 for StreamSQL's jdbc sink tests.
#
# The server is Debian's PostgreSQL 15 (/usr/lib/postgresql/15/bin, package postgresql-15,
# installed with apt-get when missing and we are root), over a private data folder with small
# buffers (the machine is shared). On first start it creates the database $PG_DATABASE and the
# user $PG_USER with a password (md5/scram over TCP). As root, the server runs as the `postgres`
# system user (PostgreSQL refuses to run as root), so the data folder is owned by it.
#
# Usage: scripts/postgres-local.sh start|stop|status
#   start prints the address (127.0.0.1:<port>) as its last line.
#
# Env overrides:
#   PG_PORT           TCP port                           (default 5432)
#   PG_HOME_DIR       state: data, logs, pid             (default ~/.cache/streamsql/postgres-run;
#                     as root /var/tmp/streamsql-postgres-run: the postgres user cannot enter /root)
#   PG_DATABASE       database created on first start    (default streamsql)
#   PG_USER           user created on first start        (default streamsql)
#   PG_BIN            PostgreSQL's bin folder            (default /usr/lib/postgresql/15/bin)
#   PG_START_TIMEOUT  seconds to wait for readiness      (default 60)
# The password is a test value, not a secret: 'streamsql-test-password' (what the tests use).
set -euo pipefail

PG_PORT="${PG_PORT:-5432}"
if [[ "$(id -u)" == 0 ]]; then
  PG_HOME_DIR="${PG_HOME_DIR:-/var/tmp/streamsql-postgres-run}"
else
  PG_HOME_DIR="${PG_HOME_DIR:-$HOME/.cache/streamsql/postgres-run}"
fi
PG_DATABASE="${PG_DATABASE:-streamsql}"
PG_USER="${PG_USER:-streamsql}"
PG_BIN="${PG_BIN:-/usr/lib/postgresql/15/bin}"
PG_START_TIMEOUT="${PG_START_TIMEOUT:-60}"
PASSWORD="streamsql-test-password"

ADDRESS="127.0.0.1:${PG_PORT}"
DATA_DIR="$PG_HOME_DIR/data"
LOG_DIR="$PG_HOME_DIR/logs"
PID_FILE="$PG_HOME_DIR/postgres.pid"
OUT_FILE="$LOG_DIR/postgres.log"

log() { echo "postgres-local: $*" >&2; }
die() { log "ERROR: $*"; exit 1; }

SERVICE_MAIN="$DATA_DIR"
SERVICE_ADDRESS="$ADDRESS"
STOP_GRACE=30  # SIGTERM is PostgreSQL's "smart" shutdown; SIGKILL after that
# shellcheck source=scripts/service-lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/service-lib.sh"

as_owner() {  # run a command as the data folder's owner (postgres when we are root)
  if [[ "$(id -u)" == 0 ]]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

provision() {
  [[ -x "$PG_BIN/postgres" ]] && return 0
  [[ "$(id -u)" == 0 ]] || die "$PG_BIN/postgres not found; install Debian's postgresql-15 package"
  log "installing postgresql-15 with apt-get (one-time)..."
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql-15 >/dev/null \
    || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql-15 >/dev/null; } \
    || die "apt-get could not install postgresql-15"
}

init_data() {
  [[ -f "$DATA_DIR/PG_VERSION" ]] && return 0
  rm -rf "$DATA_DIR"
  mkdir -p "$DATA_DIR"
  [[ "$(id -u)" == 0 ]] && chown postgres: "$DATA_DIR" "$LOG_DIR"
  chmod 700 "$DATA_DIR"
  log "initializing $DATA_DIR"
  local pwfile
  pwfile="$(mktemp)"
  echo "$PASSWORD" >"$pwfile"
  [[ "$(id -u)" == 0 ]] && chown postgres: "$pwfile"
  as_owner "$PG_BIN/initdb" -D "$DATA_DIR" -U "$PG_USER" --pwfile="$pwfile" -A scram-sha-256 \
    -E UTF8 --locale=C.UTF-8 >>"$LOG_DIR/initdb.log" 2>&1 \
    || { rm -f "$pwfile"; tail -n 20 "$LOG_DIR/initdb.log" >&2; die "initdb failed"; }
  rm -f "$pwfile"
  cat >>"$DATA_DIR/postgresql.conf" <<CONF
# Added by scripts/postgres-local.sh -- local test server, loopback only, small.
listen_addresses = '127.0.0.1'
port = $PG_PORT
unix_socket_directories = '$PG_HOME_DIR'
shared_buffers = 16MB
max_connections = 40
max_prepared_transactions = 10
fsync = on
CONF
}

pg_ready() {
  PGPASSWORD="$PASSWORD" "$PG_BIN/psql" -h 127.0.0.1 -p "$PG_PORT" -U "$PG_USER" -d postgres \
    -Atc "SELECT 1" >/dev/null 2>&1
}

create_database() {
  PGPASSWORD="$PASSWORD" "$PG_BIN/psql" -h 127.0.0.1 -p "$PG_PORT" -U "$PG_USER" -d postgres -Atc \
    "SELECT 1 FROM pg_database WHERE datname = '$PG_DATABASE'" | grep -q 1 && return 0
  PGPASSWORD="$PASSWORD" "$PG_BIN/psql" -h 127.0.0.1 -p "$PG_PORT" -U "$PG_USER" -d postgres -qc \
    "CREATE DATABASE \"$PG_DATABASE\"" >/dev/null || die "could not create database $PG_DATABASE"
}

probe() { pg_ready; }

wait_ready() { wait_service "$1" "$PG_PORT" "$PG_START_TIMEOUT" "$OUT_FILE" PostgreSQL; }

cmd_start() {
  mkdir -p "$LOG_DIR"
  start_once "$PG_HOME_DIR" postgres && return 0
  local pid
  port_open "$PG_PORT" && die "port $PG_PORT is taken by a process this script did not start (set PG_PORT)"
  provision
  [[ "$(id -u)" == 0 ]] && chown postgres: "$PG_HOME_DIR" "$LOG_DIR"
  init_data
  log "starting PostgreSQL on $ADDRESS over $DATA_DIR"
  # `exec` keeps the pid: setpriv execs postgres in the same process once it has switched user.
  setsid nohup bash -c 'exec "$@"' _ $( [[ "$(id -u)" == 0 ]] && echo setpriv --reuid=postgres --regid=postgres --init-groups ) \
    "$PG_BIN/postgres" -D "$DATA_DIR" </dev/null >>"$OUT_FILE" 2>&1 9>&- &
  pid=$!
  echo "$pid" >"$PID_FILE"
  if ! wait_ready "$pid"; then
    cmd_stop
    die "PostgreSQL failed to start; log in $OUT_FILE"
  fi
  create_database
  log "ready (pid $pid)"
  echo "$ADDRESS"
}

service_main "$@"
