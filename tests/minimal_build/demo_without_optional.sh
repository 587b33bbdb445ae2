#!/usr/bin/env bash
# The README's main command on a machine with only the demo's packages (no libslurm): the
# node must link and run the demo, and a config naming a batch system the build lacks must
# be refused at start, naming the key, the kind and how to get it.
#
#   demo_without_optional.sh SOURCE_DIR BUILD_DIR WORK_DIR BUILD_TYPE [LAUNCHER]
#
# BUILD_DIR is a build folder of its own, configured as a build without libslurm would be
# (-DARB_WITH_SLURM=OFF: the same code path as libslurm missing); only arbd and arb are
# built there, by scripts/run.sh itself. With a compiler launcher (ccache) most objects come
# from the main build's cache, so the check costs about a link.
set -euo pipefail
src=$1 build=$2 work=$3 build_type=$4 launcher=${5:-}
fail() { echo "FAIL - $*" >&2; exit 1; }
rm -rf "$work"
mkdir -p "$work"

args=(-DARB_WITH_SLURM=OFF -DARB_WITH_POSTGRESQL=OFF -DARB_BUILD_TESTS=OFF -DARB_BUILD_BENCH=OFF)
[[ -n $launcher ]] && args+=(-DCMAKE_CXX_COMPILER_LAUNCHER="$launcher")
cmake -S "$src" -B "$build" -G Ninja \
  -DCMAKE_BUILD_TYPE="$build_type" "${args[@]}" > "$work/configure.log" ||
  { cat "$work/configure.log"; fail "configuring the build without libslurm"; }
grep -q "Slurm adapter: left out" "$work/configure.log" ||
  fail "the Slurm adapter was not left out: $(grep 'Slurm adapter' "$work/configure.log")"
grep -q "PostgreSQL store: left out" "$work/configure.log" ||
  fail "the PostgreSQL store was not left out: $(grep 'PostgreSQL store' "$work/configure.log")"

# The README's main command, verbatim but for where it builds and keeps its data, and on
# ports of the system's choosing (other tests run beside it).
if ! ARB_BUILD_DIR="$build" ARB_BUILD_TYPE="$build_type" ARB_DATA_DIR="$work/data" \
  ARB_RUN_ONCE=1 bash "$src/scripts/run.sh" --listen 127.0.0.1:0 --metrics 127.0.0.1:0 \
  --http 127.0.0.1:0 > "$work/run.log" 2>&1; then
  tail -40 "$work/run.log"
  fail "scripts/run.sh without libslurm"
fi
if ldd "$build/apps/arbd" | grep -q libslurm; then fail "arbd links libslurm"; fi
if ldd "$build/apps/arbd" | grep -q libpq; then fail "arbd links libpq"; fi
# The demonstration (from its first command on): every command answered, an elastic
# reservation and a co-reservation committed, the list shows them.
sed -n '/^\$ arb /,$p' "$work/run.log" > "$work/demo.log"
for want in '^\$ arb reserve' '^berlin/1 +berlin +alice .* committed' '^co-reservation ' \
  '^\$ arb list' 'event=stopped unanswered=0'; do
  grep -Eq "$want" "$work/demo.log" || { cat "$work/demo.log"; fail "no '$want' in the demo"; }
done
if grep -Eq '^(error|arb): ' "$work/demo.log"; then
  cat "$work/demo.log"
  fail "a command of the demo failed"
fi

# A Slurm cluster in the config: refused at start (exit 2), saying what is missing.
cat > "$work/slurm.toml" <<'TOML'
[node]
listen = "127.0.0.1:0"
[[cluster]]
name = "site"
kind = "slurm"
slurm_conf = "/etc/slurm/slurm.conf"
TOML
set +e
"$build/apps/arbd" --config "$work/slurm.toml" --data-dir "" > "$work/slurm.log" 2>&1
rc=$?
set -e
[[ $rc == 2 ]] || { cat "$work/slurm.log"; fail "a slurm cluster: exit $rc, not 2"; }
grep -q "cluster\[0\].kind: 'slurm' is not in this build of arbroker; it needs libslurm: install Debian's libslurm-dev" \
  "$work/slurm.log" || { cat "$work/slurm.log"; fail "the refusal does not say what is missing"; }

# A PostgreSQL store: refused the same way (the check says so before anything starts).
set +e
"$build/apps/arbd" --check --data-dir "" --store "postgresql://arb:pw@127.0.0.1/arb" \
  > "$work/pg.log" 2>&1
rc=$?
set -e
[[ $rc == 2 ]] || { cat "$work/pg.log"; fail "a postgresql store: exit $rc, not 2"; }
grep -q "node.store: this build has no PostgreSQL store (built without libpq" "$work/pg.log" ||
  { cat "$work/pg.log"; fail "the refusal of the store does not say what is missing"; }
if grep -q ":pw@" "$work/pg.log"; then fail "the refusal shows the password"; fi
echo "demo without libslurm and libpq: built, ran, refused a slurm cluster with: $(grep -o "cluster\[0\].*" "$work/slurm.log"); refused a PostgreSQL store with: $(grep -o "node.store.*" "$work/pg.log")"
