#!/usr/bin/env python3
"""A client of arbroker's HTTP/JSON API with Python's standard library only.

    python3 arb_http.py [--url http://127.0.0.1:7480] [--user alice] [--token alice-secret]
                        [--ca ca.pem]

Against a running node (scripts/run.sh starts the demo grid with the API on port 7480) it
lists the clusters, reserves 8 CPUs for 2 hours within the next 12 hours, shows the
reservation, cancels it, and shows that a second cancel is refused. The bodies are those of
docs/openapi.json (GET /v1/openapi.json); docs/http-api.md explains them.
"""

import argparse
import json
import ssl
import sys
import time
import urllib.error
import urllib.request


class ArbError(Exception):
    """A refused operation: the HTTP status and the node's error object."""

    def __init__(self, status, error):
        super().__init__(f"{status} {error.get('error')}: {error.get('message')}")
        self.status = status
        self.error = error


class Client:
    def __init__(self, url, user, token, ca=None, timeout=30):
        self.url = url.rstrip("/")
        self.headers = {
            "X-Arb-User": user,
            "Authorization": f"Bearer {token}",
            "Content-Type": "application/json",
        }
        self.context = ssl.create_default_context(cafile=ca) if ca else None
        self.timeout = timeout

    def call(self, operation, body=None):
        """POST /v1/<operation> with a JSON body; the reply body, or ArbError."""
        data = json.dumps(body or {}).encode()
        request = urllib.request.Request(
            f"{self.url}/v1/{operation}", data=data, headers=self.headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=self.timeout,
                                        context=self.context) as reply:
                return json.load(reply)
        except urllib.error.HTTPError as e:
            raise ArbError(e.code, json.load(e)) from None

    def openapi(self):
        with urllib.request.urlopen(f"{self.url}/v1/openapi.json", timeout=self.timeout,
                                    context=self.context) as reply:
            return json.load(reply)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default="http://127.0.0.1:7480")
    parser.add_argument("--user", default="alice")
    parser.add_argument("--token", default="alice-secret")
    parser.add_argument("--ca", help="CA file when the node serves HTTPS")
    args = parser.parse_args()
    arb = Client(args.url, args.user, args.token, args.ca)

    document = arb.openapi()
    print(f"{document['info']['title']}, version {document['info']['version']}: "
          f"{len(document['paths'])} paths")

    for cluster in arb.call("clusters")["clusters"]:
        print(f"cluster {cluster['name']}: {cluster['cpus']} CPUs, power {cluster['pp']}")

    now = int(time.time())
    reply = arb.call("elastic", {
        "est": now + 3600,         # not before an hour from now
        "let": now + 12 * 3600,    # ending within 12 hours
        "np_min": 8, "np_max": 8,  # 8 CPUs
        "dur_ref": 2 * 3600,       # 2 hours on 8 CPUs of the cluster's own power
        "mode": "reserve",
    })
    r = reply["reservation"]
    print(f"reserved {r['id']} on {r['cluster']}: {r['np']} CPUs "
          f"for {r['end'] - r['start']} s from {r['start']}, state {r['state']}")

    shown = arb.call("query", {"reservation_id": r["id"]})["info"]
    assert shown["id"] == r["id"] and shown["owner"] == args.user, shown

    arb.call("cancel", {"reservation_id": r["id"]})
    print(f"cancelled {r['id']}")
    try:
        arb.call("cancel", {"reservation_id": r["id"]})
        print("a second cancel was accepted", file=sys.stderr)
        return 1
    except ArbError as e:
        print(f"a second cancel is refused: {e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
