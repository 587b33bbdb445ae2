#!/usr/bin/env bash
# Installs every Debian 12 package arbroker needs to build, test and run, including the
# batch systems its adapters are tested against. Idempotent and fast when everything is
# present; run as root on a fresh machine (it runs `apt-get update` before installing).
# `setup.sh --demo` installs only what building and running the node needs (scripts/run.sh):
# no test frameworks, no batch systems.
set -euo pipefail
here=$(dirname "$0")
demo=false
[[ ${1:-} == --demo ]] && demo=true

# Building arbd and arb.
packages=(
  build-essential cmake ninja-build pkg-config
  libcaf-dev                 # actor framework (0.17.6)
  libboost-dev libboost-system-dev libasio-dev   # Asio; Beast (HTTP/JSON API) is in libboost-dev
  libmsgpack-cxx-dev         # wire format
  libspdlog-dev              # logging
  libtomlplusplus-dev        # configuration files
  libcli11-dev               # command lines
  nlohmann-json3-dev         # the CLI's JSON output
  libutfcpp-dev              # UTF-8 checks of the text in requests
  libsqlite3-dev             # embedded store
  libsodium-dev              # argon2id token hashes
  libssl-dev                 # TLS on the API (Boost.Asio ssl)
  prometheus-cpp-dev         # /metrics: registry, text format, pull endpoint (civetweb)
  libjemalloc-dev            # allocator of the executables (messages cross threads)
  zlib1g-dev                 # gzip'd SWF traces
  libdeflate-dev             # gzip'd SWF traces, read whole (faster than zlib)
  libpugixml-dev             # Grid Engine adapter: qstat/qrstat -xml
)
# Testing, benchmarking and the experiments' plots besides.
$demo || packages+=(
  clang-format
  ccache                     # tests/minimal_build compiles a second build folder from the cache
  clang libclang-rt-14-dev   # the API's libFuzzer target
  libgtest-dev libgmock-dev  # tests
  librapidcheck-dev          # property tests
  libbenchmark-dev           # benchmarks
  gnuplot-nox                # arb-sim: experiment plots and Gantt charts (PNG)
  python3                    # bench/easy_reference.py, examples/http/arb_http.py (and their tests)
  pypy3                      # bench/replay_vs_reference.sh: the reference under a JIT (ARB_PYTHON=pypy3)
  python3-venv python3-pip python3-setuptools python3-wheel  # clients/python installed with pip in a venv (its test)
  chromium chromium-driver python3-selenium    # the web console's test in a real (headless) browser
  python3-jsonschema libjson-validator-perl    # docs/openapi.json against the OpenAPI 3.0 schema (shipped by the Perl package)
  curl                       # the HTTP/JSON API's end-to-end test
  openssl                    # scripts/make-test-certs.sh: certificates of the TLS tests
  systemd                    # systemd-analyze verify of configs/systemd/arbd.service (install test)
  iproute2 nftables          # agents in network namespaces, partitions and loss (node_e2e.agents_netns)
  libpq-dev postgresql-15    # the PostgreSQL store and its test server (scripts/postgresql/start.sh)
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if ((${#missing[@]} == 0)); then
  echo "setup: all ${#packages[@]} build packages present"
elif [[ $(id -u) -ne 0 ]]; then
  echo "setup: missing packages (${missing[*]}); run this script as root" >&2
  exit 1
else
  echo "setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt_opts=(-o DPkg::Lock::Timeout=600 -q)
  apt-get "${apt_opts[@]}" update
  apt-get "${apt_opts[@]}" install -y --no-install-recommends "${missing[@]}"
fi

# The batch systems of the adapters' integration tests (their daemons are started by the
# tests' ctest fixtures, on loopback, never here).
$demo && exit 0
"$here/slurm/install.sh"
if [[ $(id -u) -eq 0 ]]; then "$here/gridengine/install.sh"; fi
