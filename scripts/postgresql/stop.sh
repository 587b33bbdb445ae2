#!/usr/bin/env bash
# Stops the PostgreSQL instance INSTANCE started by start.sh (fast shutdown: open sessions
# are ended, committed data stays):  scripts/postgresql/stop.sh INSTANCE
# Its data stays (start.sh --clean wipes it). Idempotent.
set -euo pipefail
die() { echo "postgresql/$(basename "$0"): $*" >&2; exit 1; }
(($# == 1)) || { echo "usage: $0 INSTANCE" >&2; exit 2; }
instance=$1
[[ $instance =~ ^[a-z][a-z0-9_]{0,30}$ ]] || die "instance name '$instance': lower-case letters, digits, _"
dir=${ARB_RUN_DIR:-/tmp/arb-postgresql}/$instance
bin=/usr/lib/postgresql/15/bin
[[ -d $dir/data ]] || exit 0
as_owner() {
  if [[ $(id -u) -eq 0 ]]; then runuser -u postgres -- "$@"; else "$@"; fi
}
if as_owner "$bin/pg_ctl" -D "$dir/data" status >/dev/null 2>&1; then
  as_owner "$bin/pg_ctl" -D "$dir/data" -m fast -w -t 60 stop >/dev/null ||
    die "the server did not stop: $(tail -5 "$dir/log")"
fi
