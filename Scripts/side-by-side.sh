#!/usr/bin/env bash
# Runs commands at the same time, each line of their output prefixed with the command's name, and
# fails (naming each that failed) when any of them does.
#
#   Scripts/side-by-side.sh NAME 'COMMAND' NAME 'COMMAND' ...
#
# `make test` runs the package test and the fuzz pass so: each has a build of its own (release, and
# AddressSanitizer with libFuzzer), and while one waits on apt, dpkg, lintian or podman the other
# compiles or fuzzes.
set -u
names=()
pids=()
while [ $# -ge 2 ]; do
    name=$1 command=$2
    shift 2
    names+=("$name")
    bash -o pipefail -c "{ $command; } 2>&1 | sed -u 's/^/[$name] /'" &
    pids+=($!)
done
[ $# -eq 0 ] || { echo "side-by-side: give NAME 'COMMAND' pairs" >&2; exit 2; }
failed=()
for i in "${!pids[@]}"; do
    wait "${pids[$i]}" || failed+=("${names[$i]}")
done
if [ ${#failed[@]} -gt 0 ]; then
    echo "side-by-side: failed: ${failed[*]}" >&2
    exit 1
fi
