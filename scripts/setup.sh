#!/usr/bin/env bash
# Installs every Debian 12 package arbroker needs to build, test and run. Idempotent; run as
# root on a fresh machine (it runs `apt-get update` first when a package is missing).
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config clang-format
  libcaf-dev                 # actor framework (0.17.6)
  libboost-dev libboost-system-dev libasio-dev
  libmsgpack-cxx-dev         # wire format
  libspdlog-dev              # logging
  libtomlplusplus-dev        # configuration files
  libcli11-dev               # command lines
  libsqlite3-dev             # embedded store
  libgtest-dev libgmock-dev  # tests
  librapidcheck-dev          # property tests
  libbenchmark-dev           # benchmarks
  zlib1g-dev                 # gzip'd SWF traces
  libpugixml-dev             # Grid Engine adapter: qstat/qrstat -xml
)

# Son of Grid Engine for the Grid Engine adapter's integration tests (root only).
if [[ $(id -u) -eq 0 ]]; then "$(dirname "$0")/gridengine/install.sh"; fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if ((${#missing[@]} == 0)); then
  echo "setup: all ${#packages[@]} packages present"
  exit 0
fi

if [[ $(id -u) -ne 0 ]]; then
  echo "setup: missing packages (${missing[*]}); run this script as root" >&2
  exit 1
fi
echo "setup: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends "${missing[@]}"
