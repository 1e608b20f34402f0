#!/usr/bin/env bash
# Runs the predicate fuzzer for a bounded time and prints its figures.
#   Fuzz/run-fuzzer.sh SECONDS [extra libFuzzer flags]
# New interesting inputs go to .build/fuzz/corpus (not the repository). A crashing input is
# copied into Fuzz/corpus/predicates/ as crash-<sha1>.txt: commit it, and FuzzCorpusTests
# replays it from then on (the regression test), after the bug is fixed.
set -uo pipefail
cd "$(dirname "$0")/.."
SECONDS_TO_RUN="${1:-300}"
shift || true
FUZZER=.build/fuzz/predicate-fuzzer
WORK=.build/fuzz/corpus
ARTIFACTS=.build/fuzz/artifacts
mkdir -p "$WORK" "$ARTIFACTS"
rm -f "$ARTIFACTS"/crash-* "$ARTIFACTS"/timeout-* "$ARTIFACTS"/oom-* "$ARTIFACTS"/leak-*
export SWIFT_BACKTRACE=enable=no
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0}"
LOG=.build/fuzz/last-run.log
"$FUZZER" -max_total_time="$SECONDS_TO_RUN" -timeout=10 -max_len=4096 -print_final_stats=1 \
    -artifact_prefix="$ARTIFACTS/" "$@" "$WORK" Fuzz/corpus/predicates >"$LOG" 2>&1
STATUS=$?
EXECUTIONS=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$LOG" | grep -o '[0-9]*$' | tail -1)
RATE=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$LOG" | grep -o '[0-9]*$' | tail -1)
CRASHES=0
for artifact in "$ARTIFACTS"/crash-* "$ARTIFACTS"/timeout-* "$ARTIFACTS"/oom-*; do
    [ -e "$artifact" ] || continue
    CRASHES=$((CRASHES + 1))
    SUM=$(sha1sum "$artifact" | cut -c1-16)
    cp "$artifact" "Fuzz/corpus/predicates/crash-$SUM.txt"
    echo "crash input saved as Fuzz/corpus/predicates/crash-$SUM.txt ($(basename "$artifact"))"
done
if [ "$STATUS" -ne 0 ] && [ "$CRASHES" -eq 0 ]; then
    CRASHES=1
    echo "the fuzzer exited with status $STATUS without an artifact; see $LOG"
fi
if [ "$CRASHES" -gt 0 ]; then
    grep -E 'ERROR|PredicateOracle|SUMMARY|Fatal error' "$LOG" | head -20
fi
echo "FUZZ SUMMARY (predicate parser, ${SECONDS_TO_RUN} s)"
echo "  fuzz executions                            ${EXECUTIONS:-0}  (${RATE:-0}/s)"
echo "  corpus inputs                              $(ls Fuzz/corpus/predicates | wc -l) in the repository, $(ls "$WORK" | wc -l) found by this machine"
echo "  crashes                                    $CRASHES  (must be 0)"
[ "$CRASHES" -eq 0 ]
