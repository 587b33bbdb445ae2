#!/usr/bin/env python3
"""A table of docs/experiments.md against a fresh run of the experiment.

Runs arb-sim on CONFIG (with --set overrides, e.g. one laxity and two policies of a larger
grid: every point of an experiment is its own simulation, so a smaller grid gives the same
figures for the points it keeps), then, for each --check TABLE ROW, finds the table marked
`<!-- table NAME/TABLE -->` in the docs and in the run's tables.md and compares every row and
column the two have in common, cell by cell. The row ROW must be among them, so a check
cannot pass by comparing nothing. Columns of the docs that the run does not make (the
paper's figures beside ours) are listed, not compared. Exit 1 naming every cell that differs.

  doc_row.py --sim build/apps/arb-sim --config configs/experiments/exp4_ese.toml \\
      --out /tmp/exp4 --check ranking "rankings right (ours)"
"""
import argparse
import pathlib
import re
import shutil
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parents[2]


def tables_of(text):
    """{marker id: (header, {label: cells})} of every marked table in a Markdown text."""
    out = {}
    lines = text.splitlines()
    for i, line in enumerate(lines):
        m = re.fullmatch(r"<!-- table (\S+) -->", line.strip())
        if not m:
            continue
        j = i + 1
        while j < len(lines) and not lines[j].startswith("|"):
            if lines[j].startswith("<!--") or lines[j].startswith("#"):
                break
            j += 1
        rows = []
        while j < len(lines) and lines[j].startswith("|"):
            rows.append([c.strip() for c in lines[j].strip().strip("|").split("|")])
            j += 1
        if len(rows) < 2:
            sys.exit(f"marker {m.group(1)} is not followed by a table")
        header, body = rows[0], rows[2:]
        out[m.group(1)] = (header, {label(r[0]): r for r in body})
    return out


def label(cell):
    return cell.replace("**", "").strip()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sim", required=True)
    ap.add_argument("--config", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--traces")
    ap.add_argument("--set", action="append", default=[], dest="overrides")
    ap.add_argument("-j", default="1")
    ap.add_argument("--doc", default=str(HERE / "docs" / "experiments.md"))
    ap.add_argument("--check", nargs=2, action="append", required=True, metavar=("TABLE", "ROW"))
    a = ap.parse_args()

    shutil.rmtree(a.out, ignore_errors=True)
    cmd = [a.sim, "--no-plots", "--no-progress", "-j", a.j, "-o", a.out, a.config]
    if a.traces:
        cmd += ["--traces", a.traces]
    for o in a.overrides:
        cmd += ["--set", o]
    run = subprocess.run(cmd, capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed:\n{run.stdout}{run.stderr}")
    made = list(pathlib.Path(a.out).glob("*/tables.md"))
    if len(made) != 1:
        sys.exit(f"expected one tables.md under {a.out}, found {len(made)}")
    name = made[0].parent.name
    fresh = tables_of(made[0].read_text())
    doc = tables_of(pathlib.Path(a.doc).read_text())

    failures = 0
    for table, row in a.check:
        key = f"{name}/{table}"
        if key not in fresh:
            sys.exit(f"the run makes no table {key} (it makes: {', '.join(sorted(fresh))})")
        if key not in doc:
            sys.exit(f"{a.doc} has no table marked <!-- table {key} -->")
        (dh, drows), (fh, frows) = doc[key], fresh[key]
        common = [c for c in dh[1:] if c in fh]
        if not common:
            sys.exit(f"{key}: no column of the docs ({dh}) is one the run makes ({fh})")
        shared = [r for r in drows if r in frows]
        if row not in shared:
            sys.exit(f"{key}: row '{row}' is not in both (docs: {list(drows)}; run: {list(frows)})")
        for r in shared:
            for c in common:
                want, got = drows[r][dh.index(c)], frows[r][fh.index(c)]
                if want != got:
                    print(f"{key}, row '{r}', column '{c}': {want} in the docs, {got} in a fresh run")
                    failures += 1
        by_hand = [c for c in dh[1:] if c not in fh]
        print(f"{key}: {len(shared)} row(s) x {len(common)} column(s) compared"
              + (f"; not from the run: {', '.join(by_hand)}" if by_hand else ""))
    summary = [line for line in run.stdout.splitlines() if "admission" in line]
    print(summary[0] if summary else run.stdout.strip())
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
