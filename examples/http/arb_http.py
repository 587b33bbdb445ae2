#!/usr/bin/env python3
"""arbroker's Python client (clients/python) at work against a running node.

    python3 arb_http.py [--url http://127.0.0.1:7480] [--user alice] [--token alice-secret]
                        [--ca ca.pem]

--url (or ARB_URL) may name several nodes on one store, http://a:7480,http://b:7480: the
calls go to the one that serves, across a failover (docs/operations.md, "Two nodes, one store").

It lists the clusters, watches the node, reserves 8 CPUs for 2 hours within the next 12 hours,
shows the reservation, cancels it, shows that a second cancel is refused, and prints what the
watch told meanwhile. scripts/run.sh starts the demo grid with the API on port 7480. The client
is the package in clients/python (`pip install clients/python`); run from the repository, this
script finds it there without installing.
"""

import argparse
import os
import sys
import threading
import time

try:
    import arbroker
except ImportError:  # not installed: the repository's copy
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "clients", "python"))
    import arbroker

from arbroker import ArbError, Client


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default=os.environ.get("ARB_URL", "http://127.0.0.1:7480"),
                        help="the node's HTTP API; several nodes on one store: URL,URL")
    parser.add_argument("--user", default="alice")
    parser.add_argument("--token", default="alice-secret")
    parser.add_argument("--ca", help="CA file when the node serves HTTPS")
    args = parser.parse_args()
    arb = Client(args.url, args.user, args.token, args.ca)

    for cluster in arb.clusters():
        print(f"cluster {cluster['name']}: {cluster['cpus']} CPUs, power {cluster['pp']}")

    # A watch on a connection of its own (docs/watch.md), told of this user's changes.
    told, started = [], threading.Event()
    watcher = Client(args.url, args.user, args.token, args.ca)

    def watch():
        try:
            for event in watcher.watch(kinds=["reservation"], on_start=lambda _: started.set()):
                told.append(event)
                if event["kind"] == "reservation.ended":
                    return
        except ArbError as e:
            print(f"the watch ended: {e}", file=sys.stderr)
            started.set()

    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    started.wait(timeout=30)

    now = int(time.time())
    r = arb.reserve(np=8, runtime=2 * 3600, est=now + 3600, let=now + 12 * 3600)
    print(f"reserved {r['id']} on {r['cluster']}: {r['np']} CPUs "
          f"for {r['end'] - r['start']} s from {r['start']}, state {r['state']}")

    shown = arb.show(r["id"])
    assert shown["id"] == r["id"] and shown["owner"] == args.user, shown

    arb.cancel(r["id"])
    print(f"cancelled {r['id']}")
    try:
        arb.cancel(r["id"])
        print("a second cancel was accepted", file=sys.stderr)
        return 1
    except ArbError as e:
        print(f"a second cancel is refused: {e}")

    thread.join(timeout=30)
    for event in told:
        print(f"watched: event {event['id']} {event['kind']} {event['subject']}")
    return 0 if any(e["kind"] == "reservation.ended" for e in told) else 1


if __name__ == "__main__":
    sys.exit(main())
