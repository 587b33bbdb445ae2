#!/usr/bin/env python3
"""Paper 004's Sec. IV-B and IV-C against a real arbd: what each layer of a request costs, and
how the broker's grid-job submission grows with the reservations a cluster already holds.

Paper 004 (Migol) measured the mean submission time of each layer of its stack: a job through
GSISSH (the LRMS's own command, ~1 s), GRAM4 (~7.5 s), a reservation through its ARS (web
service + earliest start estimation + the LRMS, ~13.7 s) and a job through its JBS (several ARS
calls: reservations at the best sites, keep the best; more again), over a "basic workload" of
1 to 10 jobs and reservations per cluster, at least 10 times each (IV-B); then the JBS's time
against the reservations active at a resource, up to 700: four times the reservations, twice
the time (IV-C, Fig. 6). Here the layers are arbroker's, each a request to arbd's HTTP API
(one kept-alive connection, as a client in a loop would use it):

  LRMS submit     sbatch of a job (Slurm only: the LRMS's own command, GSISSH's role)
  estimate        the earliest start of a job at every cluster (paper 004's ESE)
  reservation     an elastic reservation at one cluster (the ARS: view, estimate, hold,
                  commit in the LRMS)
  grid job        a grid job placed by the `reserve` strategy: held at the best `width`
                  clusters, the earliest kept and the job bound to it (the JBS)

On the demo node's simulated clusters (`--arbd` only) or on live Slurm clusters (`--slurm
CONF`, repeated: one arbd cluster per slurm.conf). Before timing, each cluster gets a random
1-10 reservations (and, on Slurm, 1-10 queued jobs) as IV-B's basic workload; IV-C then raises
the reservations at every cluster to each count of --active in turn and times the grid job
and the estimate again. Each request that fails stops the run with its error. Writes
tables.md (markers `<!-- table paper004_<grid>/ivb -->`, `.../ivc`) and prints it.

  python3 bench/paper004_layers.py --arbd build/apps/arbd --out /tmp/p4 [--reps 10]
  scripts/slurm/start.sh p4a --cpus 64 --port 17941 --clean   # and p4b, p4c
  python3 bench/paper004_layers.py --arbd build/apps/arbd --out /tmp/p4s \\
      --slurm /tmp/arb-slurm/p4a/slurm.conf --slurm ... --slurm ...
"""
import argparse
import http.client
import json
import os
import pathlib
import pwd
import random
import statistics
import subprocess
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(HERE / "tests"))
sys.path.insert(0, str(HERE / "tests" / "experiments"))
from demo_node import DemoNode  # noqa: E402
from doc_row import tables_of  # noqa: E402  (the marked tables of a page, as the row tests read them)

# Paper 004, Sec. IV-B (Fig. 5, means in seconds, as its text gives them).
PAPER_S = {"LRMS submit": "~1 (GSISSH)", "estimate": "-", "reservation": "13.7 (ARS)",
           "grid job": "> 13.7 (JBS)"}


USER = pwd.getpwuid(os.getuid()).pw_name  # the Slurm runs' user


class Api:
    """arbd's HTTP API as one user (the demo's alice), on one kept-alive connection."""

    def __init__(self, port, user="alice", token="alice-secret"):
        self.conn = http.client.HTTPConnection("127.0.0.1", int(port), timeout=60)
        self.headers = {"X-Arb-User": user, "Authorization": f"Bearer {token}",
                        "Content-Type": "application/json"}

    def call(self, op, body, refused_ok=False):
        """(reply, seconds); exits naming the operation when it is refused (with refused_ok,
        a 409 answers (None, seconds))."""
        t0 = time.perf_counter()
        self.conn.request("POST", f"/v1/{op}", json.dumps(body), self.headers)
        r = self.conn.getresponse()
        data = r.read()
        dt = time.perf_counter() - t0
        if r.status == 409 and refused_ok:
            return None, dt
        if r.status != 200:
            sys.exit(f"{op} {json.dumps(body)}: HTTP {r.status} {data.decode()}")
        return json.loads(data), dt


class SlurmNode:
    """arbd serving the given Slurm clusters (s1, s2, ...), its data in `work`."""

    def __init__(self, arbd, work, confs):
        cfg = pathlib.Path(work) / "arbd.toml"
        lines = ['[node]', 'name = "p4"', 'allow_plaintext = true', 'log_level = "warn"', '',
                 # Slurm reserves for the user by name: one this machine has.
                 '[[user]]', f'name = "{USER}"', 'token = "p4-secret"', '']
        for i, conf in enumerate(confs):
            lines += ['[[cluster]]', f'name = "s{i + 1}"', 'kind = "slurm"',
                      f'slurm_conf = "{conf}"', '']
        cfg.write_text("\n".join(lines))
        self.process = subprocess.Popen(
            [arbd, "--config", str(cfg), "--data-dir", f"{work}/data", "--listen",
             "127.0.0.1:0", "--http", "127.0.0.1:0", "--metrics", ""],
            stdout=subprocess.PIPE, stderr=open(f"{work}/arbd.log", "w"), text=True)
        words = self.process.stdout.readline().split()
        if not words or words[0] != "ready":
            sys.exit("arbd did not start: " + open(f"{work}/arbd.log").read())
        self.api, self.http = words[1], words[3]

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=60)


def sbatch(conf, begin_s):
    """Submits a one-CPU job that may start in begin_s seconds; (job id, seconds)."""
    env = dict(os.environ, SLURM_CONF=conf)
    t0 = time.perf_counter()
    out = subprocess.run(["sbatch", "--parsable", "-n", "1", "-t", "10",
                          f"--begin=now+{begin_s}", "--wrap", "sleep 1"],
                         env=env, capture_output=True, text=True)
    dt = time.perf_counter() - t0
    if out.returncode != 0:
        sys.exit(f"sbatch ({conf}): {out.stderr.strip()}")
    return out.stdout.strip().split(";")[0], dt


def scancel(conf, job):
    subprocess.run(["scancel", job], env=dict(os.environ, SLURM_CONF=conf), check=True)


class Grid:
    """The clusters of one arbd and what this run made there."""

    def __init__(self, api, np, confs):
        self.api, self.np, self.confs = api, np, confs
        reply, _ = api.call("clusters", {})
        self.clusters = [c["name"] for c in reply["clusters"]]
        self.cpus = {c["name"]: c["cpus"] for c in reply["clusters"]}
        self.reservations = {c: [] for c in self.clusters}
        self.jobs = []  # (conf, id) of the queued Slurm jobs of the basic workload
        self.hour = {c: 0 for c in self.clusters}  # where the next reservation is tried
        self.base = int(time.time()) // 3600 * 3600 + 86400  # a day ahead: past every queue

    def reserve(self, cluster):
        """A 1-hour reservation of np CPUs at `cluster`, packed hour by hour from a day ahead
        (as many side by side as the cluster has CPUs for); the seconds of the request that
        got it. A full hour is skipped."""
        side_by_side = max(1, self.cpus[cluster] // self.np)
        for _ in range(100):
            est = self.base + 3600 * (self.hour[cluster] // side_by_side)
            reply, dt = self.api.call("elastic", {
                "est": est, "let": est + 3600, "np_min": self.np, "np_max": self.np,
                "dur_ref": 3600, "clusters": [cluster]}, refused_ok=True)
            self.hour[cluster] += 1 if reply else side_by_side - self.hour[cluster] % side_by_side
            if reply:
                self.reservations[cluster].append(reply["reservation"]["id"])
                return dt
        sys.exit(f"{cluster}: no room for a reservation in 100 tries")

    def cancel(self, rid):
        self.api.call("cancel", {"reservation_id": rid})

    def grid_job(self, width):
        reply, dt = self.api.call("grid_submit", {
            "name": "p4", "command": "sleep 60", "np": self.np, "walltime": 3600,
            "strategy": "reserve", "width": width})
        self.api.call("grid_cancel", {"id": reply["job"]["id"]})
        return dt

    def estimate(self):
        _, dt = self.api.call("estimate", {"np": self.np, "walltime": 3600})
        return dt

    def one_reservation(self, cluster):
        dt = self.reserve(cluster)
        self.cancel(self.reservations[cluster].pop())
        return dt

    def top_up(self, count):
        """Every cluster holds `count` reservations of this run (made as needed)."""
        for c in self.clusters:
            while len(self.reservations[c]) < count:
                self.reserve(c)

    def clean(self):
        for c in self.clusters:
            for rid in self.reservations[c]:
                self.cancel(rid)
            self.reservations[c] = []
        for conf, job in self.jobs:
            scancel(conf, job)


def summary(per_run):
    """[median, min-max, mean] in ms over runs: the median of the runs' medians, the range of
    the runs' medians, the median of the runs' means."""
    medians = [1000 * statistics.median(xs) for xs in per_run]
    means = [1000 * statistics.mean(xs) for xs in per_run]
    return [f"{statistics.median(medians):.1f}", f"{min(medians):.1f}-{max(medians):.1f}",
            f"{statistics.median(means):.1f}"]


def calibration(stress):
    """The machine's calibration line of arb-stress --calibrate-only ("" without it)."""
    if not stress:
        return ""
    out = subprocess.run([stress, "--calibrate-only"], capture_output=True, text=True).stdout
    words = [line for line in out.splitlines() if "calibration" in line]
    return words[0].split(":", 1)[-1].split()[0] if words else "?"


def one_run(a, active, rng):
    """One node from scratch: (clusters, width, IV-B's seconds by layer, IV-C's [(label,
    grid-job seconds, estimate seconds)] by count)."""
    work = tempfile.mkdtemp(prefix="arb-p4-")
    node = SlurmNode(a.arbd, work, a.slurm) if a.slurm else DemoNode(a.arbd, work)
    try:
        api = Api(node.http, USER, "p4-secret") if a.slurm else Api(node.http)
        grid = Grid(api, a.np, a.slurm)
        width = min(3, len(grid.clusters))
        # IV-B's basic workload: 1-10 reservations (and on Slurm 1-10 queued jobs) per cluster.
        for c in grid.clusters:
            for _ in range(rng.randint(1, 10)):
                grid.reserve(c)
        for conf in a.slurm:
            for _ in range(rng.randint(1, 10)):
                grid.jobs.append((conf, sbatch(conf, 3 * 3600)[0]))
        # IV-B: each layer in turn, rep by rep, so a drift of the machine weighs on all alike.
        times = {k: [] for k in ["LRMS submit", "estimate", "reservation", "grid job"]}
        for i in range(a.reps):
            if a.slurm:
                conf = a.slurm[i % len(a.slurm)]
                job, dt = sbatch(conf, 3 * 3600)
                times["LRMS submit"].append(dt)
                scancel(conf, job)
            times["estimate"].append(grid.estimate())
            times["reservation"].append(grid.one_reservation(grid.clusters[i % len(grid.clusters)]))
            times["grid job"].append(grid.grid_job(width))
        # IV-C: the grid job (and the estimate) against the reservations every cluster holds.
        ivc = []
        for n in active:
            grid.top_up(n)
            jbs, ese = [], []
            for _ in range(a.reps):
                jbs.append(grid.grid_job(width))
                ese.append(grid.estimate())
            held = sorted({len(v) for v in grid.reservations.values()})
            ivc.append((str(held[0]) if len(held) == 1 else f"{held[0]}-{held[-1]}", jbs, ese))
        grid.clean()
        return grid.clusters, width, times, ivc
    finally:
        node.stop()


def table(marker, caption, header, rows):
    out = [f"<!-- table {marker} -->", caption, "", "| " + " | ".join(header) + " |",
           "|" + "|".join(["---"] + ["---:"] * (len(header) - 1)) + "|"]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--arbd", required=True)
    ap.add_argument("--slurm", action="append", default=[], help="a slurm.conf (repeat)")
    ap.add_argument("--out", required=True)
    ap.add_argument("--reps", type=int, default=10, help="requests per layer and count, per run")
    ap.add_argument("--runs", type=int, default=5, help="runs, each on a fresh node")
    ap.add_argument("--calibration", help="arb-stress, to print the machine's calibration "
                    "(CAF round trips/s) before and after")
    ap.add_argument("--active", default="0,100,200,350,500,700",
                    help="IV-C: reservations per cluster, in increasing order (0: IV-B's basic "
                    "workload alone; a row says how many each cluster held)")
    ap.add_argument("--np", type=int, default=16, help="CPUs of every request (the demo's "
                    "clusters reserve multiples of 4, 8 and 16 CPUs)")
    ap.add_argument("--seed", type=int, default=4)
    ap.add_argument("--check-doc", help="fail unless this page has the same tables (markers, "
                    "columns, and every row the run makes)")
    a = ap.parse_args()
    active = [int(x) for x in a.active.split(",")]
    if active != sorted(active):
        sys.exit("--active must increase")
    out = pathlib.Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    grid_name = "paper004_slurm" if a.slurm else "paper004_sim"
    before = calibration(a.calibration)
    # The same basic workload in every run: the runs differ only in the machine's noise.
    runs = [one_run(a, active, random.Random(a.seed)) for _ in range(a.runs)]
    after = calibration(a.calibration)
    clusters, width = runs[0][0], runs[0][1]
    # Each cell: the median over the runs of each run's median (or mean), and the range of
    # those per-run figures: a noisy run moves the spread, not the figure.
    ivb = []
    for layer in ["LRMS submit", "estimate", "reservation", "grid job"]:
        per_run = [r[2][layer] for r in runs if r[2][layer]]
        if per_run:
            ivb.append([layer, str(sum(len(x) for x in per_run)), *summary(per_run),
                        PAPER_S[layer]])
    ivc = []
    for i, n in enumerate(active):
        label = runs[0][3][i][0]
        jbs = [r[3][i][1] for r in runs]
        ese = [r[3][i][2] for r in runs]
        ivc.append([label, *summary(jbs), summary(ese)[0]])
    base = float(ivc[0][1]) if ivc else 0
    for r in ivc:
        r.insert(4, f"{float(r[1]) / base:.2f}" if base > 0 else "-")
    where = (f"{len(clusters)} Slurm clusters" if a.slurm
             else f"the demo's {len(clusters)} simulated clusters")
    text = (f"# {grid_name}: the tables of docs/experiments.md\n\n"
            + (f"Calibration (CAF round trips/s): {before} before, {after} after.\n\n"
               if a.calibration else "")
            + table(f"{grid_name}/ivb",
                    f"IV-B: each layer of a request to arbd's HTTP API on {where}: median, range "
                    f"and mean over {a.runs} runs of each run's figure over {a.reps} requests, "
                    f"in ms (np {a.np}; grid jobs held at {width})",
                    ["layer", "n", "median ms", "min-max ms", "mean ms", "paper (s)"], ivb)
            + "\n"
            + table(f"{grid_name}/ivc",
                    f"IV-C: a grid job (`reserve`, width {width}) and an estimate against the "
                    f"reservations every cluster holds, in ms as IV-B's",
                    ["reservations per cluster", "grid job median ms", "grid job min-max ms",
                     "grid job mean ms", "grid job / first row", "estimate median ms"], ivc))
    (out / "tables.md").write_text(text)
    print(text)
    if a.check_doc:
        doc, run = tables_of(pathlib.Path(a.check_doc).read_text()), tables_of(text)
        bad = []
        for marker, (header, rows) in run.items():
            if marker not in doc:
                bad.append(f"{a.check_doc} has no table <!-- table {marker} -->")
            elif doc[marker][0] != header:
                bad.append(f"{marker}: columns {doc[marker][0]} in the docs, {header} in the run")
            elif not set(rows) <= set(doc[marker][1]):
                bad.append(f"{marker}: rows {list(rows)} of the run, {list(doc[marker][1])} "
                           "in the docs")
        for b in bad:
            print("FAIL -", b)
        return 1 if bad else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
