#!/usr/bin/env bash
# `make package-test`: the .deb and the image tried where they will run.
#
#   Scripts/package/package-test.sh THUMBD_DEB [IMAGE]
#
# 1. A clean Debian 12 minbase root (debian-root.sh, unpacked afresh) installs the .deb with apt
#    alone, so its Depends are proven complete; thumbd --version and the package's promises (user,
#    conffile, enabled unit, man pages, completions); `thumbd serve` in it, as the thumbd user,
#    answers a 200 px thumbnail of a photo from an origin on 127.0.0.1 and exits 0 on SIGTERM; an
#    upgrade keeps the operator's edited thumbd.yaml; a purge leaves nothing behind.
# 2. The image, run with a read-only root filesystem: a 300x400 thumbnail, its HEALTHCHECK, a user
#    other than root, settings from a mounted thumbd.yaml and THUMBD_* variables, and SIGTERM
#    stopping it with exit 0 within 15 s.
# Everything listens on 127.0.0.1 only, and the container shares the host's network namespace
# (--network host), so no traffic leaves the loopback. Needs root (chroot, mount, podman).
set -euo pipefail

deb=$(readlink -f "${1:?usage: package-test.sh THUMBD_DEB [IMAGE]}")
image=${2:-}
here=$(cd "$(dirname "$0")/../.." && pwd)
scripts=$here/Scripts/package
version=$(dpkg-deb -f "$deb" Version)

[ "$(id -u)" = 0 ] || { echo "package-test: needs root (chroot, mount, podman)" >&2; exit 1; }

work=$(mktemp -d /var/tmp/thumbd-package-test.XXXXXX)
root=$work/root
pids=()
container=""
passed=0
failed=0

cleanup() {
  for pid in "${pids[@]}"; do { kill -KILL "$pid" && wait "$pid"; } 2>/dev/null || true; done
  if [ -n "$container" ]; then $engine rm -f -v "$container" >/dev/null 2>&1 || true; fi
  for mount in "$root/proc" "$root/dev"; do
    if mountpoint -q "$mount" 2>/dev/null; then umount -l "$mount"; fi
  done
  rm -rf "$work"
}
trap cleanup EXIT

check() {  # check DESCRIPTION COMMAND...: one named promise
  local description=$1
  shift
  if "$@" >"$work/check.out" 2>&1; then
    passed=$((passed + 1))
    echo "ok: $description"
  else
    failed=$((failed + 1))
    echo "FAILED: $description"
    sed 's/^/    /' "$work/check.out" | tail -20
  fi
}
equal() { [ "$1" = "$2" ] || { echo "expected '$2', got '$1'"; return 1; }; }
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
wait_ready() {  # wait_ready URL SECONDS
  local deadline=$((SECONDS + $2))
  until curl -fsS -o /dev/null "$1/readyz" 2>/dev/null; do
    [ $SECONDS -lt $deadline ] || return 1
    sleep 0.2
  done
}
thumbnail_size() {  # thumbnail_size BASE QUERY: prints "FORMAT WxH" of the answer
  curl -fsS -o "$work/thumb" "$1/v1/thumbnail?url=$origin/photo.png&$2" && python3 "$scripts/image-size.py" "$work/thumb"
}
# stopped_in PID SECONDS: SIGTERM, then the exit status must be 0 within SECONDS.
stopped_in() {
  local pid=$1 limit=$2 start=$SECONDS
  kill -TERM "$pid"
  while kill -0 "$pid" 2>/dev/null; do
    [ $((SECONDS - start)) -le "$limit" ] || { echo "still running $limit s after SIGTERM"; return 1; }
    sleep 0.2
  done
  wait "$pid"
}

origin_port_file=$work/origin-port
python3 "$scripts/test-origin.py" "$origin_port_file" &
pids+=($!)
for _ in $(seq 100); do [ -s "$origin_port_file" ] && break; sleep 0.1; done
origin=http://127.0.0.1:$(cat "$origin_port_file")

echo "== the .deb ($(basename "$deb")) on a clean Debian 12"
mkdir -p "$root"
tar -C "$root" -xf "$("$scripts/debian-root.sh")"
chmod 0755 "$root"
cp /etc/resolv.conf "$root/etc/resolv.conf"
cp /etc/hosts "$root/etc/hosts"
mount -t proc proc "$root/proc"
mount --bind /dev "$root/dev"
cp "$deb" "$root/tmp/thumbd.deb"
in_root() { chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive "$@"; }

check "apt installs the .deb and its Depends on a clean Debian 12 minbase" \
  in_root sh -c 'apt-get update -qq && apt-get install -y -qq --no-install-recommends /tmp/thumbd.deb'
check "thumbd --version runs there and says $version" \
  sh -c "chroot '$root' thumbd --version | head -1 | grep -q '^thumbd $version '"
check "no Swift runtime installed or needed beside it" \
  sh -c "! chroot '$root' sh -c 'ls /usr/lib/x86_64-linux-gnu/libswift* /usr/lib/swift' 2>/dev/null"
check "the thumbd system user exists, with no login shell" \
  sh -c "chroot '$root' getent passwd thumbd | awk -F: '\$3 < 1000 && \$7 ~ /nologin|false/ { found = 1 } END { exit !found }'"
check "/etc/thumbd/thumbd.yaml is a conffile" \
  sh -c "chroot '$root' dpkg-query -W -f '\${Conffiles}' thumbd | grep -q '/etc/thumbd/thumbd.yaml'"
check "the unit runs /usr/bin/thumbd as thumbd with its cache directory" \
  grep -qx 'User=thumbd' "$root/lib/systemd/system/thumbd.service"
check "the unit's ExecStart names the installed binary" \
  grep -qx 'ExecStart=/usr/bin/thumbd serve --config /etc/thumbd/thumbd.yaml' "$root/lib/systemd/system/thumbd.service"
check "the unit is enabled (multi-user.target wants it)" \
  test -L "$root/etc/systemd/system/multi-user.target.wants/thumbd.service"
check "/var/cache/thumbd belongs to thumbd" \
  sh -c "owner=\$(chroot '$root' stat -c %U:%G /var/cache/thumbd); [ \"\$owner\" = thumbd:thumbd ] || { echo \"owned by \$owner\"; exit 1; }"
# Every subcommand that `thumbd --help` lists (ArgumentParser's own `help` aside) has its page.
man_pages_for_every_subcommand() {
  local subcommands
  subcommands=$(chroot "$root" thumbd --help | sed -n '/^SUBCOMMANDS:/,/^$/p' | grep -E '^  [a-z]' | awk '{ print $1 }' | grep -v '^help$')
  [ -n "$subcommands" ] || { echo "thumbd --help lists no subcommands"; return 1; }
  for page in thumbd $(printf 'thumbd-%s\n' $subcommands); do
    test -f "$root/usr/share/man/man1/$page.1.gz" || { echo "no man page $page.1.gz"; return 1; }
  done
}
check "a man page for thumbd and for each subcommand" man_pages_for_every_subcommand
check "bash, zsh and fish completions" \
  test -s "$root/usr/share/bash-completion/completions/thumbd" -a -s "$root/usr/share/zsh/vendor-completions/_thumbd" \
       -a -s "$root/usr/share/fish/vendor_completions.d/thumbd.fish"
check "copyright and changelog in /usr/share/doc/thumbd" \
  test -s "$root/usr/share/doc/thumbd/copyright" -a -s "$root/usr/share/doc/thumbd/changelog.gz"

port=$(free_port)
chroot --userspec=thumbd:thumbd "$root" env -i PATH=/usr/bin:/bin HOME=/var/cache/thumbd \
  THUMBD_LISTEN=127.0.0.1:$port THUMBD_ALLOW_NETWORKS=127.0.0.1/32 THUMBD_CACHE_DIR=/var/cache/thumbd \
  thumbd serve --config /etc/thumbd/thumbd.yaml >"$work/serve.log" 2>&1 &
serve_pid=$!
pids+=($serve_pid)
base=http://127.0.0.1:$port
check "thumbd serve, as thumbd, answers /readyz within 10 s" wait_ready "$base" 10
check "a 200 px thumbnail (size=200: a 200x200 square) from an origin on loopback" \
  sh -c "out=\$(curl -fsS -o '$work/thumb' '$base/v1/thumbnail?url=$origin/photo.png&size=200' && python3 '$scripts/image-size.py' '$work/thumb'); [ \"\$out\" = 'jpeg 200x200' ] || { echo \"got \$out\"; exit 1; }"
check "thumbd healthcheck inside says ready" \
  chroot --userspec=thumbd:thumbd "$root" env -i PATH=/usr/bin:/bin THUMBD_LISTEN=127.0.0.1:$port thumbd healthcheck
check "the thumbnail was cached under /var/cache/thumbd" \
  sh -c "find '$root/var/cache/thumbd' -type f | grep -q ."
check "SIGTERM stops thumbd serve with exit 0 within 15 s" stopped_in "$serve_pid" 15
if [ $failed -gt 0 ]; then sed 's/^/    serve: /' "$work/serve.log" | tail -20; fi

# An upgrade: the operator has edited thumbd.yaml, and the new version changes the shipped one too,
# the case where dpkg asks; --force-confold answers "keep mine" as an unattended upgrade does.
echo "# edited by the operator" >> "$root/etc/thumbd/thumbd.yaml"
repack=$work/repack
dpkg-deb -R "$deb" "$repack"
sed -i "s/^Version: .*/Version: ${version}+upgrade1/" "$repack/DEBIAN/control"
echo "# shipped by the next version" >> "$repack/etc/thumbd/thumbd.yaml"
# Light compression: this copy is installed once and thrown away.
dpkg-deb --root-owner-group -Zgzip -z1 -b "$repack" "$root/tmp/thumbd-next.deb" >/dev/null
check "an upgrade keeps the operator's thumbd.yaml and leaves the new one beside it" \
  sh -c "chroot '$root' env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o Dpkg::Options::=--force-confold /tmp/thumbd-next.deb >/dev/null &&
         grep -q 'edited by the operator' '$root/etc/thumbd/thumbd.yaml' &&
         grep -q 'shipped by the next version' '$root/etc/thumbd/thumbd.yaml.dpkg-dist' &&
         chroot '$root' dpkg-query -W -f '\${Version}' thumbd | grep -qx '${version}+upgrade1'"
check "a purge removes the binary, the settings and the cache" \
  sh -c "chroot '$root' env DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq thumbd >/dev/null &&
         test ! -e '$root/usr/bin/thumbd' -a ! -e '$root/etc/thumbd/thumbd.yaml' -a ! -e '$root/var/cache/thumbd'"
umount -l "$root/dev"
umount -l "$root/proc"

if [ -n "$image" ]; then
  source "$scripts/container-engine.sh"
  echo "== the image $image ($engine), read-only root"
  port=$(free_port)
  container=thumbd-package-test-$$
  printf 'download:\n  allow_networks: 127.0.0.1/32\n' > "$work/thumbd.yaml"
  chmod 0644 "$work/thumbd.yaml"
  read_only=(--read-only)
  [ "$engine" = podman ] && read_only+=(--read-only-tmpfs=false)
  # podman's complaints that no systemd is there to time the HEALTHCHECK go to engine.log.
  $engine run -d --name "$container" "${read_only[@]}" --network host \
    -e THUMBD_LISTEN=0.0.0.0:$port -v "$work/thumbd.yaml:/etc/thumbd/thumbd.yaml:ro" "$image" >/dev/null 2>"$work/engine.log"
  base=http://127.0.0.1:$port
  check "the container answers /readyz within 10 s" wait_ready "$base" 10
  check "a 300x400 thumbnail (allowed by the mounted thumbd.yaml)" \
    sh -c "out=\$(curl -fsS -o '$work/thumb' '$base/v1/thumbnail?url=$origin/photo.png&size=300x400' && python3 '$scripts/image-size.py' '$work/thumb'); [ \"\$out\" = 'jpeg 300x400' ] || { echo \"got \$out\"; exit 1; }"
  check "it runs as a user other than root" \
    sh -c "uid=\$($engine exec '$container' id -u); echo \"uid \$uid\"; [ -n \"\$uid\" ] && [ \"\$uid\" != 0 ]"
  check "the image's HEALTHCHECK runs thumbd healthcheck and passes" \
    sh -c "$engine inspect -f '{{json .Config.Healthcheck}}' '$container' | grep -q healthcheck &&
           if [ '$engine' = podman ]; then podman healthcheck run '$container'; else docker exec '$container' thumbd healthcheck; fi"
  check "the cache went to the /var/cache/thumbd volume" \
    sh -c "$engine exec '$container' find /var/cache/thumbd -type f | grep -q ."
  start=$SECONDS
  $engine stop -t 30 "$container" >/dev/null 2>>"$work/engine.log"
  elapsed=$((SECONDS - start))
  check "SIGTERM stops it with exit 0 within 15 s (took ${elapsed} s)" \
    sh -c "code=\$($engine inspect -f '{{.State.ExitCode}}' '$container'); echo \"exit \$code\"; [ \"\$code\" = 0 ] && [ $elapsed -le 15 ]"
  if [ $failed -gt 0 ]; then $engine logs "$container" 2>&1 | tail -20 | sed 's/^/    container: /'; fi
fi

echo "package-test: $passed passed, $failed failed"
[ $failed -eq 0 ]
