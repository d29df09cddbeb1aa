#!/bin/sh
# instructions.sh: user-space instructions per byte of whole-file decode for every real demo,
# counted by valgrind's cachegrind (a figure machine load does not change; the perf counters
# are not available in every VM). The decode of `qdemo-bench decode 1 DEMO` minus that of
# `decode 0` (open, allocation), divided by the file's size.
#   tests/bench/instructions.sh [BENCH_BINARY] > rows.txt    (default build/qdemo-bench)
BIN=${1:-build/qdemo-bench}
RD=${QDEMO_REALDATA:-../shared/realdata}
ir() {
    valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null "$@" 2>&1 \
        >/dev/null | sed -n 's/.*I *refs: *//p' | tr -d ,
}
find "$RD" \( -name '*.dem' -o -name '*.qwd' -o -name '*.mvd' -o -name '*.dm2' -o -name '*.mvd2' \
    -o -name '*.dm_6?' -o -name '*.dm_7?' \) | sort | while read -r f; do
    size=$(stat -c %s "$f")
    i0=$(ir "$BIN" decode 0 "$f")
    i1=$(ir "$BIN" decode 1 "$f")
    echo "$(basename "$f") $size $((i1 - i0)) $(echo "scale=1; ($i1 - $i0) / $size" | bc)"
done
