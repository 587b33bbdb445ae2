#!/usr/bin/env bash
# Installs a built arbroker as a service, FHS style: the programs (and the CMake package for
# embedding) under PREFIX, the documentation in PREFIX/share/doc/arbroker, the node's
# configuration in /etc/arbroker/arbd.toml (never overwritten), its store in
# /var/lib/arbroker, the unit /etc/systemd/system/arbd.service, and a system user arbroker.
# Run as root after scripts/build.sh:
#
#   scripts/install.sh [--build-dir DIR] [--prefix /usr/local] [--destdir STAGING]
#                      [--debug-dir DIR]
#
# The programs and libraries are installed without their debug info (arbd: about 460 MB as
# built, 10 MB stripped); with --debug-dir it is split off into DIR by installed path, as
# Debian's -dbgsym packages do (gdb: `set debug-file-directory DIR`); the build tree keeps it.
#
# With --destdir everything goes below STAGING (packages, tests): no user is created and
# systemd is not told. Then: edit the tokens in /etc/arbroker/arbd.toml, and
# `systemctl enable --now arbd` (docs/operations.md, "Running as a service").
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=$src/build
prefix=/usr/local
destdir=
debugdir=
while (($#)); do
  case $1 in
    --build-dir) build=$(cd "$2" && pwd); shift 2 ;;
    --prefix) prefix=$2; shift 2 ;;
    --destdir) destdir=${2%/}; shift 2 ;;
    --debug-dir) debugdir=${2%/}; shift 2 ;;
    *) echo "install.sh: unknown argument '$1' (--build-dir, --prefix, --destdir, --debug-dir)" >&2
      exit 2 ;;
  esac
done
[[ -z $debugdir || $debugdir == /* ]] || { echo "install.sh: --debug-dir must be absolute" >&2; exit 2; }
[[ $prefix == /* ]] || { echo "install.sh: --prefix must be absolute" >&2; exit 2; }
[[ -x $build/apps/arbd && -x $build/apps/arb ]] ||
  { echo "install.sh: no arbd and arb in $build/apps; run scripts/build.sh first" >&2; exit 2; }
bindir=$prefix/bin
docdir=$prefix/share/doc/arbroker
root=$destdir

DESTDIR=$destdir cmake --install "$build" --prefix "$prefix" >/dev/null

# Programs and shared libraries: debug info split off (kept in --debug-dir, linked by
# .gnu_debuglink) and stripped; static libraries (for embedding): debug sections dropped, as
# dh_strip does.
while IFS= read -r -d '' f; do
  if [[ $f == *.a ]]; then
    strip --strip-debug --enable-deterministic-archives "$f"
  elif readelf -h "$f" >/dev/null 2>&1; then
    installed=${f#"$root"}
    if [[ -n $debugdir ]]; then
      install -d "$debugdir$(dirname "$installed")"
      objcopy --only-keep-debug "$f" "$debugdir$installed.debug"
      objcopy --strip-debug --strip-unneeded --add-gnu-debuglink="$debugdir$installed.debug" "$f"
    else
      objcopy --strip-debug --strip-unneeded "$f"
    fi
  fi
done < <(find "$root$prefix/bin" "$root$prefix/lib" -type f \( -perm -u+x -o -name '*.a' -o -name '*.so*' \) -print0 2>/dev/null)
install -d "$root$docdir"
install -m 0644 "$src"/README.md "$src"/docs/*.md "$root$docdir/"

install -d -m 0750 "$root/etc/arbroker" "$root/var/lib/arbroker"
config=$root/etc/arbroker/arbd.toml
if [[ -e $config ]]; then
  echo "kept $config"
else
  sed -e 's|^data_dir = .*|data_dir = "/var/lib/arbroker"  # the StateDirectory of arbd.service|' \
    "$src/configs/node/example.toml" >"$config"
  chmod 0640 "$config"
  echo "installed $config: replace its tokens before arbd starts"
fi

install -d "$root/etc/systemd/system"
sed -e "s|@BINDIR@|$bindir|g" -e "s|@DOCDIR@|$docdir|g" "$src/configs/systemd/arbd.service" \
  >"$root/etc/systemd/system/arbd.service"
chmod 0644 "$root/etc/systemd/system/arbd.service"
echo "installed $root$bindir/arbd, $root$bindir/arb and $root/etc/systemd/system/arbd.service"

[[ -z $destdir ]] || exit 0
getent group arbroker >/dev/null || groupadd --system arbroker
id arbroker >/dev/null 2>&1 ||
  useradd --system --gid arbroker --home-dir /var/lib/arbroker --shell /usr/sbin/nologin arbroker
chown root:arbroker /etc/arbroker "$config"
chown arbroker:arbroker /var/lib/arbroker
if [[ -d /run/systemd/system ]]; then
  systemctl daemon-reload
  echo "start it: systemctl enable --now arbd"
fi
