# selftests/fuzz/fuzz.mk — libFuzzer targets for the file parsers, run by
# `make check` as one more test program ($(B)/selftests/fuzz_parsers, a copy
# of selftests/fuzz/run.sh that prints TAP).
#
# The parsers (FUZZ_PARSERS) are compiled with clang and
# -fsanitize=fuzzer-no-link,address,undefined for coverage and checking; the
# field and curve code they call is compiled plainly by $(CC) into a separate
# archive (so it does not matter which compiler or sanitizer the main build
# uses, and clang need not accept every file).  When clang cannot build a
# libFuzzer program, or the fuzzer build fails, the runner skips with the
# reason instead of failing `make check`.
#
#   make fuzz                         build the four fuzzers into $(B)/fuzz/
#   build/fuzz/fuzz_zkey CORPUS_DIR   run one by hand
#   CZ_FUZZ_SECONDS=N make check      seconds per fuzzer in `make check` (default 5)

FUZZ_CC      ?= clang
FUZZ_DIR     := $(B)/fuzz
FUZZ_NAMES   := fuzz_zkey fuzz_wtns fuzz_r1cs fuzz_json
FUZZ_BINS    := $(FUZZ_NAMES:%=$(FUZZ_DIR)/%)
FUZZ_PARSERS := zk/io/iden3bin.c zk/io/zkey.c zk/io/wtns.c zk/io/r1cs.c zk/io/snarkjs_json.c
FUZZ_BASESRC := $(filter-out $(FUZZ_PARSERS),$(shell find zk -name '*.c') $(wildcard lib/*.c))
FUZZ_JSONC   := $(shell pkg-config --cflags json-c 2>/dev/null)
FUZZ_CFLAGS  := -std=gnu17 -O1 -g -I. $(FUZZ_JSONC) -fno-omit-frame-pointer \
                -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined
FUZZ_LDFLAGS := -fsanitize=fuzzer,address,undefined
FUZZ_LIBS    := $(shell pkg-config --libs json-c 2>/dev/null) -lpthread -lm
FUZZ_RUNNER  := $(B)/selftests/fuzz_parsers

TESTS += $(FUZZ_RUNNER)
check: $(FUZZ_RUNNER)

.PHONY: fuzz
fuzz: $(FUZZ_BINS)

$(FUZZ_DIR)/p/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -MMD -MP -c $< -o $@

$(FUZZ_DIR)/base/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) -std=gnu17 -O2 -g -pthread -I. $(FUZZ_JSONC) -MMD -MP -c $< -o $@

$(FUZZ_DIR)/libbase.a: $(FUZZ_BASESRC:%.c=$(FUZZ_DIR)/base/%.o)
	rm -f $@ && ar rcs $@ $^

$(FUZZ_DIR)/fuzz_%: $(FUZZ_DIR)/p/selftests/fuzz/fuzz_%.o $(FUZZ_PARSERS:%.c=$(FUZZ_DIR)/p/%.o) $(FUZZ_DIR)/libbase.a
	$(FUZZ_CC) $(FUZZ_LDFLAGS) -o $@ $(filter %.o,$^) $(FUZZ_DIR)/libbase.a $(FUZZ_LIBS)

# Builds the fuzzers if it can; the runner reads $(FUZZ_DIR)/skip for why not.
$(FUZZ_RUNNER): selftests/fuzz/run.sh selftests/fuzz/fuzz.mk $(FUZZ_PARSERS) \
		$(wildcard selftests/fuzz/*.c) $(FUZZ_BASESRC) $(shell find zk -name '*.h') $(wildcard lib/*.h)
	@mkdir -p $(dir $@) $(FUZZ_DIR)
	@rm -f $(FUZZ_DIR)/skip
	@if ! printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { (void)d; (void)n; return 0; }\n' | \
		$(FUZZ_CC) -x c - $(FUZZ_LDFLAGS) -o $(FUZZ_DIR)/probe >/dev/null 2>&1; then \
		echo "$(FUZZ_CC) cannot build libFuzzer programs (-fsanitize=fuzzer)" > $(FUZZ_DIR)/skip; \
	elif ! $(MAKE) --no-print-directory B=$(B) fuzz > $(FUZZ_DIR)/build.log 2>&1; then \
		echo "the fuzzer build failed, see $(FUZZ_DIR)/build.log" > $(FUZZ_DIR)/skip; \
	fi
	@rm -f $(FUZZ_DIR)/probe
	install -m 755 selftests/fuzz/run.sh $@

-include $(shell find $(FUZZ_DIR) -name '*.d' 2>/dev/null)

# ---- the control protocol (selftests/fuzz/fuzz_ctl.c) ----
# The code a request reaches from the socket is instrumented (FUZZ_CTL_SRC,
# clang + sanitizers); the rest of the library is compiled plainly into its
# own archive, without CUDA.  Its own runner and skip file, so a failure to
# build it never skips the parser fuzzers (or the other way round).
#
#   make fuzz-ctl                     build $(FUZZ_DIR)/fuzz_ctl
#   make fuzz-long                    run it for FUZZ_LONG_RUNS (10 M) executions, or
#                                     FUZZ_LONG_SECONDS if that is set and comes first;
#                                     the fuzzer's log goes to $(FUZZ_DIR)/long.log,
#                                     its corpus to $(FUZZ_DIR)/corpus-long
FUZZ_CTL_SRC   := ctl/msg.c ctl/reply.c engine/control/ops.c engine/control/access.c engine/pipeline/admit.c engine/control/fields.c engine/control/requests.c \
                  engine/engine.c engine/control/keys.c engine/control/tracesel.c
FUZZ_CTL_DEFS  := $(filter-out -DCZ_HAVE_CUDA,$(filter -D% -I%,$(CFLAGS)))
FUZZ_CTL_BASE  := $(filter-out $(FUZZ_CTL_SRC) gpu/cuda.c,$(LIBSRC))
FUZZ_CTL_LIBS  := $(filter-out -lcudart_static -lstdc++,$(LDLIBS))
FUZZ_CTL_RUNNER := $(B)/selftests/fuzz_ctl
FUZZ_LONG_RUNS ?= 10000000
FUZZ_LONG_SECONDS ?=
FUZZ_LONG_RSS_MB ?= 1024

TESTS += $(FUZZ_CTL_RUNNER)
check: $(FUZZ_CTL_RUNNER)

.PHONY: fuzz-ctl fuzz-long
fuzz-ctl: $(FUZZ_DIR)/fuzz_ctl

$(FUZZ_DIR)/ctl/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(FUZZ_CTL_DEFS) -Wno-unused-command-line-argument -MMD -MP -c $< -o $@

$(FUZZ_DIR)/ctlbase/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) -std=gnu17 -O2 -g -pthread $(FUZZ_CTL_DEFS) -MMD -MP -c $< -o $@

$(FUZZ_DIR)/libctlbase.a: $(FUZZ_CTL_BASE:%.c=$(FUZZ_DIR)/ctlbase/%.o)
	rm -f $@ && ar rcs $@ $^

# engine/dashboard.c .incbin's the page: rebuilt when it changes.
$(FUZZ_DIR)/ctlbase/engine/dashboard.o: engine/dashboard.html

$(FUZZ_DIR)/fuzz_ctl: $(FUZZ_DIR)/ctl/selftests/fuzz/fuzz_ctl.o $(FUZZ_CTL_SRC:%.c=$(FUZZ_DIR)/ctl/%.o) $(FUZZ_DIR)/libctlbase.a
	$(FUZZ_CC) $(FUZZ_LDFLAGS) -o $@ $(filter %.o,$^) $(FUZZ_DIR)/libctlbase.a $(FUZZ_CTL_LIBS) -lpthread -lm

$(FUZZ_CTL_RUNNER): selftests/fuzz/run_ctl.sh selftests/fuzz/fuzz.mk selftests/fuzz/fuzz_ctl.c $(LIBSRC) \
		$(wildcard ctl/*.h engine/*.h engine/*/*.h lib/*.h) $(shell find zk -name '*.h')
	@mkdir -p $(dir $@) $(FUZZ_DIR)
	@rm -f $(FUZZ_DIR)/skip_ctl
	@if ! printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { (void)d; (void)n; return 0; }\n' | \
		$(FUZZ_CC) -x c - $(FUZZ_LDFLAGS) -o $(FUZZ_DIR)/probe_ctl >/dev/null 2>&1; then \
		echo "$(FUZZ_CC) cannot build libFuzzer programs (-fsanitize=fuzzer)" > $(FUZZ_DIR)/skip_ctl; \
	elif ! $(MAKE) --no-print-directory B=$(B) fuzz-ctl > $(FUZZ_DIR)/build_ctl.log 2>&1; then \
		echo "the fuzzer build failed, see $(FUZZ_DIR)/build_ctl.log" > $(FUZZ_DIR)/skip_ctl; \
	fi
	@rm -f $(FUZZ_DIR)/probe_ctl
	install -m 755 selftests/fuzz/run_ctl.sh $@

# Leak checking off for the long run: LSan's full scan after every input
# that allocates more than it frees (the engine keeps jobs) is most of
# its time; the short runs in `make check` keep it on.  A 64 MB quarantine
# (ASan's default is 256 MB) keeps the RSS near 180 MB, under the 1 GB
# limit that makes any growth a failure instead of the machine's OOM kill.
fuzz-long: $(FUZZ_DIR)/fuzz_ctl
	ASAN_OPTIONS=detect_leaks=0:quarantine_size_mb=64 CZ_FUZZ_RUNS=$(FUZZ_LONG_RUNS) \
	$(if $(FUZZ_LONG_SECONDS),CZ_FUZZ_SECONDS=$(FUZZ_LONG_SECONDS)) CZ_FUZZ_RSS_MB=$(FUZZ_LONG_RSS_MB) \
	CZ_FUZZ_LOG=$(FUZZ_DIR)/long.log CZ_FUZZ_CORPUS=$(FUZZ_DIR)/corpus-long CZ_FUZZ_DIR=$(FUZZ_DIR) \
	selftests/fuzz/run_ctl.sh
