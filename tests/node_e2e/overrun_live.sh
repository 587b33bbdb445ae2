#!/usr/bin/env bash
# Paper 002's overrun quanta (Sec. 5.3) on a live Slurm cluster, through arbd and the arb CLI:
# a job that runs 20 s longer than its one-minute reservation would be ended by Slurm at the
# reservation's end; arbd sees it still running 20 s before the end, extends the reservation
# in place by a minute and raises the job's time limit, and the job completes.
# Usage: overrun_live.sh ARBD ARB CONFIG WORKDIR SLURM_RUN_DIR
set -u
arbd=$1 arb=$2 config=$3 work=$4 slurm_run=$5
rm -rf "$work" && mkdir -p "$work"
. "$(dirname "$0")/checks.sh"
export SLURM_CONF=$slurm_run/arbtest/slurm.conf

coproc ARBD { exec "$arbd" --config "$config" --data-dir "$work/data" --listen 127.0.0.1:0 \
  --metrics "" --log-level warn 2>>"$work/arbd.log"; }
read -r word port _ <&"${ARBD[0]}"
[ "${word:-}" = ready ] || { echo "arbd did not start:"; cat "$work/arbd.log"; exit 1; }
export ARB_SERVER=127.0.0.1:$port ARB_USER=root ARB_TOKEN=root-secret

check "reserve 2 CPUs for a minute" 0 "$arb" -o json reserve --est now --let now+10m \
  --np 2 --np-ref 2 --pp-ref 1000 --dur-ref 1m
id=$(json_field "$out" id)
end=$(json_number "$out" end)
[ -n "$id" ] && [ -n "$end" ] && pass "granted ($id until $end)" || fail "no grant: $out"
check "a job of 80 s with a one-minute limit is bound to it" 0 "$arb" -o json commit "$id" \
  --np 2 --walltime 1m --name overrunner --command "sleep 80"
job=$(tr -d ' \n' <<<"$out" | grep -o '"jobs":\["[0-9]*"' | grep -o '[0-9][0-9]*')
[ -n "$job" ] && pass "Slurm job $job" || fail "no job id in: $out"

# The look comes 20 s before the reservation's end, wherever Slurm placed it (the start may
# be later than asked when the test cluster is busy): polled until a little past that end.
extended=
while [ "$(date +%s)" -le $((end + 15)) ]; do
  out=$("$arb" -o json show "$id" 2>&1)
  e=$(json_number "$out" end)
  if [ -n "$e" ] && [ "$e" -gt "$end" ]; then extended=$e; break; fi
  sleep 0.5
done
[ "$extended" = $((end + 60)) ] && pass "the reservation ends a minute later ($end -> $extended)" \
  || fail "not extended: $out; the job: $(scontrol -o show job "$job" 2>&1); arbd: $(tail -n 20 "$work/arbd.log")"
[ -n "$(scontrol -o show reservation 2>/dev/null | grep "arbovr-" | grep -v "~")" ] \
  && pass "in place: no successor reservation" || fail "reservations: $(scontrol -o show reservation)"
limit=$(scontrol -o show job "$job" | grep -o 'TimeLimit=[0-9:-]*')
[ "$limit" != "TimeLimit=00:01:00" ] && pass "the job's time limit was raised ($limit)" \
  || fail "time limit: $limit"

state=
for _ in $(seq 1 240); do  # at most 120 s
  state=$(scontrol -o show job "$job" 2>/dev/null | grep -o 'JobState=[A-Z_]*')
  case $state in JobState=PENDING | JobState=RUNNING | JobState=COMPLETING | "") sleep 0.5 ;; *) break ;; esac
done
[ "$state" = JobState=COMPLETED ] && pass "the job ran its 80 s and completed" \
  || fail "job $job ended as $state"

check "cancel" 0 "$arb" cancel "$id"
kill -TERM "$ARBD_PID"; wait "$ARBD_PID"
echo "$fails failure(s)"
[ "$fails" -eq 0 ]
