"""The Python client against a real arbd on the demo grid (the arbd binary in $ARBD): every
call it offers, its errors, and watching with a resume that loses and repeats nothing."""

import os
import queue
import shutil
import subprocess
import tempfile
import threading
import time
import unittest

import arbroker
from arbroker import ArbError, Client

HOUR = 3600


class Node:
    """arbd on loopback ports of its choice, its data in a temporary folder."""

    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="arb-pyclient-")
        self.proc = subprocess.Popen(
            [os.environ["ARBD"], "--data-dir", os.path.join(self.dir, "data"), "--listen",
             "127.0.0.1:0", "--metrics", "", "--http", "127.0.0.1:0", "--log-level", "warn"],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        words = self.proc.stdout.readline().split()  # "ready <api> <metrics> <http> ..."
        if not words or words[0] != "ready":
            raise RuntimeError("arbd did not start")
        self.url = f"http://127.0.0.1:{words[3]}"

    def stop(self):
        self.proc.terminate()
        self.proc.wait(timeout=30)
        shutil.rmtree(self.dir, ignore_errors=True)


def setUpModule():
    global node
    node = Node()


def tearDownModule():
    node.stop()


class Watcher:
    """Iterates a watch on a thread of its own, handing each event to a queue."""

    def __init__(self, client, **kwargs):
        self.events = queue.Queue()
        self.error = None
        started = threading.Event()
        self.gen = client.watch(on_start=lambda _: started.set(), **kwargs)
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()
        if not started.wait(timeout=30):  # what happens from here on is told
            raise AssertionError(f"the watch did not start: {self.error}")

    def _run(self):
        try:
            for e in self.gen:
                self.events.put(e)
        except ArbError as e:
            self.error = e
            self.events.put(None)
        except Exception as e:  # the test closed the connection under it
            self.error = e
            self.events.put(None)

    def until(self, kind, subject, timeout=30):
        """The events up to the first of `kind` about `subject` (the timeout only bounds a
        failure: the event is waited for, not a time)."""
        seen = []
        while True:
            e = self.events.get(timeout=timeout)
            if e is None:
                raise AssertionError(f"the watch ended: {self.error}")
            seen.append(e)
            if e["kind"] == kind and e["subject"] == subject:
                return seen


class ClientTest(unittest.TestCase):
    def setUp(self):
        self.alice = Client(node.url, "alice", "alice-secret")
        self.bob = Client(node.url, "bob", "bob-secret")
        self.now = int(time.time())

    def test_it_is_the_installed_package(self):
        self.assertEqual(arbroker.__version__, "0.19.0")
        if os.environ.get("ARB_EXPECT_INSTALLED"):
            self.assertNotIn(os.environ["ARB_EXPECT_INSTALLED"], arbroker.__file__)

    def test_clusters_and_status(self):
        names = [c["name"] for c in self.alice.clusters()]
        self.assertEqual(names, ["berlin", "potsdam", "boston"])
        self.assertEqual(len(self.alice.status()), 3)

    def test_reserve_show_list_cancel_and_a_second_cancel_refused(self):
        r = self.alice.reserve(np=8, runtime=2 * HOUR, let=self.now + 12 * HOUR,
                               est=self.now + HOUR)
        self.assertEqual(r["state"], "committed")
        self.assertEqual(r["owner"], "alice")
        self.assertEqual(r["np"], 8)
        self.assertEqual(self.alice.show(r["id"])["id"], r["id"])
        self.assertIn(r["id"], [x["id"] for x in self.alice.reservations()])
        self.assertNotIn(r["id"], [x["id"] for x in self.bob.reservations()])
        with self.assertRaises(ArbError) as other:
            self.bob.show(r["id"])
        self.assertEqual((other.exception.status, other.exception.error), (404, "not_found"))
        self.alice.cancel(r["id"])
        with self.assertRaises(ArbError) as again:
            self.alice.cancel(r["id"])
        self.assertEqual(again.exception.status, 409)
        self.assertEqual(again.exception.error, "illegal_transition")

    def test_hold_then_commit_and_whatif(self):
        h = self.alice.hold(np=4, runtime=HOUR, let=self.now + 10 * HOUR)
        self.assertEqual(h["state"], "accepted")
        self.assertEqual(self.alice.commit(h["id"])["state"], "committed")
        self.alice.cancel(h["id"])
        w = self.alice.whatif(np=(4, 16), runtime=HOUR, let=self.now + 10 * HOUR)
        self.assertIsNone(w.reservation)
        self.assertGreater(len(w.ranked), 0)
        with self.assertRaises(ArbError) as nowhere:  # no cluster can host 100 CPUs
            self.alice.whatif(np=100, runtime=HOUR, let=self.now + 10 * HOUR)
        self.assertEqual((nowhere.exception.status, nowhere.exception.error), (409, "infeasible"))
        for cluster in ("berlin", "potsdam", "boston"):  # each named, with why
            self.assertIn(cluster + ":", nowhere.exception.message)

    def test_a_window_in_the_past_is_refused_as_such(self):
        with self.assertRaises(ArbError) as e:
            self.alice.reserve(np=4, runtime=HOUR, est=self.now - 10 * HOUR,
                               let=self.now - 5 * HOUR)
        self.assertEqual(e.exception.status, 400)
        self.assertEqual(e.exception.error, "invalid_window")

    def test_a_co_reservation_holds_two_clusters_for_the_same_time(self):
        parts = self.alice.coreserve(
            [{"np_min": 8, "np_max": 8, "dur_ref": HOUR, "np_ref": 8},
             {"np_min": 8, "np_max": 8, "dur_ref": HOUR, "np_ref": 8}],
            est=self.now + HOUR, let=self.now + 10 * HOUR)
        self.assertEqual(len(parts), 2)
        self.assertEqual(parts[0]["start"], parts[1]["start"])
        for p in parts:
            self.alice.cancel(p["id"])

    def test_a_grid_job_is_placed_shown_listed_and_cancelled(self):
        j = self.alice.submit("sleep 600", np=2, walltime=HOUR, name="py")
        self.assertEqual(j["owner"], "alice")
        self.assertEqual(self.alice.job(j["id"])["id"], j["id"])
        self.assertIn(j["id"], [x["id"] for x in self.alice.jobs()])
        self.assertEqual(self.alice.cancel_job(j["id"])["state"], "cancelled")

    def test_a_wrong_token_is_refused(self):
        with self.assertRaises(ArbError) as e:
            Client(node.url, "alice", "wrong-token").clusters()
        self.assertEqual(e.exception.status, 401)

    def test_watch_tells_the_changes_and_resumes_after_the_last_id(self):
        w = Watcher(self.alice)
        others = Watcher(self.bob)
        r = self.alice.reserve(np=8, runtime=HOUR, let=self.now + 12 * HOUR, est=self.now + HOUR)
        seen = w.until("reservation.committed", r["id"])
        self.assertEqual([e["kind"] for e in seen if e["subject"] == r["id"]],
                         ["reservation.created", "reservation.committed"])
        last = seen[-1]["id"]
        self.alice.cancel(r["id"])
        w.until("reservation.ended", r["id"])
        # From the last id seen before the cancel: the cancel, and nothing before it.
        again = Watcher(self.alice, since=last)
        after = again.until("reservation.ended", r["id"])
        self.assertEqual([e["kind"] for e in after], ["reservation.ended"])
        self.assertGreater(after[0]["id"], last)
        self.assertTrue(others.events.empty())  # bob is told nothing of alice's

    def test_watch_refusals_are_errors(self):
        with self.assertRaises(ArbError) as ahead:
            next(iter(self.alice.watch(since=10**12)))
        self.assertEqual((ahead.exception.status, ahead.exception.error),
                         (400, "invalid_parameter"))
        with self.assertRaises(ArbError) as other:
            next(iter(self.alice.watch(user="bob")))
        self.assertEqual(other.exception.status, 403)
        with self.assertRaises(ArbError) as kind:
            next(iter(self.alice.watch(kinds=["reservation.teleported"])))
        self.assertIn("kinds[0]", kind.exception.message)


if __name__ == "__main__":
    unittest.main()
