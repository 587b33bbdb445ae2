#!/usr/bin/env bash
# This build on a store an earlier release wrote (a fixture of make_store.sh): the node
# starts, and every reservation and grid job is there as that release showed it.
#
#   upgrade_test.sh ARBD ARB FIXTURE_DIR WORK_DIR
set -uo pipefail
arbd=$1 arb=$2 fixture=$3 work=$4
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../node_e2e/checks.sh"
rm -rf "$work"
mkdir -p "$work/data"
cp "$fixture/arbroker.db" "$work/data/"
echo "# store written by: $(cat "$fixture/version")"

start_arbd --config "$here/node.toml"
pass "arbd starts on the store $(cat "$fixture/version") wrote"
as() { ARB_USER=$1 ARB_TOKEN=$1-secret "$arb" "${@:2}"; }

# Each reservation of list.USER.json, shown one by one now: the same terms and state.
for user in alice bob; do
  count=0
  while read -r id; do
    count=$((count + 1))
    check "$user shows $id" 0 as "$user" -o json show "$id"
    verdict=$(python3 - "$fixture/list.$user.json" "$id" "$out" <<'PY'
import json, sys
import time
before = next(r for r in json.load(open(sys.argv[1]))["result"]["reservations"]
              if r["id"] == sys.argv[2])
now = json.loads(sys.argv[3])["result"]["reservation"]
keys = ["cluster", "owner", "start", "end", "np", "cost", "window_start", "window_end"]
# A state moves on with time (committed -> active -> completed): compared while it is ahead.
if before["state"] == "cancelled" or before["start"] > time.time():
    keys.append("state")
diff = [f"{k}: {before.get(k)} -> {now.get(k)}" for k in keys if before.get(k) != now.get(k)]
print("; ".join(diff) if diff else "same")
PY
)
    [[ $verdict == same ]] && pass "... as before the upgrade" || fail "$id changed: $verdict"
  done < <(python3 -c 'import json,sys; [print(r["id"]) for r in json.load(open(sys.argv[1]))["result"]["reservations"]]' \
    "$fixture/list.$user.json")
  ((count > 0)) && pass "$user had $count reservations in the fixture" || fail "no reservations of $user"
done

# Each grid job of jobs.USER.json: the same request (the record embeds it).
for user in alice bob; do
  count=0
  while read -r id; do
    count=$((count + 1))
    check "$user shows grid job $id" 0 as "$user" -o json job show "$id"
    verdict=$(python3 - "$fixture/jobs.$user.json" "$id" "$out" <<'PY'
import json, sys
before = next(j for j in json.load(open(sys.argv[1]))["result"]["jobs"] if j["id"] == sys.argv[2])
now = json.loads(sys.argv[3])["result"]["job"]
keys = ["owner", "name", "np", "walltime", "strategy", "submitted"]
diff = [f"{k}: {before.get(k)} -> {now.get(k)}" for k in keys if before.get(k) != now.get(k)]
if before["state"] in ("cancelled", "completed", "failed") and now["state"] != before["state"]:
    diff.append(f"state: {before['state']} -> {now['state']}")
print("; ".join(diff) if diff else "same")
PY
)
    [[ $verdict == same ]] && pass "... as before the upgrade" || fail "grid job $id changed: $verdict"
  done < <(python3 -c 'import json,sys; [print(j["id"]) for j in json.load(open(sys.argv[1]))["result"]["jobs"]]' \
    "$fixture/jobs.$user.json")
  ((count > 0)) && pass "$user had $count grid jobs in the fixture" || fail "no grid jobs of $user"
done

stop_arbd
[ "$stopped_rc" -eq 0 ] && pass "arbd stops cleanly" || fail "arbd exit $stopped_rc"
echo "$fails failed"
[ "$fails" -eq 0 ]
