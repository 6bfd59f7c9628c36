#!/usr/bin/env bash
# Builds in the cores' idle time while make test's passes run, so the package test and the fuzz pass
# find their builds done (or nearly) instead of starting them then.
#
#   Scripts/idle-build.sh start NAME PID COMMAND...   start COMMAND in the background, SCHED_IDLE,
#                                                    stopped when process PID (the make) ends
#   Scripts/idle-build.sh report                  how each one ended (the log's tail for a failure)
#
# The test passes leave the cores some 40% idle (they wait on timers, sockets and children): a
# SCHED_IDLE process runs only when no other process wants a core, so it takes that time and never a
# test's. Each build writes its own scratch folder (SwiftPM locks a scratch folder for a whole
# build, and the passes read .build), and the step that needs it runs the same command later: up to
# date, or waiting on SwiftPM's lock until the background build is done. A background build that
# fails costs nothing but its time: the later step builds again and reports the error.
# Each is stopped when the make that started it (PID) ends, so a failed pass leaves nothing running.
set -u
logs=${IDLE_BUILD_LOGS:-.build/idle-builds}
mkdir -p "$logs"

case "${1:-}" in
    start)
        name=$2
        watched=$3
        shift 3
        setsid bash -c '
            chrt --idle 0 "$@" > "'"$logs/$name"'.log" 2>&1 &
            build=$!
            while kill -0 "$build" 2>/dev/null; do
                kill -0 '"$watched"' 2>/dev/null || { kill -TERM -- -$$ 2>/dev/null; exit 1; }
                sleep 2
            done
            wait "$build"
            echo $? > "'"$logs/$name"'.status"
        ' idle-build "$@" < /dev/null > /dev/null 2>&1 &
        echo "idle build '$name' started in the background (SCHED_IDLE): $logs/$name.log"
        ;;
    report)
        for log in "$logs"/*.log; do
            [ -e "$log" ] || continue
            name=$(basename "$log" .log)
            status=$(cat "$logs/$name.status" 2>/dev/null || echo "none yet (still running, or stopped with its make)")
            echo "idle build '$name': exit $status"
            [ "$status" = 0 ] || tail -5 "$log" | sed 's/^/    /'
        done
        ;;
    *)
        echo "usage: idle-build.sh start NAME PID COMMAND... | report" >&2
        exit 2
        ;;
esac
