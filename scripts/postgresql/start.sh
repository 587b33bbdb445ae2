#!/usr/bin/env bash
# Starts a PostgreSQL 15 server named INSTANCE on loopback, in a folder of its own, for
# tests and measurements (never the system's cluster, never systemd):
#   scripts/postgresql/start.sh INSTANCE [--port P] [--clean] [--also-listen ADDR/PREFIX]
# The server listens on 127.0.0.1:P (default 17932) and on a socket in its folder; its
# superuser is `arb`, trusted without a password on loopback only, with a database `arb`.
# --also-listen adds ADDR (an address of this machine, e.g. a veth end a test made) and trusts
# clients from ADDR/PREFIX too: a node in a network namespace reaching the database.
# Everything lives in ${ARB_RUN_DIR:-/tmp/arb-postgresql}/INSTANCE (data, socket, log). As
# root the server runs as the `postgres` user (initdb refuses root); otherwise as the caller.
# --clean stops the instance if it runs and wipes its data first. Idempotent: a running
# instance on the same port is left alone. Returns once the server accepts connections.
# Prints the URI of the database `arb`. Stop with scripts/postgresql/stop.sh INSTANCE.
set -euo pipefail
die() { echo "postgresql/$(basename "$0"): $*" >&2; exit 1; }
say() { echo "postgresql/$(basename "$0"): $*" >&2; }
usage() { echo "usage: $0 INSTANCE [--port P] [--clean] [--also-listen ADDR/PREFIX]" >&2; exit 2; }

(($# >= 1)) || usage
instance=$1
shift
port=17932
clean=0
also=
while (($#)); do
  case $1 in
    --port) port=${2:-}; shift 2 || usage ;;
    --clean) clean=1; shift ;;
    --also-listen) also=${2:-}; shift 2 || usage ;;
    *) usage ;;
  esac
done
[[ $instance =~ ^[a-z][a-z0-9_]{0,30}$ ]] || die "instance name '$instance': lower-case letters, digits, _"
[[ $port =~ ^[1-9][0-9]*$ ]] && ((port <= 65535)) || die "--port '$port': a TCP port"
[[ -z $also || $also =~ ^[0-9]+(\.[0-9]+){3}/[0-9]+$ ]] || die "--also-listen '$also': ADDR/PREFIX (IPv4)"
bin=/usr/lib/postgresql/15/bin
[[ -x $bin/initdb ]] || die "PostgreSQL 15 missing ($bin/initdb); run scripts/setup.sh"

root=${ARB_RUN_DIR:-/tmp/arb-postgresql}
dir=$root/$instance
as_owner() {
  if [[ $(id -u) -eq 0 ]]; then runuser -u postgres -- "$@"; else "$@"; fi
}
here=$(cd "$(dirname "$0")" && pwd)
if ((clean)) && [[ -d $dir ]]; then
  "$here/stop.sh" "$instance" >/dev/null
  rm -rf "$dir"
fi
mkdir -p "$dir"
chmod 755 "$root"
[[ $(id -u) -eq 0 ]] && chown postgres: "$dir"
if [[ ! -s $dir/data/PG_VERSION ]]; then
  as_owner "$bin/initdb" -D "$dir/data" -A trust -U arb --no-sync -E UTF8 --locale C.UTF-8 \
    >"$dir/initdb.log" 2>&1 || die "initdb failed: $(tail -5 "$dir/initdb.log")"
fi
listen=127.0.0.1
if [[ -n $also ]]; then
  listen+=",${also%/*}"
  hba="host all all $also trust"
  grep -qxF "$hba" "$dir/data/pg_hba.conf" || echo "$hba" >>"$dir/data/pg_hba.conf"
fi
if as_owner "$bin/pg_ctl" -D "$dir/data" status >/dev/null 2>&1; then
  say "$instance already runs"
else
  # Loopback only (and --also-listen); the socket in the instance's folder (not
  # /var/run/postgresql).
  as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/log" -w -t 60 \
    -o "-k $dir -c listen_addresses=$listen -p $port" start >/dev/null ||
    die "the server did not start: $(tail -5 "$dir/log")"
fi
if ! as_owner "$bin/psql" -h 127.0.0.1 -p "$port" -U arb -d postgres -XAtqc \
  "SELECT 1 FROM pg_database WHERE datname = 'arb'" | grep -q 1; then
  as_owner "$bin/createdb" -h 127.0.0.1 -p "$port" -U arb arb || die "cannot create the database arb"
fi
echo "postgresql://arb@127.0.0.1:$port/arb"
