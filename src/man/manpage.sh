#!/bin/sh
# manpage.sh: qdemo.1 made from `qdemo --help` (the one text of the options), so the manual
# page and the program never disagree.  Usage: manpage.sh QDEMO_BINARY VERSION > qdemo.1
set -eu
bin=$1
version=$2
help=$("$bin" --help)
# roff: a leading '.' or "'" starts a request, a backslash escapes: neutralise both.
esc() { sed -e 's/\\/\\e/g' -e "s/^\([.']\)/\\\\\&\1/"; }
cat <<HEAD
.TH QDEMO 1 "" "qdemo $version" "User Commands"
.SH NAME
qdemo \- player and renderer for Quake, QuakeWorld, Quake II and Quake III demos
.SH SYNOPSIS
.nf
HEAD
printf '%s\n' "$help" | sed -n '/^usage:/,/^$/p' | sed 's/^usage: //; s/^       //' | esc
cat <<MID
.fi
.SH DESCRIPTION
qdemo reads demo recordings (.dem, .qwd, .mvd, .dm2, .mvd2, .dm3, .dm_48, .dm_66 to
\&.dm_73, .dm_90 and .dm_91, gzipped or alone in a zip) and draws them on the CPU from the game data on the search path: installs it finds
(Debian's packages, Steam, GOG, the engines' home folders, the basedir lines of
\$XDG_CONFIG_HOME/qdemo/qdemo.conf), then -b, then each -p.
.SH OPTIONS
.nf
MID
printf '%s\n' "$help" | sed -n '/^options:/,$p' | sed '1d' | esc
cat <<TAIL
.fi
.SH FILES
.TP
.I \$XDG_CONFIG_HOME/qdemo/qdemo.conf
lines "basedir GAME PATH" (GAME: quake, quakeworld, quake2, quake3, openarena, quakelive)
.TP
.I PREFIX/share/qdemo
the bundled free Quake data, read below everything else (not with --no-autodetect):
LibreQuake's models and pictures (BSD-3-Clause, librequake-licence/), qdemo's item boxes and
OpenArena's ambient sounds (GPL-2.0-or-later, LICENSE); README.md there says which is which
.SH ENVIRONMENT
.TP
.B QDEMO_BASEDIR
the default for -b
.TP
.B QDEMO_NO_AUTODETECT
set (not 0): as --no-autodetect
.TP
.B QDEMO_SIMD
sse2, avx2, gather or avx512: the rasteriser to draw with on a processor that has AVX2
(SSE2; AVX2 with loads; AVX2 with vpgatherdd, the default where gathers are quick; the
loads' copy in AVX-512's encoding, the default on other processors with AVX-512). The
pictures are the same; for comparing speed
TAIL
