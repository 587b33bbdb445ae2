#!/usr/bin/python3
"""docs/openapi.json holds: it is a valid OpenAPI 3.0 document (validated against the
specification's own JSON Schema, as Debian ships it with libjson-validator-perl, by Debian's
python3-jsonschema), and a real arbd answers what it says: every operation's example, an
empty body and a body with an unknown key are answered with a status the document lists for
that path, and every answer's body is valid under the schema the document gives for that
status (a 200's every field present, as `required` says). A watch's event is a watch_event.

Usage: openapi_check.py ARBD SOURCE_DIR WORKDIR
"""
import copy
import glob
import json
import os
import shutil
import sys
import urllib.error
import urllib.request

import jsonschema

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from demo_node import Checks, DemoNode  # noqa: E402

arbd, src, work = sys.argv[1], sys.argv[2], sys.argv[3]
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
check = Checks()

doc = json.load(open(f"{src}/docs/openapi.json"))

# 1. The document against the OpenAPI 3.0 schema (draft 4), found by its id, not its file name.
OAS_ID = "https://spec.openapis.org/oas/3.0/schema/2019-04-02"
meta = None
for path in glob.glob("/usr/share/perl5/JSON/Validator/cache/*"):
    try:
        candidate = json.load(open(path))
    except (ValueError, UnicodeDecodeError):
        continue
    if candidate.get("id") == OAS_ID:
        meta = candidate
if meta is None:
    print(f"FAIL - no OpenAPI 3.0 schema ({OAS_ID}); install libjson-validator-perl")
    sys.exit(1)
oas = jsonschema.Draft4Validator(meta)
errors = sorted(oas.iter_errors(doc), key=lambda e: list(e.path))
check("docs/openapi.json is valid OpenAPI 3.0", not errors,
      "; ".join(f"{'/'.join(map(str, e.path))}: {e.message}" for e in errors[:5]))
# The validator bites: a response without its description is no OpenAPI.
broken = copy.deepcopy(doc)
del broken["paths"]["/v1/elastic"]["post"]["responses"]["200"]["description"]
check("a document with a response lacking its description is refused", not oas.is_valid(broken))

# Every operation, field, enum and response says what it is.
undescribed = []
for name, schema in doc["components"]["schemas"].items():
    if "description" not in schema and schema.get("enum") is None and name != "error":
        for field, prop in schema.get("properties", {}).items():
            if not prop.get("description"):
                undescribed.append(f"{name}.{field}")
    if schema.get("enum") is not None and not schema.get("description"):
        undescribed.append(name)
for path, methods in doc["paths"].items():
    for method, op in methods.items():
        if not op.get("summary"):
            undescribed.append(f"{method} {path}")
check("every field, enum and operation has a description", not undescribed, undescribed[:10])
statuses = set(doc["paths"]["/v1/elastic"]["post"]["responses"])
check("each operation lists its error statuses",
      {"200", "400", "401", "403", "404", "405", "409", "413", "500", "503"} <= statuses,
      sorted(statuses))


# 2. Schemas of the document as JSON Schema: OpenAPI 3.0's `nullable` is a type with null.
def as_json_schema(node):
    if isinstance(node, dict):
        out = {k: as_json_schema(v) for k, v in node.items()}
        if out.pop("nullable", False) and "type" in out:
            out["type"] = [out["type"], "null"]
        return out
    if isinstance(node, list):
        return [as_json_schema(v) for v in node]
    return node


root = as_json_schema(doc)
resolver = jsonschema.RefResolver.from_schema(root)


def invalid(instance, schema):
    """What is wrong with `instance` under `schema` (which may $ref the document), or None."""
    v = jsonschema.Draft4Validator(as_json_schema(schema), resolver=resolver)
    e = jsonschema.exceptions.best_match(v.iter_errors(instance))
    return None if e is None else f"{'/'.join(map(str, e.path))}: {e.message}"


def response_schema(path, method, status):
    responses = doc["paths"][path][method]["responses"]
    r = responses.get(str(status))
    if r is None:
        return None
    if "$ref" in r:
        r = doc["components"]["responses"][r["$ref"].split("/")[-1]]
    return r["content"]["application/json"]["schema"]


# 3. A real arbd (the demo grid) answers as documented.
node = DemoNode(arbd, work)
base = node.base


def post(op, body, user="alice"):
    req = urllib.request.Request(
        f"{base}/v1/{op}", data=body.encode(), method="POST",
        headers={"X-Arb-User": user, "Authorization": f"Bearer {user}-secret",
                 "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


def answered_as_documented(name, op, body):
    status, reply = post(op, body)
    schema = response_schema(f"/v1/{op}", "post", status)
    if schema is None:
        check(f"{name}: status {status} is documented", False, reply)
        return status, reply
    problem = invalid(reply, schema)
    check(f"{name}: {status}, body as documented", problem is None, f"{problem}: {reply}")
    return status, reply


ids = {}  # the example's ids, replaced by those the node gave
for path, methods in doc["paths"].items():
    op_doc = methods.get("post")
    if op_doc is None:
        continue
    op = path.rsplit("/", 1)[1]
    example = op_doc["requestBody"]["content"]["application/json"]["example"]
    problem = invalid(example, op_doc["requestBody"]["content"]["application/json"]["schema"])
    check(f"{op}: the example is valid under its request schema", problem is None, problem)
    text = json.dumps(example)
    for old, new in ids.items():
        text = text.replace(old, new)
    status, reply = answered_as_documented(f"{op} example", op, text)
    if op == "elastic" and status == 200:
        ids["berlin/1"] = reply["reservation"]["id"]
    if op == "grid_submit" and status == 200:
        ids["demo/g1"] = reply["job"]["id"]
    answered_as_documented(f"{op} {{}}", op, "{}")
    answered_as_documented(f"{op} with an unknown key", op, '{"no_such_field": 1}')
check("the examples reached a reservation and a grid job", len(ids) == 2, ids)

# A watch from the first event: its data is a watch_event.
req = urllib.request.Request(f"{base}/v1/watch?since=0&kinds=reservation",
                             headers={"X-Arb-User": "alice",
                                      "Authorization": "Bearer alice-secret"})
event = None
with urllib.request.urlopen(req, timeout=60) as stream:
    kind = None
    for line in stream:
        line = line.decode().rstrip("\n")
        if line.startswith("event: "):
            kind = line[len("event: "):]
        elif line.startswith("data: ") and kind and kind.startswith("reservation."):
            event = json.loads(line[len("data: "):])
            break
check("a watch tells a reservation event", event is not None)
if event is not None:
    problem = invalid(event, {"$ref": "#/components/schemas/watch_event"})
    check("its data is a watch_event", problem is None, f"{problem}: {event}")

node.stop()
check.exit()
