#!/bin/sh
# Runs each argument as a shell command, all at once, and waits for them all. Exits 1 naming every
# command that failed, so a test pass made of two test binaries fails when either does.
set -u
pids=""
for command in "$@"; do
  sh -c "$command" &
  pids="$pids $!"
done
failed=0
index=0
for pid in $pids; do
  index=$((index + 1))
  if ! wait "$pid"; then
    eval "command=\${$index}"
    echo "together.sh: failed: $command" >&2
    failed=1
  fi
done
exit $failed
