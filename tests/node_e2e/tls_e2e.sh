#!/usr/bin/env bash
# The API over TLS: a real arbd with [tls] (certificates from scripts/make-test-certs.sh) and
# the arb CLI. The CLI with the CA is served; without it (plain text) or trusting another CA it
# is refused before any request; with client certificates required, only a certificate of the
# CA naming the user logs in. Plain text without allow_plaintext, or off loopback, is refused
# at the start.
# Usage: tls_e2e.sh ARBD ARB WORKDIR
set -u
arbd=$1 arb=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
. "$(dirname "$0")/checks.sh"
certs=$work/certs
"$(dirname "$0")/../../scripts/make-test-certs.sh" "$certs" >/dev/null 2>&1 || { echo "FAIL - certificates"; exit 1; }

write_config() {  # [client_ca]
  cat >"$work/node.toml" <<TOML
[node]
name = "tls-e2e"
[tls]
certificate = "$certs/server.pem"
private_key = "$certs/server.key"
${1:+client_ca = \"$1\"}
$(users_toml alice bob)
[[cluster]]
name = "c1"
cpus = 8
TOML
}
as() { env ARB_USER="$1" ARB_TOKEN="$1-secret" "$arb" "${@:2}" clusters; }

write_config
check "arbd --check reports TLS" 0 "$arbd" --check --config "$work/node.toml"
contains "$out" "(TLS)" && pass "check says TLS" || fail "check: $out"
start_arbd --config "$work/node.toml"
grep -q "transport=tls " "$work/arbd.log" || true  # the ready line is at info; the log is at warn
check "arb with the CA is served" 0 as alice --ca "$certs/ca.pem"
contains "$out" "c1" && pass "over TLS" || fail "clusters: $out"
ARB_CA=$certs/ca.pem check "ARB_CA works too" 0 as bob
check "arb without the CA (plain text) is refused" 3 as alice
contains "$(cat "$work/stderr")" "if the node serves TLS, pass its CA (--ca FILE or ARB_CA)" &&
  pass "... naming --ca" || fail "without the CA: $(cat "$work/stderr")"
check "arb trusting another CA is refused" 4 as alice --ca "$certs/rogue-ca.pem"
contains "$(cat "$work/stderr")" "certificate" && pass "... saying why" || fail "why: $(cat "$work/stderr")"
check "--cert without --ca is a usage error" 2 as alice --cert "$certs/alice.pem" --key "$certs/alice.key"
# A half-open connection (TCP, no TLS handshake) delays no one.
exec 7<>"/dev/tcp/127.0.0.1/$port"
check "served beside a half-open connection" 0 as alice --ca "$certs/ca.pem"
exec 7>&-
stop_arbd

write_config "$certs/ca.pem"
start_arbd --config "$work/node.toml"
check "alice with her certificate" 0 as alice --ca "$certs/ca.pem" --cert "$certs/alice.pem" --key "$certs/alice.key"
check "bob with alice's certificate is refused" 4 as bob --ca "$certs/ca.pem" --cert "$certs/alice.pem" --key "$certs/alice.key"
contains "$(cat "$work/stderr")" "not bob's" && pass "... saying why" || fail "why: $(cat "$work/stderr")"
check "no certificate is refused" 4 as alice --ca "$certs/ca.pem"
check "a certificate of another CA is refused" 4 as alice --ca "$certs/ca.pem" --cert "$certs/rogue-alice.pem" --key "$certs/rogue-alice.key"
stop_arbd
[ "$stopped_rc" -eq 0 ] && pass "arbd stops cleanly" || fail "arbd exit $stopped_rc"

# Plain text must be asked for, and stays on loopback.
printf '[node]\nname = "p"\n[[cluster]]\nname = "c1"\ncpus = 8\n' >"$work/plain.toml"
check "no [tls] and no allow_plaintext: refused" 2 "$arbd" --check --config "$work/plain.toml"
contains "$(cat "$work/stderr")" "allow_plaintext" && pass "... naming the key" || fail "why: $(cat "$work/stderr")"
printf '[node]\nname = "p"\nallow_plaintext = true\nlisten = "0.0.0.0:7400"\n[[cluster]]\nname = "c1"\ncpus = 8\n' >"$work/wide.toml"
check "plain text off loopback: refused" 2 "$arbd" --check --config "$work/wide.toml"
contains "$(cat "$work/stderr")" "loopback only" && pass "... saying so" || fail "why: $(cat "$work/stderr")"
printf '[node]\nname = "p"\n[tls]\ncertificate = "%s"\nprivate_key = "%s"\n[[cluster]]\nname = "c1"\ncpus = 8\n' \
  "$certs/server.pem" "$certs/alice.key" >"$work/mismatch.toml"
check "a key that does not match its certificate: refused" 2 "$arbd" --check --config "$work/mismatch.toml"
echo "$fails failure(s)"
[ "$fails" -eq 0 ]
