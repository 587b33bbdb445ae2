"""What the Python tests share (tests/console, tests/docs): a demo arbd on loopback ports of
its choice, and TAP-like check lines ("ok   - ...", "FAIL - ...", which ctest's
FAIL_REGULAR_EXPRESSION reads)."""
import subprocess
import sys


class Checks:
    def __init__(self):
        self.fails = 0

    def __call__(self, name, ok, detail=""):
        print(("ok   - " if ok else "FAIL - ") + name + ("" if ok else f": {detail}"), flush=True)
        self.fails += 0 if ok else 1

    def exit(self, summary=""):
        print(summary + (f"{self.fails} failed" if self.fails else "all passed"))
        sys.exit(1 if self.fails else 0)


class DemoNode:
    """arbd on the embedded demo grid, its data and log in `work`; `api`, `metrics` and `http`
    are its ports (metrics only when asked for)."""

    def __init__(self, arbd, work, metrics=False):
        self.process = subprocess.Popen(
            [arbd, "--data-dir", f"{work}/data", "--listen", "127.0.0.1:0",
             "--metrics", "127.0.0.1:0" if metrics else "", "--http", "127.0.0.1:0",
             "--log-level", "warn"],
            stdout=subprocess.PIPE, stderr=open(f"{work}/arbd.log", "w"), text=True)
        words = self.process.stdout.readline().split()  # "ready <api> <metrics> <http> ..."
        if not words or words[0] != "ready":
            print("FAIL - arbd did not start:", open(f"{work}/arbd.log").read())
            sys.exit(1)
        self.api, self.metrics, self.http = words[1], words[2], words[3]
        self.base = f"http://127.0.0.1:{self.http}"

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=30)
