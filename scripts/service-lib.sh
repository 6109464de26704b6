# Shared by scripts/*-local.sh (sourced, not run): a local service started in the background
# with its pid in a file.
#
# The sourcing script sets PID_FILE, SERVICE_MAIN (a string its command line contains, so a
# recycled pid is never taken for ours), SERVICE_ADDRESS (host:port, printed by status) and
# STOP_GRACE (seconds between SIGTERM and SIGKILL), defines log(), die(), wait_ready, cmd_start
# (and probe() for wait_service), and ends with `service_main "$@"`. A Java service fetched
# through Maven also sets STREAMSQL_CACHE and LIBS for maven_libs.

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

# cmd_start's first step. Takes the lock $1/.lock on fd 9 (concurrent starts, e.g. parallel test
# sessions, wait for each other; the service is started with 9>&- so it does not keep it). When
# our service already runs: waits until wait_ready accepts it ($2 names it in the error), prints
# SERVICE_ADDRESS and returns 0. Else removes a stale pid file and returns 1: start it.
start_once() {
  local home="$1" name="$2" pid
  mkdir -p "$home"
  exec 9>"$home/.lock"
  flock -w 600 9 || die "could not take $home/.lock"
  pid="$(running_pid)"
  if [[ -n "$pid" ]]; then
    wait_ready "$pid" || die "$name pid $pid is running but not usable; try: $0 stop && $0 start"
    log "already running (pid $pid)"
    echo "$SERVICE_ADDRESS"
    return 0
  fi
  rm -f "$PID_FILE"
  return 1
}

# Fetch, once, the jars of the pom.xml read from stdin (with their runtime dependencies) into
# $LIBS through Maven; $STREAMSQL_CACHE keeps the pom. $1 names the service, $2 is its version
# and $3 the variable that picks it (for the error), $4 a jar (glob) that must be among them.
# $LIBS/.complete is written last, so an interrupted download is redone.
maven_libs() {
  local name="$1" version="$2" knob="$3" jar="$4"
  if [[ -f "$LIBS/.complete" ]]; then return 0; fi
  command -v mvn >/dev/null || die "mvn not found (Maven is needed to fetch $name)"
  command -v java >/dev/null || die "java not found ($name needs Java 17+)"
  log "provisioning $name $version into $STREAMSQL_CACHE via Maven (one-time)..."
  mkdir -p "$STREAMSQL_CACHE"
  cat >"$STREAMSQL_CACHE/pom.xml"
  rm -rf "$LIBS.tmp"
  (cd "$STREAMSQL_CACHE" && mvn -B -q dependency:copy-dependencies \
      -Dstyle.color=never -DincludeScope=runtime -DoutputDirectory=libs.tmp) >&2 \
    || die "Maven could not resolve $name $version (try another $knob)"
  # shellcheck disable=SC2086  # $jar is a glob
  ls "$LIBS.tmp"/$jar >/dev/null 2>&1 || die "$jar missing after Maven run"
  rm -rf "$LIBS"
  mv "$LIBS.tmp" "$LIBS"
  touch "$LIBS/.complete"
  log "provisioned $(ls "$LIBS" | wc -l) jars"
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
