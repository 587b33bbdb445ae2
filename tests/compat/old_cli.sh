#!/usr/bin/env bash
# The `arb` of an earlier release against this build's arbd, unchanged: every everyday command
# a user of that release runs (issue 59). The old binary speaks its own protocol version; the
# node must welcome it in that version and answer every command as that release's node did.
#
#   old_cli.sh OLD_ARB ARBD WORK_DIR
set -u
old_arb=$1 arbd=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
. "$(dirname "$0")/../node_e2e/checks.sh"
fails=0
cat > "$work/node.toml" <<TOML
[node]
name = "compat"
allow_plaintext = true
$(users_toml alice bob)
[[cluster]]
name = "c1"
cpus = 16
[[cluster]]
name = "c2"
cpus = 8
TOML
trap '[ -n "${arbd_pid:-}" ] && kill -9 "$arbd_pid" 2>/dev/null' EXIT
start_arbd --config "$work/node.toml"
as() { ARB_USER=$1 ARB_TOKEN=$1-secret "$old_arb" "${@:2}"; }
echo "# $("$old_arb" --version) against $("$arbd" --version)"

check "clusters" 0 as alice clusters
for c in c1 c2; do contains "$out" "$c" && pass "... lists $c" || fail "no $c: $out"; done
check "status" 0 as alice -o json status
contains "$out" '"c2"' && pass "... of both clusters" || fail "status: $out"
check "whatif" 0 as alice -o json whatif --est now+1h --let now+5h --np 4 --runtime 1h
contains "$out" '"ranked"' && pass "... ranks candidates" || fail "whatif: $out"
check "estimate" 0 as alice -o json estimate --np 4 --walltime 1h
contains "$out" '"c1"' && pass "... per cluster" || fail "estimate: $out"
check "reserve" 0 as alice -o json reserve --est now+1h --let now+5h --np 8 --runtime 2h \
  --cluster c1
id=$(json_field "$out" id)
[[ $id == c1/* ]] && pass "... made $id" || fail "reserve: $out"
check "reserve more than a cluster has is refused" 7 as alice reserve --est now+1h \
  --let now+3h --np 64 --runtime 1h --cluster c2
check "coreserve" 0 as bob -o json coreserve --est now+1h --let now+6h \
  -c 'np=4;dur=1h' -c 'np=4;dur=1h'
contains "$out" '"c1/' && contains "$out" '"c2/' && pass "... on both clusters" ||
  fail "coreserve: $out"
check "list" 0 as alice -o json list
contains "$out" "\"$id\"" && pass "... has $id" || fail "list: $out"
check "show" 0 as alice -o json show "$id"
contains "$out" '"committed"' && pass "... committed" || fail "show: $out"
check "submit single" 0 as alice -o json submit --np 2 --walltime 1h --strategy single \
  --name old-single --command 'sleep 600'
single=$(json_field "$out" id)
[ -n "$single" ] && pass "... grid job $single" || fail "submit: $out"
check "submit flood" 0 as bob -o json submit --np 2 --walltime 1h --strategy flood --width 2 \
  --name old-flood --command 'sleep 600'
flood=$(json_field "$out" id)
[ -n "$flood" ] && pass "... grid job $flood" || fail "submit flood: $out"
check "jobs" 0 as alice -o json jobs
contains "$out" "old-single" && pass "... has old-single" || fail "jobs: $out"
check "jobs of bob" 0 as bob -o json jobs
contains "$out" "old-flood" && pass "... has old-flood" || fail "jobs: $out"
check "job show" 0 as bob -o json job show "$flood"
contains "$out" '"flood"' && pass "... a flood" || fail "job show: $out"
check "cancel" 0 as alice cancel "$id"
check "show after cancel" 0 as alice -o json show "$id"
contains "$out" '"cancelled"' && pass "... cancelled" || fail "after cancel: $out"
check "bob cannot see alice's" 6 as bob show "$id"

stop_arbd
[ "$stopped_rc" -eq 0 ] && pass "arbd stops cleanly" || fail "arbd exit $stopped_rc"
echo "$fails failed"
[ "$fails" -eq 0 ]
