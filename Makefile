# Ratchet: an SPSA tuning harness for a chess engine's selectivity.
# The targets and what each does: the table in README.md ("Make targets").

BUILD   ?= build
BINDIR  ?= bin
OPT     ?= -O2
SAN     ?=
# The hardware popcount when the building machine's CPU has one (nearly
# every x86-64 since 2008): the engine counts bits at every node, and
# without it each count is a call into libgcc (bench 12% slower).  ARCH=
# (empty) builds for any x86-64; `make native` for this CPU only.
ARCH    ?= $(shell grep -qsw popcnt /proc/cpuinfo && echo -mpopcnt)
CPPFLAGS_EXTRA ?=

# One folder per part (docs/design.md); every part's folder is on the
# include path, so a source names a header by its file name alone.
PARTS    := base engine/rules engine tuner/match tuner/spsa tuner/tuning tuner/report tuner/mpi tuner/commands
INCLUDES := $(PARTS:%=-I%)

# WERROR=-Werror (make test's build): a warning fails the build.
CFLAGS_ALL = -std=c11 -D_GNU_SOURCE -Wall -Wextra $(WERROR) -g $(OPT) $(ARCH) $(SAN) \
             -MMD -MP $(INCLUDES) -I$(BUILD) $(CPPFLAGS_EXTRA) $(CFLAGS)
# Resolved when a recipe runs, so `make test` can install the packages first.
PKG_CFLAGS = $(shell pkg-config --cflags gsl libcjson plplot 2>/dev/null)
PKG_LIBS   = $(shell pkg-config --libs gsl libcjson plplot 2>/dev/null || echo -lgsl -lgslcblas -lcjson -lplplot) -lpthread -lm
TEST_LIBS  = $(shell pkg-config --libs criterion libpng 2>/dev/null || echo -lcriterion -lpng)

ENGINE_SRC := $(filter-out engine/main.c,$(wildcard base/*.c engine/*.c engine/rules/*.c))
MPI_SRC    := $(wildcard tuner/mpi/mpi*.c)
TUNER_SRC  := $(filter-out tuner/commands/main.c $(MPI_SRC),$(wildcard tuner/*/*.c))
TEST_SRC   := $(wildcard tests/test_*.c) tests/helpers.c
FAKE_SRC   := $(wildcard tests/fake/*.c)
TOOL_SRC   := $(wildcard tools/*.c)
TEXEL_SRC  := $(wildcard tools/texel/*.c)

ENGINE_OBJ := $(ENGINE_SRC:%.c=$(BUILD)/%.o)
TUNER_OBJ  := $(TUNER_SRC:%.c=$(BUILD)/%.o)
TEST_OBJ   := $(TEST_SRC:%.c=$(BUILD)/%.o)
FAKES      := $(FAKE_SRC:tests/fake/%.c=$(BUILD)/fake/%)
TOOLS      := $(TOOL_SRC:tools/%.c=$(BINDIR)/ratchet-%)
# The evaluation tuner's library: tools/texel/ and engine/eval.c again with
# -DEVAL_TRACE (eval_trace(), engine/eval_trace.h).
TEXEL_OBJ  := $(TEXEL_SRC:%.c=$(BUILD)/%.o) $(BUILD)/texel/eval_trace.o

# bin/ratchet-tune-mpi (tuner/mpi/mpi*.c + the same dispatcher and library) is built
# when Open MPI's mpicc is found; OMPI_CC makes mpicc use $(CC).
MPICC    ?= mpicc
MPI_PROG := $(if $(shell command -v $(MPICC) 2>/dev/null),$(BINDIR)/ratchet-tune-mpi)

PROGRAMS := $(BINDIR)/ratchet $(BINDIR)/ratchet-tune $(TOOLS) $(MPI_PROG)

.PHONY: all native deps layers test test-installed test-long tune night bench bench-mpi bench-spsa bench-strength bench-recover bench-techniques clean
.DEFAULT_GOAL := all

all: $(PROGRAMS)

native:
	$(MAKE) ARCH=-march=native

deps:
	@sh tools/deps.sh

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(PKG_CFLAGS) -c $< -o $@

$(BUILD)/libengine.a: $(ENGINE_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(BUILD)/libtuner.a: $(TUNER_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

# ---- PARAMS: baked builds (engine/paramfile.c, tools/bake.c) ----------------
#   make PARAMS=values.json   bin/ratchet with the file's values as compile-time
#                             constants: every engine source compiled again with
#                             -DPARAMS_BAKED into $(BAKED_DIR) (default
#                             build/baked/<name of BAKED_BIN>), against the header
#                             that bin/ratchet-bake writes from the value file
#                             (rewritten only when the values change; a bad file
#                             stops the build with the engine's own message).
#   make PARAMS=values.json BAKED_BIN=path BAKED_DIR=dir
#                             the same engine at another path; bin/ratchet, the
#                             tuner and the tools stay runtime builds.
#   make baked-test-engines   the baked engines the unit tests compare with
#                             `bin/ratchet --params` (in $(PARAMS_TEST_DIR)).
PARAMS    ?=
ifneq ($(PARAMS),)
BAKED_BIN ?= $(BINDIR)/ratchet
BAKES_RATCHET := $(filter $(BINDIR)/ratchet,$(BAKED_BIN))
endif
BAKED_DIR ?= $(BUILD)/baked/$(notdir $(BAKED_BIN))
BAKED_HDR := $(BAKED_DIR)/params_baked.h
BAKED_OBJ := $(BAKED_DIR)/engine/main.o $(ENGINE_SRC:%.c=$(BAKED_DIR)/%.o)
PARAMS_TEST_DIR := $(BUILD)/params-test

# What bin/ratchet is; a switch between runtime and baked relinks it.
RATCHET_FLAVOUR := $(if $(BAKES_RATCHET),baked $(BAKED_DIR),runtime)
$(BUILD)/ratchet.flavour: FORCE
	@mkdir -p $(dir $@)
	@echo '$(RATCHET_FLAVOUR)' | cmp -s - $@ || echo '$(RATCHET_FLAVOUR)' > $@

.PHONY: FORCE baked-test-engines
FORCE:

ifneq ($(PARAMS),)
all: $(BAKED_BIN)

# Always run: the tool checks the file and rewrites the header only on change.
$(BAKED_HDR): $(BINDIR)/ratchet-bake FORCE
	@mkdir -p $(dir $@)
	@$(BINDIR)/ratchet-bake $(PARAMS) $@

$(BAKED_OBJ): $(BAKED_DIR)/%.o: %.c $(BAKED_HDR)
	@mkdir -p $(dir $@)
	$(CC) -DPARAMS_BAKED -I$(BAKED_DIR) $(CFLAGS_ALL) $(PKG_CFLAGS) -c $< -o $@

$(BAKED_BIN): $(BAKED_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -o $@ $(BAKED_OBJ) $(PKG_LIBS)

ifneq ($(BAKES_RATCHET),)
$(BAKED_DIR)/engine/main.o: $(BUILD)/ratchet.flavour
endif
# Header dependencies also when BAKED_DIR is outside $(BUILD).
-include $(wildcard $(BAKED_OBJ:.o=.d))
endif

ifeq ($(BAKES_RATCHET),)
$(BUILD)/engine/main.o: $(BUILD)/ratchet.flavour

$(BINDIR)/ratchet: $(BUILD)/engine/main.o $(BUILD)/libengine.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -o $@ $^ $(PKG_LIBS)
endif

# Value files for the tests: the defaults, every parameter moved, and every
# non-switch parameter moved (techniques stay on, so their constants count).
baked-test-engines: $(BINDIR)/ratchet $(BINDIR)/ratchet-bake
	@mkdir -p $(PARAMS_TEST_DIR)
	@echo '{"source": "defaults", "params": {}}' > $(PARAMS_TEST_DIR)/defaults.json
	$(BINDIR)/ratchet spsa > $(PARAMS_TEST_DIR)/spsa.txt
	sh tests/params_moved.sh all < $(PARAMS_TEST_DIR)/spsa.txt > $(PARAMS_TEST_DIR)/moved-all.json
	sh tests/params_moved.sh live < $(PARAMS_TEST_DIR)/spsa.txt > $(PARAMS_TEST_DIR)/moved-live.json
	for v in defaults moved-all moved-live; do \
	    $(MAKE) --no-print-directory PARAMS=$(PARAMS_TEST_DIR)/$$v.json \
	        BAKED_DIR=$(PARAMS_TEST_DIR)/$$v BAKED_BIN=$(PARAMS_TEST_DIR)/$$v/ratchet \
	        $(PARAMS_TEST_DIR)/$$v/ratchet || exit 1; \
	done
# ---- end of PARAMS ---------------------------------------------------------

$(BINDIR)/ratchet-tune: $(BUILD)/tuner/commands/main.o $(BUILD)/libtuner.a $(BUILD)/libengine.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -o $@ $^ $(PKG_LIBS)

# The MPI build: tuner/commands/main.c again, its main() renamed for tuner/mpi/mpi.c's main() to call.
$(BUILD)/mpi/main.o: tuner/commands/main.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(PKG_CFLAGS) -Dmain=ratchet_tune_main -c $< -o $@

$(BUILD)/mpi/%.o: tuner/mpi/%.c
	@mkdir -p $(dir $@)
	OMPI_CC=$(CC) $(MPICC) $(CFLAGS_ALL) $(PKG_CFLAGS) -c $< -o $@

$(BINDIR)/ratchet-tune-mpi: $(MPI_SRC:tuner/mpi/%.c=$(BUILD)/mpi/%.o) $(BUILD)/mpi/main.o $(BUILD)/libtuner.a $(BUILD)/libengine.a
	@mkdir -p $(dir $@)
	OMPI_CC=$(CC) $(MPICC) $(CFLAGS_ALL) -o $@ $^ $(PKG_LIBS)

# A TEST build of the MPI binary whose worker can be told to misreport its
# results (RATCHET_TEST_LIE, see tuner/mpi/mpi_worker.c); built into $(BUILD)
# for tests/test_mpi.c only, never installed in $(BINDIR).
MPI_LIAR := $(if $(MPI_PROG),$(BUILD)/ratchet-tune-mpi-liar)

$(BUILD)/mpi-liar/mpi_worker.o: tuner/mpi/mpi_worker.c
	@mkdir -p $(dir $@)
	OMPI_CC=$(CC) $(MPICC) $(CFLAGS_ALL) $(PKG_CFLAGS) -DRATCHET_TEST_LIAR -c $< -o $@

$(BUILD)/ratchet-tune-mpi-liar: $(filter-out $(BUILD)/mpi/mpi_worker.o,$(MPI_SRC:tuner/mpi/%.c=$(BUILD)/mpi/%.o)) \
                                $(BUILD)/mpi-liar/mpi_worker.o $(BUILD)/mpi/main.o $(BUILD)/libtuner.a $(BUILD)/libengine.a
	@mkdir -p $(dir $@)
	OMPI_CC=$(CC) $(MPICC) $(CFLAGS_ALL) -o $@ $^ $(PKG_LIBS)

$(BUILD)/texel/eval_trace.o: engine/eval.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(PKG_CFLAGS) -DEVAL_TRACE -c $< -o $@

$(BUILD)/libtexel.a: $(TEXEL_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(BINDIR)/ratchet-texel: $(BUILD)/tools/texel.o $(BUILD)/libtexel.a $(BUILD)/libtuner.a $(BUILD)/libengine.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -o $@ $^ $(PKG_LIBS)

$(BINDIR)/ratchet-%: $(BUILD)/tools/%.o $(BUILD)/libtuner.a $(BUILD)/libengine.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -o $@ $^ $(PKG_LIBS)

# Fake engines for the runner's tests; they may use the rules library.
$(BUILD)/fake/%: tests/fake/%.c tests/fake/lib/fakelib.c tests/fake/lib/fakelib.h $(BUILD)/libengine.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -Itests/fake/lib -o $@ $(filter %.c %.a,$^) $(PKG_LIBS)

# One Criterion binary holds every unit test (tests/test_*.c).
$(BUILD)/unit: $(TEST_OBJ) $(BUILD)/libtexel.a $(BUILD)/libtuner.a $(BUILD)/libengine.a
	$(CC) $(CFLAGS_ALL) -o $@ $^ $(TEST_LIBS) $(PKG_LIBS)

SANFLAGS = -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined

# The layering check (tools/layers.sh): no part includes a part above it,
# no include cycle; the stale-path check (tools/paths.sh): every dir/file.ext
# that a comment, a script or a document names exists; every header compiles
# on its own (tools/headers.sh); every #include "x.h" of a .c file is used
# (tools/includes.sh: the file names something x.h declares; Universal
# Ctags; the exceptions for now in tools/includes.allow).  First in
# `make test`: a few seconds.  Then
# the call-cycle check (tools/calls.sh) over the objects it reads, built
# first: no two modules call each other, directly or round a longer cycle.
CALL_OBJ = $(ENGINE_OBJ) $(TUNER_OBJ) $(BUILD)/engine/main.o $(BUILD)/tuner/commands/main.o \
           $(if $(MPI_PROG),$(MPI_SRC:tuner/mpi/%.c=$(BUILD)/mpi/%.o) $(BUILD)/mpi/main.o)
.PHONY: call-objects
call-objects: $(CALL_OBJ)
	@:

layers:
	sh tools/layers.sh
	sh tools/paths.sh
	CC="$(CC)" MPICC="$(MPICC)" sh tools/headers.sh
	sh tools/includes.sh
	$(MAKE) --no-print-directory call-objects
	sh tools/calls.sh . $(BUILD)

# Each target that needs the Debian packages runs `deps` first and then the
# rest in a sub-make: that make reads this Makefile again after the install,
# so what is found at parse time (mpicc: MPI_PROG, MPI_LIAR) is found on a bare
# machine too.
test: deps
	$(MAKE) --no-print-directory test-installed

test-installed:
	sh tools/layers.sh
	sh tools/paths.sh
	CC="$(CC)" MPICC="$(MPICC)" sh tools/headers.sh
	sh tools/includes.sh
	sh tools/warnings.sh
	$(MAKE) WERROR=-Werror all $(BUILD)/unit $(FAKES) $(MPI_LIAR)
	sh tools/calls.sh . $(BUILD)
	$(MAKE) baked-test-engines
	RATCHET_LONG=0 RATCHET_MPI=1 $(BUILD)/unit --jobs=2
	$(MAKE) fuzz-replay
	@echo "== sanitizer build (AddressSanitizer + UBSan) of the unit tests =="
	$(MAKE) BUILD=build/san BINDIR=build/san/bin OPT=-O1 SAN="$(SANFLAGS)" build/san/unit
	RATCHET_LONG=0 RATCHET_SANITIZED=1 ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS=suppressions=tools/lsan.supp build/san/unit --jobs=2
	ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS=suppressions=tools/lsan.supp \
	    $(MAKE) BUILD=build/san BINDIR=build/san/bin OPT=-O1 SAN="$(SANFLAGS)" fuzz-replay

test-long: deps
	$(MAKE) all $(BUILD)/unit $(FAKES)
	$(MAKE) baked-test-engines
	RATCHET_LONG=1 $(BUILD)/unit --jobs=2

tune: deps
	$(MAKE) all
	sh tools/tune.sh

night: deps
	$(MAKE) all
	sh tools/night.sh

bench: deps
	$(MAKE) all
	sh tools/bench.sh

# bin/ratchet-tune-mpi's scaling over 1..16 worker ranks (a few minutes; see the script).
bench-mpi: deps
	$(MAKE) all
	sh tools/bench-mpi.sh

# Hours at the defaults (200 games at 10+0.1): run it on a quiet machine.
bench-strength: deps
	$(MAKE) all
	STRENGTH_ELO=$(or $(ELO),2400) STRENGTH_GAMES=$(or $(GAMES),200) STRENGTH_TC=$(or $(TC),10+0.1) \
	    STRENGTH_CONCURRENCY=$(or $(CONCURRENCY),1) sh tools/bench/strength.sh

bench-recover: deps
	$(MAKE) all
	sh tools/bench/recover.sh

bench-techniques: deps
	$(MAKE) all
	sh tools/bench/techniques.sh

# ---- fuzzing (tests/fuzz/, tools/fuzz.sh) ----------------------------------
#   make fuzz              every libFuzzer harness for FUZZ_SECONDS (default 60)
#                          each, from its seed corpus tests/fuzz/corpus/NAME
#                          (clang, -fsanitize=fuzzer,address,undefined); new
#                          inputs and crashes under build/fuzz/
#   make fuzz-replay       each harness, built with $(CC), over its seeds and
#                          regression inputs (tests/fuzz/regressions/NAME):
#                          part of make test
FUZZ_SECONDS ?= 60
FUZZ_SRC  := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_NAMES := $(FUZZ_SRC:tests/fuzz/fuzz_%.c=%)
FUZZ_SAN  = -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
REPLAYS   := $(FUZZ_NAMES:%=$(BUILD)/fuzz-replay/%)

.PHONY: fuzz fuzz-build fuzz-replay
fuzz:
	@sh tools/deps.sh --fuzz
	$(MAKE) fuzz-build
	sh tools/fuzz.sh $(FUZZ_SECONDS) $(FUZZ_NAMES)

# The libraries instrumented for libFuzzer, then one binary per harness.
fuzz-build:
	$(MAKE) CC=clang BUILD=build/fuzz/obj OPT=-O1 SAN="-fsanitize=fuzzer-no-link $(FUZZ_SAN)" \
	    build/fuzz/obj/libtuner.a build/fuzz/obj/libengine.a
	@mkdir -p build/fuzz/bin
	for n in $(FUZZ_NAMES); do \
	    clang -std=c11 -D_GNU_SOURCE -g -O1 -Wall -Wextra -fsanitize=fuzzer $(FUZZ_SAN) $(INCLUDES) \
	        $(PKG_CFLAGS) -o build/fuzz/bin/fuzz_$$n tests/fuzz/fuzz_$$n.c \
	        build/fuzz/obj/libtuner.a build/fuzz/obj/libengine.a $(PKG_LIBS) || exit 1; \
	done

$(BUILD)/fuzz-replay/%: tests/fuzz/fuzz_%.c tests/fuzz/replay.c $(BUILD)/libtuner.a $(BUILD)/libengine.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(PKG_CFLAGS) -o $@ $(filter %.c %.a,$^) $(PKG_LIBS)

fuzz-replay: $(REPLAYS)
	@for n in $(FUZZ_NAMES); do \
	    files=$$(ls tests/fuzz/corpus/$$n/* tests/fuzz/regressions/$$n/* 2>/dev/null); \
	    printf '%s: ' $$n; $(BUILD)/fuzz-replay/$$n $$files || exit 1; \
	done

# The SPSA forms on the landscape suite and grid (tools/bench/spsa_suite.sh).
# Also part of `make bench`.
bench-spsa: deps
	$(MAKE) all
	sh tools/bench/spsa_suite.sh

clean:
	rm -rf build bin

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
