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

# Each reservation of list.USER.json and grid job of jobs.USER.json, shown one by one now:
# the same terms (and state, where time cannot have moved it on).
ids() {  # FILE LIST
  python3 -c 'import json,sys; [print(x["id"]) for x in json.load(open(sys.argv[1]))["result"][sys.argv[2]]]' "$1" "$2"
}
compare() {  # USER KIND FIXTURE_FILE LIST SHOW...
  local user=$1 kind=$2 file=$3 list=$4 count=0 id verdict
  shift 4
  while read -r id; do
    count=$((count + 1))
    check "$user shows $kind $id" 0 as "$user" -o json "$@" "$id"
    verdict=$(python3 "$here/same_as_before.py" "$kind" "$file" "$id" "$out")
    [[ $verdict == same ]] && pass "... as before the upgrade" || fail "$kind $id changed: $verdict"
  done < <(ids "$file" "$list")
  ((count > 0)) && pass "$user had $count ${kind}s in the fixture" || fail "no ${kind}s of $user"
}
for user in alice bob; do
  compare "$user" reservation "$fixture/list.$user.json" reservations show
  compare "$user" job "$fixture/jobs.$user.json" jobs job show
done

# The events the release wrote (watch.USER.json, a build with a watch): the same, in order,
# from the first, for a watcher who resumes after the upgrade.
for user in alice bob; do
  [[ -f $fixture/watch.$user.json ]] || continue
  count=$(wc -l < "$fixture/watch.$user.json")
  check "$user watches the $count events from the first" 0 \
    as "$user" -o json watch --since 0 --count "$count"
  verdict=$(python3 "$here/same_events.py" "$fixture/watch.$user.json" <<<"$out")
  [[ $verdict == same ]] && pass "... as the release wrote them" || fail "$user's events: $verdict"
done

stop_arbd
[ "$stopped_rc" -eq 0 ] && pass "arbd stops cleanly" || fail "arbd exit $stopped_rc"
echo "$fails failed"
[ "$fails" -eq 0 ]
