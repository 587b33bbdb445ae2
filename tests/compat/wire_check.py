#!/usr/bin/env python3
"""compat.wire_rules: the wire changes a release may make (docs/compatibility.md).

    wire_check.py SOURCE_DIR

tests/compat/wire/vN.md is docs/protocol-reference.md as protocol version N was released. The
reference of today must extend every one of them: each struct keeps its fields in order with
their names and types, and may only have more at its end; each operation keeps its number and
name; each error code and enum value its number and name. The record of today's version must
be today's reference exactly: a change (an appended field included) needs a new protocol
version and its own record. Every version the node serves (this one and the two before) has
a record. Prints every violation and exits 1 when there is one.
"""
import re
import sys
from pathlib import Path


def parse(path):
    """The wire of one reference: version, structs, ops, codes, enums."""
    text = path.read_text()
    version = int(re.search(r"^Protocol version (\d+),", text, re.M).group(1))
    structs, ops, codes, enums = {}, {}, {}, {}
    section, name = None, None
    for line in text.splitlines():
        if line.startswith("## "):
            section, name = line[3:].strip(), None
        elif line.startswith("### "):
            name = line[4:].strip()
            if section == "Structs":
                structs[name] = []
        elif section == "Structs" and name and re.match(r"^\| \d+ \|", line):
            cells = [c.strip() for c in line.strip("|").split("|")]
            structs[name].append((cells[1], cells[2]))
        elif section == "Operations" and re.match(r"^\| \d+ \|", line):
            cells = [c.strip() for c in line.strip("|").split("|")]
            ops[int(cells[0])] = cells[1]
        elif section == "Error codes" and re.match(r"^\| \d+ \|", line):
            cells = [c.strip() for c in line.strip("|").split("|")]
            codes[int(cells[0])] = cells[1]
        elif section == "Enums" and name and line.startswith(("uint", "int")):
            values = re.findall(r"(\d+) ([a-z0-9_]+)", line.split(":", 1)[1])
            enums[name] = [v for _, v in values]
    return version, structs, ops, codes, enums


def extends(old, new, what):
    """Violations of `new` against the released `old` (the prefix rule)."""
    _, o_structs, o_ops, o_codes, o_enums = old
    _, n_structs, n_ops, n_codes, n_enums = new
    out = []
    for s, fields in o_structs.items():
        if s not in n_structs:
            out.append(f"{what}: struct {s} is gone (a released struct stays)")
            continue
        now = n_structs[s]
        for i, f in enumerate(fields):
            if i >= len(now):
                out.append(f"{what}: {s} lost its field {i} {f[0]} (fields are never removed)")
            elif now[i] != f:
                out.append(f"{what}: {s} field {i} was {f[0]} {f[1]}, is {now[i][0]} {now[i][1]} "
                           "(fields are never reordered, renamed or retyped: append instead)")
    for table, o, n in (("operation", o_ops, n_ops), ("error code", o_codes, n_codes)):
        for number, label in o.items():
            if n.get(number) != label:
                out.append(f"{what}: {table} {number} was {label}, is {n.get(number, 'gone')}")
    for e, values in o_enums.items():
        if n_enums.get(e, [])[: len(values)] != values:
            out.append(f"{what}: enum {e} was {values}, is {n_enums.get(e)} (values only appended)")
    return out


def differences(record, new):
    """How today's wire differs from the record of its own version."""
    _, r_structs, r_ops, r_codes, r_enums = record
    _, n_structs, n_ops, n_codes, n_enums = new
    out = []
    for s in sorted(set(r_structs) | set(n_structs)):
        if r_structs.get(s) != n_structs.get(s):
            old = [f for f, _ in r_structs.get(s, [])]
            now = [f for f, _ in n_structs.get(s, [])]
            out.append(f"struct {s}: recorded {old}, now {now}")
    for table, r, n in (("operations", r_ops, n_ops), ("error codes", r_codes, n_codes),
                        ("enums", r_enums, n_enums)):
        if r != n:
            out.append(f"{table}: recorded {r}, now {n}")
    return out


def main():
    src = Path(sys.argv[1])
    current = parse(src / "docs" / "protocol-reference.md")
    version = current[0]
    records = {}
    for path in sorted((src / "tests" / "compat" / "wire").glob("v*.md")):
        records[int(path.stem[1:])] = (path, parse(path))
    problems = []
    for v, (path, rec) in sorted(records.items()):
        if rec[0] != v:
            problems.append(f"{path.name} is the reference of version {rec[0]}, not {v}")
        problems += extends(rec, current, f"against version {v}")
    for v in range(version - 2, version + 1):
        if v not in records:
            problems.append(f"served version {v} has no record (tests/compat/wire/v{v}.md)")
    if version in records:
        diff = differences(records[version][1], current)
        if diff:
            problems.append(
                f"the wire changed within protocol version {version}; appending is allowed, but "
                f"only with a new version: raise api::protocol_version, say in docs/protocol.md "
                f"what an older client sees, and record docs/protocol-reference.md as "
                f"tests/compat/wire/v{version + 1}.md")
            problems += ["  " + d for d in diff]
    for p in problems:
        print("FAIL - " + p)
    print(f"wire rules: version {version} against the records of {sorted(records)}: "
          f"{'ok' if not problems else str(len(problems)) + ' problems'}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
