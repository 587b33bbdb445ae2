"""arbroker's Python client: reservations, co-reservations, grid jobs and watching a node over
its HTTP/JSON API (docs/http-api.md), with Python's standard library only.

    from arbroker import Client
    arb = Client("http://127.0.0.1:7480", "alice", "alice-secret")
    r = arb.reserve(np=8, runtime=2 * 3600, let=now + 12 * 3600)
    for event in arb.watch():
        print(event["kind"], event["subject"])
"""

from .client import ArbError, Client, ElasticResult
from .types import (ClusterSummary, CoreservationComponent, GridCopy, GridJob, Reservation, Slot,
                    WatchEvent)

__version__ = "0.19.0"  # the protocol version it speaks is 19

__all__ = ["ArbError", "Client", "ClusterSummary", "CoreservationComponent", "ElasticResult",
           "GridCopy", "GridJob", "Reservation", "Slot", "WatchEvent"]
