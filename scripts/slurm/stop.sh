#!/usr/bin/env bash
# Stops the Slurm instance INSTANCE started by start.sh:  scripts/slurm/stop.sh INSTANCE
# Kills the job processes (slurmstepd and their children, and any job process left behind)
# of the instance, then the node daemons and the controller, each by the PID in its PID file (SIGTERM, then
# SIGKILL after 10 s). Saved state stays (start.sh --clean wipes it). munged is stopped
# too when start.sh started it and no other instance is running (unless --keep-munge).
# Idempotent.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/common.sh"

(($# == 1 || $# == 2)) && [[ ${2:---keep-munge} == --keep-munge ]] ||
  { echo "usage: $0 INSTANCE [--keep-munge]" >&2; exit 2; }
instance=$1
keep_munge=0
[[ ${2:-} == --keep-munge ]] && keep_munge=1
[[ $instance =~ ^[a-z][a-z0-9_]{0,30}$ ]] || die "instance name '$instance': lower-case letters, digits, _"
dir=$arb_slurm_root/$instance
conf=$dir/slurm.conf

if [[ -d $dir/run ]]; then
  # Job steps: slurmstepd inherits the node daemon's environment, SLURM_CONF=<our conf>.
  for p in /proc/[0-9]*; do
    pid=${p#/proc/}
    [[ $(cat "$p/comm" 2>/dev/null) == slurmstepd ]] || continue
    tr '\0' '\n' 2>/dev/null <"$p/environ" | grep -qx "SLURM_CONF=$conf" || continue
    # The step daemon first (so that it restarts nothing), then its job's processes.
    kids=$(descendants "$pid")
    kill -KILL "$pid" $kids 2>/dev/null || true
    say "killed slurmstepd (pid $pid) of $instance"
  done
  # Job processes that left their step daemon (reparented to init): they carry the job's
  # environment, SLURM_CONF=<our conf> and a SLURM_JOB_ID. Never this script or its callers.
  mine=" $$ $(ancestors $$) "
  for p in /proc/[0-9]*; do
    pid=${p#/proc/}
    [[ $mine == *" $pid "* ]] && continue
    env=$(tr '\0' '\n' 2>/dev/null <"$p/environ") || continue
    grep -qx "SLURM_CONF=$conf" <<<"$env" && grep -q '^SLURM_JOB_ID=' <<<"$env" || continue
    kill -KILL "$pid" 2>/dev/null && say "killed job process $pid ($(cat "$p/comm" 2>/dev/null)) of $instance"
  done
  for pidfile in "$dir"/run/slurmd-*.pid; do
    [[ -e $pidfile ]] && stop_pid "$pidfile" slurmd
  done
  stop_pid "$dir/run/slurmctld.pid" slurmctld
fi

# munged: only ours, and only when no instance is left.
if ((!keep_munge)) && [[ -e $munge_marker ]]; then
  others=0
  for d in "$arb_slurm_root"/*/; do
    alive "$d/run/slurmctld.pid" slurmctld && others=$((others + 1))
  done
  if ((others == 0)); then
    stop_pid "$munge_pidfile" munged
    rm -f "$munge_marker"
  fi
fi
say "instance $instance stopped"
