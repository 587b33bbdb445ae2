"""The shapes of the bodies this client returns, as docs/openapi.json gives them (a subset:
the fields most callers read; every reply carries all of its fields)."""

from __future__ import annotations

from typing import Any, Dict, List, TypedDict


class Reservation(TypedDict, total=False):
    id: str            # "<cluster>/<n>"
    cluster: str
    owner: str
    start: int         # UTC seconds
    end: int
    np: int
    state: str         # accepted, committed, active, cancelled, completed, expired, ...
    expiry: int        # of a hold
    cost: float
    account: str
    earliest: int      # a movable one's window (0, 0: rigid)
    deadline: int
    finished: int      # when it ended (0: live)


class Slot(TypedDict, total=False):
    cluster: str
    start: int
    end: int
    np: int
    cost: float
    esr: float


class GridCopy(TypedDict, total=False):
    cluster: str
    lrms_id: str
    state: str
    reason: str


class GridJob(TypedDict, total=False):
    id: str            # "<node>/g<n>"
    owner: str
    name: str
    strategy: str      # single, flood, adaptive, reserve
    state: str         # pending, queued, running, completed, failed, cancelled
    np: int
    walltime: int
    submitted: int
    started: int
    ended: int
    migrations: int
    resubmits: int
    copies: List[GridCopy]
    history: List[Dict[str, Any]]


class ClusterSummary(TypedDict, total=False):
    name: str
    lrms: str          # sim, slurm, gridengine, remote
    cpus: int
    pp: float          # processor power, the unit of pp_ref
    os: str
    features: List[str]
    max_walltime: int
    max_hold: int


class CoreservationComponent(TypedDict, total=False):
    np_min: int
    np_max: int
    dur_ref: int       # seconds on np_ref CPUs of power pp_ref
    np_ref: int
    pp_ref: float
    offset: int        # after the common start
    clusters: List[str]


class WatchEvent(TypedDict):
    """One change (docs/watch.md)."""
    id: int
    at: int
    kind: str          # reservation.created|committed|moved|extended|modified|ended, grid_job.*
    subject: str       # the reservation's or grid job's id
    owner: str
    cluster: str
    state: str
    start: int
    end: int
    np: int
    what: str
