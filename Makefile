# Makefile - build, test and install tdsl (GNU make).
#
# ./configure writes config.mk (tools, flags, libraries, install
# folders) and config.h; this file only describes how things are made.
# Sources are found by wildcard, so a new .c file in a module folder,
# a new test or a new example needs no edit here.  Generated sources
# (lexer, grammar, ONNX protobuf code) are made in build/ and are never
# committed.  `make help` lists the targets.

.SUFFIXES:
.DELETE_ON_ERROR:
.DEFAULT_GOAL := all

# Goals that make sense before ./configure has run.
NOCONFIG_GOALS = clean distclean lint help
ifeq ($(wildcard config.mk),)
ifneq ($(filter-out $(NOCONFIG_GOALS),$(or $(MAKECMDGOALS),all)),)
$(error config.mk not found: run ./configure first (./configure --help))
endif
else
include config.mk
endif

# ------------------------------------------------------------------
# Sources
# ------------------------------------------------------------------

# The library: every module folder of ARCHITECTURE.md.
LIB_SRC = $(wildcard lang/*.c parser/*.c parser/onnx/*.c interp/*.c \
                     codegen/*.c codegen/c/*.c codegen/acc/*.c stdlib/*.c)

# Generated sources: re2c lexers and Lemon grammars from parser/, and
# the protobuf-c code for the system onnx.proto once something reads
# ONNX files (the importer in parser/onnx/, or interp/onnxpb.c).  Their
# headers are included as "grammar.h" (found in build/parser) and
# "onnx/onnx.pb-c.h" (found in build).
RE_SRC = $(wildcard parser/*.re)
Y_SRC = $(wildcard parser/*.y)
ONNX_GEN = $(if $(wildcard parser/onnx/*.c interp/onnxpb.c), \
                build/onnx/onnx.pb-c.c build/onnx/onnx_seq.pb-c.c)
GEN_SRC = $(RE_SRC:parser/%.re=build/parser/%.c) \
          $(Y_SRC:parser/%.y=build/parser/%.c) $(ONNX_GEN)
GEN_H = $(Y_SRC:parser/%.y=build/parser/%.h) $(ONNX_GEN:.c=.h)

CLI_SRC = $(wildcard cli/*.c)
UNIT_SRC = $(wildcard tests/unit/*.c)

LIB_OBJ = $(LIB_SRC:%.c=build/obj/%.o)
GEN_OBJ = $(GEN_SRC:.c=.o)
CLI_OBJ = $(CLI_SRC:%.c=build/obj/%.o)
UNIT_OBJ = $(UNIT_SRC:%.c=build/obj/%.o)
UNIT_BIN = $(UNIT_SRC:tests/unit/%.c=build/tests/%)
# The random differential test: one program from tests/random/*.c.
RANDOM_SRC = $(wildcard tests/random/*.c)
RANDOM_OBJ = $(RANDOM_SRC:%.c=build/obj/%.o)
RANDOM_BIN = $(if $(RANDOM_SRC),build/tests/random)
# Only the programs that link libtdsl; bench/run.sh builds the peers
# (peak.c, openblas_sgemm.c, halide/*.cpp) with their own flags.
# bench/tdsl_bench.c joins this list once the cpu target exists.
BENCH_SRC = bench/interp_bench.c bench/tdsl_bench.c
BENCH_OBJ = $(BENCH_SRC:%.c=build/obj/%.o)
BENCH_BIN = $(BENCH_SRC:bench/%.c=build/bench/%)

LIB = build/libtdsl.a

# Public headers: everything in a module folder but <module>_int.h.
PUBLIC_H = $(filter-out %_int.h,$(wildcard lang/*.h parser/*.h \
                                  interp/*.h codegen/*.h codegen/acc/*.h \
                                  stdlib/*.h))
STDLIB_TDSL = $(shell find stdlib -name '*.tdsl' 2>/dev/null)

# ------------------------------------------------------------------
# Flags
# ------------------------------------------------------------------

ALL_CPPFLAGS = -I. -Ibuild -Ibuild/parser $(CPPFLAGS)
DEPFLAGS = -MMD -MP
# --as-needed: libffi, protobuf-c and readline are linked from the
# start, but only end up as dependencies once something uses them.
LINK_LIBS = -Wl,--as-needed $(LIBS)

# Code made from Lemon's template has unused parameters and variables
# in every parser; the rest of -Wall -Wextra -Werror still applies.
GEN_CFLAGS = -Wno-unused-parameter -Wno-unused-variable \
             -Wno-unused-but-set-variable

RE2CFLAGS = -W --no-generation-date --no-version -I parser

# ------------------------------------------------------------------
# Building
# ------------------------------------------------------------------

all: $(LIB) tdsl

# Every compile waits for the generated headers (the lexer needs the
# token codes in grammar.h); after the first build -MMD tracks the
# real dependencies.  config.mk and config.h changing rebuilds all.
$(LIB_OBJ) $(CLI_OBJ) $(UNIT_OBJ) $(BENCH_OBJ) $(RANDOM_OBJ): \
build/obj/%.o: %.c \
                                   config.mk config.h \
                                   | $(GEN_H)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(ALL_CPPFLAGS) $(DEPFLAGS) -c $< -o $@

$(GEN_OBJ): build/%.o: build/%.c config.mk config.h | $(GEN_H)
	$(CC) $(CFLAGS) $(GEN_CFLAGS) $(ALL_CPPFLAGS) $(DEPFLAGS) -c $< -o $@

build/parser/%.c: parser/%.re
	@mkdir -p $(@D)
	$(RE2C) $(RE2CFLAGS) --depfile $@.d -o $@ $<

# Lemon writes NAME.c, NAME.h and the NAME.out report (states and
# conflicts, handy when debugging the grammar) into build/parser; it
# fails on conflicts.  It leaves NAME.h alone when the token codes are
# unchanged, which spares recompiling its users; so NAME.h is made "by"
# NAME.c, with no recipe of its own that would rerun lemon each time.
build/parser/%.c: parser/%.y $(LEMPAR)
	@mkdir -p $(@D)
	$(LEMON) -T$(LEMPAR) -dbuild/parser $<

build/parser/%.h: build/parser/%.c ;

build/onnx/onnx.pb-c.c build/onnx/onnx.pb-c.h &: $(ONNX_PROTO)
	@mkdir -p $(@D)
	$(PROTOC_C) --proto_path=$(dir $(ONNX_PROTO)) --c_out=build/onnx \
	    $(notdir $(ONNX_PROTO))

# ONNX's SequenceProto (sequence test data), declared against the same
# onnx.proto: interp/onnx_seq.proto says why it is the project's own.
build/onnx/onnx_seq.pb-c.c build/onnx/onnx_seq.pb-c.h &: \
	    interp/onnx_seq.proto $(ONNX_PROTO)
	@mkdir -p $(@D)
	$(PROTOC_C) --proto_path=$(dir $(ONNX_PROTO)) --proto_path=interp \
	    --c_out=build/onnx onnx_seq.proto

$(LIB): $(LIB_OBJ) $(GEN_OBJ)
	@mkdir -p $(@D)
	rm -f $@
	$(AR) rcs $@ $^

tdsl: $(CLI_OBJ) $(LIB)
	$(CC) $(LDFLAGS) -o $@ $(CLI_OBJ) $(LIB) $(LINK_LIBS)

# Unit tests: each tests/unit/NAME.c is a program of its own.
$(UNIT_BIN): build/tests/%: build/obj/tests/unit/%.o $(LIB)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $< $(LIB) $(LINK_LIBS)

$(RANDOM_BIN): $(RANDOM_OBJ) $(LIB)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $(RANDOM_OBJ) $(LIB) $(LINK_LIBS)

# Benchmarks (not tests): each bench/NAME.c of BENCH_SRC is a program
# of its own; `make bench` builds and runs them, then bench/run.sh runs
# the peers side by side and bench/onnx/run.sh the ONNX models beside
# onnxruntime (skipped, with a line saying why, when node or
# onnxruntime-node is missing) (bench/README.md).
$(BENCH_BIN): build/bench/%: build/obj/bench/%.o $(LIB)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $< $(LIB) $(LINK_LIBS)

bench: $(BENCH_BIN)
	build/bench/interp_bench
	CC='$(CC)' sh bench/run.sh
	sh bench/onnx/run.sh || [ $$? = 77 ]

# Remade every time: `make install prefix=...` may change the folders.
build/tdsl.pc: FORCE
	@mkdir -p $(@D)
	printf '%s\n' 'prefix=$(prefix)' 'libdir=$(libdir)' \
	    'includedir=$(includedir)' '' 'Name: tdsl' \
	    'Description: tensor DSL and compiler' 'Version: $(VERSION)' \
	    'Cflags: -I$${includedir}/tdsl' 'Libs: -L$${libdir} -ltdsl' \
	    'Libs.private: $(LIBS)' >$@

# ------------------------------------------------------------------
# Testing
# ------------------------------------------------------------------

# `make check T=error/` runs only the tests whose name contains T.
check: all $(UNIT_BIN) $(RANDOM_BIN)
	sh tests/run.sh $(T)

# The random differential test alone: N random kernels under random
# schedules (seeds SEED .. SEED + N - 1) on JOBS processes, compared
# with the interpreter bit for bit (tests/random/random.c); TARGET=accel
# for the accelerator's kernels on the simulator.  `make check` runs a
# smaller count of the same.
N = 1000
SEED = 1
JOBS = 2
TARGET = cpu
check-random: all $(RANDOM_BIN)
	TDSL_CFLAGS_EXTRA="$${TDSL_CFLAGS_EXTRA--Wall -Werror}" \
	    $(RANDOM_BIN) -n $(N) -s $(SEED) -j $(JOBS) -t $(TARGET)

# The whole ONNX backend suite (libonnx-testdata) on the interpreter,
# then on cpu: a total each (tests/onnx/conformance.sh; -v for a line
# per test).
check-onnx: all
	sh tests/onnx/conformance.sh && sh tests/onnx/conformance.sh --target cpu

# The fuzz target builds the whole library again with clang, libFuzzer
# coverage and ASan+UBSan, then fuzzes for FUZZ_SECONDS each the front
# end (lexer, parser, checker, printer; seeds: tests/fuzz/corpus and
# examples/, tests/fuzz/tdsl.dict lists the tokens) and the .npy and
# .safetensors readers (seeds: tests/fuzz/corpus_tensorio) and the ONNX
# importer (seeds: tests/fuzz/corpus_onnx, small models of the ONNX
# test data).
# New inputs go to build/fuzz/corpus*; a crash, leak or hang stops the
# run, fails make and leaves the input in build/fuzz/.
FUZZ_SECONDS = 60
FUZZ_SAN = -fsanitize=address,undefined -fno-sanitize-recover=all \
           -fno-omit-frame-pointer
FUZZ_LIB_OBJ = $(LIB_SRC:%.c=build/fuzzobj/%.o) \
               $(GEN_SRC:build/%.c=build/fuzzobj/gen/%.o)
FUZZ_LIB = build/fuzzobj/libtdsl.a
FUZZ_BIN = build/fuzz_front build/fuzz_tensorio build/fuzz_onnx
FUZZ_MAIN_OBJ = $(FUZZ_BIN:build/%=build/fuzzobj/tests/fuzz/%.o)
FUZZ_FLAGS = -max_total_time=$(FUZZ_SECONDS) -timeout=10 \
             -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1

$(LIB_SRC:%.c=build/fuzzobj/%.o) $(FUZZ_MAIN_OBJ): \
build/fuzzobj/%.o: %.c config.mk config.h | $(GEN_H) fuzz-cc
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(FUZZ_SAN) -fsanitize=fuzzer-no-link \
	    $(ALL_CPPFLAGS) $(DEPFLAGS) -c $< -o $@

build/fuzzobj/gen/%.o: build/%.c config.mk config.h | $(GEN_H) fuzz-cc
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(GEN_CFLAGS) $(FUZZ_SAN) \
	    -fsanitize=fuzzer-no-link $(ALL_CPPFLAGS) $(DEPFLAGS) -c $< -o $@

$(FUZZ_LIB): $(FUZZ_LIB_OBJ)
	rm -f $@
	$(AR) rcs $@ $^

$(FUZZ_BIN): build/%: build/fuzzobj/tests/fuzz/%.o $(FUZZ_LIB)
	$(FUZZ_CC) $(FUZZ_SAN) -fsanitize=fuzzer -o $@ $< $(FUZZ_LIB) \
	    $(LINK_LIBS)

fuzz-cc:
	@test -n "$(FUZZ_CC)" || { \
	    echo "make fuzz needs clang with libFuzzer:" >&2; \
	    echo "  apt-get install clang libclang-rt-14-dev" >&2; \
	    echo "then rerun ./configure" >&2; exit 1; }

fuzz: $(FUZZ_BIN)
	rm -rf build/fuzz/seed
	mkdir -p build/fuzz/corpus build/fuzz/seed build/fuzz/corpus_tensorio \
	    build/fuzz/corpus_onnx
	for f in $(wildcard examples/*.tdsl tests/fuzz/corpus/*); do \
	    cp "$$f" build/fuzz/seed/ || exit 1; done
	$(call run_fuzzer,front,build/fuzz_front $(FUZZ_FLAGS) \
	    -artifact_prefix=build/fuzz/ \
	    $(if $(wildcard tests/fuzz/tdsl.dict),-dict=tests/fuzz/tdsl.dict) \
	    build/fuzz/corpus build/fuzz/seed)
	$(call run_fuzzer,tensorio,build/fuzz_tensorio $(FUZZ_FLAGS) \
	    -artifact_prefix=build/fuzz/tensorio- \
	    build/fuzz/corpus_tensorio tests/fuzz/corpus_tensorio)
	$(call run_fuzzer,onnx,build/fuzz_onnx $(FUZZ_FLAGS) \
	    -artifact_prefix=build/fuzz/onnx- \
	    build/fuzz/corpus_onnx tests/fuzz/corpus_onnx)

# A fuzzer prints a line per new input, and the code under test prints
# its diagnostics: millions of lines a minute.  Keep that in
# build/fuzz/NAME.log and show its last lines (more when it fails).
run_fuzzer = @echo "fuzz: $(1) for $(FUZZ_SECONDS) s (log: build/fuzz/$(1).log)"; \
	if $(2) >build/fuzz/$(1).log 2>&1; then \
	    grep -E '^(Done|\#[0-9]+ +DONE)' build/fuzz/$(1).log | tail -n 2; \
	    echo "fuzz: $(1): no crash, leak or hang"; \
	else \
	    tail -n 80 build/fuzz/$(1).log; \
	    echo "fuzz: $(1): FAILED (see build/fuzz/$(1).log)"; exit 1; \
	fi

# Style rule 31: no line over 80 columns (tabs expanded, UTF-8
# characters counted once) in C, re2c and Lemon sources.  The message
# table lang/diag_msgs.h is exempt: one entry per line keeps it
# greppable and is what lang/gen-diag-list.sh reads.
LINT_DIRS = lang parser interp codegen cli stdlib tests bench
lint:
	@fail=0; \
	for f in $$(find $(LINT_DIRS) -type f \( -name '*.[ch]' \
	        -o -name '*.re' -o -name '*.y' \) ! -name diag_msgs.h \
	        2>/dev/null | sort); do \
	    expand "$$f" | LC_ALL=C sed 's/[\x80-\xbf]//g' | \
	    awk -v f="$$f" 'length > 80 { \
	        printf "%s:%d: %d columns\n", f, NR, length; bad = 1 } \
	        END { exit bad }' || fail=1; \
	done; \
	if [ $$fail = 0 ]; then echo "lint: ok"; else exit 1; fi

# ------------------------------------------------------------------
# Installing
# ------------------------------------------------------------------

# Headers keep their folder (tdsl/lang/lang.h) so that the
# "lang/lang.h" includes between them still resolve.
install: all build/tdsl.pc
	install -d $(DESTDIR)$(bindir) $(DESTDIR)$(libdir)/pkgconfig
	install -m 755 tdsl $(DESTDIR)$(bindir)/tdsl
	install -m 644 $(LIB) $(DESTDIR)$(libdir)/libtdsl.a
	install -m 644 build/tdsl.pc $(DESTDIR)$(libdir)/pkgconfig/tdsl.pc
	for h in $(PUBLIC_H); do \
	    install -D -m 644 "$$h" "$(DESTDIR)$(includedir)/tdsl/$$h" \
	    || exit 1; done
	for f in $(STDLIB_TDSL); do \
	    install -D -m 644 "$$f" \
	        "$(DESTDIR)$(datadir)/tdsl/$${f#stdlib/}" || exit 1; done

uninstall:
	rm -f $(DESTDIR)$(bindir)/tdsl $(DESTDIR)$(libdir)/libtdsl.a \
	    $(DESTDIR)$(libdir)/pkgconfig/tdsl.pc
	rm -rf $(DESTDIR)$(includedir)/tdsl $(DESTDIR)$(datadir)/tdsl

clean:
	rm -rf build tdsl tests/out

distclean: clean
	rm -f config.mk config.h

help:
	@echo 'make            build tdsl and build/libtdsl.a'
	@echo 'make check      build and run all tests (T=PATTERN: some)'
	@echo 'make install    install under $$(DESTDIR)$$(prefix)'
	@echo 'make uninstall  remove what make install put there'
	@echo 'make fuzz       fuzz the front end and the tensor file readers'
	@echo '                (FUZZ_SECONDS=60 each)'
	@echo 'make lint       check the 80-column limit'
	@echo 'make bench      build and run the benchmarks in bench/'
	@echo 'make clean      remove build outputs'
	@echo 'make distclean  also remove config.mk and config.h'

FORCE:

.PHONY: all check check-random check-onnx bench fuzz fuzz-cc lint install uninstall clean distclean \
        help FORCE

# Header dependencies written by -MMD, and re2c's --depfile.
-include $(shell find build -name '*.d' 2>/dev/null)
