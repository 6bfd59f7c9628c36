#!/usr/bin/env bash
# The HTTP contract: schemathesis (property-based, every check on) against the OpenAPI document a
# running thumbd serves at /openapi.yaml. Exits non-zero on any finding.
#
#   Scripts/contract-test.sh [THUMBD_BINARY]        (default .build/debug/thumbd)
#
# Builds nothing: `make contract` builds first. Installs schemathesis with pip when it is missing.
# Everything stays on this machine: the daemon listens on 127.0.0.1, its only origin is a Python
# http.server on 127.0.0.1 (download.allow_hosts names it alone, so a URL the tester makes up for
# any other host is refused before it is even resolved; s3:// URLs go to a dead loopback port), and the cache lives in a temporary
# directory removed at the end.
#
# Tunables (environment): CONTRACT_EXAMPLES (examples per operation, at least 50 by default),
# CONTRACT_SEED (repeat a run), CONTRACT_REPORT_DIR (keep schemathesis' reports there).
set -euo pipefail

binary=${1:-.build/debug/thumbd}
examples=${CONTRACT_EXAMPLES:-50}
here=$(cd "$(dirname "$0")/.." && pwd)

if [ ! -x "$binary" ]; then
  echo "contract-test: no thumbd binary at $binary (build it first: swift build)" >&2
  exit 2
fi
if ! command -v st >/dev/null 2>&1 && ! python3 -c 'import schemathesis' 2>/dev/null; then
  echo "contract-test: installing schemathesis"
  python3 -m pip install -q schemathesis
fi
schemathesis() {
  if command -v st >/dev/null 2>&1; then st "$@"; else python3 -m schemathesis.cli "$@"; fi
}

work=$(mktemp -d "${TMPDIR:-/tmp}/thumbd-contract.XXXXXX")
daemon_pid=""
origin_pid=""
# SIGTERM, then SIGKILL if the process is still there after 40 s (thumbd's drain timeout is 20 s).
stop() {  # PID, name
  kill "$1" 2>/dev/null || return 0
  local deadline=$((SECONDS + 40))
  while kill -0 "$1" 2>/dev/null; do
    if [ $SECONDS -ge $deadline ]; then
      echo "contract-test: $2 did not stop within 40 s of SIGTERM; killed" >&2
      kill -9 "$1" 2>/dev/null
      break
    fi
    sleep 0.2
  done
  wait "$1" 2>/dev/null || true
}
cleanup() {
  # Only the two processes this script started, by their ids.
  [ -n "$daemon_pid" ] && stop "$daemon_pid" thumbd
  [ -n "$origin_pid" ] && stop "$origin_pid" "the origin"
  rm -rf "$work"
}
trap cleanup EXIT

# A free loopback port: the kernel picks one, Python reports it and lets it go.
free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# GET URL; fails unless the answer is 2xx (python3 is here anyway; curl may not be).
fetch() {
  python3 -c 'import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=60).read()' "$1"
}

wait_for() {  # URL, what, seconds
  local deadline=$((SECONDS + $3))
  until fetch "$1" 2>/dev/null; do
    if [ $SECONDS -ge $deadline ]; then
      echo "contract-test: $2 did not answer $1 within $3 s" >&2
      [ -f "$work/thumbd.log" ] && tail -20 "$work/thumbd.log" >&2
      exit 1
    fi
    sleep 0.2
  done
}

# The origin: two real photos from the repository's test images.
mkdir -p "$work/origin" "$work/cache"
cp "$here/TestImages/png/gradient-rgba8.png" "$work/origin/photo.png"
cp "$here/TestImages/png/interlaced-rgb.png" "$work/origin/other.png"
origin_port=$(free_port)
python3 -m http.server --bind 127.0.0.1 --directory "$work/origin" "$origin_port" >"$work/origin.log" 2>&1 &
origin_pid=$!
wait_for "http://127.0.0.1:$origin_port/photo.png" "the origin" 20

# The daemon: embedded defaults, plus loopback allowed for the origin alone, an admin token (so
# the admin routes are exercised, not only refused) and no access log on the terminal.
token="contract-$(date +%s)-$$"
port=$(free_port)
# s3:// URLs go to the object store's endpoint, which the allow-lists do not cover: a dead port on
# loopback, with the AWS variables of whoever runs this left out, so none reaches AWS.
env -u AWS_ACCESS_KEY_ID -u AWS_SECRET_ACCESS_KEY -u AWS_SESSION_TOKEN -u AWS_ENDPOINT_URL -u AWS_PROFILE \
  AWS_ENDPOINT_URL_S3=http://127.0.0.1:9 \
  THUMBD_ALLOW_NETWORKS=127.0.0.1/32 THUMBD_ALLOW_HOSTS=127.0.0.1 THUMBD_ADMIN_TOKEN="$token" \
  THUMBD_SERVER_ACCESS_LOG=false THUMBD_SERVER_DRAIN_GRACE=0 \
  "$binary" serve --listen "127.0.0.1:$port" --cache-dir "$work/cache" >"$work/thumbd.log" 2>&1 &
daemon_pid=$!
base="http://127.0.0.1:$port"
wait_for "$base/readyz" "thumbd" 60

# A few cache entries, so the listings, the inspector and its files answer with real entries.
origin="http%3A%2F%2F127.0.0.1%3A$origin_port"
for query in "url=$origin%2Fphoto.png&size=64" "url=$origin%2Fphoto.png&size=120x80&fit=contain&format=webp" \
             "url=$origin%2Fother.png&size=48&format=jpeg"; do
  fetch "$base/v1/thumbnail?$query"
done

report_args=()
if [ -n "${CONTRACT_REPORT_DIR:-}" ]; then
  report_args=(--report junit,ndjson --report-dir "$CONTRACT_REPORT_DIR")
fi
seed_args=()
if [ -n "${CONTRACT_SEED:-}" ]; then seed_args=(--seed "$CONTRACT_SEED"); fi

status=0
# Which refusals of valid requests are expected, and why: Scripts/schemathesis.toml.
schemathesis --config-file "$here/Scripts/schemathesis.toml" run "$base/openapi.yaml" \
  --url "$base" \
  --checks all \
  --phases examples,coverage,fuzzing,stateful \
  --max-examples "$examples" \
  --header "Authorization: Bearer $token" \
  --request-timeout 30 \
  --generation-database none \
  --no-color \
  "${seed_args[@]}" "${report_args[@]}" || status=$?

if [ "$status" -ne 0 ]; then
  echo "contract-test: schemathesis reported findings (exit $status); the daemon's log:" >&2
  tail -40 "$work/thumbd.log" >&2
fi
exit "$status"
