#!/usr/bin/env bash
# Where `make test`'s time goes. `timed-step.sh --start` notes the start; `timed-step.sh NAME COMMAND...`
# runs COMMAND and prints how long it took and the time since the start, and records it; `--installed`
# records the time the prerequisites' installs took (since the start); `--report`
# prints every step recorded since the start. The record is $TEST_STEPS (.build/test-steps.tsv).
set -u
steps=${TEST_STEPS:-.build/test-steps.tsv}
mkdir -p "$(dirname "$steps")"
case "${1:-}" in
    --start)
        printf 'start\t%s\n' "$(date +%s)" > "$steps"
        exit 0
        ;;
    --installed)
        # The prerequisites (apt-get, pip) ran between --start and now.
        begun=$(awk -F'\t' '$1 == "start" { print $2 }' "$steps" 2>/dev/null)
        [ -n "$begun" ] && printf 'installs\t%s\n' "$(( $(date +%s) - begun ))" >> "$steps"
        exit 0
        ;;
    --report)
        [ -f "$steps" ] || exit 0
        echo "make test, step by step (seconds):"
        awk -F'\t' '$1 != "start" { printf "  %-16s %6d\n", $1, $2; total += $2 } END { printf "  %-16s %6d\n", "all steps", total }' "$steps"
        begun=$(awk -F'\t' '$1 == "start" { print $2 }' "$steps")
        [ -n "$begun" ] && echo "  since make test began: $(( $(date +%s) - begun )) s (installs included)"
        exit 0
        ;;
esac
name=$1
shift
start=$(date +%s)
"$@"
status=$?
took=$(( $(date +%s) - start ))
printf '%s\t%s\n' "$name" "$took" >> "$steps"
begun=$(awk -F'\t' '$1 == "start" { print $2 }' "$steps" 2>/dev/null)
echo "── make test: $name took $took s${begun:+, $(( $(date +%s) - begun )) s since make test began}$([ $status -ne 0 ] && echo " (failed, exit $status)")"
exit $status
