#!/bin/bash
# The daemon's CPU a miss: 40 misses of one photo (sizes 200-239, centre crops) against a release
# `thumbd serve` on a scratch cache, CPU read from /proc/PID/stat, with the minor page faults and
# the resident set after. For allocator settings, pass GLIBC_TUNABLES as the second argument.
#
#   Scripts/miss-cpu.sh ../shared/corpora/photos/lomiri_Wine_by_Jakkub_Mede.jpg
#   Scripts/miss-cpu.sh ../shared/corpora/large/bridge-24mp.jpg glibc.malloc.mmap_threshold=1048576
set -euo pipefail
photo=$(realpath "$1"); tunables=${2:-}
thumbd=${THUMBD:-$(dirname "$0")/../.build/release/thumbd}
scratch=$(mktemp -d); origin_port=18090; port=18091
cleanup() { kill -9 "${daemon:-0}" "${origin:-0}" 2>/dev/null || true; rm -rf "$scratch"; }
trap cleanup EXIT
python3 -m http.server "$origin_port" --bind 127.0.0.1 --directory "$(dirname "$photo")" > /dev/null 2>&1 & origin=$!
# Both are killed at the end; disowned, the shell prints no "Killed" line for them.
disown "$origin"
env -i PATH="$PATH" HOME="$scratch" ${tunables:+GLIBC_TUNABLES=$tunables} THUMBD_ALLOW_NETWORKS=127.0.0.0/8 \
    THUMBD_CACHE_DIR="$scratch/cache" THUMBD_LISTEN=127.0.0.1:$port THUMBD_SERVER_ACCESS_LOG=false \
    "$thumbd" serve > "$scratch/daemon.log" 2>&1 < /dev/null & daemon=$!
disown "$daemon"
for _ in $(seq 50); do curl -sf "http://127.0.0.1:$port/healthz" > /dev/null && break; sleep 0.1; done
url="http://127.0.0.1:$origin_port/$(basename "$photo")"
ask() { curl -sf -o /dev/null "http://127.0.0.1:$port/v1/thumbnail?url=$url&size=$1&gravity=center"; }
ask 199  # the first miss downloads the original and warms the process
ticks() { awk '{print $14 + $15}' "/proc/$daemon/stat"; }
before=$(ticks)
for size in $(seq 200 239); do ask "$size"; done
after=$(ticks)
hz=$(getconf CLK_TCK)
echo "$(basename "$photo"): $(( (after - before) * 1000 / hz / 40 )) ms of CPU a miss;" \
     "minor faults $(awk '{print $10}' "/proc/$daemon/stat");" \
     "RSS $(awk '/VmRSS/{print $2}' "/proc/$daemon/status") kB, peak $(awk '/VmHWM/{print $2}' "/proc/$daemon/status") kB"
