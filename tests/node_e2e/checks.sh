# Shared by the node_e2e scripts (sourced): test-anything output and small JSON readers.
# The caller sets `work` (its scratch directory) before using check.
fails=0
pass() { echo "ok   - $1"; }
fail() { echo "FAIL - $1"; fails=$((fails + 1)); }
check() {  # check NAME EXPECTED_EXIT COMMAND...: runs it, output in $out
  local name=$1 want=$2; shift 2
  out=$("$@" 2>"$work/stderr") ; rc=$?
  if [ "$rc" -eq "$want" ]; then pass "$name"; else
    fail "$name (exit $rc, wanted $want): $out $(cat "$work/stderr")"; fi
}
contains() { case "$1" in *"$2"*) return 0 ;; *) return 1 ;; esac; }
json_field() { sed -n "s/.*\"$2\": *\"\([^\"]*\)\".*/\1/p" <<<"$1" | head -n1; }
json_number() { sed -n "s/.*\"$2\": *\([0-9-]*\).*/\1/p" <<<"$1" | head -n1; }
