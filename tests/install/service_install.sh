#!/usr/bin/env bash
# scripts/install.sh into a staging root, as a package build would: the FHS layout, a
# configuration arbd accepts (`arbd --check`) with its store in /var/lib/arbroker, an edited
# configuration kept on reinstall, and a unit that `systemd-analyze verify` passes without a
# word. Usage: service_install.sh SOURCE_DIR BUILD_DIR WORKDIR
set -uo pipefail
src=$1 build=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
source "$src/tests/node_e2e/checks.sh"
root=$work/root

check "install into a staging root" 0 "$src/scripts/install.sh" --build-dir "$build" \
  --prefix /usr/local --destdir "$root"
for f in usr/local/bin/arbd usr/local/bin/arb usr/local/share/doc/arbroker/operations.md \
  etc/arbroker/arbd.toml etc/systemd/system/arbd.service; do
  [[ -e $root/$f ]] && pass "installed /$f" || fail "not installed: /$f"
done
[[ -d $root/var/lib/arbroker ]] && pass "a state directory" || fail "no /var/lib/arbroker"
# Installed without debug info (issue 37: arbd alone was 360 MB and more), still running.
arbd_bytes=$(stat -c %s "$root/usr/local/bin/arbd")
! readelf -S "$root/usr/local/bin/arbd" | grep -q '\.debug_info' && ((arbd_bytes < 64 * 1024 * 1024)) \
  && pass "arbd is installed stripped ($arbd_bytes bytes)" \
  || fail "arbd installed with debug info or too large: $arbd_bytes bytes"
archive=$(find "$root/usr/local/lib" -name 'libarb_core.a' | head -1)
[[ -n $archive ]] && ! readelf -S "$archive" 2>/dev/null | grep -q '\.debug_info' \
  && pass "the static libraries have no debug sections" || fail "libarb_core.a: ${archive:-none}"
[[ $(stat -c %a "$root/etc/arbroker/arbd.toml") == 640 ]] && pass "the config (tokens) is 0640" \
  || fail "config mode $(stat -c %a "$root/etc/arbroker/arbd.toml")"

check "arbd --check refuses the installed config until its tokens are set" 2 \
  "$root/usr/local/bin/arbd" --check --config "$root/etc/arbroker/arbd.toml"
contains "$(cat "$work/stderr") $out" "is the example's placeholder" &&
  pass "... naming the placeholder token" || fail "check: $out $(cat "$work/stderr")"
sed -i 's/change-me-/a-site-secret-/' "$root/etc/arbroker/arbd.toml"
check "arbd --check accepts the installed config with its tokens set" 0 \
  "$root/usr/local/bin/arbd" --check --config "$root/etc/arbroker/arbd.toml"
contains "$out" "data_dir /var/lib/arbroker" && pass "the store goes to /var/lib/arbroker" \
  || fail "check output: $out"
printf '[node]\nthreads = 0\n' >"$work/bad.toml"
check "arbd --check refuses a bad config" 2 "$root/usr/local/bin/arbd" --check --config "$work/bad.toml"

echo "# edited by the site" >>"$root/etc/arbroker/arbd.toml"
check "a second install, its debug info split off" 0 "$src/scripts/install.sh" \
  --build-dir "$build" --destdir "$root" --debug-dir "$work/debug"
contains "$out" "kept" && grep -q "edited by the site" "$root/etc/arbroker/arbd.toml" \
  && pass "an edited config is kept" || fail "config replaced: $out"
readelf -S "$work/debug/usr/local/bin/arbd.debug" 2>/dev/null | grep -q '\.debug_info' &&
  readelf --string-dump=.gnu_debuglink "$root/usr/local/bin/arbd" | grep -q 'arbd.debug' &&
  pass "--debug-dir: arbd's debug info in DIR/usr/local/bin/arbd.debug, linked from arbd" ||
  fail "--debug-dir: no debug file or link for arbd"
check "the stripped arbd still runs" 0 "$root/usr/local/bin/arbd" --version
check "an unknown argument" 2 "$src/scripts/install.sh" --prefixx /opt

unit=$root/etc/systemd/system/arbd.service
grep -q '^ExecStart=/usr/local/bin/arbd --config /etc/arbroker/arbd.toml$' "$unit" \
  && pass "ExecStart names the installed arbd" || fail "ExecStart: $(grep ExecStart "$unit")"
# systemd checks ExecStart on this host's file system: point it at the staged binary.
mkdir -p "$work/verify"
sed "s|/usr/local/bin/arbd|$root/usr/local/bin/arbd|" "$unit" >"$work/verify/arbd.service"
verify=$(systemd-analyze verify "$work/verify/arbd.service" 2>&1); rc=$?
[[ $rc -eq 0 && -z $verify ]] && pass "systemd-analyze verify: no complaint" \
  || fail "systemd-analyze verify (exit $rc): $verify"
# And it does complain when the unit is wrong (or the check above proves nothing).
sed 's/^ProtectSystem=/ProtectSytem=/' "$work/verify/arbd.service" >"$work/verify/broken.service"
verify=$(systemd-analyze verify "$work/verify/broken.service" 2>&1)
contains "$verify" "ProtectSytem" && pass "a misspelt key is reported" || fail "no complaint: $verify"

echo "$fails failure(s)"
[ "$fails" -eq 0 ]
