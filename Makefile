# cuzk — plain GNU make. `make` builds everything into $(B)/, `make check` runs
# every selftest, `make check-asan` / `make check-tsan` the same under sanitizers.
#
# Sources are found, not listed: every .c under the library folders (and their
# sub-folders, the rooms of tools/layers.txt) goes into $(B)/libcuzk.a, every folder tools/NAME/ becomes $(B)/bin/NAME, and every
# selftests/*.c becomes one test program.  Adding a file needs no Makefile edit.

B        ?= build
CC       ?= cc
CSTD     := -std=gnu17
OPT      ?= -O2
CFLAGS   ?=
CFLAGS   += $(CSTD) $(OPT) -g -Wall -Wextra -Werror -pthread -I. -MMD -MP
LDLIBS   += -lpthread -lm
# A program loads only the libraries it calls: `cuzk prove` needs neither
# libmicrohttpd, libsystemd, hwloc nor libnuma (each is start-up time).
LDFLAGS  += -Wl,--as-needed
SAN      ?=

LIBDIRS  := zk alloc ring synth curves engine ctl gpu lib
LIBSRC   := $(sort $(shell find $(LIBDIRS) -name '*.c'))
LIBOBJ   := $(LIBSRC:%.c=$(B)/obj/%.o)

TOOLS    := $(notdir $(patsubst %/,%,$(dir $(wildcard tools/*/main.c))))
BINS     := $(TOOLS:%=$(B)/bin/%)

TESTSRC  := $(wildcard selftests/*.c)
TESTS    := $(TESTSRC:selftests/%.c=$(B)/selftests/%)
# The LD_PRELOAD shims the e2e tests put under cuzkd (selftests/shim/*.c):
# the heap-call counter (e2e_heap), the lying statvfs (e2e_admit) and the slow
# fsync (e2e_fleet).  Never
# built with a sanitizer (their runtimes must come first; those tests skip there).
SHIM     := $(patsubst selftests/shim/%.c,$(B)/selftests/%.so,$(wildcard selftests/shim/*.c))
# The layering check (the #include and call rules of tools/layers.txt, read
# from the sources and, with nm, from the built objects) is one more test
# program: a script that prints TAP.
TESTS    += tools/check-layers
# No C or CUDA function over 100 lines in the library and tools/*/ (ctags).
TESTS    += tools/check-functions
# Placement on a real two-node kernel under qemu (skips without qemu): the
# script boots a VM whose init runs the guest program.
NUMA_GUEST := $(B)/selftests/vm/numa_guest
TESTS    += selftests/vm/check-numa.sh
# What the programs load at start: cuzk none of the daemon's libraries, none libpq (selftests/bin_libs.sh).
TESTS    += selftests/bin_libs.sh
# engine/ names no curve: curves only through curves/curves.h's ops (selftests/curves_free.sh).
TESTS    += selftests/curves_free.sh
# No loop of zk/ files calling each other (nm over $(B)/obj/zk: selftests/zk_calls.sh).
TESTS    += selftests/zk_calls.sh
# docs/architecture.md's cited files, names and names-in-files are the tree's (selftests/docs_names.sh).
TESTS    += selftests/docs_names.sh
# The generated x86-64 assembly (zk/field/field_x86*.h) regenerated and compared with the
# committed headers byte for byte (selftests/zk_x86_gen.sh).
TESTS    += selftests/zk_x86_gen.sh
# tools/mulchain-r1cs.py writes circom's .r1cs and snarkjs's .wtns byte for byte (selftests/mulchain_gen.sh).
TESTS    += selftests/mulchain_gen.sh
# The Groth16 and snarkjs interop suites once more with the AVX-512 IFMA path forced off
# (CZ_NO_IFMA=1), so both MSM flushes prove on a machine that has it; the BN254 MSM and
# interop suites likewise; and on the four-lane flush (CZ_IFMA_LANES=4).
TESTS    += selftests/zk_groth16_noifma.sh
TESTS    += selftests/e2e_cli_noifma.sh
TESTS    += selftests/zk_bn254_msm_noifma.sh selftests/zk_msm_fixed_noifma.sh
TESTS    += selftests/zk_bn254_groth16_noifma.sh
# The flush each group runs by default, under CZ_NO_IFMA=1 and under CZ_AVX2=0 / 1
# (selftests/zk_msm_path_env.sh, from what /proc/cpuinfo says the CPU has).
TESTS    += selftests/zk_msm_path_env.sh
TESTS    += selftests/zk_bn254_msm_ifma4.sh
TESTS    += selftests/zk_groth16_ifma4.sh
# The end-to-end tests that take CZ_ISOLATION once more in thread isolation
# (cuzkd's default is one child process per device): both modes pass them.
TESTS    += selftests/e2e_heap_thread.sh selftests/e2e_daemon_thread.sh \
            selftests/e2e_order_thread.sh selftests/e2e_evidence_thread.sh \
            selftests/e2e_bn254_thread.sh selftests/e2e_tables_thread.sh

# Optional system libraries: linked when present (tools/install-deps.sh installs them).
PKGS     := $(shell pkg-config --exists liburing && echo liburing) \
            $(shell pkg-config --exists numa && echo numa) \
            $(shell pkg-config --exists json-c && echo json-c) \
            $(shell pkg-config --exists hwloc && echo hwloc) \
            $(shell pkg-config --exists libcrypto && echo libcrypto)
# The HTTP listener (engine/http.c) and sd_notify (tools/cuzkd): without
# them cuzkd builds, and --metrics-listen says what is missing.
ifneq ($(shell pkg-config --exists libmicrohttpd && echo y),)
PKGS     += libmicrohttpd
CFLAGS   += -DCZ_HAVE_MICROHTTPD
endif
ifneq ($(shell pkg-config --exists libsystemd && echo y),)
PKGS     += libsystemd
CFLAGS   += -DCZ_HAVE_SYSTEMD
endif
# libpq (engine/fleet/: cuzkd --fleet on a PostgreSQL job table): without it
# the fleet room builds engine/fleet/stub.c, whose calls say --fleet needs libpq.
# Its headers are needed to build; the library is not linked into the programs:
# engine/fleet/pq.c loads libpq.so.5 at the first fleet open (engine/fleet/pq.h:
# linked, it cost every cuzk start ~5 ms).  Tests that talk to PostgreSQL
# themselves link it (PQLIBS).
ifneq ($(shell pkg-config --exists libpq && echo y),)
CFLAGS   += -DCZ_HAVE_LIBPQ $(shell pkg-config --cflags libpq)
LDLIBS   += -ldl
PQLIBS   := $(shell pkg-config --libs libpq)
endif
ifneq ($(strip $(PKGS)),)
CFLAGS   += $(shell pkg-config --cflags $(PKGS))
LDLIBS   += $(shell pkg-config --libs $(PKGS))
endif
# hwloc (NUMA topology, engine/place/topo.c): without it cuzkd sees one node and
# refuses --topology with a message saying so.
ifneq ($(filter hwloc,$(PKGS)),)
CFLAGS   += -DCZ_HAVE_HWLOC
endif
TESTLIBS := -lgmp $(PQLIBS)

ifneq ($(SAN),)
CFLAGS   += $(SAN) -fno-omit-frame-pointer
LDFLAGS  += $(SAN)
endif

.PHONY: all check check-deps check-asan check-tsan check-numa clean demo bench
all: $(B)/libcuzk.a $(BINS) $(TESTS) $(SHIM) $(NUMA_GUEST)

-include gpu/gpu.mk
-include selftests/fuzz/fuzz.mk

$(B)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

$(B)/libcuzk.a: $(LIBOBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

# The dashboard is built into the binary (.incbin): rebuild when it changes.
$(B)/obj/engine/dashboard.o: engine/dashboard.html

tool_objs = $(patsubst %.c,$(B)/obj/%.o,$(wildcard tools/$(1)/*.c))
.SECONDARY:
.SECONDEXPANSION:
$(B)/bin/%: $$(call tool_objs,$$*) $(B)/libcuzk.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $(filter %.o,$^) $(B)/libcuzk.a $(LDLIBS) $(GPU_LDLIBS)

$(B)/selftests/%: $(B)/obj/selftests/%.o $(B)/libcuzk.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $< $(B)/libcuzk.a $(LDLIBS) $(GPU_LDLIBS) $(TESTLIBS)

$(SHIM): $(B)/selftests/%.so: selftests/shim/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) -O2 -g -Wall -Wextra -Werror -fPIC -shared -pthread -o $@ $< -ldl

check: check-deps all
	B=$(B) selftests/run.sh $(TESTS)

check-numa: all
	B=$(B) selftests/run.sh selftests/vm/check-numa.sh

# Under a sanitizer a program runs several times slower (e2e_devproc: 10-15
# minutes under TSan at a load of 10 on 2 cores): the runner's limit per
# program (selftests/run.sh, CZ_TEST_TIMEOUT) is 1200 s there unless set.
check-asan:
	CZ_TEST_TIMEOUT=$${CZ_TEST_TIMEOUT:-1200} $(MAKE) B=build-asan SAN="-fsanitize=address,undefined -fno-sanitize-recover=all" OPT=-O1 check

check-tsan:
	CZ_TEST_TIMEOUT=$${CZ_TEST_TIMEOUT:-1200} $(MAKE) B=build-tsan SAN="-fsanitize=thread" OPT=-O1 CZ_TSAN=1 check

# The front door: only what the demo needs (no test packages, no test
# programs); `make check` installs the rest.
demo:
	tools/install-deps.sh build
	$(MAKE) -j$$(nproc) $(B)/libcuzk.a $(BINS)
	tools/demo.sh

# The test-only packages (tools/install-deps.sh check): installed when missing;
# where that cannot be done, the tests that need them skip, saying why.
check-deps:
	@tools/install-deps.sh check || echo "make check: tools/install-deps.sh check failed; tests that need a missing package skip"


clean:
	rm -rf build build-asan build-tsan

-include $(shell find $(B)/obj -name '*.d' 2>/dev/null)
