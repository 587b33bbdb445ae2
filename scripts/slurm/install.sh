#!/usr/bin/env bash
# Installs Slurm 22.05 (controller, node daemon, client commands, C API) and munge from
# Debian 12. Idempotent and fast when everything is present; run as root. Waits for the dpkg
# lock (another installer, e.g. the Grid Engine one, may be running at the same time).
# Without /etc/slurm/slurm.conf the packages' init scripts start no Slurm daemon; the
# daemons run per instance, started directly by scripts/slurm/start.sh (no systemd here).
set -euo pipefail

packages=(slurmctld slurmd slurm-client libslurm-dev munge)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if ((${#missing[@]} > 0)); then
  if [[ $(id -u) -ne 0 ]]; then
    echo "slurm/install: missing packages (${missing[*]}); run this script as root" >&2
    exit 1
  fi
  echo "slurm/install: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt_opts=(-o DPkg::Lock::Timeout=600 -q)
  apt-get "${apt_opts[@]}" update
  apt-get "${apt_opts[@]}" install -y --no-install-recommends "${missing[@]}"
fi

# munge needs a key; the package normally creates one, but be sure (fresh containers). Only
# root can see it (/etc/munge is private to munge).
if [[ $(id -u) -eq 0 && ! -s /etc/munge/munge.key ]]; then
  mkdir -p /etc/munge
  dd if=/dev/urandom of=/etc/munge/munge.key bs=1 count=1024 status=none
  chown munge:munge /etc/munge/munge.key
  chmod 400 /etc/munge/munge.key
fi
echo "slurm/install: slurm $(dpkg-query -W -f='${Version}' slurmctld) and munge present"
