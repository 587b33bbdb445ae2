#!/usr/bin/env bash
# Grid jobs of every strategy through arbd and the arb CLI against the live batch systems the
# test suite starts (two Slurm clusters, one Grid Engine cell): each is accepted and runs
# exactly once; a flood leaves no other copy in any queue (squeue / qstat); reserve holds one
# reservation; cancelling leaves nothing of ours in any LRMS.
# Usage: cli_live.sh ARBD ARB CONFIG WORKDIR SLURM_RUN_DIR
set -u
arbd=$1 arb=$2 config=$3 work=$4 slurm_run=$5
rm -rf "$work" && mkdir -p "$work"
. "$(dirname "$0")/checks.sh"
export SGE_ROOT=/var/lib/gridengine SGE_CELL=default

coproc ARBD { exec "$arbd" --config "$config" --data-dir "$work/data" --listen 127.0.0.1:0 \
  --metrics "" --log-level warn 2>>"$work/arbd.log"; }
read -r word port _ <&"${ARBD[0]}"
[ "${word:-}" = ready ] || { echo "arbd did not start:"; cat "$work/arbd.log"; exit 1; }
export ARB_SERVER=127.0.0.1:$port ARB_USER=root ARB_TOKEN=root-secret

# In the LRMS's queue or running: 0 (yes) or 1.
in_lrms() {  # in_lrms CLUSTER LRMS_ID
  case $1 in
    slurm1) [ -n "$(SLURM_CONF=$slurm_run/arbtest/slurm.conf squeue -h -j "$2" -t PD,R 2>/dev/null)" ] ;;
    slurm2) [ -n "$(SLURM_CONF=$slurm_run/arbtest2/slurm.conf squeue -h -j "$2" -t PD,R 2>/dev/null)" ] ;;
    sge) /usr/lib/gridengine/qstat -j "$2" >/dev/null 2>&1 ;;
  esac
}
# Waits (at most 60 s) until `arb job show` of $1 contains $2.
wait_for() {
  for _ in $(seq 120); do
    out=$("$arb" -o json job show "$1")
    case "$out" in *"$2"*) return 0 ;; esac
    sleep 0.5
  done
  return 1
}
copies() {  # "cluster lrms_id state" per copy of grid job $1, from `arb job show`'s table
  "$arb" job show "$1" | awk '/^COPY/ { f = 1; next } f && NF == 0 { exit } f { print $2, $3, $4 }'
}

# Each cluster publishes its LRMS's walltime limit (paper 004's W_max): Slurm's partition
# MaxTime (2 days) and the Grid Engine queue's h_rt (48 h), as the fixtures configure them.
out=$("$arb" -o json clusters)
n=$(grep -c '"max_walltime": 172800' <<<"$out")
[ "$n" -eq 3 ] && pass "max_walltime read from the LRMSs" || fail "max_walltime: $out"

declare -A ids
for strategy in single flood adaptive reserve; do
  out=$("$arb" -o json submit --np 1 --walltime 10m --strategy "$strategy" --width 3 \
    --name "live-$strategy" --command "sleep 300")
  rc=$?
  ids[$strategy]=$(json_field "$out" id)
  [ $rc -eq 0 ] && [ -n "${ids[$strategy]}" ] && pass "submit $strategy (${ids[$strategy]})" \
    || fail "submit $strategy: exit $rc: $out"
done

for strategy in single flood adaptive; do
  id=${ids[$strategy]}
  if wait_for "$id" '"state": "running"'; then pass "$strategy runs"; else fail "$strategy never ran: $out"; fi
done

# Once one copy runs, every other is cancelled (on idle clusters several start at once: the
# later ones are duplicate starts, cancelled as well); then only the winner is in any LRMS.
for _ in $(seq 60); do
  [ "$(copies "${ids[flood]}" | grep -cE ' (queued|running|submitting)$')" -eq 1 ] && break
  sleep 0.5
done
# A cancelled copy leaves its LRMS within moments (Grid Engine shows a deleted job until its
# execd has killed it): poll for that, at most 30 s.
for _ in $(seq 60); do
  running=0 queued_elsewhere=0
  while read -r cluster lrms state; do
    [ "$lrms" = - ] && continue
    if in_lrms "$cluster" "$lrms"; then
      [ "$state" = running ] && running=$((running + 1)) || queued_elsewhere=$((queued_elsewhere + 1))
    fi
  done < <(copies "${ids[flood]}")
  [ $queued_elsewhere -eq 0 ] && break
  sleep 0.5
done
[ $running -eq 1 ] && [ $queued_elsewhere -eq 0 ] && pass "flood: one copy runs, none left in a queue" \
  || fail "flood: $running running, $queued_elsewhere other copies in LRMSs: $out"

# reserve: its job waits in (or already runs in) the kept reservation, which starts where the
# cluster's local-jobs-first admission allows.
out=$("$arb" -o json job show "${ids[reserve]}")
res=$(json_field "$out" reservation)
read -r rcluster rlrms rstate < <(copies "${ids[reserve]}")
[ -n "$res" ] && in_lrms "$rcluster" "$rlrms" && pass "reserve: job $rlrms in $res on $rcluster" \
  || fail "reserve without a reservation or job: $out"
held=$(ARB_USER=admin ARB_TOKEN=admin-secret "$arb" -o json list --all | grep -c '"state": "committed"\|"state": "active"')
[ "$held" -eq 1 ] && pass "reserve keeps one reservation" || fail "reservations live: $held"

for strategy in single flood adaptive reserve; do
  "$arb" job cancel "${ids[$strategy]}" >/dev/null 2>&1  # may have completed already
done
left=0
for strategy in single flood adaptive reserve; do
  # The cancels are asynchronous: poll until every copy is out of its LRMS.
  for _ in $(seq 60); do
    n=0
    while read -r cluster lrms state; do
      [ "$lrms" != - ] && in_lrms "$cluster" "$lrms" && n=$((n + 1))
    done < <(copies "${ids[$strategy]}")
    [ $n -eq 0 ] && break
    sleep 0.5
  done
  left=$((left + n))
done
[ $left -eq 0 ] && pass "nothing of ours left in any LRMS" || fail "$left copies left in LRMSs"

kill -TERM "$ARBD_PID"; wait "$ARBD_PID"
echo "$fails failure(s)"
[ "$fails" -eq 0 ]
