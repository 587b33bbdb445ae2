# Shared by start.sh and stop.sh (sourced, not run): where the cell lives and where the PID
# files go. The Debian packages put everything under SGE_ROOT=/var/lib/gridengine, cell
# "default", binaries in /usr/lib/gridengine.
export SGE_ROOT=${SGE_ROOT:-/var/lib/gridengine}
export SGE_CELL=${SGE_CELL:-default}
ge_bin=${ARB_GE_BIN:-/usr/lib/gridengine}
ge_common=$SGE_ROOT/$SGE_CELL/common
# PID files of the daemons start.sh started; stop.sh stops exactly these.
ge_run_dir=${ARB_GE_RUN_DIR:-/run/arbroker-gridengine}
# The names the cell is configured with; the adapter's defaults match them.
ge_pe=${ARB_GE_PE:-arb}
ge_queue=${ARB_GE_QUEUE:-arb.q}

ge_log() { echo "gridengine/$(basename "$0" .sh): $*"; }
ge_die() {
  echo "gridengine/$(basename "$0" .sh): $*" >&2
  exit 1
}

# ge_alive PID NAME: true when PID is a live process whose command name is NAME (guards
# against a stale PID file naming a reused PID).
ge_alive() {
  [[ -n ${1:-} && -r /proc/$1/comm ]] && [[ $(cat "/proc/$1/comm" 2>/dev/null) == "$2" ]]
}

# ge_pid_from FILE NAME: prints the PID in FILE when it names a live NAME process.
ge_pid_from() {
  local pid
  [[ -r $1 ]] || return 1
  pid=$(tr -dc '0-9' <"$1")
  ge_alive "$pid" "$2" && echo "$pid"
}
