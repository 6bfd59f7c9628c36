#!/usr/bin/env bash
# Runs every fuzz target (or those in FUZZ_TARGETS) for FUZZ_SECONDS each and prints, per target,
# the executions, the coverage reached (cov: edges, ft: features) and the crashes found.
#
#   Fuzz/run-fuzz.sh                      (what `make fuzz` runs, after `make fuzz-build`)
#   FUZZ_SECONDS=10 Fuzz/run-fuzz.sh      (the short mode, for CI)
#   FUZZ_TARGETS="jpeg png" FUZZ_SECONDS=60 Fuzz/run-fuzz.sh
#
# Seeds are put together at run time, never stored in the repository: each target's generated seeds
# (`thumbd-fuzz --seeds`), files of TestImages/, the third-party corpora in CORPORA when present,
# and the target's regression inputs in TestImages/fuzz-regressions/TARGET/. Everything the fuzzer
# writes (the corpus it grows, logs, crash artifacts) goes to FUZZ_WORK, outside the repository.
# Exit status: 0 when every target ran clean and fast enough, 1 when one crashed or ran under its floor
# of executions (FUZZ_MIN_EXECS_PER_SECOND), 2 for a usage or setup error.
set -u

cd "$(dirname "$0")/.."
ROOT=$(pwd)
FUZZ_SECONDS=${FUZZ_SECONDS:-600}
FUZZ_TARGETS=${FUZZ_TARGETS:-}
FUZZ_WORK=${FUZZ_WORK:-${TMPDIR:-/tmp}/thumbd-fuzz}
FUZZ_BIN=${FUZZ_BIN:-}
FUZZ_RSS_MB=${FUZZ_RSS_MB:-2048}
FUZZ_TIMEOUT=${FUZZ_TIMEOUT:-10}
FUZZ_EXTRA=${FUZZ_EXTRA:-}
CORPORA=${CORPORA:-../shared/corpora}
DICTS="$ROOT/Fuzz/dictionaries"

if [ -z "$FUZZ_BIN" ]; then
    FUZZ_BIN="$ROOT/.build-fuzz/debug/thumbd-fuzz"
fi
if [ ! -x "$FUZZ_BIN" ]; then
    echo "run-fuzz: $FUZZ_BIN is missing: build it with 'make fuzz-build'" >&2
    exit 2
fi
if ! "$FUZZ_BIN" --list 2>/dev/null | grep -q '^mode: libFuzzer'; then
    echo "run-fuzz: $FUZZ_BIN was built without libFuzzer: build it with 'make fuzz-build'" >&2
    exit 2
fi
case "$FUZZ_SECONDS" in '' | *[!0-9]*) echo "run-fuzz: FUZZ_SECONDS must be a whole number of seconds" >&2; exit 2 ;; esac

# Swift's backtracer would symbolicate for seconds on each crash (and can hang under ASan);
# libFuzzer and AddressSanitizer report crashes themselves. The Swift runtime's caches look like
# leaks to LeakSanitizer, so leak detection is off. Recording each allocation's stack cost a third of
# the image targets' time (perf: StackDepot and the unwinder) for 2.4x fewer executions, so it is off
# too: replay a crash without malloc_context_size=0 to see where its memory was allocated and freed.
export SWIFT_BACKTRACE=enable=no
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=0:symbolize=1:malloc_context_size=0}

# target  max_len  dictionary  seed sources (TestImages/ and CORPORA folders, by file extension)
# A target missing here, or a row for a target thumbd-fuzz does not have, is an error.
TABLE="
thumbnail 32768 image     images:jpg,jpeg,png,webp,avif,heic,gif,tif,tiff,bmp,jxl
jpeg      32768 jpeg.dict images:jpg,jpeg
png       32768 png.dict  images:png
webp      32768 webp.dict images:webp
avif      16384 avif.dict images:avif
heic      16384 heic.dict images:heic
gif       16384 gif.dict  images:gif
tiff      32768 tiff.dict images:tif,tiff
bmp       16384 bmp.dict  images:bmp
jxl       16384 jxl.dict  images:jxl
exif      2048  exif.dict -
multipart 16384 multipart.dict -
query     2048  query.dict -
page      8192  json.dict -
config    8192  yaml.dict config
"

known=$("$FUZZ_BIN" --list | sed -n 's/^\([a-z]*\)\t.*/\1/p' | sort | tr '\n' ' ')
listed=$(echo "$TABLE" | awk 'NF { print $1 }' | sort | tr '\n' ' ')
if [ "$known" != "$listed" ]; then
    echo "run-fuzz: the table here lists [$listed] but thumbd-fuzz has [$known]: update Fuzz/run-fuzz.sh" >&2
    exit 2
fi
targets=${FUZZ_TARGETS:-$known}
for target in $targets; do
    case " $known " in *" $target "*) ;; *) echo "run-fuzz: no target '$target' (targets: $known)" >&2; exit 2 ;; esac
done

STAMP=$(date -u +%Y%m%dT%H%M%SZ)
RUN="$FUZZ_WORK/runs/$STAMP"
mkdir -p "$RUN" || exit 2

# Copies the files under the given folders whose extension is in $2 (comma-separated) and whose
# size is at most $3 bytes into $4, named by folder and file so they never collide.
collect() {
    local folders=$1 extensions=$2 max=$3 into=$4 folder file ext name
    for folder in $folders; do
        [ -d "$folder" ] || continue
        find "$folder" -type f -size -"$((max + 1))"c 2>/dev/null | while read -r file; do
            ext=$(echo "${file##*.}" | tr 'A-Z' 'a-z')
            case ",$extensions," in *",$ext,"*) ;; *) continue ;; esac
            name=$(echo "${file#"$folder"/}" | tr '/' '_')
            cp "$file" "$into/$(basename "$folder")_$name"
        done
    done
}

seed() {
    local target=$1 max=$2 sources=$3 into=$4
    rm -rf "$into"
    mkdir -p "$into"
    "$FUZZ_BIN" --seeds "$target" "$into" || return 1
    case "$sources" in
        images:*)
            collect "$ROOT/TestImages $CORPORA/jpeg $CORPORA/pngsuite $CORPORA/webp $CORPORA/photos $CORPORA/broken" \
                "${sources#images:}" "$max" "$into"
            ;;
        config)
            cp "$ROOT/config/thumbd.yaml" "$into/thumbd.yaml"
            ;;
    esac
    if [ -d "$ROOT/TestImages/fuzz-regressions/$target" ]; then
        cp "$ROOT/TestImages/fuzz-regressions/$target"/* "$into/" 2>/dev/null
    fi
    return 0
}

dictionary() {
    local name=$1
    if [ "$name" = image ]; then
        # The whole thumbnail path reads every format: one dictionary of them all.
        cat "$DICTS/jpeg.dict" "$DICTS/png.dict" "$DICTS/webp.dict" "$DICTS/avif.dict" "$DICTS/heic.dict" \
            "$DICTS/gif.dict" "$DICTS/tiff.dict" "$DICTS/bmp.dict" "$DICTS/jxl.dict" > "$RUN/image.dict"
        echo "$RUN/image.dict"
    else
        echo "$DICTS/$name"
    fi
}

# Targets run FUZZ_JOBS at a time (one per core by default): each is one single-threaded process.
# A target that ran fewer than FUZZ_MIN_EXECS_PER_SECOND executions a second on average fails too:
# a harness that hangs, exits early or crawls would otherwise pass by finding nothing.
FUZZ_JOBS=${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 1)}
FUZZ_MIN_EXECS_PER_SECOND=${FUZZ_MIN_EXECS_PER_SECOND:-50}
case "$FUZZ_JOBS$FUZZ_MIN_EXECS_PER_SECOND" in *[!0-9]*) echo "run-fuzz: FUZZ_JOBS and FUZZ_MIN_EXECS_PER_SECOND must be whole numbers" >&2; exit 2 ;; esac
floor=$((FUZZ_SECONDS * FUZZ_MIN_EXECS_PER_SECOND))

echo "thumbd fuzzing: $FUZZ_SECONDS s per target, $FUZZ_JOBS at a time, at least $floor executions each; work folder $RUN (corpora kept in $FUZZ_WORK/corpus)"
[ -d "$CORPORA" ] || echo "note: $CORPORA is absent: seeds come from TestImages/ and thumbd-fuzz --seeds only"
summary="$RUN/summary.tsv"
mkdir -p "$RUN/rows"

# One target: its seeds, its run, one summary row in $RUN/rows, and its report printed in one piece
# (targets run side by side, so lines are not interleaved).
run_target() {
    local target=$1 row max_len dict sources seeds corpus artifacts log seed_count start status seconds execs last cov ft corp crashes result report
    row=$(echo "$TABLE" | awk -v t="$target" '$1 == t')
    max_len=$(echo "$row" | awk '{ print $2 }')
    dict=$(dictionary "$(echo "$row" | awk '{ print $3 }')")
    sources=$(echo "$row" | awk '{ print $4 }')
    seeds="$RUN/seeds/$target"
    corpus="$FUZZ_WORK/corpus/$target"
    artifacts="$RUN/artifacts/$target"
    log="$RUN/$target.log"
    mkdir -p "$corpus" "$artifacts"
    if ! seed "$target" "$max_len" "$sources" "$seeds"; then
        printf '%s	0	?	?	?	?	0	%s\n' "$target" "SETUP: could not make seeds" > "$RUN/rows/$target.tsv"
        echo "run-fuzz: could not make seeds for $target" >&2
        return
    fi
    seed_count=$(find "$seeds" -type f | wc -l)
    start=$(date +%s)
    # shellcheck disable=SC2086
    "$FUZZ_BIN" "$target" -max_total_time="$FUZZ_SECONDS" -max_len="$max_len" -rss_limit_mb="$FUZZ_RSS_MB" \
        -timeout="$FUZZ_TIMEOUT" -dict="$dict" -artifact_prefix="$artifacts/" -print_final_stats=1 \
        -print_pcs=0 -reload=0 $FUZZ_EXTRA "$corpus" "$seeds" > "$log" 2>&1
    status=$?
    seconds=$(($(date +%s) - start))
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    if [ -z "$execs" ]; then
        execs=$(grep -Eo '^#[0-9]+' "$log" | tail -1 | tr -d '#')
    fi
    last=$(grep -E '^#[0-9]+.*cov: ' "$log" | tail -1)
    cov=$(echo "$last" | sed -n 's/.* cov: \([0-9]*\).*/\1/p')
    ft=$(echo "$last" | sed -n 's/.* ft: \([0-9]*\).*/\1/p')
    corp=$(echo "$last" | sed -n 's/.* corp: \([0-9]*\/[0-9A-Za-z]*\).*/\1/p')
    crashes=$(cd "$artifacts" && ls 2>/dev/null | tr '\n' ' ')
    if [ -n "$crashes" ] || [ "$status" -ne 0 ]; then
        result="CRASH ($status): ${crashes:-no artifact, see $log}"
    elif [ "${execs:-0}" -lt "$floor" ] 2>/dev/null || [ -z "$execs" ]; then
        result="TOO FEW: ${execs:-no} executions, under the floor of $floor (see $log)"
    else
        result="ok"
    fi
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$target" "$seconds" "${execs:-?}" "${cov:-?}" "${ft:-?}" "${corp:-?}" \
        "$seed_count" "$result" > "$RUN/rows/$target.tsv"
    report="== $target: -max_len=$max_len, $seed_count seeds, dictionary $(basename "$dict")
   $seconds s, ${execs:-?} executions, cov ${cov:-?}, ft ${ft:-?}, corpus ${corp:-?}: $result"
    if [ -n "$crashes" ]; then
        for file in $crashes; do report="$report
   artifact: $artifacts/$file"; done
        report="$report
$(grep -m1 -E 'ERROR: (AddressSanitizer|libFuzzer)|Fatal error|fuzz check failed' "$log" | sed 's/^/   /')
   reproduce: $FUZZ_BIN $target $artifacts/<artifact>    (log: $log)"
    fi
    echo "$report"
}

running=0
for target in $targets; do
    if [ "$running" -ge "$FUZZ_JOBS" ]; then
        wait -n
        running=$((running - 1))
    fi
    run_target "$target" &
    running=$((running + 1))
done
wait

printf 'target\tseconds\texecs\tcov\tft\tcorpus\tseeds\tresult\n' > "$summary"
failed=0
for target in $targets; do
    if [ -f "$RUN/rows/$target.tsv" ]; then
        cat "$RUN/rows/$target.tsv" >> "$summary"
        cut -f8 "$RUN/rows/$target.tsv" | grep -qx ok || failed=1
    else
        printf '%s\t?\t?\t?\t?\t?\t?\t%s\n' "$target" "NO RESULT" >> "$summary"
        failed=1
    fi
done

echo
column -t -s "$(printf '\t')" "$summary" 2>/dev/null || cat "$summary"
echo "summary: $summary"
exit $failed
