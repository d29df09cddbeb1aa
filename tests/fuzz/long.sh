#!/usr/bin/env bash
# long.sh: `make fuzz-long`. Runs each libFuzzer target (build/fuzz/fuzz_*) for a given time,
# one after another (one job each: the machine has two cores), seeded from the kept corpus in
# tests/fuzz/corpus/<target>/ and from the real files in $QDEMO_REALDATA that the target parses.
# New inputs go to B/fuzz-work/<target>/, findings to B/fuzz-findings/<target>/. Prints a row a
# target (executions, seconds, executions a second, coverage, findings) and appends the rows to
# B/fuzz-long.md, so the README's table can be filled from a real run.
#
#   tests/fuzz/long.sh B SECONDS [TARGET ...]
#
# FUZZ_RUNS=N stops a target after N executions if that comes before SECONDS; FUZZ_MAXLEN
# caps an input's length (default 256 KiB).
set -u
b=${1:?usage: long.sh BUILD_DIR SECONDS [TARGET ...]}
secs=${2:?usage: long.sh BUILD_DIR SECONDS [TARGET ...]}
shift 2
realdata=${QDEMO_REALDATA:-../shared/realdata}
maxlen=${FUZZ_MAXLEN:-262144}
runs=${FUZZ_RUNS:--1}

targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    for f in "$b"/fuzz/fuzz_*; do [ -x "$f" ] && targets+=("${f##*/fuzz_}"); done
fi

# The real files each target parses (the folders of $QDEMO_REALDATA), as extra seed corpora.
seeds_for() {
    case $1 in
        dem | timeline) echo dem librequake/dem ;;
        qwd) echo qwd ;;
        mvd) echo mvd ;;
        dm2) echo dm2 ;;
        mvd2) echo mvd2 ;;
        dm3) echo dm_66 dm_67 dm_68 dm_70 dm_71 dm_73 ;;
        bsp) echo bsp ;;
        mdl) echo mdl librequake/id1/progs ;;
        md2) echo md2 ;;
        md3) echo md3 ;;
        pak) echo pak pk3 ;;
        wad | lmp | image) echo librequake/id1 librequake/id1/gfx ;;
    esac
}

failed=0
printf '| target | executions | seconds | exec/s | coverage (edges) | features | findings |\n' | tee -a "$b/fuzz-long.md"
printf '|---|---|---|---|---|---|---|\n' | tee -a "$b/fuzz-long.md"
for t in "${targets[@]}"; do
    bin=$b/fuzz/fuzz_$t
    [ -x "$bin" ] || { echo "long.sh: no $bin (make fuzz first)"; failed=1; continue; }
    work=$b/fuzz-work/$t
    found=$b/fuzz-findings/$t
    mkdir -p "$work" "$found"
    corpora=("$work")
    [ -d "tests/fuzz/corpus/$t" ] && corpora+=("tests/fuzz/corpus/$t")
    [ -d "tests/crashers/$t" ] && corpora+=("tests/crashers/$t")
    for s in $(seeds_for "$t"); do [ -d "$realdata/$s" ] && corpora+=("$realdata/$s"); done
    log=$b/fuzz-work/$t.log
    start=$(date +%s)
    "$bin" -max_total_time="$secs" -runs="$runs" -timeout=20 -rss_limit_mb=2048 -max_len="$maxlen" \
        -print_final_stats=1 -artifact_prefix="$found/" "${corpora[@]}" >"$log" 2>&1
    rc=$?
    took=$(( $(date +%s) - start ))
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
    ft=$(grep -o 'ft: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
    nfound=$(find "$found" -type f | wc -l)
    [ $rc -ne 0 ] && [ "$nfound" -eq 0 ] && nfound="exit $rc (see $log)"
    [ "$nfound" != 0 ] && failed=1
    printf '| %s | %s | %s | %s | %s | %s | %s |\n' "$t" "${execs:-?}" "$took" "${rate:-?}" \
        "${cov:-?}" "${ft:-?}" "$nfound" | tee -a "$b/fuzz-long.md"
done
exit $failed
