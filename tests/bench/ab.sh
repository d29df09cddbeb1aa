#!/usr/bin/env bash
# ab.sh A B DEMO [PASSES] [ROUNDS]: whole-process decode times of two qdemo-bench builds, A
# and B, on DEMO (`qdemo-bench decode PASSES DEMO`), each round on a fresh copy of each
# binary: on this VM, with the other core busy, byte-identical copies of one binary can run
# far apart, copy by copy (README, Speed, 2026-11-30 from 17:40), so one copy each is no
# comparison; run it with the other core idle. Prints the least of three runs of every
# copy, in ms.
set -eu
a=$1 b=$2 demo=$3 passes=${4:-20} rounds=${5:-4}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
least() {
    local best=999999 s e x
    for _ in 1 2 3; do
        s=$(date +%s%N)
        "$1" decode "$passes" "$demo" >/dev/null
        e=$(date +%s%N)
        x=$(((e - s) / 1000000))
        ((x < best)) && best=$x
    done
    echo "$best"
}
ra="" rb=""
for i in $(seq "$rounds"); do
    cp "$a" "$dir/a$i"
    cp "$b" "$dir/b$i"
    ra="$ra $(least "$dir/a$i")"
    rb="$rb $(least "$dir/b$i")"
done
echo "A:$ra   B:$rb"
