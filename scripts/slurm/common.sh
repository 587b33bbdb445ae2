# Shared by start.sh and stop.sh (sourced, not run). One Slurm "instance" is a controller
# plus K node daemons with their own configuration, ports and state, all under
#   ${ARB_RUN_DIR:-/tmp/arb-slurm}/INSTANCE/
# so that several independent clusters can run side by side on one host. munged is shared
# by all instances (one key, one socket) and is started once.

arb_slurm_root=${ARB_RUN_DIR:-/tmp/arb-slurm}

# Prints the message and exits 1.
die() {
  echo "slurm/$(basename "$0"): $*" >&2
  exit 1
}

say() { echo "slurm/$(basename "$0"): $*"; }

# alive PIDFILE NAME: true when PIDFILE names a live process whose command line contains NAME.
alive() {
  local pidfile=$1 name=$2 pid
  [[ -s $pidfile ]] || return 1
  pid=$(<"$pidfile")
  [[ $pid =~ ^[0-9]+$ ]] || return 1
  [[ -r /proc/$pid/cmdline ]] || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q -- "$name"
}

# wait_alive PIDFILE NAME SECONDS: polls until a daemon has written its PID file (it does so
# after forking into the background); false after SECONDS.
wait_alive() {
  local pidfile=$1 name=$2 deadline=$((SECONDS + $3))
  until alive "$pidfile" "$name"; do
    ((SECONDS < deadline)) || return 1
    sleep 0.05
  done
}

# descendants PID: the PIDs of every process below PID, children first.
descendants() {
  local parent=$1 p pid ppid
  for p in /proc/[0-9]*/stat; do
    pid=${p#/proc/}
    pid=${pid%/stat}
    ppid=$(awk '{print $4}' "$p" 2>/dev/null) || continue
    if [[ $ppid == "$parent" ]]; then
      echo "$pid"
      descendants "$pid"
    fi
  done
}

# ancestors PID: the PIDs above PID, up to init.
ancestors() {
  local pid=$1
  while pid=$(awk '{print $4}' "/proc/$pid/stat" 2>/dev/null) && ((pid > 1)); do
    echo "$pid"
  done
}

# wait_gone PID SECONDS: polls until PID has exited; false when it is still there after SECONDS.
wait_gone() {
  local pid=$1 deadline=$((SECONDS + $2))
  while [[ -e /proc/$pid ]]; do
    # A zombie has exited; its parent (not us) will reap it.
    [[ $(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null) == Z ]] && return 0
    ((SECONDS < deadline)) || return 1
    sleep 0.1
  done
}

# stop_pid PIDFILE NAME: SIGTERM the daemon named by PIDFILE, SIGKILL after 10 s.
stop_pid() {
  local pidfile=$1 name=$2 pid
  if alive "$pidfile" "$name"; then
    pid=$(<"$pidfile")
    kill -TERM "$pid" 2>/dev/null || true
    if ! wait_gone "$pid" 10; then
      say "$name (pid $pid) ignored SIGTERM for 10 s; killing it"
      kill -KILL "$pid" 2>/dev/null || true
      wait_gone "$pid" 5 || die "$name (pid $pid) does not die"
    fi
    say "stopped $name (pid $pid)"
  fi
  rm -f "$pidfile"
}

munge_socket=/run/munge/munge.socket.2
munge_pidfile=/run/munge/munged.pid
# Written when our scripts started munged, so that stop.sh stops only a munged it started.
munge_marker=$arb_slurm_root/munged.started-by-arb

munge_works() {
  [[ -S $munge_socket ]] && munge -n 2>/dev/null | unmunge >/dev/null 2>&1
}
