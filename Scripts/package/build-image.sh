#!/usr/bin/env bash
# `make image`: the OCI image thumbd:VERSION from the Containerfile, installing the given .deb.
#
#   Scripts/package/build-image.sh dist/thumbd_VERSION_amd64.deb
#
# Builds with podman, or docker when only docker's engine is there. The base is debian:bookworm-slim
# when the engine can pull it; otherwise (a machine that reaches no registry) a base made from Debian's
# packages by debian-root.sh and imported as localhost/thumbd-base:bookworm-DATE. The image is in docker's
# format, which keeps the HEALTHCHECK (OCI's image format has no place for one). Tagged thumbd:VERSION and
# thumbd:latest; prints the first.
set -euo pipefail

deb=${1:?usage: build-image.sh THUMBD_DEB}
here=$(cd "$(dirname "$0")/../.." && pwd)
source "$here/Scripts/package/container-engine.sh"
say() { printf 'image: %s\n' "$*" >&2; }

# The minbase root made slim as debian:bookworm-slim is: dpkg leaves out documentation, man pages and
# translations (copyright files stay), for the packages there and every one installed later.
slim_root() {
  local root
  root=$(mktemp -d)
  tar -C "$root" -xf "$1"
  cat > "$root/etc/dpkg/dpkg.cfg.d/slim-image" <<'EXCLUDES'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/info/*
path-exclude /usr/share/locale/*
path-exclude /usr/share/lintian/*
EXCLUDES
  find "$root/usr/share/doc" -mindepth 1 -not -name copyright -not -type d -delete
  rm -rf "$root"/usr/share/man/* "$root"/usr/share/info/* "$root"/usr/share/locale/*
  tar -C "$root" --numeric-owner -cf - .
  rm -rf "$root"
}

version=$(dpkg-deb -f "$deb" Version)
image=thumbd:$version
context=$(mktemp -d)
trap 'rm -rf "$context"' EXIT
cp "$deb" "$context/thumbd.deb"
cp "$here/Containerfile" "$context/Containerfile"

base=${THUMBD_IMAGE_BASE:-docker.io/library/debian:bookworm-slim}
if ! $engine image exists "$base" 2>/dev/null && ! $engine image inspect "$base" >/dev/null 2>&1; then
  if ! timeout 60 $engine pull -q "$base" >/dev/null 2>&1; then
    root_tar=$("$here/Scripts/package/debian-root.sh")
    base=localhost/thumbd-base:bookworm-$(date -u -r "$root_tar" +%Y%m%d%H%M)
    if ! $engine image inspect "$base" >/dev/null 2>&1; then
      say "cannot pull debian:bookworm-slim: importing the debootstrap'd root as $base"
      slim_root "$root_tar" | $engine import --change 'CMD ["bash"]' - "$base" >&2
    fi
  fi
fi

say "building $image on $base with $engine"
format=()
[ "$engine" = podman ] && format=(--format docker)
$engine build "${format[@]}" --network host --build-arg "BASE=$base" -t "$image" -t thumbd:latest -f "$context/Containerfile" "$context" >&2
echo "$image"
