#!/usr/bin/env bash
# The HTTP/JSON API end to end: a real arbd (the demo grid, then a TLS config) asked with curl
# and with the Python example (examples/http/arb_http.py, standard library only). Reservations
# made over HTTP are the node's (the msgpack CLI sees them), owners and admins hold as on the
# msgpack API, errors are JSON with the right status, and the served OpenAPI document is the
# committed one.
# Usage: http_e2e.sh ARBD ARB WORKDIR
set -u
arbd=$1 arb=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
. "$(dirname "$0")/checks.sh"
src=$(cd "$(dirname "$0")/../.." && pwd)

# http USER TOKEN OP BODY: POST /v1/OP; the body in $out, the status in $status.
http() {
  local reply
  reply=$(curl -sS -w '\n%{http_code}' ${cacert:+--cacert "$cacert"} -H "X-Arb-User: $1" \
    -H "Authorization: Bearer $2" -H 'Content-Type: application/json' -d "$4" \
    "$base/v1/$3" 2>"$work/stderr") || { status=curl_failed; out=$(cat "$work/stderr"); return; }
  status=${reply##*$'\n'}
  out=${reply%$'\n'*}
}
# get PATH: a value of the JSON in $out ("reservation.id").
get() {
  python3 -c 'import json, sys
v = json.loads(sys.argv[1])
for k in sys.argv[2].split("."): v = v[k]
print(v)' "$out" "$1"
}
expect() {  # expect NAME STATUS [FRAGMENT]
  if [ "$status" = "$2" ] && contains "$out" "${3:-}"; then pass "$1"; else
    fail "$1 (status $status, wanted $2${3:+ with $3}): $out"; fi
}

start_arbd
[ "${hport:-0}" -gt 0 ] && pass "arbd serves HTTP on port $hport" || fail "no HTTP port: $hport"
base=http://127.0.0.1:$hport

doc=$(curl -sS "$base/v1/openapi.json")
[ "$doc" = "$(cat "$src/docs/openapi.json")" ] && pass "GET /v1/openapi.json is docs/openapi.json" \
  || fail "the served OpenAPI document differs from docs/openapi.json"

http alice alice-secret clusters ''
expect "clusters (an empty body is {})" 200 '"clusters":'

# /metrics on the HTTP port too (issue 37 item 6): the node's metrics as on the metrics port,
# no login; the request just made is counted there.
scraped=$(curl -sS -D "$work/metrics.headers" "$base/metrics")
grep -qi '^content-type: text/plain; version=0.0.4' "$work/metrics.headers" &&
  contains "$scraped" 'arb_requests_total{api="http",operation="clusters",outcome="ok"} 1' &&
  contains "$scraped" '# TYPE arb_cluster_cpus gauge' &&
  pass "GET /metrics on the HTTP port: the node's metrics, this request counted" ||
  fail "GET /metrics on the HTTP port: $(head -c 400 <<<"$scraped")"
# The Grafana dashboard (configs/grafana/arbroker-node.json) asks only for metrics the node has.
printf '%s\n' "$scraped" >"$work/metrics.txt"
missing=$(python3 - "$src/configs/grafana/arbroker-node.json" "$work/metrics.txt" <<'PY'
import json, re, sys
text = open(sys.argv[2]).read()
dash = json.load(open(sys.argv[1]))
names = {re.sub(r"_(bucket|sum|count)$", "", n) for p in dash["panels"] for t in p["targets"]
         for n in re.findall(r"\b((?:arb|process)_[a-z_]+)\b", t["expr"])}
print(" ".join(sorted(n for n in names if "# TYPE " + n + " " not in text)))
PY
)
[ -z "$missing" ] && pass "the Grafana dashboard's metrics are all served" ||
  fail "the Grafana dashboard asks for metrics the node does not serve: $missing"
status=$(curl -sS -o /dev/null -w '%{http_code}' -X POST "$base/metrics")
[ "$status" = 405 ] && pass "POST /metrics is 405" || fail "POST /metrics: $status"
http alice alice-secret elastic "{\"let\": $(($(date +%s) + 7200)), \"np_min\": 4, \"np_max\": 4, \"dur_ref\": 600, \"mode\": \"whatif\"}"
expect "an elastic request without est starts from now (issue 37)" 200 '"ranked":[{'
first=$(python3 -c 'import json, sys; print(json.loads(sys.argv[1])["ranked"][0]["start"])' "$out" \
  2>/dev/null || echo 0)
(( first >= $(date +%s) - 60 && first <= $(date +%s) + 3600 )) &&
  pass "... its first candidate starts within the hour" || fail "first candidate at $first: $out"
http alice wrong clusters '{}'
expect "a wrong token is 401" 401 '"error":"permission_denied"'
http alice alice-secret elastic '{"np_min": "eight"}'
expect "a field of the wrong type is 400 naming it" 400 'np_min'
http alice alice-secret reserve '{}'
expect "an unknown operation is 404" 404 "no operation 'reserve'"

now=$(date +%s)
http alice alice-secret elastic "{\"est\": $((now + 3600)), \"let\": $((now + 43200)), \
\"np_min\": 8, \"np_max\": 8, \"dur_ref\": 7200, \"mode\": \"reserve\"}"
expect "alice reserves 8 CPUs for 2 h" 200 '"state":"committed"'
id=$(get reservation.id)
[ -n "$id" ] && pass "the reply names the reservation ($id)" || fail "no id in $out"
start=$(get reservation.start) end=$(get reservation.end)
[ $((end - start)) -eq 7200 ] && pass "2 hours granted" || fail "granted $((end - start)) s"
# A job bound to it, shown and cancelled alone over HTTP (issue 35 item 6).
http alice alice-secret bind_job "{\"reservation_id\": \"$id\", \"name\": \"one\", \"np\": 4, \"walltime\": 600, \"command\": \"true\"}"
expect "a job bound to the reservation" 200 '"job_id":'
job=$(get job_id)
http alice alice-secret job_query "{\"reservation_id\": \"$id\", \"job_id\": \"$job\"}"
expect "job_query shows it" 200 '"name":"one"'
http bob bob-secret job_cancel "{\"reservation_id\": \"$id\", \"job_id\": \"$job\"}"
expect "bob cannot cancel it" 404 'no reservation'
http alice alice-secret job_cancel "{\"reservation_id\": \"$id\", \"job_id\": \"$job\"}"
expect "job_cancel cancels it alone" 200 '"state":"cancelled"'
http alice alice-secret job_query "{\"reservation_id\": \"$id\"}"
expect "a job_query without job_id is 400 naming it" 400 'job_query.job_id'
# status: a user sees only their own, in the service's lists and in the LRMS's own.
http admin admin-secret status '{}'
expect "an admin's status lists alice's reservation and the local jobs" 200 '"owner":"alice"'
contains "$out" '"owner":"local"' || fail "the admin's status shows no local job: $out"
http bob bob-secret status '{}'
expect "status answers bob" 200 '"lrms_reservations":'
contains "$out" '"owner":"alice"' && fail "bob's status shows alice's reservation: $out"
contains "$out" '"owner":"local"' && fail "bob's status shows the local jobs: $out"
pass "bob's status shows neither alice's reservation nor the local jobs"

# Grid jobs that heal (issue 35): the budgets and the reference power travel over HTTP.
http alice alice-secret grid_submit '{"np": 2, "walltime": 600, "command": "true", "max_resubmits": 1, "retry_on_failure": 1, "pp_ref": 2.0}'
expect "a grid job with its own resubmission budget" 200 '"max_resubmits":1'
contains "$out" '"retry_on_failure":1' || fail "the job does not carry its retries: $out"
http alice alice-secret grid_submit '{"np": 2, "walltime": 600, "command": "true"}'
expect "a grid job without one gets the node's (2)" 200 '"max_resubmits":2'
http alice alice-secret grid_submit '{"np": 2, "walltime": 600, "command": "true", "max_resubmits": 101}'
expect "a budget out of range is 400 naming it" 400 'grid_submit.max_resubmits'
# A job's needs (issue 35 item 4): only berlin's nodes have InfiniBand.
http alice alice-secret grid_submit '{"np": 4, "walltime": 600, "command": "true", "features": ["ib"], "mem_per_cpu": 1024}'
expect "a job that needs InfiniBand runs on berlin" 200 '"cluster":"berlin"'
http alice alice-secret grid_submit '{"np": 4, "walltime": 600, "command": "true", "features": ["ib|gpu"]}'
expect "a feature with a batch system's syntax in it is 400" 400 'grid_submit.features'
# Several jobs in one request (issue 35 item 5): the second waits for the first by name.
http alice alice-secret grid_submit_many '{"jobs": [{"name": "prep", "np": 2, "walltime": 600, "command": "true"}, {"name": "post", "np": 2, "walltime": 600, "command": "true", "after": ["prep"], "cancel_if_parent_fails": true}]}'
expect "two jobs in one request" 200 '"state":"pending"'
contains "$out" 'to complete (one of 2 submitted together)' || fail "the second waits for the first: $out"
http alice alice-secret grid_submit_many '{"jobs": [{"name": "a", "np": 2, "walltime": 600, "after": ["b"]}, {"name": "b", "np": 100000, "walltime": 600}]}'
expect "a request with a job no cluster can take is refused whole, naming it" 409 'jobs[1] (b)'
http alice alice-secret clusters '{}'
expect "clusters publish their nodes" 200 '"nodes":[{"count":4,"cpus":16,"features":["avx512","ib"],"memory":65536}]'

check "the msgpack CLI sees the reservation made over HTTP" 0 \
  env ARB_USER=alice ARB_TOKEN=alice-secret "$arb" list
contains "$out" "$id" && pass "arb list names $id" || fail "arb list: $out"
check "arb pointed at the HTTP port is refused" 3 \
  env ARB_USER=alice ARB_TOKEN=alice-secret "$arb" --server "127.0.0.1:$hport" list
contains "$(cat "$work/stderr")" "answers in HTTP: it is a node's HTTP API port" &&
  pass "... saying it is the HTTP port" || fail "arb at the HTTP port: $(cat "$work/stderr")"
http bob bob-secret query "{\"reservation_id\": \"$id\"}"
expect "bob cannot see alice's reservation (as if missing)" 404 '"error":"not_found"'
http admin admin-secret query "{\"reservation_id\": \"$id\"}"
expect "an admin sees it by id" 200 "\"owner\":\"alice\""
http alice alice-secret cancel "{\"reservation_id\": \"$id\"}"
expect "alice cancels it" 200
http alice alice-secret cancel "{\"reservation_id\": \"$id\"}"
expect "a second cancel is refused" 409 '"error":"illegal_transition"'
grep -q "event=request api=http user=\"alice\" .*op=cancel .*subject=\"$id\"" "$work/arbd.log" \
  && pass "the audit trail names the HTTP requests' reservation and front end" \
  || fail "no api=http audit line for $id: $(grep "$id" "$work/arbd.log")"
# Metrics tell the two front ends apart (the msgpack CLI's list above, HTTP's cancels).
exec 6<>"/dev/tcp/127.0.0.1/$mport"
printf 'GET /metrics HTTP/1.0\r\nHost: x\r\n\r\n' >&6
metrics=$(cat <&6); exec 6>&-
contains "$metrics" 'arb_requests_total{api="http",operation="cancel",outcome="ok"} 1' \
  && contains "$metrics" 'arb_requests_total{api="msgpack",operation="list",outcome="ok"}' \
  && pass "metrics count each front end's requests apart" \
  || fail "metrics by front end: $(grep arb_requests_total <<<"$metrics")"

check "the Python example runs against the node" 0 \
  python3 "$src/examples/http/arb_http.py" --url "$base"
contains "$out" "a second cancel is refused" && pass "the example went through" \
  || fail "example output: $out"
stop_arbd
[ "$stopped_rc" -eq 0 ] && pass "arbd stops cleanly" || fail "arbd exit $stopped_rc"

# HTTPS with the node's certificate, as the msgpack API gets it.
certs=$work/certs
"$src/scripts/make-test-certs.sh" "$certs" >/dev/null 2>&1 || { echo "FAIL - certificates"; exit 1; }
cat >"$work/node.toml" <<TOML
[node]
name = "http-e2e"
http_metrics = false
[tls]
certificate = "$certs/server.pem"
private_key = "$certs/server.key"
$(users_toml alice)
[[cluster]]
name = "c1"
cpus = 8
TOML
start_arbd --config "$work/node.toml"
base=https://localhost:$hport
cacert=$certs/ca.pem
http alice alice-secret clusters '{}'
expect "HTTPS with the node's CA" 200 '"name":"c1"'
status=$(curl -sS -o /dev/null -w '%{http_code}' --cacert "$cacert" "$base/metrics")
[ "$status" = 404 ] && pass "http_metrics = false: no /metrics on the HTTP port" ||
  fail "http_metrics = false: GET /metrics answered $status"
cacert=
http alice alice-secret clusters '{}'
expect "HTTPS refused without trusting the CA" curl_failed
base=http://127.0.0.1:$hport
http alice alice-secret clusters '{}'
[ "$status" != 200 ] && pass "plain HTTP to the TLS port is not served" || fail "plain HTTP served"
check "the Python example over HTTPS" 0 \
  python3 "$src/examples/http/arb_http.py" --url "https://localhost:$hport" --ca "$certs/ca.pem"
stop_arbd
[ "$stopped_rc" -eq 0 ] && pass "arbd stops cleanly" || fail "arbd exit $stopped_rc"

exit $((fails > 0))
