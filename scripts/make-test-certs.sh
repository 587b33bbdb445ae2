#!/usr/bin/env bash
# Makes a throwaway certificate authority and certificates for TLS tests and the demo, with the
# openssl command line (EC P-256, valid 30 days). Never for production: the CA key lies beside.
#   make-test-certs.sh DIR
# DIR/ca.pem, ca.key            the test CA
# DIR/server.pem, server.key    CN=arbd, for 127.0.0.1, ::1 and localhost
# DIR/alice.pem, alice.key      a client certificate, CN=alice
# DIR/bob.pem, bob.key          a client certificate, CN=bob
# DIR/rogue-ca.pem              another CA, and DIR/rogue-alice.pem/.key (CN=alice) signed by it
# DIR/agent1.pem, agent1.key    an agent (arb-agent): CN=agent1, server role, for 127.0.0.1
# DIR/agent2.pem, agent2.key    another agent, CN=agent2
# DIR/broker1.pem, broker1.key  a broker node reaching agents: CN=broker1, client role
# DIR/broker2.pem, broker2.key  another broker node, CN=broker2
# DIR/rogue-broker1.pem/.key    CN=broker1, signed by the rogue CA
set -euo pipefail
dir=${1:?usage: make-test-certs.sh DIR}
mkdir -p "$dir"
cd "$dir"
days=30

key() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1" 2>/dev/null; }
ca() {  # name CN
  key "$1.key"
  openssl req -x509 -new -key "$1.key" -subj "/CN=$2" -days $days -out "$1.pem" \
    -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign
}
leaf() {  # name CN CA usage [SAN]
  key "$1.key"
  openssl req -new -key "$1.key" -subj "/CN=$2" -out "$1.csr"
  {
    echo "basicConstraints=critical,CA:FALSE"
    echo "keyUsage=critical,digitalSignature"
    echo "extendedKeyUsage=$4"
    [ -n "${5:-}" ] && echo "subjectAltName=$5"
  } >"$1.ext"
  openssl x509 -req -in "$1.csr" -CA "$3.pem" -CAkey "$3.key" -CAcreateserial -days $days \
    -extfile "$1.ext" -out "$1.pem" 2>/dev/null
  rm -f "$1.csr" "$1.ext"
}

ca ca "arbroker test CA"
leaf server arbd ca serverAuth "IP:127.0.0.1,IP:::1,DNS:localhost"
leaf alice alice ca clientAuth
leaf bob bob ca clientAuth
ca rogue-ca "rogue CA"
leaf rogue-alice alice rogue-ca clientAuth
for a in agent1 agent2; do leaf $a $a ca serverAuth "IP:127.0.0.1,IP:::1,DNS:localhost"; done
for b in broker1 broker2; do leaf $b $b ca clientAuth; done
leaf rogue-broker1 broker1 rogue-ca clientAuth
chmod 600 ./*.key
