#!/usr/bin/env bash
# Runs one fuzzer for a bounded time and prints its figures.
#   Fuzz/run-fuzzer.sh SECONDS [predicate|model-file|store-file] [extra libFuzzer flags]
# For a long run on every core, add -fork=N (N processes; executions are counted over all of them)
# and -runs=TOTAL to stop after that many. To stop a -fork run early and keep its count, send
# SIGUSR1 to the libFuzzer parent (a background job ignores SIGINT): it counts the jobs it has
# merged; the jobs still running are orphaned (pkill -f store-file-fuzzer, or whichever target).
# The target defaults to predicate. New interesting inputs go to .build/fuzz/ (not the repository).
# A crashing input is copied into the target's corpus folder (Fuzz/corpus/predicates/,
# Fuzz/corpus/model-files/ or Fuzz/corpus/store-files/) as crash-<sha1>.txt / .xml / .sqlite:
# commit it, and the corpus tests replay it from then on (the regression test), after the bug is
# fixed.
set -uo pipefail
cd "$(dirname "$0")/.."
SECONDS_TO_RUN="${1:-300}"
shift || true
TARGET=predicate
if [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; then
    TARGET="$1"
    shift
fi
case "$TARGET" in
predicate)
    FUZZER=.build/fuzz/predicate-fuzzer
    WORK=.build/fuzz/corpus
    ARTIFACTS=.build/fuzz/artifacts
    SEEDS=Fuzz/corpus/predicates
    EXTENSION=txt
    LABEL="predicate parser"
    TARGET_FLAGS=(-max_len=4096)
    LEAKS=0
    # AddressSanitizer records a stack for every allocation, by default 30 frames deep: the
    # unwinding and storing took a third of this fuzzer's time (perf). The leak check, the one
    # user of those stacks that a reproducer cannot replace, is off here, so none is recorded
    # (1,440 inputs/s instead of 900 on a grown corpus). A crash still prints where it happened;
    # for the allocation's history, replay its input with ASAN_OPTIONS=malloc_context_size=30.
    ASAN_EXTRA=":malloc_context_size=0"
    ;;
model-file)
    FUZZER=.build/fuzz/model-file-fuzzer
    WORK=.build/fuzz/corpus-model-files
    ARTIFACTS=.build/fuzz/artifacts-model-files
    SEEDS=Fuzz/corpus/model-files
    EXTENSION=xml
    LABEL="model-file reader"
    # Leaks are failures here, except FoundationXML's own (model-file.lsan-suppressions), which
    # happen on every parse error: libFuzzer's check after each input would scan the heap after
    # nearly every one (20 times slower), so it is off and LeakSanitizer checks the whole run at exit.
    TARGET_FLAGS=(-max_len=8192 -dict=Fuzz/model-file.dict -detect_leaks=0)
    LEAKS=1
    export LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=Fuzz/model-file.lsan-suppressions}"
    ;;
store-file)
    FUZZER=.build/fuzz/store-file-fuzzer
    WORK=.build/fuzz/corpus-store-files
    ARTIFACTS=.build/fuzz/artifacts-store-files
    SEEDS=Fuzz/corpus/store-files
    EXTENSION=sqlite
    LABEL="store-file opener"
    # Inputs are store files of a few KB (the seeds are at most 12 KB). Leaks are checked at
    # exit, as for the model-file reader; CFPropertyList leaks an error for every damaged
    # metadata blob (store-file.lsan-suppressions).
    TARGET_FLAGS=(-max_len=16384 -detect_leaks=0)
    LEAKS=1
    export LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=Fuzz/store-file.lsan-suppressions}"
    # Each input becomes a store file that SQLite syncs when it saves: on a disk that is a
    # flush per input. A memory file system (/dev/shm) makes the sync free; the code under test
    # is the same. STRATA_FUZZ_TMPDIR overrides the folder.
    if [ -n "${STRATA_FUZZ_TMPDIR:-}" ]; then
        export TMPDIR="$STRATA_FUZZ_TMPDIR"
    elif [ -d /dev/shm ] && [ -w /dev/shm ]; then
        export TMPDIR=/dev/shm
    fi
    ;;
*)
    echo "unknown fuzz target '$TARGET' (predicate, model-file or store-file)" >&2
    exit 2
    ;;
esac
mkdir -p "$WORK" "$ARTIFACTS"
rm -f "$ARTIFACTS"/crash-* "$ARTIFACTS"/timeout-* "$ARTIFACTS"/oom-* "$ARTIFACTS"/leak-*
export SWIFT_BACKTRACE=enable=no
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=$LEAKS${ASAN_EXTRA:-}}"
LOG=.build/fuzz/last-run-$TARGET.log
"$FUZZER" -max_total_time="$SECONDS_TO_RUN" -timeout=10 "${TARGET_FLAGS[@]}" -print_final_stats=1 \
    -artifact_prefix="$ARTIFACTS/" "$@" "$WORK" "$SEEDS" >"$LOG" 2>&1
STATUS=$?
# The store-file fuzzer's per-process folders (strata-store-fuzz-PID) of processes that ended.
for folder in "${TMPDIR:-/tmp}"/strata-store-fuzz-*; do
    [ -d "$folder" ] || continue
    kill -0 "${folder##*-}" 2>/dev/null || rm -rf "$folder"
done
EXECUTIONS=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$LOG" | grep -o '[0-9]*$' | tail -1)
RATE=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$LOG" | grep -o '[0-9]*$' | tail -1)
if [ -z "$EXECUTIONS" ] || [ "$EXECUTIONS" = "0" ]; then
    # -fork=N (one process per core): the parent prints no final statistics (or, when stopped
    # early with SIGUSR1, statistics of its own that count 0), only status lines
    # "#TOTAL: cov: … time: Ns …" that count the executions of every job.
    STATUS_LINE=$(grep -E '^#[0-9]+: cov:' "$LOG" | tail -1)
    EXECUTIONS=$(echo "$STATUS_LINE" | grep -oE '^#[0-9]+' | tr -d '#')
    FUZZ_TIME=$(echo "$STATUS_LINE" | grep -oE ' time: [0-9]+' | head -1 | grep -oE '[0-9]+')
    [ -n "$EXECUTIONS" ] && [ "${FUZZ_TIME:-0}" -gt 0 ] && RATE=$((EXECUTIONS / FUZZ_TIME))
fi
CRASHES=0
for artifact in "$ARTIFACTS"/crash-* "$ARTIFACTS"/timeout-* "$ARTIFACTS"/oom-* "$ARTIFACTS"/leak-*; do
    [ -e "$artifact" ] || continue
    CRASHES=$((CRASHES + 1))
    if [ ! -s "$artifact" ]; then
        # A leak found at exit belongs to no one input: replay the corpus one file at a time.
        echo "$(basename "$artifact") is empty (a leak found at exit?); see $LOG"
        continue
    fi
    SUM=$(sha1sum "$artifact" | cut -c1-16)
    cp "$artifact" "$SEEDS/crash-$SUM.$EXTENSION"
    echo "crash input saved as $SEEDS/crash-$SUM.$EXTENSION ($(basename "$artifact"))"
done
if [ "$STATUS" -ne 0 ] && [ "$CRASHES" -eq 0 ]; then
    CRASHES=1
    echo "the fuzzer exited with status $STATUS without an artifact; see $LOG"
fi
if [ "$CRASHES" -gt 0 ]; then
    grep -E 'ERROR|PredicateOracle|ModelFileOracle|StoreFileOracle|SUMMARY|Fatal error|runtime failure' "$LOG" | head -20
fi
echo "FUZZ SUMMARY ($LABEL, ${SECONDS_TO_RUN} s)"
echo "  fuzz executions                            ${EXECUTIONS:-0}  (${RATE:-0}/s)"
echo "  corpus inputs                              $(ls "$SEEDS" | wc -l) in the repository, $(ls "$WORK" | wc -l) found by this machine"
echo "  crashes                                    $CRASHES  (must be 0)"
[ "$CRASHES" -eq 0 ]
