#!/bin/sh
# render_hashes.sh: frame hashes of 20 textured frames along the sample's and oa_dm3's flyby
# camera paths and OpenArena's 24-bot stress demo on oa_bases3 (players as models; 1280x720
# and 1920x1080, 1 and 2 threads), for a before/after byte check:
#   tests/bench/render_hashes.sh [qdemo-bench] > before.txt; ...; diff before.txt after.txt
set -e
BENCH=${1:-build/qdemo-bench}
OA=/usr/share/games/openarena/baseoa
FLYBY=${QDEMO_REALDATA:-../shared/realdata}/dm_70/openarena-081-misc_pak6-misc_flyby_oa_dm3.dm_70
BOTS=${QDEMO_REALDATA:-../shared/realdata}/dm_70/openarena-081-misc_pak6-misc_stress_bases3.dm_70
for size in "1280 720" "1920 1080"; do
    for th in 1 2; do
        echo "# smoothme $size threads $th"
        "$BENCH" frames assets/smoothme.dem assets $size 20 $th
        if [ -r "$FLYBY" ] && [ -d "$OA" ]; then
            echo "# flyby_oa_dm3 $size threads $th"
            "$BENCH" frames "$FLYBY" "$OA" $size 20 $th
        fi
        if [ -r "$BOTS" ] && [ -d "$OA" ]; then
            echo "# stress_bases3 $size threads $th"
            "$BENCH" frames "$BOTS" "$OA" $size 20 $th
        fi
    done
done
