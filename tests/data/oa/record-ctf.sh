#!/bin/bash
# Record a CTF bot match (OpenArena 0.8.8 on ioquake3), spectator following a bot.
# Based on ../shared/tools/record-openarena's record_one recipe, with g_gametype 4.
set -u
WORK=/tmp/q3ctf; export HOME=$WORK/home; mkdir -p $HOME
DEMODIR=$HOME/.openarena/baseoa/demos
SECS=${SECS:-75}; NAME=${NAME:-oa_ctf4ish_follow}; MAP=${MAP:-oa_ctf4ish}
log=$WORK/$NAME.log; : > $log
wait_log() { local i=0; while (( i < $3 * 10 )); do grep -q -E "$2" "$1" 2>/dev/null && return 0; sleep 0.1; i=$((i+1)); done; return 1; }
driver() {
  wait_log $log 'Com_TouchMemory' 120 || { echo quit; return; }
  sleep 2
  for b in "Sarge red" "Grism red" "Kyonshi blue" "Major blue"; do set -- $b; echo "addbot $1 4 $2"; sleep 0.7; done
  sleep 4
  echo "team spectator"; sleep 2; echo "follow 1"; sleep 1
  echo "record $NAME"; wait_log $log "recording to demos/$NAME" 10
  local t0=$SECONDS
  while (( SECONDS - t0 < SECS )); do sleep 1; (( (SECONDS - t0) % 25 == 0 )) && echo "follownext"; done
  echo "stoprecord"; wait_log $log 'Stopped demo' 10; sleep 1; echo quit
}
driver | timeout $((SECS + 240)) xvfb-run -a -s "-screen 0 640x480x24" /usr/games/openarena \
  +set com_protocol 71 +set com_legacyprotocol 71 +set s_initsound 0 +set r_fullscreen 0 \
  +set r_mode -1 +set r_customwidth 640 +set r_customheight 480 +set com_maxfps 30 \
  +set name Recorder +set sv_pure 0 +set g_gametype 4 +set capturelimit 0 +set timelimit 0 \
  +set fraglimit 0 +set bot_enable 1 +set g_spSkill 4 +map $MAP > $log 2>&1
ls -l $DEMODIR/
