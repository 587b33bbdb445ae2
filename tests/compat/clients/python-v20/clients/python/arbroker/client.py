"""A client of an arbroker node's HTTP/JSON API (docs/http-api.md), standard library only.

Every operation is ``POST /v1/<operation>`` with a JSON body; the bodies are those of
docs/openapi.json. A refused operation raises :class:`ArbError` with the node's error code;
watching is ``GET /v1/watch``, server-sent events, read by :meth:`Client.watch`.
"""

from __future__ import annotations

import http.client
import json
import ssl
import time
import urllib.parse
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence

from .types import (ClusterSummary, CoreservationComponent, GridJob, Reservation, Slot,
                    WatchEvent)

Body = Dict[str, Any]


class ArbError(Exception):
    """A refused operation: the HTTP status, the error's name (``not_found``, ``gone``, ...),
    its code, its message and, for some, a detail body (a refused elastic request's earliest
    alternative)."""

    def __init__(self, status: int, error: str, code: int, message: str,
                 detail: Optional[Body] = None) -> None:
        super().__init__(f"{status} {error}: {message}")
        self.status = status
        self.error = error
        self.code = code
        self.message = message
        self.detail = detail


@dataclass
class ElasticResult:
    """The answer to reserve, hold and whatif: the reservation made (reserve, hold) and the
    candidates ranked best first (whatif), with the clusters passed over and why."""
    reservation: Optional[Reservation]
    ranked: List[Slot]
    passed_over: List[Dict[str, Any]] = field(default_factory=list)
    earliest_alternative: int = -1


def _now() -> int:
    return int(time.time())


class Client:
    """One node, or several on one store of which one serves (docs/operations.md, "Two nodes,
    one store"). ``url`` is its HTTP API (``http://127.0.0.1:7480``), or several separated by
    commas; ``ca`` a CA file when it serves HTTPS. Calls are blocking, each with ``timeout``
    seconds. With several nodes a call goes to the one that serves: a standby's answer
    (503 ``not_leader``) names it, a node that cannot be reached or is starting is passed
    over, and the nodes are tried again, with pauses, for up to ``failover_wait`` seconds
    (default: ``timeout``) while a failover is under way. A call is only sent again when no
    node took it (refused before it was read, or no connection): never twice."""

    def __init__(self, url: str, user: str, token: str, ca: Optional[str] = None,
                 timeout: float = 30, failover_wait: Optional[float] = None) -> None:
        self.urls = [_base_url(u.strip()) for u in url.split(",") if u.strip()]
        if not self.urls:
            raise ValueError("no URL given")
        self._use(self.urls[0])
        self._ca = ca
        self.tls: Optional[ssl.SSLContext] = None
        if any(u.startswith("https:") for u in self.urls):
            self.tls = ssl.create_default_context(cafile=ca)
        self.user = user
        self.timeout = timeout
        self.failover_wait = (failover_wait if failover_wait is not None
                              else (timeout if len(self.urls) > 1 else 0))
        self._headers = {
            "X-Arb-User": user,
            "Authorization": f"Bearer {token}",
            "Content-Type": "application/json",
        }

    def _use(self, url: str) -> None:
        parts = urllib.parse.urlsplit(url)
        self.url = url
        self.scheme = parts.scheme
        self.host = parts.hostname
        self.port = parts.port or (443 if parts.scheme == "https" else 80)

    # -- the protocol ---------------------------------------------------------------------

    def _connection(self, timeout: Optional[float]) -> http.client.HTTPConnection:
        if self.scheme == "https":
            return http.client.HTTPSConnection(self.host, self.port, timeout=timeout,
                                               context=self.tls)
        return http.client.HTTPConnection(self.host, self.port, timeout=timeout)

    def call(self, operation: str, body: Optional[Body] = None) -> Body:
        """POST /v1/<operation> with ``body``: the reply body, or ArbError."""
        return self._following_the_leader(lambda: self._call_once(operation, body))

    def _call_once(self, operation: str, body: Optional[Body]) -> Body:
        conn = self._connection(self.timeout)
        try:
            conn.connect()  # a refused connection: nothing was sent, another node may take it
        except OSError as e:
            conn.close()
            raise _NotTaken(e) from e
        try:
            conn.request("POST", f"/v1/{operation}", json.dumps(body or {}), self._headers)
            reply = conn.getresponse()
            data = reply.read()
        finally:
            conn.close()
        if reply.status != 200:
            raise _error_of(reply.status, data)
        return json.loads(data)

    def _following_the_leader(self, attempt: Callable[[], Any]) -> Any:
        """``attempt()`` on the node that serves: on this one, else on the leader a standby
        names, else on the others in turn, in rounds until ``failover_wait`` has passed."""
        deadline = time.monotonic() + self.failover_wait
        pause = 0.1
        while True:
            order = [self.url] + [u for u in self.urls if u != self.url]
            tried: List[str] = []
            last: Exception = RuntimeError("no node tried")
            while order:
                url = order.pop(0)
                if url in tried:
                    continue
                tried.append(url)
                self._use(url)
                try:
                    return attempt()
                except _NotTaken as e:
                    last = e.cause
                except ArbError as e:
                    if e.error not in ("not_leader", "unreachable") or e.status != 503:
                        raise
                    last = e
                    leader = (e.detail or {}).get("leader") or {}
                    if leader.get("http_address"):
                        order.insert(0, f"{self.scheme}://{leader['http_address']}")
            now = time.monotonic()
            if now >= deadline:
                raise last
            # A failover under way: the next round a bit later (the last one at the deadline).
            time.sleep(min(pause, deadline - now))
            pause = min(pause * 2, 1.0)

    # -- reservations ---------------------------------------------------------------------

    def _elastic(self, mode: str, np: int | tuple[int, int], runtime: int, let: int,
                 est: int = 0, np_ref: int = 0, pp_ref: float = 0,
                 speedup: Optional[Body] = None, prefer: Sequence[str] = ("end", "cost"),
                 clusters: Sequence[str] = (), movable: bool = False,
                 extra: Optional[Body] = None) -> ElasticResult:
        np_min, np_max = (np, np) if isinstance(np, int) else np
        body: Body = {
            "mode": mode, "est": est, "let": let, "np_min": np_min, "np_max": np_max,
            "dur_ref": runtime, "np_ref": np_ref or np_min, "pp_ref": pp_ref,
            "prefer": [_objective(p) for p in prefer], "movable": movable,
        }
        if clusters:
            body["clusters"] = list(clusters)
        if speedup is not None:
            body["speedup"] = speedup
        body.update(extra or {})
        r = self.call("elastic", body)
        made = r.get("reservation") or {}
        return ElasticResult(reservation=made if made.get("id") else None,  # type: ignore
                             ranked=r.get("ranked", []), passed_over=r.get("passed_over", []),
                             earliest_alternative=r.get("earliest_alternative", -1))

    def reserve(self, np: int | tuple[int, int], runtime: int, let: int, **options: Any
                ) -> Reservation:
        """Reserves and commits the best candidate: ``np`` CPUs (or a range), ``runtime``
        seconds on ``np_ref`` CPUs of power ``pp_ref`` (0: each cluster's own), within
        [est, let] (UTC seconds; est 0: now). Options: est, np_ref, pp_ref, speedup, prefer
        (default end, cost), clusters, movable, extra (more fields of the request)."""
        made = self._elastic("reserve", np, runtime, let, **options).reservation
        assert made is not None
        return made

    def hold(self, np: int | tuple[int, int], runtime: int, let: int, **options: Any
             ) -> Reservation:
        """As reserve, but only held: commit() it before its expiry."""
        made = self._elastic("hold", np, runtime, let, **options).reservation
        assert made is not None
        return made

    def whatif(self, np: int | tuple[int, int], runtime: int, let: int, **options: Any
               ) -> ElasticResult:
        """The ranked candidates, nothing reserved (options as reserve's)."""
        return self._elastic("whatif", np, runtime, let, **options)

    def commit(self, reservation_id: str) -> Reservation:
        return self.call("commit", {"reservation_id": reservation_id})["info"]

    def cancel(self, reservation_id: str) -> None:
        self.call("cancel", {"reservation_id": reservation_id})

    def show(self, reservation_id: str) -> Reservation:
        return self.call("query", {"reservation_id": reservation_id})["info"]

    def modify(self, reservation_id: str, start: int, end: int, np: int) -> Reservation:
        return self.call("modify", {"reservation_id": reservation_id, "start": start,
                                    "end": end, "np": np})["info"]

    def reservations(self, history: bool = False, user: Optional[str] = None,
                     limit: int = 0, before: str = "") -> List[Reservation]:
        """Your live reservations (``history``: and a page of finished ones; ``user=""``:
        everyone's, for admins)."""
        body: Body = {"history": history, "limit": limit, "before": before}
        if user is not None:
            body["user"] = user
        return self.call("list", body)["reservations"]

    def coreserve(self, components: Sequence[CoreservationComponent], let: int, est: int = 0,
                  prefer: Sequence[str] = ("start",), max_attempts: int = 8) -> List[Reservation]:
        """Several clusters for the same time, all or nothing: each component
        {np_min, np_max, dur_ref, np_ref, pp_ref, offset, clusters}."""
        r = self.call("coreserve", {"est": est, "let": let, "components": list(components),
                                    "prefer": [_objective(p) for p in prefer],
                                    "max_attempts": max_attempts})
        return r["parts"]

    # -- grid jobs ------------------------------------------------------------------------

    def submit(self, command: str, np: int, walltime: int, name: str = "job",
               strategy: str = "single", width: int = 3, clusters: Sequence[str] = (),
               extra: Optional[Body] = None) -> GridJob:
        """A best-effort grid job the node places (docs/grid-jobs.md)."""
        body: Body = {"name": name, "command": command, "np": np, "walltime": walltime,
                      "strategy": strategy, "width": width, "clusters": list(clusters)}
        body.update(extra or {})
        return self.call("grid_submit", body)["job"]

    def job(self, job_id: str) -> GridJob:
        return self.call("grid_query", {"id": job_id})["job"]

    def cancel_job(self, job_id: str) -> GridJob:
        return self.call("grid_cancel", {"id": job_id})["job"]

    def jobs(self, state: str = "", history: bool = False) -> List[GridJob]:
        return self.call("grid_list", {"state": state, "history": history})["jobs"]

    # -- the node -------------------------------------------------------------------------

    def clusters(self) -> List[ClusterSummary]:
        return self.call("clusters")["clusters"]

    def status(self, clusters: Sequence[str] = ()) -> List[Body]:
        return self.call("status", {"clusters": list(clusters)})["clusters"]

    # -- watching -------------------------------------------------------------------------

    def watch(self, since: int = -1, kinds: Sequence[str] = (), user: Optional[str] = None,
              reconnect: bool = True,
              on_start: Optional[Callable[[int], None]] = None) -> Iterator[WatchEvent]:
        """The changes you may see, as they happen (docs/watch.md): an iterator of events,
        endless until you stop. ``since``: after this event id (-1: from now on). With
        ``reconnect``, a lost connection is made again from the last id seen, so nothing is
        lost or repeated; an end the node decides (slow_consumer, gone, its shutdown) raises
        ArbError. ``last_event_id`` says where to resume yourself; ``on_start(id)`` is called
        when the stream began, with the id it starts after."""
        self.last_event_id = since
        while True:
            try:
                yield from self._watch_once(kinds, user, on_start)
                return
            except (ConnectionError, http.client.IncompleteRead, TimeoutError):
                if not reconnect:
                    raise
                time.sleep(0.2)  # the node may be gone for a moment (a failover): not in a spin

    def _watch_once(self, kinds: Sequence[str], user: Optional[str],
                    on_start: Optional[Callable[[int], None]]) -> Iterator[WatchEvent]:
        query: Dict[str, Any] = {"since": self.last_event_id}
        if kinds:
            query["kinds"] = ",".join(kinds)
        if user is not None:
            query["user"] = user
        conn, reply = self._following_the_leader(lambda: self._open_watch(query))
        try:
            kind, data, last = "", "", None
            while True:
                line = reply.readline()
                if not line:
                    raise ConnectionError("the stream ended without an error event")
                text = line.decode("utf-8").rstrip("\r\n")
                if text == "":  # the end of a message
                    if kind == "error":
                        e = json.loads(data)
                        raise ArbError(200, e["error"], e["code"], e["message"])
                    if last is not None:
                        self.last_event_id = last
                    if kind == "watching" and on_start is not None:
                        on_start(self.last_event_id)
                    elif kind:
                        yield json.loads(data)
                    kind, data, last = "", "", None
                elif text.startswith(":"):
                    continue  # a comment: the keep-alive
                else:
                    name, _, value = text.partition(":")
                    value = value[1:] if value.startswith(" ") else value
                    if name == "event":
                        kind = value
                    elif name == "data":
                        data = data + "\n" + value if data else value
                    elif name == "id":
                        last = int(value)
        finally:
            conn.close()


    def _open_watch(self, query: Body) -> Any:
        """The stream of a watch on the node in use: its connection and response."""
        conn = self._connection(None)  # a watch may be quiet for long: no read timeout
        try:
            conn.connect()
        except OSError as e:
            conn.close()
            raise _NotTaken(e) from e
        try:
            headers = {k: v for k, v in self._headers.items() if k != "Content-Type"}
            conn.request("GET", "/v1/watch?" + urllib.parse.urlencode(query), headers=headers)
            reply = conn.getresponse()
            if reply.status != 200:
                raise _error_of(reply.status, reply.read())
        except BaseException:
            conn.close()
            raise
        return conn, reply


_ATTRIBUTES = ("end", "start", "np", "cost", "esr", "duration", "site")


def _objective(name: str) -> Body:
    """"end" -> {"attribute": "end", "descending": False}; "-esr" is descending."""
    descending = name.startswith("-")
    base = name.lstrip("-+")
    if base not in _ATTRIBUTES:
        raise ValueError(f"unknown preference {name!r} (one of {', '.join(_ATTRIBUTES)})")
    return {"attribute": base, "descending": descending}


class _NotTaken(Exception):
    """No node took the call (no connection): it may be sent to another."""

    def __init__(self, cause: OSError) -> None:
        super().__init__(str(cause))
        self.cause = cause


def _base_url(url: str) -> str:
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"not an http(s) URL: {url!r}")
    return f"{parts.scheme}://{parts.netloc}"


def _error_of(status: int, data: bytes) -> ArbError:
    try:
        e = json.loads(data)
        return ArbError(status, e.get("error", "unknown"), e.get("code", 0),
                        e.get("message", ""), e.get("detail"))
    except ValueError:
        return ArbError(status, "unknown", 0, data.decode("utf-8", "replace"))


__all__ = ["ArbError", "Client", "ElasticResult"]
