# Shared by scripts/*-local.sh (sourced, not run): a local service started in the background
# with its pid in a file.
#
# The sourcing script sets PID_FILE, SERVICE_MAIN (a string its command line contains, so a
# recycled pid is never taken for ours), SERVICE_ADDRESS (host:port, printed by status) and
# STOP_GRACE (seconds between SIGTERM and SIGKILL), defines log(), cmd_start (and probe() for
# wait_service), and ends with `service_main "$@"`.

# Pid of our service if it is alive (and really ours), else empty.
running_pid() {
  [[ -f "$PID_FILE" ]] || return 0
  local pid
  pid="$(cat "$PID_FILE" 2>/dev/null || true)"
  if [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null \
     && grep -q "$SERVICE_MAIN" "/proc/$pid/cmdline" 2>/dev/null; then
    echo "$pid"
  fi
}

port_open() {  # bash's /dev/tcp avoids depending on nc/ss being installed
  (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# Stop the service: SIGTERM (a clean shutdown), then SIGKILL after $1 seconds.
stop_service() {
  local pid grace="$1" i
  pid="$(running_pid)"
  if [[ -z "$pid" ]]; then
    rm -f "$PID_FILE"
    log "not running"
    return 0
  fi
  log "stopping pid $pid"
  kill -TERM "$pid" 2>/dev/null || true
  for ((i = 0; i < grace * 2; i++)); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.5
  done
  if kill -0 "$pid" 2>/dev/null; then
    log "still alive after ${grace}s; sending SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
    sleep 0.5
  fi
  rm -f "$PID_FILE"
  log "stopped"
}

# Print "running (pid N) $1" and return 0, or "stopped" and return 1.
service_status() {
  local pid
  pid="$(running_pid)"
  if [[ -n "$pid" ]]; then
    echo "running (pid $pid) $1"
    return 0
  fi
  echo "stopped"
  return 1
}

# Wait until the service with pid $1 listens on port $2 and the sourcing script's probe()
# succeeds, for at most $3 seconds; on failure print the tail of log $4, say why ($5 names the
# service) and return 1.
wait_service() {
  local pid="$1" port="$2" timeout="$3" out="$4" name="$5" deadline=$((SECONDS + $3))
  while (( SECONDS < deadline )); do
    if ! kill -0 "$pid" 2>/dev/null; then
      tail -n 30 "$out" >&2 || true
      log "ERROR: $name process $pid exited during startup"
      return 1
    fi
    port_open "$port" && probe && return 0
    sleep 0.5
  done
  tail -n 30 "$out" >&2 || true
  log "ERROR: $name not ready on 127.0.0.1:$port after ${timeout}s"
  return 1
}

# Stop the service (SIGTERM, SIGKILL after $STOP_GRACE seconds); cmd_start calls it too when a
# start fails.
cmd_stop() {
  stop_service "$STOP_GRACE"
}

# The command line of every script: start|stop|status.
service_main() {
  case "${1:-}" in
    start) cmd_start ;;
    stop) cmd_stop ;;
    status) service_status "$SERVICE_ADDRESS" ;;
    *) echo "usage: $0 start|stop|status" >&2; exit 2 ;;
  esac
}
