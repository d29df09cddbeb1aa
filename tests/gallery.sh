#!/usr/bin/env bash
# gallery.sh: `make gallery`: the README's pictures, rendered by qdemo from free data only
# (the bundled sample; the GPL id maps and LibreQuake's models in $QDEMO_REALDATA; Debian's
# OpenArena data), so they show what the current code draws. Writes assets/gallery/*.png.
#
#   tests/gallery.sh QDEMO_BINARY
set -eu
q=${1:?usage: gallery.sh QDEMO_BINARY}
realdata=${QDEMO_REALDATA:-../shared/realdata}
out=assets/gallery
size=640x360
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# one frame of a demo at time t into $out/name.png (extra arguments go to render)
shot() {
    local name=$1 demo=$2 t=$3
    shift 3
    rm -rf "$tmp/frames"
    "$q" render --no-autodetect "$demo" -o "$tmp/frames" --from "$t" --to "$t" --size "$size" \
        --hud game "$@" >/dev/null
    mv "$tmp/frames/000000.png" "$out/$name.png"
    echo "gallery: $out/$name.png ($demo at $t s)"
}

shot quake assets/smoothme.dem 6 -p assets

dm4="$realdata/bsp/id-maps-gpl_dm4_bsp29+appendedzip.bsp"
mvd="$realdata/mvd/mvdparser_ffa_5_dm4_20240501-1229.mvd"
if [ -f "$dm4" ] && [ -f "$mvd" ] && [ -d "$realdata/librequake/id1" ]; then
    mkdir -p "$tmp/qw/maps"
    cp "$dm4" "$tmp/qw/maps/dm4.bsp"
    shot quakeworld "$mvd" 30 -p "$realdata/librequake/id1" -p assets -p "$tmp/qw"
else
    echo "gallery: no QuakeWorld picture (needs $mvd, $dm4 and librequake/id1)"
fi

oa=/usr/share/games/openarena
demo3=tests/data/fidelity/oa/oa_dm3_follow.dm_71
if [ -d "$oa/baseoa" ] && [ -f "$demo3" ]; then
    shot quake3 "$demo3" 11 -b "$oa"
    # beside ioquake3's own frame of the same moment (tests/data/fidelity/oa/README), by
    # ffmpeg (make test installs it) or ImageMagick
    ref=tests/data/fidelity/oa/t11000.png sbs="$out/quake3-vs-ioquake3.png"
    if command -v ffmpeg >/dev/null; then
        ffmpeg -loglevel error -y -i "$out/quake3.png" -i "$ref" \
            -filter_complex "[1]scale=${size/x/:}[r];[0][r]hstack" "$sbs"
        echo "gallery: $sbs"
    elif convert -version 2>/dev/null | grep -q ImageMagick; then
        convert "$out/quake3.png" \( "$ref" -resize "$size!" \) +append "$sbs"
        echo "gallery: $sbs"
    fi
    # a moment of OpenArena's own demo: the recorder's rocket exploding ahead, its smoke
    demo088="$realdata/dm_71/openarena-088-data_pak6-patch088_demo088-test1.dm_71"
    if [ -f "$demo088" ]; then
        shot quake3-action "$demo088" 72.7 -b "$oa"
        # the recorder's rail down a bridge: its core and OpenArena's spiral of discs
        shot quake3-rail "$demo088" 111.3 -b "$oa"
    fi
else
    echo "gallery: no Quake III picture (needs Debian's openarena-data in $oa)"
fi
