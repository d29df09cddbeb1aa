#!/usr/bin/env bash
# sweep.sh: the damaged-demo sweep. Every real demo is cut at 64 points and has a byte flipped
# at 64 more; each of those 128 variants goes through `qdemo info --json` and a short
# `qdemo render`, with a time limit and a memory limit. A run passes when it exits 0 or 2
# (decoded, or stopped at the damage with one line), without a signal, a hang or a sanitizer
# report. The variants are derived from the file alone, so every run of the sweep tries the
# same bytes.
#
#   tests/sweep.sh QDEMO [EVERY]
#
# QDEMO is the binary to attack (build it with ASAN=1 UBSAN=1 for the sanitizer sweep). With
# EVERY=N only variants whose number is a multiple of N run: CI runs the fixed sample EVERY=16.
# Environment: QDEMO_REALDATA (default ../shared/realdata), SWEEP_JOBS (default 2),
# SWEEP_TIMEOUT seconds a run (default 60), SWEEP_MEM_MB (default 2048), SWEEP_KEEP=DIR to keep
# the failing variants, SWEEP_FROM=I and SWEEP_COUNT=N to run only the variants numbered I to
# I+N-1 of the whole list (0-based, in the order of the sorted files, then k), so the whole sweep
# can be spread over several runs of one build, and SWEEP_LOG=FILE to append each variant's
# line, numbered, to FILE. Prints one line a failure, then a summary; exits 1 on any failure.
set -u

qdemo=${1:?usage: tests/sweep.sh QDEMO [EVERY]}
every=${2:-1}
realdata=${QDEMO_REALDATA:-../shared/realdata}
jobs=${SWEEP_JOBS:-2}
export SWEEP_TIMEOUT=${SWEEP_TIMEOUT:-60} SWEEP_MEM_MB=${SWEEP_MEM_MB:-2048}
export SWEEP_KEEP=${SWEEP_KEEP:-}
qdemo=$(cd "$(dirname "$qdemo")" && pwd)/$(basename "$qdemo")
export QDEMO_BIN=$qdemo
# the demos' own bytes are under test, not whatever game data this machine has installed
export QDEMO_NO_AUTODETECT=1

if [ ! -d "$realdata" ]; then
    echo "sweep: no real data at $realdata: skipped"
    exit 0
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/qdemo-sweep.XXXXXX")
trap 'rm -rf "$work"' EXIT
export SWEEP_WORK=$work

# Sanitizers: a report must not look like one of qdemo's own exit codes (1, 2, 3), and ASan's
# own memory cap stands in for ulimit -v, which its shadow memory does not survive.
export ASAN_OPTIONS="exitcode=99:detect_leaks=0:hard_rss_limit_mb=$SWEEP_MEM_MB:allocator_may_return_null=1"
export UBSAN_OPTIONS="exitcode=99:halt_on_error=1:print_stacktrace=1"

# one variant: FILE K -> prints "ok" or "FAIL <what> ..." on one line
run_variant() {
    local file=$1 k=$2
    local len base ext var rc err out
    len=$(stat -c %s "$file")
    base=$(basename "$file")
    ext=${base##*.}
    var=$SWEEP_WORK/v$$_$k.$ext
    if [ "$k" -lt 64 ]; then
        # cut: 64 evenly spaced lengths strictly inside the file
        head -c $(( len * (k + 1) / 65 )) "$file" >"$var"
        what="cut at $(( len * (k + 1) / 65 ))"
    else
        # flip: a position and a mask from a hash of the file's name and k
        local h pos mask byte
        h=$(printf '%s:%d' "$base" "$k" | cksum | cut -d' ' -f1)
        pos=$(( h % len ))
        mask=$(( (h / 65536) % 255 + 1 ))
        cp "$file" "$var" && chmod u+w "$var"
        byte=$(od -An -tu1 -j "$pos" -N1 "$file" | tr -d ' ')
        printf "$(printf '\\%03o' $(( byte ^ mask )))" |
            dd of="$var" bs=1 seek="$pos" conv=notrunc status=none
        what="byte $pos xor $mask"
    fi
    local limit=""
    case "$QDEMO_BIN" in *san*) ;; *) limit="ulimit -v $(( SWEEP_MEM_MB * 1024 ));" ;; esac
    for cmd in info render; do
        out=$SWEEP_WORK/o$$_$k
        if [ "$cmd" = info ]; then
            args=(info --json "$var")
        else
            args=(render "$var" -o "$out" --to 2 --fps 4 --size 96x64 --threads 1)
        fi
        err=$(bash -c "$limit exec timeout -s KILL $SWEEP_TIMEOUT \"\$@\"" _ "$QDEMO_BIN" "${args[@]}" 2>&1 >/dev/null)
        rc=$?
        rm -rf "$out"
        local bad=""
        if [ $rc -eq 137 ] || [ $rc -eq 124 ]; then bad="hang (over ${SWEEP_TIMEOUT}s)"
        elif [ $rc -eq 99 ] || grep -q -e 'Sanitizer' -e 'runtime error' <<<"$err"; then bad="sanitizer report"
        elif [ $rc -gt 128 ]; then bad="signal $(( rc - 128 ))"
        elif [ $rc -ne 0 ] && [ $rc -ne 2 ]; then bad="exit $rc"
        fi
        if [ -n "$bad" ]; then
            echo "FAIL $bad: $cmd $base ($what): $(head -c 300 <<<"$err" | tr '\n' ' ')"
            if [ -n "$SWEEP_KEEP" ]; then mkdir -p "$SWEEP_KEEP" && cp "$var" "$SWEEP_KEEP/${base%.*}_$k.$ext"; fi
            rm -f "$var"
            return
        fi
    done
    rm -f "$var"
    echo ok
}
export -f run_variant

find "$realdata" -type f \( -name '*.dem' -o -name '*.qwd' -o -name '*.mvd' -o -name '*.mvd2' \
    -o -name '*.dm2' -o -name '*.dm_6[0-9]' -o -name '*.dm_7[0-9]' \) | sort >"$work/files"
nfiles=$(wc -l <"$work/files")
from=${SWEEP_FROM:-0}
count=${SWEEP_COUNT:-1000000000}
export SWEEP_LOG=${SWEEP_LOG:-/dev/null}
i=0
while read -r f; do
    for k in $(seq 0 127); do
        if [ $(( k % every )) -eq 0 ]; then
            [ "$i" -ge "$from" ] && [ "$i" -lt $(( from + count )) ] && printf '%s\0%s\0%s\0' "$f" "$k" "$i"
            i=$(( i + 1 ))
        fi
    done
done <"$work/files" |
    xargs -0 -n3 -P "$jobs" bash -c 'r=$(run_variant "$1" "$2"); echo "$r"; echo "$3 $r" >>"$SWEEP_LOG"' _ >"$work/results"

runs=$(wc -l <"$work/results")
fails=$(grep -c '^FAIL' "$work/results")
grep '^FAIL' "$work/results"
echo "sweep: $nfiles demos, $runs variants (every $every of 128 a demo), 2 commands each:" \
     "$(grep -c '^FAIL hang' "$work/results") hangs," \
     "$(grep -c '^FAIL sanitizer' "$work/results") sanitizer reports," \
     "$(grep -c '^FAIL signal' "$work/results") crashes," \
     "$(grep -c '^FAIL exit' "$work/results") unexpected exit codes"
echo "sweep: $(( runs - fails )) variants held, $fails did not"
[ "$fails" -eq 0 ]
