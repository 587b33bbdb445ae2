#!/usr/bin/python3
"""Every example in the docs, run: the fenced blocks of README.md and docs/*.md (the generated
docs/protocol-reference.md aside), each by what its info string says (tests/docs/README.md):

  sh                  run against a demo node this script starts (as scripts/run.sh would);
                      `arb watch` and `curl -N` commands stream: each must print a first
                      line, then is stopped
  sh long             a measurement of minutes: run only with --long
  sh long old=COMMIT  a measurement recorded side by side with a build of COMMIT: the
                      commit must exist (running it again needs that build)
  KIND ctest=A,B      run by those ctests (each must exist in the build's ctest list);
                      `ci` too: by .ci/run, which must call it
  toml                an arbd config (or a fragment, completed by a demo [node] and user):
                      `arbd --check` must accept it
  toml jobfile        a job file: `arb submit-dag` must submit it
  json error          an error reply: valid under docs/openapi.json's error schema
  yaml prometheus     a scrape config: its target's metrics path must answer
  text                output, a diagram or a syntax: nothing to run

An indented code block is refused (fence it and say what it is), as is a fence without an
info string. Commands run in a scratch folder with the source tree's apps/, scripts/,
examples/ and configs/ reachable, `build/` meaning the build folder, 127.0.0.1:7400, :7480
and :9464 the demo node's ports, ARB_SERVER/ARB_USER/ARB_TOKEN set for alice (an export in a
block changes them for the rest of that block), and `scripts/run.sh &` standing for the node
this script runs.

Usage: doc_examples.py SOURCE_DIR BUILD_DIR WORKDIR [--long]
"""
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from demo_node import Checks, DemoNode  # noqa: E402

src, build, work = sys.argv[1], sys.argv[2], sys.argv[3]
run_long = "--long" in sys.argv[4:]
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
check = Checks()
ran = {}


def pages():
    out = [f"{src}/README.md"]
    for name in sorted(os.listdir(f"{src}/docs")):
        if name.endswith(".md") and name != "protocol-reference.md":
            out.append(f"{src}/docs/{name}")
    return out


FENCE = re.compile(r"^(\s*)```(.*)$")


def blocks(path):
    """(line, info, text) of every fenced block; indented code blocks as errors."""
    lines = open(path).read().split("\n")
    out, i, in_list = [], 0, False
    while i < len(lines):
        m = FENCE.match(lines[i])
        if m:
            indent, info, start, body = len(m.group(1)), m.group(2).strip(), i + 1, []
            i += 1
            while i < len(lines) and not FENCE.match(lines[i]):
                body.append(lines[i][indent:] if lines[i][:indent].isspace() else lines[i])
                i += 1
            out.append((start, info, "\n".join(body)))
            in_list = in_list and indent > 0
            i += 1
            continue
        line = lines[i]
        if re.match(r"^\s*([-*]|\d+\.)\s", line):
            in_list = True
        elif line and not line.startswith(" "):
            in_list = False
        # An indented code block: four spaces after a blank line, outside a list item.
        if (line.startswith("    ") and line.strip() and i > 0 and not lines[i - 1].strip()
                and not in_list and not line.lstrip().startswith("|")):
            out.append((i + 1, "<indented>", line))
            while i + 1 < len(lines) and (lines[i + 1].startswith("    ") or not lines[i + 1].strip()):
                i += 1
        i += 1
    return out


def ctest_names():
    listing = subprocess.run(["ctest", "--test-dir", build, "-N"], capture_output=True, text=True)
    return set(re.findall(r"Test\s+#\d+: (\S+)", listing.stdout))


# The demo node: what scripts/run.sh serves on 7400 (msgpack), 7480 (HTTP) and 9464 (metrics).
arbd, arb = f"{build}/apps/arbd", f"{build}/apps/arb"
node = DemoNode(arbd, work, metrics=True)
ports = {"127.0.0.1:7400": f"127.0.0.1:{node.api}", "127.0.0.1:7480": f"127.0.0.1:{node.http}",
         "127.0.0.1:9464": f"127.0.0.1:{node.metrics}"}

# The scratch folder: the tree's folders the examples name, `build/` the build folder.
scratch = f"{work}/tree"
os.makedirs(scratch)
for name in ("apps", "api", "bench", "scripts", "examples", "configs", "clients", "docs", "web"):
    os.symlink(f"{src}/{name}", f"{scratch}/{name}")
os.symlink(build, f"{scratch}/build")
base_env = dict(os.environ, ARB_SERVER=ports["127.0.0.1:7400"], ARB_USER="alice",
                ARB_TOKEN="alice-secret", PATH=f"{build}/apps:{os.environ['PATH']}")


def localized(text):
    for old, new in ports.items():
        text = text.replace(old, new)
    return text


def commands(text):
    """The block's commands: lines joined at a trailing backslash or an open quote (the shell's
    words, by shlex), comments and blanks left out."""
    out, current = [], ""
    for line in text.split("\n"):
        current += line
        if current.endswith("\\"):
            current = current[:-1] + " "
            continue
        try:
            shlex.split(current, comments=True)
        except ValueError:  # a quote still open: the command goes on
            current += "\n"
            continue
        if current.strip() and not current.strip().startswith("#"):
            out.append(current.strip())
        current = ""
    return out


def streams(command):
    return bool(re.search(r"\barb\b.*\bwatch\b|\bcurl\b.*\s-N\b", command))


def run_stream(command, env):
    """Runs until its first line of output; True if one came before it ended."""
    p = subprocess.Popen(["bash", "-c", command], cwd=scratch, env=env, text=True,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         start_new_session=True)
    first = p.stdout.readline()  # blocks until a line or the end; ctest's timeout bounds it
    ended = p.poll()
    if ended is None:
        os.killpg(p.pid, signal.SIGTERM)
    rest = p.communicate(timeout=30)[0]
    # It printed, and was still streaming (or ended well) when stopped.
    return bool(first) and ended in (None, 0), first + rest


def run_sh(where, text):
    env = dict(base_env)
    for command in commands(localized(text)):
        if re.match(r"^scripts/run\.sh\s*&", command):
            continue  # the node this script runs
        m = re.match(r"^export\s+(.*)$", command)
        if m:
            for item in shlex.split(m.group(1)):
                key, _, value = item.partition("=")
                env[key] = localized(value)
            continue
        if streams(command):
            ok, out = run_stream(command, env)
        else:
            r = subprocess.run(["bash", "-c", command], cwd=scratch, env=env, text=True,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=600)
            ok, out = r.returncode == 0, r.stdout
        check(f"{where}: {command[:90]}", ok, out[-1500:])
        if not ok:
            return


def run_toml(where, text, attrs):
    path = f"{work}/example-{len(ran)}.toml"
    if "jobfile" in attrs:
        open(path, "w").write(text)
        r = subprocess.run([arb, "submit-dag", path], env=base_env, text=True,
                           capture_output=True, timeout=120)
        check(f"{where}: arb submit-dag accepts the job file", r.returncode == 0,
              r.stdout + r.stderr)
        return
    head = "" if "[node]" in text else (
        '[node]\nname = "docs"\nallow_plaintext = true\nlisten = "127.0.0.1:0"\n'
        '[[user]]\nname = "alice"\ntoken = "a-token-for-the-docs-example"\n')
    if "[[cluster]]" not in text:
        head += '[[cluster]]\nname = "c1"\ncpus = 16\n'
    open(path, "w").write(head + text)
    r = subprocess.run([arbd, "--check", "--config", path], text=True, capture_output=True,
                       timeout=60)
    check(f"{where}: arbd --check accepts it", r.returncode == 0, r.stdout + r.stderr)


def run_json(where, text, attrs):
    try:
        value = json.loads(text)
    except ValueError as e:
        return check(f"{where}: JSON", False, str(e))
    if "error" in attrs:
        doc = json.load(open(f"{src}/docs/openapi.json"))
        schema = doc["components"]["schemas"]["error"]
        codes = doc["components"]["schemas"]["error_code"]["enum"]
        ok = set(value) == set(schema["required"]) and \
            codes[value["code"] - 1] == value["error"]
        check(f"{where}: an error reply as docs/openapi.json has it", ok, value)
    else:
        check(f"{where}: JSON", True)


def run_prometheus(where, text):
    targets = re.findall(r"targets:\s*\[\s*[\"']([^\"']+)[\"']", text)
    path = (re.findall(r"metrics_path:\s*(\S+)", text) or ["/metrics"])[0]
    ok = bool(targets)
    for t in targets:
        r = subprocess.run(["curl", "-sSf", f"http://{localized(t)}{path}"], capture_output=True,
                           text=True, timeout=30)
        ok = ok and r.returncode == 0 and "arb_" in r.stdout
    check(f"{where}: its targets serve the node's metrics", ok, targets)


names = None
for page in pages():
    rel = os.path.relpath(page, src)
    for line, info, text in blocks(page):
        where = f"{rel}:{line}"
        words = info.split()
        if info == "<indented>":
            check(f"{where}: fenced with an info string", False,
                  "an indented code block; fence it and say what it is (tests/docs/README.md)")
            continue
        if not words:
            check(f"{where}: has an info string", False, "a fence without one")
            continue
        lang, attrs = words[0], dict(w.partition("=")[::2] for w in words[1:])
        ran[where] = lang
        if "ci" in attrs:
            ci = open(f"{src}/.ci/run").read()
            check(f"{where}: run by .ci/run", all(c.split()[0] in ci for c in commands(text)
                                                  if c.startswith("scripts/test.sh")))
        if "ctest" in attrs:
            names = names if names is not None else ctest_names()
            missing = [n for n in attrs["ctest"].split(",") if n not in names]
            check(f"{where}: run by {attrs['ctest']}", not missing, f"no such ctest: {missing}")
        elif "old" in attrs:
            r = subprocess.run(["git", "-C", src, "cat-file", "-e", attrs["old"] + "^{commit}"],
                               capture_output=True)
            check(f"{where}: recorded against commit {attrs['old']}", r.returncode == 0,
                  "no such commit")
        elif lang == "text":
            continue
        elif lang == "sh" and "long" in attrs:
            if run_long:
                run_sh(where, text)
        elif lang == "sh":
            run_sh(where, text)
        elif lang == "toml":
            run_toml(where, text, attrs)
        elif lang == "json":
            run_json(where, text, attrs)
        elif lang == "yaml" and "prometheus" in attrs:
            run_prometheus(where, text)
        else:
            check(f"{where}: a kind of example this script runs", False, info)

node.stop()
check.exit(f"{len(ran)} examples; ")
