#!/usr/bin/env bash
# A clean Debian 12 (bookworm) minbase root, made once with debootstrap and kept as a tarball between
# runs; prints the tarball's path. `make package-test` unpacks it afresh for every try, and
# build-image.sh imports it as the base image on a machine that cannot pull debian:bookworm-slim.
#
#   Scripts/package/debian-root.sh            (cache: $THUMBD_PACKAGING_CACHE, else ~/.cache/thumbd-packaging)
#
# The mirror is the one this machine's apt uses (deb.debian.org when it names none), and the root
# gets this machine's Acquire:: settings (a proxy, a relaxed Valid-Until for a snapshot mirror), so
# apt inside it reaches packages exactly as the host does. A tarball older than MAX_AGE_DAYS (30)
# is made again, so the clean root does not fall far behind Debian's point releases.
set -euo pipefail

cache=${THUMBD_PACKAGING_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/thumbd-packaging}
tarball=$cache/bookworm-minbase.tar
max_age_days=${MAX_AGE_DAYS:-30}
say() { printf 'debian-root: %s\n' "$*" >&2; }

if [ -f "$tarball" ] && [ -n "$(find "$tarball" -mtime -"$max_age_days" 2>/dev/null)" ]; then
  echo "$tarball"
  exit 0
fi

[ "$(id -u)" = 0 ] || { say "debootstrap needs root (run make as root or through sudo)"; exit 1; }
command -v debootstrap >/dev/null || { say "debootstrap is not installed (apt-get install debootstrap)"; exit 1; }

mirror=$(apt-get indextargets --format '$(REPO_URI)' 2>/dev/null | grep -v -- '-security' | sort -u | head -1 || true)
mirror=${mirror%/}
[ -n "$mirror" ] || mirror=http://deb.debian.org/debian
case "$mirror" in */debian) security=${mirror%/debian}/debian-security ;; *) security=http://deb.debian.org/debian-security ;; esac

mkdir -p "$cache"
root=$(mktemp -d "$cache/root.XXXXXX")
trap 'rm -rf "$root"' EXIT
say "debootstrap --variant=minbase bookworm from $mirror (once; cached in $tarball)"
debootstrap --variant=minbase bookworm "$root" "$mirror" >&2

cat > "$root/etc/apt/sources.list" <<SOURCES
deb $mirror bookworm main
deb $mirror bookworm-updates main
deb $security bookworm-security main
SOURCES
apt-config dump | grep -E '^Acquire::(Check-Valid-Until|Check-Date|http::Proxy|https::Proxy) ' \
  > "$root/etc/apt/apt.conf.d/99host-acquire" || true
rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/archives/*.deb
# The root folder itself is mktemp's 0700: as a system's / it must let every user through.
chmod 0755 "$root"

tar -C "$root" --numeric-owner -cf "$tarball.new" .
mv -f "$tarball.new" "$tarball"
echo "$tarball"
