# tarn build. `make` builds build/tarn and build/libtarn.a; `make test` runs every test;
# `make test-asan` runs the same tests built with ASan + UBSan (into build-asan/);
# `make fuzz` builds the libFuzzer targets with clang; `make bench` runs the benchmarks.
# Sources are discovered: every src/**/*.c goes into libtarn.a except src/cli/ (the command).

BUILD    ?= build
CC       ?= cc
OPT      ?= -O2
WERROR   ?=
CFLAGS   ?=
PKGS     := libzstd liblz4 zlib jansson libedit
CPPFLAGS += -Isrc -Iinclude -D_GNU_SOURCE $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
BASEFLAGS := -std=c11 -g $(OPT) -Wall -Wextra -Wno-unused-parameter -Wshadow -Wstrict-prototypes \
             -fvisibility=hidden -pthread $(WERROR)
LDLIBS   += -lsnappy -lzstd -llz4 -lz -ljansson -lroaring -lxxhash -ledit -lssl -lcrypto -lstdc++ -lm -pthread

ifeq ($(SANITIZE),1)
BASEFLAGS += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
LDFLAGS   += -fsanitize=address,undefined
endif

LIB_SRC  := $(shell find src -name '*.c' -not -path 'src/cli/*' | sort)
CLI_SRC  := $(shell find src/cli -name '*.c' | sort)
TEST_SRC := $(wildcard tests/unit/test_*.c)
LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/obj/%.o)
CLI_OBJ  := $(CLI_SRC:%.c=$(BUILD)/obj/%.o)
TEST_BIN := $(TEST_SRC:tests/unit/%.c=$(BUILD)/tests/%)
DEPS     := $(LIB_OBJ:.o=.d) $(CLI_OBJ:.o=.d)

.PHONY: all test test-asan check fuzz fuzz-run bench clean
all: $(BUILD)/libtarn.a $(BUILD)/tarn $(TEST_BIN)

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(BASEFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/libtarn.a: $(LIB_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(BUILD)/tarn: $(CLI_OBJ) $(BUILD)/libtarn.a
	$(CC) $(BASEFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $(CLI_OBJ) $(BUILD)/libtarn.a $(LDLIBS)

$(BUILD)/tests/%: tests/unit/%.c tests/unit/testlib.h $(BUILD)/libtarn.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Itests/unit $(BASEFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< $(BUILD)/libtarn.a $(LDLIBS)

test: all
	BUILD=$(BUILD) scripts/run-tests.sh

test-asan:
	$(MAKE) BUILD=build-asan SANITIZE=1 OPT=-O1 all
	BUILD=build-asan TARN_SANITIZED=1 scripts/run-tests.sh

FUZZ_SRC := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BIN := $(FUZZ_SRC:tests/fuzz/%.c=build-fuzz/%)
FUZZ_SAN := -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined
.PHONY: fuzz-lib
fuzz: $(FUZZ_BIN)
# One sub-make builds the instrumented library (so parallel fuzz targets never race on it).
fuzz-lib:
	$(MAKE) BUILD=build-fuzz CC=clang OPT=-O1 CFLAGS="$(FUZZ_SAN)" build-fuzz/libtarn.a
build-fuzz/%: tests/fuzz/%.c fuzz-lib
	clang $(CPPFLAGS) -std=c11 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -o $@ $< build-fuzz/libtarn.a $(LDLIBS)
# Short run of every fuzz target over its corpus (CI); FUZZ_SECONDS per target.
fuzz-run: fuzz
	scripts/fuzz-run.sh $(FUZZ_SECONDS)

bench: all
	bench/run.sh

clean:
	rm -rf build build-asan build-fuzz

-include $(DEPS)
