#!/usr/bin/env bash
# Where `make test`'s time goes. `timed-step.sh --start` notes the start; `timed-step.sh NAME COMMAND...`
# runs COMMAND and prints how long it took and the time since the start, and records it; `--installed`
# records the time the prerequisites' installs took (since the start); `--report`
# prints every step recorded since the start, with how busy the machine's cores were during it (a
# step that leaves them idle could share its time with another). The record is $TEST_STEPS
# (.build/test-steps.tsv).
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
        awk -F'\t' '$1 != "start" { printf "  %-16s %6d s%s\n", $1, $2, ($3 == "" ? "" : sprintf("   cores %3d%% busy", $3)); total += $2 }
                     END { printf "  %-16s %6d s\n", "all steps", total }' "$steps"
        begun=$(awk -F'\t' '$1 == "start" { print $2 }' "$steps")
        [ -n "$begun" ] && echo "  since make test began: $(( $(date +%s) - begun )) s (installs included)"
        exit 0
        ;;
esac
# Busy and idle CPU time of the whole machine (jiffies, from /proc/stat): how much of its cores a step used.
cpu_jiffies() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8, $5 + $6 }' /proc/stat 2>/dev/null || echo "0 0"; }
name=$1
shift
start=$(date +%s)
read -r busy_before idle_before <<< "$(cpu_jiffies)"
"$@"
status=$?
took=$(( $(date +%s) - start ))
read -r busy_after idle_after <<< "$(cpu_jiffies)"
total=$(( busy_after - busy_before + idle_after - idle_before ))
used=$(( total > 0 ? 100 * (busy_after - busy_before) / total : 0 ))
printf '%s\t%s\t%s\n' "$name" "$took" "$used" >> "$steps"
begun=$(awk -F'\t' '$1 == "start" { print $2 }' "$steps" 2>/dev/null)
echo "── make test: $name took $took s, the cores ${used}% busy${begun:+, $(( $(date +%s) - begun )) s since make test began}$([ $status -ne 0 ] && echo " (failed, exit $status)")"
exit $status
