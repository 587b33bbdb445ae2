#!/usr/bin/env bash
# Starts a one-host Son of Grid Engine cell for the adapter's integration tests: configures
# the cell (host aliases, global configuration, parallel environment, queue, scheduler), starts
# sge_qmaster and sge_execd directly (no init system), waits until the execution host reports,
# and writes PID files for stop.sh. Idempotent: running daemons are kept, the configuration
# is applied again. Run as root after scripts/gridengine/install.sh.
#
#   scripts/gridengine/start.sh [--slots N]     # N slots in the queue (default 8)
#
# Every host name the cell sees is "localhost": the machine's own name, which may change
# between runs of a fresh machine, is mapped to it by the cell's host_aliases file.
# The daemons talk to each other and to the clients over 127.0.0.1 (ports 6444 and 6445).
set -euo pipefail
source "$(dirname "$0")/common.sh"

slots=8
while (($#)); do
  case $1 in
    --slots) slots=${2:-}; shift 2 || ge_die "--slots needs a value" ;;
    --slots=*) slots=${1#--slots=}; shift ;;
    -h | --help) sed -n '2,12p' "$0"; exit 0 ;;
    *) ge_die "unknown argument '$1' (usage: start.sh [--slots N])" ;;
  esac
done
[[ $slots =~ ^[1-9][0-9]{0,4}$ ]] || ge_die "--slots: expected a positive integer, got '$slots'"
[[ $(id -u) -eq 0 ]] || ge_die "run as root"
[[ -x $ge_bin/sge_qmaster && -x $ge_bin/sge_execd && -r $ge_common/bootstrap ]] ||
  ge_die "Grid Engine is not installed; run scripts/gridengine/install.sh"

# ge_wait SECONDS WHAT COMMAND...: polls COMMAND every 0.2 s until it succeeds, at most
# SECONDS; fails naming WHAT.
ge_wait() {
  local limit=$1 what=$2
  shift 2
  local end=$((SECONDS + limit))
  until "$@" >/dev/null 2>&1; do
    ((SECONDS < end)) || ge_die "timed out after ${limit} s waiting for $what"
    sleep 0.2
  done
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$ge_run_dir"

# --- host names -----------------------------------------------------------------------------
host=$(hostname)
if [[ $host != localhost ]] && ! getent hosts "$host" >/dev/null; then
  # SGE resolves its own host name before it applies the aliases: it must resolve.
  echo "127.0.1.1 $host  # added by arbroker scripts/gridengine/start.sh" >>/etc/hosts
  ge_log "added $host to /etc/hosts"
fi
aliases=(localhost)
for name in "$host" "$(hostname -f 2>/dev/null || true)"; do
  [[ -n $name && " ${aliases[*]} " != *" $name "* ]] && aliases+=("$name")
done
echo "${aliases[*]}" >"$ge_common/host_aliases"
echo localhost >"$ge_common/act_qmaster"
chown sgeadmin:sgeadmin "$ge_common/host_aliases" "$ge_common/act_qmaster" 2>/dev/null || true

# --- qmaster --------------------------------------------------------------------------------
qmaster_spool=$(awk '$1 == "qmaster_spool_dir" {print $2}' "$ge_common/bootstrap")
qmaster_pid=$(ge_pid_from "$ge_run_dir/qmaster.pid" sge_qmaster ||
  ge_pid_from "$qmaster_spool/qmaster.pid" sge_qmaster || true)
qmaster_started=0
if [[ -z $qmaster_pid ]]; then
  qmaster_started=1
  rm -f "$qmaster_spool/qmaster.pid"
  ge_log "starting sge_qmaster"
  (cd / && "$ge_bin/sge_qmaster") # daemonizes; writes its PID file when it is up
  ge_wait 30 "sge_qmaster's PID file" ge_pid_from "$qmaster_spool/qmaster.pid" sge_qmaster
  qmaster_pid=$(ge_pid_from "$qmaster_spool/qmaster.pid" sge_qmaster)
fi
echo "$qmaster_pid" >"$ge_run_dir/qmaster.pid"
ge_wait 30 "sge_qmaster to answer" "$ge_bin/qconf" -sh

# --- configuration --------------------------------------------------------------------------
# qc ARGS...: qconf, quiet unless it fails.
qc() {
  local out
  out=$("$ge_bin/qconf" "$@" 2>&1) || ge_die "qconf $* failed: $out"
}
qconf=("$ge_bin/qconf")
# qc_put KIND NAME FILE: the object NAME of KIND (p: parallel environment, q: queue) as FILE
# says, whether it exists (modified) or not (added).
qc_put() {
  if "${qconf[@]}" -s"$1" "$2" >/dev/null 2>&1; then qc -M"$1" "$3"; else qc -A"$1" "$3"; fi
}

# Global configuration: jobs of any user (root included) may run; advance reservations are
# allowed; accounting records are written at once (job_status reads them through qacct).
# (Joins the backslash-continued lines qconf prints for long values first.)
"${qconf[@]}" -sconf global | sed -e ':a' -e '/\\$/N; s/\\\n[[:space:]]*/ /; ta' >"$tmp/conf"
sed -i -e '/^min_uid /d' -e '/^min_gid /d' -e '/^max_advance_reservations /d' \
  -e '/^reporting_params /d' -e '/^load_report_time /d' "$tmp/conf"
# (A load report every 5 s, not 40: a restarted qmaster knows the host is up sooner.)
cat >>"$tmp/conf" <<'EOF'
load_report_time             00:00:05
min_uid                      0
min_gid                      0
max_advance_reservations     1000
reporting_params             accounting=true reporting=false flush_time=00:00:15 accounting_flush_time=00:00:00 joblog=false sharelog=00:00:00
EOF
grep -v '^#' "$tmp/conf" | sed '/^ *$/d' >"$tmp/global" # -Mconf takes the name from the file
qc -Mconf "$tmp/global"

"${qconf[@]}" -sh 2>/dev/null | grep -qx localhost || qc -ah localhost
"${qconf[@]}" -ss 2>/dev/null | grep -qx localhost || qc -as localhost
if ! "${qconf[@]}" -se localhost >/dev/null 2>&1; then
  cat >"$tmp/exechost" <<'EOF'
hostname              localhost
load_scaling          NONE
complex_values        NONE
user_lists            NONE
xuser_lists           NONE
projects              NONE
xprojects             NONE
usage_scaling         NONE
report_variables      NONE
EOF
  qc -Ae "$tmp/exechost"
fi

# The parallel environment reservations and jobs ask for: all slots on the one host.
cat >"$tmp/pe" <<EOF
pe_name            $ge_pe
slots              99999
user_lists         NONE
xuser_lists        NONE
start_proc_args    NONE
stop_proc_args     NONE
allocation_rule    \$pe_slots
control_slaves     FALSE
job_is_first_task  TRUE
urgency_slots      min
accounting_summary FALSE
qsort_args         NONE
EOF
qc_put p "$ge_pe" "$tmp/pe"

# The queue: $slots slots, no load thresholds (a busy build machine must not put it in alarm).
cat >"$tmp/queue" <<EOF
qname                 $ge_queue
hostlist              localhost
seq_no                0
load_thresholds       NONE
suspend_thresholds    NONE
nsuspend              1
suspend_interval      00:05:00
priority              0
min_cpu_interval      00:05:00
processors            UNDEFINED
qtype                 BATCH INTERACTIVE
ckpt_list             NONE
pe_list               $ge_pe
rerun                 FALSE
slots                 $slots
tmpdir                /tmp
shell                 /bin/sh
prolog                NONE
epilog                NONE
shell_start_mode      posix_compliant
starter_method        NONE
suspend_method        NONE
resume_method         NONE
terminate_method      NONE
notify                00:00:60
owner_list            NONE
user_lists            NONE
xuser_lists           NONE
subordinate_list      NONE
complex_values        NONE
projects              NONE
xprojects             NONE
calendar              NONE
initial_state         default
s_rt                  INFINITY
h_rt                  48:00:00
s_cpu                 INFINITY
h_cpu                 INFINITY
s_fsize               INFINITY
h_fsize               INFINITY
s_data                INFINITY
h_data                INFINITY
s_stack               INFINITY
h_stack               INFINITY
s_core                INFINITY
h_core                INFINITY
s_rss                 INFINITY
h_rss                 INFINITY
s_vmem                INFINITY
h_vmem                INFINITY
EOF
qc_put q "$ge_queue" "$tmp/queue"

# Scheduler: a run every second, and at once after a submission or a job's end.
"${qconf[@]}" -ssconf >"$tmp/sched"
sed -i -e 's/^schedule_interval .*/schedule_interval                 0:0:1/' \
  -e 's/^flush_submit_sec .*/flush_submit_sec                  1/' \
  -e 's/^flush_finish_sec .*/flush_finish_sec                  1/' "$tmp/sched"
qc -Msconf "$tmp/sched"

# --- execd ----------------------------------------------------------------------------------
execd_spool=$("${qconf[@]}" -sconf global | awk '$1 == "execd_spool_dir" {print $2}')
execd_pid=$(ge_pid_from "$ge_run_dir/execd.pid" sge_execd ||
  ge_pid_from "$execd_spool/localhost/execd.pid" sge_execd || true)
if [[ -n $execd_pid ]] && ((qmaster_started)); then
  # An execd that outlived its qmaster reconnects only after ~30 s: restart it instead (its
  # running jobs go on; the new execd takes them over).
  ge_log "restarting sge_execd ($execd_pid) for the new sge_qmaster"
  kill -TERM "$execd_pid"
  ge_wait 30 "sge_execd ($execd_pid) to stop" eval "! ge_alive $execd_pid sge_execd"
  execd_pid=
fi
if [[ -z $execd_pid ]]; then
  rm -f "$execd_spool/localhost/execd.pid"
  ge_log "starting sge_execd"
  (cd / && "$ge_bin/sge_execd")
  ge_wait 30 "sge_execd's PID file" ge_pid_from "$execd_spool/localhost/execd.pid" sge_execd
  execd_pid=$(ge_pid_from "$execd_spool/localhost/execd.pid" sge_execd)
fi
echo "$execd_pid" >"$ge_run_dir/execd.pid"

# Ready when the queue instance has a load report and no unknown/alarm/disabled/error state.
queue_ready() {
  "$ge_bin/qstat" -f -q "$ge_queue" |
    awk -v q="$ge_queue@localhost" '$1 == q && $4 != "-NA-" && $6 !~ /[uadEcCsS]/ {ok = 1}
      END {exit !ok}'
}
ge_wait 60 "the execution host to report to sge_qmaster" queue_ready
ge_log "cell up: $ge_queue@localhost with $slots slots (qmaster $qmaster_pid, execd $execd_pid)"
