#!/usr/bin/env bash
# Installs Son of Grid Engine 8.1.9 (Debian's gridengine-master, -exec, -client) for the
# Grid Engine adapter's integration tests. Idempotent: does nothing when the packages are
# there. Run as root. The cell is configured and the daemons started by start.sh, never by
# the packages' init scripts.
#
# The packages configure the cell from debconf at install time, so the answers are preseeded
# first: cell "default", master "localhost" (start.sh maps the machine's host name, which may
# change between runs, to localhost with host_aliases).
set -euo pipefail

packages=(gridengine-master gridengine-exec gridengine-client gridengine-common
  mailutils) # mailutils satisfies gridengine-common's mailx without pulling in an MTA daemon

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]} == 0)); then
  echo "gridengine/install: all ${#packages[@]} packages present"
  exit 0
fi
if [[ $(id -u) -ne 0 ]]; then
  echo "gridengine/install: missing packages (${missing[*]}); run this script as root" >&2
  exit 1
fi

echo "gridengine/install: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt=(apt-get -o DPkg::Lock::Timeout=600)
# debconf-set-selections comes with debconf, which every Debian system has.
for pkg in gridengine-common gridengine-master gridengine-client gridengine-exec; do
  printf '%s shared/gridengineconfig boolean true\n' "$pkg"
  printf '%s shared/gridenginecell string default\n' "$pkg"
  printf '%s shared/gridenginemaster string localhost\n' "$pkg"
done | debconf-set-selections

# The packages' postinst scripts start the daemons through invoke-rc.d; start.sh starts them
# itself (no systemd here), so forbid that for the duration of the install when no policy is
# in place yet. An existing policy-rc.d is left alone.
policy=/usr/sbin/policy-rc.d
own_policy=0
if [[ ! -e $policy ]]; then
  printf '#!/bin/sh\nexit 101\n' >"$policy"
  chmod 755 "$policy"
  own_policy=1
  trap 'rm -f "$policy"' EXIT
fi

"${apt[@]}" update -q
"${apt[@]}" install -y -q --no-install-recommends "${missing[@]}"
if ((own_policy)); then
  rm -f "$policy"
  trap - EXIT
fi
echo "gridengine/install: done"
