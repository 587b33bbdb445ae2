#!/usr/bin/env bash
# Stops the daemons scripts/gridengine/start.sh started, by the PIDs in its PID files: first
# sge_execd (and the job processes under it), then sge_qmaster. SIGTERM, then SIGKILL after
# 20 s. Idempotent: does nothing when nothing is running. The cell's configuration, its
# reservations and queued jobs stay in the spool for the next start.
set -euo pipefail
source "$(dirname "$0")/common.sh"

# descendants PID: "pid comm" of every process below PID.
descendants() {
  local kids k
  kids=$(ps -o pid= --ppid "$1" 2>/dev/null || true)
  for k in $kids; do
    echo "$k $(cat "/proc/$k/comm" 2>/dev/null)"
    descendants "$k"
  done
}

# stop_pid PID NAME: SIGTERM, bounded wait, SIGKILL.
stop_pid() {
  local pid=$1 name=$2 i
  kill -TERM "$pid" 2>/dev/null || return 0
  for ((i = 0; i < 100; i++)); do
    ge_alive "$pid" "$name" || return 0
    sleep 0.2
  done
  ge_log "$name ($pid) did not stop in 20 s; killing it"
  kill -KILL "$pid" 2>/dev/null || true
}

stopped=0
for daemon in execd qmaster; do
  file=$ge_run_dir/$daemon.pid
  if pid=$(ge_pid_from "$file" "sge_$daemon"); then
    jobs_below=()
    [[ $daemon == execd ]] && mapfile -t jobs_below < <(descendants "$pid")
    ge_log "stopping sge_$daemon ($pid)"
    stop_pid "$pid" "sge_$daemon"
    # Shepherds and job processes outlive sge_execd; end the ones it had started.
    for entry in "${jobs_below[@]}"; do
      ge_alive "${entry%% *}" "${entry#* }" && kill -KILL "${entry%% *}" 2>/dev/null
    done
    stopped=$((stopped + 1))
  fi
  rm -f "$file"
done
((stopped > 0)) || ge_log "nothing to stop"
