# gpudoctor - one entry point: all, run, test, check, fuzz, bench, fmt, clean.
#
#   make run    installs what the build needs (as root), builds, runs `gpudoctor check`
#   make test   the same set-up, then every test (unit, scenarios, end to end,
#               fuzz smoke) and the same suites under ASan+UBSan (make check)

CC      ?= cc
BUILD   ?= build
PKGS    := jansson inih
CFLAGS  ?= -O2 -g
WARN    := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wformat=2 \
           -Wpointer-arith -Wvla -Wno-unused-parameter
# libxml2 (nvidia-smi -q -x, src/offline) and ncursesw (watch, src/tui) are
# compiled against (headers: libxml2's live in a subdirectory) but not linked:
# they are dlopen()ed when used, so `serve` does not carry their pages.
XML_CFLAGS := $(shell pkg-config --cflags libxml-2.0 2>/dev/null || echo -I/usr/include/libxml2)
CPPFLAGS_ALL := -std=gnu11 -D_GNU_SOURCE -Isrc $(XML_CFLAGS) $(WARN) $(CPPFLAGS)
LIBS    := -ljansson -linih -lz -lm -ldl -lpthread

LIB_SRC := $(sort $(filter-out src/main.c,$(shell find src -name '*.c')))
LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/obj/%.o)
TEST_SRC := $(sort $(wildcard tests/unit/test_*.c))
TEST_BIN := $(TEST_SRC:tests/unit/%.c=$(BUILD)/tests/%)
FUZZ_SRC := $(wildcard tests/fuzz/fuzz_*.c)
# The fake libnvidia-ml.so.1 of the tests, and an "old driver" build of it.
FAKE_NVML := $(BUILD)/fake_nvml/libnvidia-ml.so.1 $(BUILD)/fake_nvml_old/libnvidia-ml.so.1

.PHONY: all run test check unit scenarios e2e fuzz bench deps fmt fmt-check clean print-libs golden mutate

all: $(BUILD)/gpudoctor

deps:
	@scripts/deps.sh

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) $(CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/libgd.a: $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/gpudoctor: $(BUILD)/obj/src/main.o $(BUILD)/libgd.a
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LIBS)

$(BUILD)/tests/%: tests/unit/%.c tests/unit/testutil.h tests/unit/fixture.h $(BUILD)/libgd.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) -Itests/unit -DGD_SRCDIR='"$(CURDIR)"' -DGD_BUILDDIR='"$(abspath $(BUILD))"' \
	  $(CFLAGS) $(LDFLAGS) -o $@ $< $(BUILD)/libgd.a $(LIBS) -lcmocka

$(BUILD)/fake_nvml/libnvidia-ml.so.1: tests/fake_nvml/fake_nvml.c src/nvml/nvml_abi.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) $(CFLAGS) $(LDFLAGS) -fPIC -shared -Wl,-soname,libnvidia-ml.so.1 -o $@ $< -linih -lpthread

$(BUILD)/fake_nvml_old/libnvidia-ml.so.1: tests/fake_nvml/fake_nvml.c src/nvml/nvml_abi.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) -DFAKE_NVML_OLD $(CFLAGS) $(LDFLAGS) -fPIC -shared -Wl,-soname,libnvidia-ml.so.1 -o $@ $< -linih -lpthread

run: deps all
	$(BUILD)/gpudoctor check; rc=$$?; [ $$rc -le 2 ] || exit $$rc

# The benchmark's harness is built with the tests, so that it keeps compiling.
$(BUILD)/bench/bench_collect: bench/bench_collect.c $(BUILD)/libgd.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) $(CFLAGS) $(LDFLAGS) -o $@ $< $(BUILD)/libgd.a $(LIBS)

# The host probes' test driver (tests/probe/host*.sh run it).
$(BUILD)/tests/probe_host_driver: tests/probe/host_driver.c $(BUILD)/libgd.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) $(CFLAGS) $(LDFLAGS) -o $@ $< $(BUILD)/libgd.a $(LIBS)

unit: $(BUILD)/gpudoctor $(TEST_BIN) $(BUILD)/bench/bench_collect $(FAKE_NVML) $(BUILD)/tests/probe_host_driver

# Every test, then the sanitizer build of the same suites.
test: deps
	$(MAKE) --no-print-directory all unit
	BUILD=$(BUILD) tests/run.sh
	$(MAKE) --no-print-directory check

# ASan + UBSan: every suite but docs and fuzz again, in their own build tree.
check: deps
	$(MAKE) --no-print-directory BUILD=build-asan \
	  CFLAGS="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" \
	  LDFLAGS="-fsanitize=address,undefined" all unit
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  BUILD=build-asan GD_SUITES="unit scenarios offline timeline e2e exporter probe" tests/run.sh

# Rewrites the golden files (expected.txt of tests/scenarios and tests/offline)
# from the code under test: never part of make test; review the diff it prints.
golden: all unit
	UPDATE=1 tests/scenarios/run.sh; UPDATE=1 tests/offline/run.sh

# Deliberate breakages, one at a time: each must make its suite fail.
mutate: deps
	tests/mutate.sh

fuzz: deps
	tests/fuzz/run.sh $${FUZZ_SECONDS:-60}

bench: all
	bench/run.sh

# The link libraries, for scripts that link libgd.a themselves (fuzz, bench).
print-libs:
	@echo $(LIBS)

fmt:
	clang-format -i $$(find src tests -name '*.[ch]')

fmt-check:
	clang-format --dry-run --Werror $$(find src tests -name '*.[ch]')

clean:
	rm -rf build build-asan build-fuzz

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
