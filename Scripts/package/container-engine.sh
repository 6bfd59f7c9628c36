# Sourced by the image scripts: picks the container engine and its settings.
# podman when installed, else a docker whose engine answers (a docker client alone cannot build).
# podman reads packaging/containers.conf (CONTAINERS_CONF): see the comment there.
engine=""
if command -v podman >/dev/null 2>&1; then
  engine=podman
  export CONTAINERS_CONF=${CONTAINERS_CONF:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/packaging/containers.conf}
elif command -v docker >/dev/null 2>&1 && docker info >/dev/null 2>&1; then
  engine=docker
fi
if [ -z "$engine" ]; then
  echo "no container engine: install podman (apt-get install podman) or run a Docker engine" >&2
  exit 1
fi
