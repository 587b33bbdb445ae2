#!/usr/bin/env bash
# Writes an upgrade fixture: a store as a given arbd/arb build leaves it, with reservations
# far in the future (committed, a co-reservation, a cancelled one, a hold that expires a
# minute later), grid jobs (running, bound to a reservation, cancelled) and the watch events
# of them all, plus what `arb -o json` said of them before the stop.
#
#   make_store.sh ARBD ARB OUT_DIR
#
# OUT_DIR/arbroker.db is the store (closed cleanly: no WAL beside it), OUT_DIR/list.USER.json
# the reservations, OUT_DIR/jobs.USER.json the grid jobs, OUT_DIR/watch.USER.json the events
# (a build with a watch), OUT_DIR/version the build that wrote them.
# tests/upgrade/README.md says which fixtures there are and how each was made.
set -euo pipefail
arbd=$1 arb=$2 out=$3
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
watchers=()
trap 'kill -TERM "$pid" "${watchers[@]}" 2>/dev/null || true; rm -rf "$work"' EXIT
mkdir -p "$out"

coproc ARBD { exec "$arbd" --config "$here/node.toml" --data-dir "$work/data" \
  --listen 127.0.0.1:0 --metrics "" --http "" --log-level warn 2>"$work/arbd.log"; }
pid=$ARBD_PID
read -r word port _ <&"${ARBD[0]}"
[[ $word == ready ]] || { cat "$work/arbd.log"; exit 1; }
export ARB_SERVER=127.0.0.1:$port
as() { ARB_USER=$1 ARB_TOKEN=$1-secret "$arb" "${@:2}"; }
# Each user's events, from the first, as they happen (a build with `arb watch`).
has_watch=false
if "$arb" watch --help > /dev/null 2>&1; then
  has_watch=true
  for user in alice bob; do
    as "$user" -o json watch --since 0 > "$work/watch.$user.json" &
    watchers+=($!)
  done
fi

# Far in the future, so that they are still ahead whenever the fixture is read.
as alice reserve --est 2035-01-01T00:00:00Z --let 2035-01-02T00:00:00Z --np 8 --runtime 2h \
  --cluster c1 > /dev/null
as bob reserve --est 2035-01-01T00:00:00Z --let 2035-01-02T00:00:00Z --np 4 --runtime 3h \
  --cluster c2 > /dev/null
as alice coreserve --est 2035-02-01T00:00:00Z --let 2035-02-02T00:00:00Z \
  -c 'np=4;dur=1h' -c 'np=4;dur=1h' > /dev/null
gone=$(as alice -o json reserve --est 2035-03-01T00:00:00Z --let 2035-03-02T00:00:00Z --np 2 \
  --runtime 1h | sed -n 's/.*"id": *"\([^"]*\)".*/\1/p' | head -n1)
as alice cancel "$gone" > /dev/null
# Grid jobs: one running, one bound to a reservation it made (reserve), one cancelled.
as alice submit --np 4 --walltime 2h --strategy single --name fixture-single \
  --command 'sleep 7200' > /dev/null
as bob submit --np 2 --walltime 30m --strategy reserve --name fixture-reserve \
  --command 'sleep 60' > /dev/null
cancelled=$(as alice -o json submit --np 2 --walltime 1h --strategy flood --width 2 \
  --name fixture-cancelled | sed -n 's/.*"id": *"\([^"]*\)".*/\1/p' | head -n1)
as alice job cancel "$cancelled" > /dev/null
# A hold that ends a minute from now: a node opening the store later finds it expired.
as alice hold --est 2035-04-01T00:00:00Z --let 2035-04-02T00:00:00Z --np 2 --runtime 1h \
  --cluster c1 --hold-for 1m > /dev/null

ARB_USER=alice ARB_TOKEN=alice-secret "$arb" -o json list --history > "$out/list.alice.json"
ARB_USER=bob ARB_TOKEN=bob-secret "$arb" -o json list --history > "$out/list.bob.json"
ARB_USER=alice ARB_TOKEN=alice-secret "$arb" -o json jobs --history > "$out/jobs.alice.json"
ARB_USER=bob ARB_TOKEN=bob-secret "$arb" -o json jobs --history > "$out/jobs.bob.json"
if $has_watch; then
  # The watches have every change above once they show the last one, a marker each user
  # makes and cancels at the end (then the watchers stop; the store may keep later events).
  for user in alice bob; do
    marker=$(as "$user" -o json reserve --est 2035-05-01T00:00:00Z --let 2035-05-02T00:00:00Z \
      --np 1 --runtime 1h | sed -n 's/.*"id": *"\([^"]*\)".*/\1/p' | head -n1)
    as "$user" cancel "$marker" > /dev/null
    deadline=$((SECONDS + 20))
    until grep -q "\"$marker\".*cancelled\|cancelled.*\"$marker\"" "$work/watch.$user.json"; do
      ((SECONDS < deadline)) || { echo "no event of $marker's cancel for $user" >&2; exit 1; }
      sleep 0.1  # a fixture maker polls; the tests never do
    done
  done
  kill -TERM "${watchers[@]}"
  wait "${watchers[@]}" 2>/dev/null || true
  for user in alice bob; do cp "$work/watch.$user.json" "$out/watch.$user.json"; done
  ARB_USER=alice ARB_TOKEN=alice-secret "$arb" -o json list --history > "$out/list.alice.json"
  ARB_USER=bob ARB_TOKEN=bob-secret "$arb" -o json list --history > "$out/list.bob.json"
fi
"$arbd" --version > "$out/version"
kill -TERM "$pid"
wait "$pid"
[[ ! -e $work/data/arbroker.db-wal || ! -s $work/data/arbroker.db-wal ]] ||
  { echo "the store's WAL was not checkpointed at the stop" >&2; exit 1; }
cp "$work/data/arbroker.db" "$out/arbroker.db"
echo "fixture in $out: $(cat "$out/version")"
