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
FUZZ_PARSERS := zk/iden3bin.c zk/zkey.c zk/wtns.c zk/r1cs.c zk/snarkjs_json.c
FUZZ_BASESRC := $(filter-out $(FUZZ_PARSERS),$(wildcard zk/*.c lib/*.c))
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
		$(wildcard selftests/fuzz/*.c) $(FUZZ_BASESRC) $(wildcard zk/*.h lib/*.h)
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
