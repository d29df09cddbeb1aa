# qdemo: one Makefile for the player, its tests, fuzz targets and benchmarks.
#
#   make            build build/qdemo
#   make run        build, then play the bundled sample demo (PNG frames when no display)
#   make test       build and run every test; ends with "N passed, N failed, N skipped"
#   make bench      print the speed tables and write B/bench-results.md
#   make fuzz       build the libFuzzer targets (needs clang) into build/fuzz/
#   make fuzz-replay  replay tests/fuzz/corpus/* and tests/crashers/* through every target
#   make fuzz-long  run every fuzz target for FUZZ_TIME seconds (default 600) each, one after
#                   another (FUZZ_RUNS=N: or until N executions); FUZZ_TARGETS="dem qwd" picks
#                   some; rows go to B/fuzz-long.md
#   make gallery    render the README's pictures into assets/gallery/ (free data only)
#   make install    install to PREFIX (default /usr/local; DESTDIR stages it); make uninstall
#   make sweep      the damaged-demo sweep (tests/sweep.sh) over every real demo, sanitizer
#                   build; SWEEP_EVERY=16 runs CI's fixed sample
#
# Variables: DEBUG=1 (no optimisation, -g), ASAN=1 (AddressSanitizer), UBSAN=1
# (UndefinedBehaviorSanitizer), WERROR=1 (warnings are errors), LTO=0 (no link-time
# optimisation of the decoders), B=DIR (build folder), CC=... (default cc),
# QDEMO_REALDATA=DIR (real test data, default ../shared/realdata).

CC ?= cc
PKGS := sdl2 stb zlib
DEB_PKGS := libsdl2-dev libstb-dev zlib1g-dev pkg-config
# What the tests use besides: ffmpeg (the export tests decode what they write), Xvfb (the
# window tests), Debian's free OpenArena data (the Quake III textured and fidelity tests),
# desktop-file-validate (the install test).
TEST_DEB_PKGS := ffmpeg xvfb xauth openarena-data openarena-081-maps openarena-081-textures \
	openarena-085-data openarena-088-data desktop-file-utils

CFLAGS_BASE := -std=c11 -Wall -Wextra -D_GNU_SOURCE -MMD -MP
ifeq ($(WERROR),1)
  CFLAGS_BASE += -Werror
endif
ifeq ($(DEBUG),1)
  OPT := -O0 -g
else
  OPT := -O2 -g
endif
SAN :=
ifeq ($(ASAN),1)
  SAN += -fsanitize=address -fno-omit-frame-pointer
endif
ifeq ($(UBSAN),1)
  SAN += -fsanitize=undefined,float-cast-overflow -fno-sanitize-recover=undefined,float-cast-overflow
endif

# SDL2 is not linked: src/output/sdl_load.c loads libSDL2-2.0.so.0 with dlopen when `play`
# opens its window, so every other command starts without it (its headers give the types).
# glibc 2.34+ has dlopen in libc; older ones need -ldl.
LINK_PKGS := $(filter-out sdl2,$(PKGS))
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS = $(shell pkg-config --libs $(LINK_PKGS) 2>/dev/null)
LIBDL := $(shell printf '\043include <dlfcn.h>\nint main(void){return !dlopen;}\n' | \
	$(CC) -x c - -o /dev/null 2>/dev/null || echo -ldl)
CFLAGS += $(CFLAGS_BASE) $(OPT) $(SAN) $(PKG_CFLAGS)
LDLIBS += $(PKG_LIBS) $(LIBDL) -lm -lpthread
LDFLAGS += $(SAN)

B ?= build
LIB_SRC := $(wildcard pak-loader/*.c src/common/*.c src/demo/*.c src/client/*.c \
             src/timeline/*.c src/model/*.c src/render/*.c src/output/*.c src/sound/*.c \
             src/app/*.c)
LIB_OBJ := $(LIB_SRC:%.c=$(B)/%.o) $(B)/gen/palette_data.o
TEST_SRC := tests/main.c $(wildcard tests/unit/*.c) tests/fid/fid.c tests/fid/stbi.c
TEST_OBJ := $(TEST_SRC:%.c=$(B)/%.o)
FUZZ_SRC := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_NAMES := $(FUZZ_SRC:tests/fuzz/fuzz_%.c=%)

.PHONY: all deps test-deps run test bench fuzz fuzz-replay fuzz-long sweep clean install uninstall gallery
# Keep intermediate objects (the fuzz targets' .o files), so make never deletes files after
# the test run's closing line.
.SECONDARY:
all: deps $(B)/qdemo

# Missing system packages: install them when we are root with apt-get (as CI is),
# otherwise stop with the exact command to run.
# On Debian, `make test` installs the tests' packages as root, or stops with the command.
test-deps:
	@command -v dpkg >/dev/null || exit 0; missing=""; \
	for p in $(TEST_DEB_PKGS); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    echo "qdemo: installing$$missing for the tests"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing >/dev/null || exit 1; \
	  else \
	    echo "qdemo: the tests need$$missing. Install them with:"; \
	    echo "  sudo apt-get install$$missing"; exit 1; \
	  fi; \
	fi

deps:
	@missing=""; for p in $(PKGS); do pkg-config --exists $$p 2>/dev/null || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    echo "qdemo: installing$$missing (apt-get install $(DEB_PKGS))"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(DEB_PKGS) >/dev/null || exit 1; \
	  else \
	    echo "qdemo: missing$$missing. Install them with:"; \
	    echo "  sudo apt-get install $(DEB_PKGS)"; exit 1; \
	  fi; \
	fi

$(B)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

# The rasteriser's AVX2 copies (src/render/rast_avx2.c, rast_avx2g.c): on x86-64 those files
# are compiled with -mavx2, and rast.c uses them only where the processor has AVX2
# (elsewhere they are empty).
X86_64 := $(filter x86_64%,$(shell $(CC) -dumpmachine 2>/dev/null))
ifneq ($(X86_64),)
$(B)/src/render/rast_avx2.o $(B)/src/render/rast_avx2g.o: CFLAGS += -mavx2
$(B)/fuzz/lib/src/render/rast_avx2.o $(B)/fuzz/lib/src/render/rast_avx2g.o: FUZZ_CFLAGS += -mavx2
# (and src/render/rast_avx512.c with AVX-512's encodings; contraction off, as clang would
# fuse a multiply and an add there)
AVX512_FLAGS := -mavx2 -mavx512f -mavx512bw -mavx512vl -mavx512dq -ffp-contract=off
$(B)/src/render/rast_avx512.o: CFLAGS += $(AVX512_FLAGS)
$(B)/fuzz/lib/src/render/rast_avx512.o: FUZZ_CFLAGS += $(AVX512_FLAGS)
endif

# The fallback palette (assets/palette.lmp, see assets/palette.txt) compiled in as bytes.
$(B)/gen/palette_data.c: assets/palette.lmp
	@mkdir -p $(dir $@)
	@{ echo '/* generated from assets/palette.lmp by the Makefile: do not edit */'; \
	  echo '#include <stdint.h>'; echo 'extern const uint8_t qd_builtin_palette[768];'; \
	  echo 'const uint8_t qd_builtin_palette[768] = {'; \
	  od -An -v -tu1 $< | sed 's/\([0-9][0-9]*\)/\1,/g'; echo '};'; } > $@
$(B)/gen/palette_data.o: $(B)/gen/palette_data.c
	$(CC) $(CFLAGS) -c $< -o $@

# Link-time optimisation for the decoders and the client state (GCC; LTO=0 turns it off;
# never in DEBUG or sanitizer builds): their many small calls across files (a decoder
# into cl.c, delta.c into its callers) inline. Measured on the largest real demo of each
# format (least of eight alternate runs, whole processes): dem -12 %, mvd -10 %, mvd2
# -6 %, dm2 -5 %, dm_68 -6 %, dm_66 and dm_67 -2 %, the client states the same (qdemo-bench
# states). The renderer stays out: with it, oa_bases3's frames took 5 % longer. Fat
# objects: the fuzz replays link their plain code (-fno-lto: quickly, two dozen links).
# (-flto=auto: the link's partitions in parallel, and dm2 4 % faster than one partition.)
comma := ,
LTO ?= 1
LTO_GCC := $(shell $(CC) -v 2>&1 | grep -q '^gcc version' && echo 1)
ifeq ($(LTO)$(LTO_GCC)$(DEBUG)$(strip $(SAN)),11)
LTO_DIRS := pak-loader src/common src/demo src/client src/timeline
# Their code aligned too, functions to 64 bytes and loops to 32 (DEC_ALIGN= turns it off):
# a decoder's hot loops then start on a fetch line. Measured against -O2's default on
# four fresh copies of each binary (tests/bench/ab.sh; README Speed), 20 passes, least of
# three, the other core idle: dm_66 -2.5 %, dm_73 -1.5 %, mvd -2 %, dm2 level, the client
# states the same. Either flag alone gains less on Quake III; the renderer is left at the
# default (aligned, its oa_dm3 frames took 1.4 % longer).
DEC_ALIGN ?= -falign-functions=64 -falign-loops=32
# And their memsets and memcpys (struct copies too) of up to 512 bytes made as SSE loops, not
# `rep stos` / `rep movs`: GCC's generic tuning picks those from about 64 bytes, and their
# start-up costs tens of cycles on the AMD EPYC guest, while the decoders clear and copy
# small records every frame (Quake II's view, 144 bytes, cleared at one `rep stosq`: 3 %
# of a dm2 decode's time). Fresh copies, the other core idle (tests/bench/ab.sh, least of
# three, 20 passes): dm2 112 -> 106 ms (100 passes), dm_68 126 -> 110 (the memsets alone:
# 119), dm_73 465 -> 442, dm_66 294 -> 289, mvd2 33 -> 30, mvd 39 -> 37, dem level; every
# real demo's client states the same. Measured and left out: every string operation as a
# loop (-mstringop-strategy, which takes the large copies too: dm_68 +20 %), the renderer
# with it (no change), --param=hot-bb-frequency-fraction=100000 (GCC sizes some hot
# blocks deep in the decoders as cold; no change). x86 GCC only (DEC_MEMSET= turns it off).
DEC_X86 := $(filter x86_64% i386% i486% i586% i686%,$(shell $(CC) -dumpmachine))
DEC_MEMSET ?= $(if $(DEC_X86),-mmemset-strategy=vector_loop:512:noalign$(comma)libcall:-1:noalign -mmemcpy-strategy=vector_loop:512:noalign$(comma)libcall:-1:noalign)
$(foreach d,$(LTO_DIRS),$(eval $(B)/$(d)/%.o: CFLAGS += -flto -ffat-lto-objects $(DEC_ALIGN) $(DEC_MEMSET)))
LTO_LINK := -flto=auto $(DEC_MEMSET)
LTO_OFF := -fno-lto
endif

$(B)/libqdemo.a: $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(B)/qdemo: $(B)/src/main.o $(B)/libqdemo.a
	$(CC) $(LDFLAGS) $(LTO_LINK) -o $@ $^ $(LDLIBS)

$(B)/tests/run: $(TEST_OBJ) $(B)/libqdemo.a
	$(CC) $(LDFLAGS) $(LTO_LINK) -o $@ $^ $(LDLIBS)

# The fidelity tool (tests/fid/main.c): qdemo's frames against the real engines' frames.
$(B)/tests/fidelity: $(B)/tests/fid/main.o $(B)/tests/fid/fid.o \
		$(B)/tests/fid/stbi.o $(B)/libqdemo.a
	$(CC) $(LDFLAGS) $(LTO_LINK) -o $@ $^ $(LDLIBS)

BENCH_OBJ := $(patsubst %.c,$(B)/%.o,$(wildcard tests/bench/*.c))
$(B)/qdemo-bench: $(BENCH_OBJ) $(B)/libqdemo.a
	$(CC) $(LDFLAGS) $(LTO_LINK) -o $@ $^ $(LDLIBS)

# Installing: the program, its manual page (made from --help by src/man/manpage.sh), a
# desktop entry and the demo file types for file managers, and the bundled LibreQuake data
# (read below any game's own files; its licence beside it). DESTDIR stages the install.
PREFIX ?= /usr/local
BINDIR := $(DESTDIR)$(PREFIX)/bin
SHAREDIR := $(DESTDIR)$(PREFIX)/share
QDEMO_VERSION := $(shell sed -n 's/^\#define QDEMO_VERSION "\(.*\)"/\1/p' src/main.c)
$(B)/qdemo.1: $(B)/qdemo src/man/manpage.sh
	sh src/man/manpage.sh $(B)/qdemo $(QDEMO_VERSION) > $@
install: $(B)/qdemo $(B)/qdemo.1
	install -Dm755 "$(B)/qdemo" "$(BINDIR)/qdemo"
	install -Dm644 "$(B)/qdemo.1" "$(SHAREDIR)/man/man1/qdemo.1"
	install -Dm644 assets/qdemo.desktop "$(SHAREDIR)/applications/qdemo.desktop"
	install -Dm644 assets/qdemo-mime.xml "$(SHAREDIR)/mime/packages/qdemo.xml"
	install -Dm644 assets/qdemo.png "$(SHAREDIR)/icons/hicolor/128x128/apps/qdemo.png"
	install -d "$(SHAREDIR)/qdemo/progs" "$(SHAREDIR)/qdemo/gfx" "$(SHAREDIR)/qdemo/librequake-licence" \
	  "$(SHAREDIR)/qdemo/maps" "$(SHAREDIR)/qdemo/sound/ambience"
	install -m644 assets/progs/* "$(SHAREDIR)/qdemo/progs/"
	install -m644 assets/maps/b_*.bsp "$(SHAREDIR)/qdemo/maps/"
	install -m644 assets/sound/ambience/*.wav "$(SHAREDIR)/qdemo/sound/ambience/"
	install -m644 assets/gfx/* "$(SHAREDIR)/qdemo/gfx/"
	install -m644 assets/gfx.wad "$(SHAREDIR)/qdemo/gfx.wad"
	install -m644 assets/librequake-licence/* "$(SHAREDIR)/qdemo/librequake-licence/"
	install -m644 assets/README.md "$(SHAREDIR)/qdemo/README.md"
	install -m644 LICENSE "$(SHAREDIR)/qdemo/LICENSE"
	@if [ -z "$(DESTDIR)" ]; then \
	  command -v update-mime-database >/dev/null && update-mime-database "$(SHAREDIR)/mime" || true; \
	  command -v update-desktop-database >/dev/null && update-desktop-database "$(SHAREDIR)/applications" || true; \
	  command -v gtk-update-icon-cache >/dev/null && gtk-update-icon-cache -qt "$(SHAREDIR)/icons/hicolor" || true; \
	fi
uninstall:
	rm -f "$(BINDIR)/qdemo" "$(SHAREDIR)/man/man1/qdemo.1" "$(SHAREDIR)/applications/qdemo.desktop" \
	  "$(SHAREDIR)/mime/packages/qdemo.xml" "$(SHAREDIR)/icons/hicolor/128x128/apps/qdemo.png"
	rm -rf "$(SHAREDIR)/qdemo"
	@if [ -z "$(DESTDIR)" ]; then \
	  command -v update-mime-database >/dev/null && update-mime-database "$(SHAREDIR)/mime" || true; \
	  command -v update-desktop-database >/dev/null && update-desktop-database "$(SHAREDIR)/applications" || true; \
	  command -v gtk-update-icon-cache >/dev/null && gtk-update-icon-cache -qt "$(SHAREDIR)/icons/hicolor" || true; \
	fi

# The README's pictures (assets/gallery/), from free data only.
gallery: deps $(B)/qdemo
	tests/gallery.sh $(B)/qdemo

# The sample demo and its map live in assets/ (GPL; see assets/README.md).
run: deps $(B)/qdemo
	$(B)/qdemo play assets/smoothme.dem -p assets

test: deps test-deps $(B)/qdemo $(B)/tests/run $(B)/tests/fidelity $(FUZZ_NAMES:%=$(B)/fuzz/replay_%)
	@QDEMO=$(B)/qdemo $(B)/tests/run $(T)

bench: deps $(B)/qdemo $(B)/qdemo-bench
	QDEMO=$(B)/qdemo QDEMO_BENCH_OUT=$(B)/bench-results.md $(B)/qdemo-bench

# libFuzzer targets need clang; the replay_* programs are the same targets with a plain
# main() that runs files through them, built with the normal compiler.
FUZZ_CC ?= clang
fuzz: $(FUZZ_NAMES:%=$(B)/fuzz/fuzz_%)
# The library is compiled once for every target (instrumented for coverage, ASan, UBSan) into
# $(B)/fuzz/lib/, then each target links its own file against it.
FUZZ_CFLAGS := -std=c11 -D_GNU_SOURCE -O1 -g -fsanitize=fuzzer-no-link,address,undefined \
	-fno-sanitize-recover=undefined
FUZZ_LIB_OBJ := $(LIB_SRC:%.c=$(B)/fuzz/lib/%.o) $(B)/fuzz/lib/gen/palette_data.o
$(B)/fuzz/lib/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(PKG_CFLAGS) -MMD -MP -c $< -o $@
$(B)/fuzz/lib/gen/palette_data.o: $(B)/gen/palette_data.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -c $< -o $@
$(B)/fuzz/libqdemo-fuzz.a: $(FUZZ_LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^
$(B)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(B)/fuzz/libqdemo-fuzz.a
	@mkdir -p $(dir $@)
	$(FUZZ_CC) -std=c11 -D_GNU_SOURCE -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined $(PKG_CFLAGS) \
	  -o $@ $< $(B)/fuzz/libqdemo-fuzz.a $(PKG_LIBS) $(LIBDL) -lm -lpthread
$(B)/fuzz/replay_%: $(B)/tests/fuzz/fuzz_%.o $(B)/tests/fuzz/replay.o $(B)/libqdemo.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $(LTO_OFF) -o $@ $^ $(LDLIBS)

fuzz-replay: $(FUZZ_NAMES:%=$(B)/fuzz/replay_%)
	@for n in $(FUZZ_NAMES); do $(B)/fuzz/replay_$$n tests/fuzz/corpus/$$n tests/crashers/$$n || exit 1; done

FUZZ_TIME ?= 600
FUZZ_TARGETS ?=
FUZZ_RUNS ?= -1
fuzz-long: $(if $(FUZZ_TARGETS),$(FUZZ_TARGETS:%=$(B)/fuzz/fuzz_%),fuzz)
	FUZZ_RUNS=$(FUZZ_RUNS) tests/fuzz/long.sh $(B) $(FUZZ_TIME) $(FUZZ_TARGETS)

# The sweep attacks the sanitizer build (its own folder, whatever B is).
SWEEP_EVERY ?= 1
sweep: deps
	$(MAKE) B=build-san ASAN=1 UBSAN=1 build-san/qdemo
	tests/sweep.sh build-san/qdemo $(SWEEP_EVERY)

clean:
	rm -rf $(B)

-include $(shell find $(B) -name '*.d' 2>/dev/null)
