# tarn build. `make` builds build/tarn and build/libtarn.a; `make test` runs every test;
# `make test-asan` runs the same tests built with ASan + UBSan (into build-asan/);
# `make fuzz` builds the libFuzzer targets with clang; `make bench` runs the benchmarks.
# Sources are discovered: every src/**/*.c goes into libtarn.a except src/cli/ (the command).
# build/libtarn.a is the internal archive (tests, fuzz targets and the command link it);
# build/lib/ holds what `make install` installs: libtarn.so (soname libtarn.so.MAJOR) and a
# libtarn.a whose only global symbols are tarn_* (a partial link with hidden symbols localized).

BUILD    ?= build
CC       ?= cc
CXX      ?= c++
OPT      ?= -O2
WERROR   ?=
CFLAGS   ?=
PKGS     := libzstd liblz4 zlib jansson libedit libbrotlienc libbrotlidec
CPPFLAGS += -Isrc -Iinclude -D_GNU_SOURCE $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
BASEFLAGS := -std=c11 -g $(OPT) -Wall -Wextra -Wno-unused-parameter -Wshadow -Wstrict-prototypes \
             -fvisibility=hidden -fPIC -pthread $(WERROR)
# C++ only for src/base/regex.cc (the RE2 shim): C++17, the same warnings and visibility.
CXXBASE  := -std=c++17 -g $(OPT) -Wall -Wextra -Wno-unused-parameter -Wshadow -fvisibility=hidden -fPIC -pthread $(WERROR)
CXXFLAGS ?=
LDLIBS   += -lsnappy -lzstd -llz4 -lz -lbrotlienc -lbrotlidec -lbrotlicommon -ljansson -lroaring -lxxhash -ledit -lssl -lcrypto -lre2 -lstdc++ -lm -pthread

ifeq ($(SANITIZE),1)
BASEFLAGS += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
CXXBASE   += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
LDFLAGS   += -fsanitize=address,undefined
endif

LIB_SRC  := $(shell find src -name '*.c' -not -path 'src/cli/*' | sort)
LIB_CXX  := $(shell find src -name '*.cc' -not -path 'src/cli/*' | sort)
CLI_SRC  := $(shell find src/cli -name '*.c' | sort)
TEST_SRC := $(wildcard tests/unit/test_*.c)
LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/obj/%.o) $(LIB_CXX:%.cc=$(BUILD)/obj/%.o)
CLI_OBJ  := $(CLI_SRC:%.c=$(BUILD)/obj/%.o)
TEST_BIN := $(TEST_SRC:tests/unit/%.c=$(BUILD)/tests/%)
DEPS     := $(LIB_OBJ:.o=.d) $(CLI_OBJ:.o=.d)

.PHONY: all test test-asan check fuzz fuzz-run bench clean install uninstall
all: $(BUILD)/libtarn.a $(BUILD)/tarn $(TEST_BIN) $(BUILD)/tpch_dbgen $(BUILD)/lib/libtarn.a $(BUILD)/lib/libtarn.so $(BUILD)/lib/tarn.pc

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(BASEFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/obj/%.o: %.cc
	@mkdir -p $(dir $@)
	$(CXX) $(CPPFLAGS) $(CXXBASE) $(CXXFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/libtarn.a: $(LIB_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

# --- The installable libraries (build/lib/) and `make install` / `make uninstall`.
VERSION  := $(shell sed -n 's/^\#define TARN_VERSION "\(.*\)"/\1/p' include/tarn.h)
SOMAJOR  := $(firstword $(subst ., ,$(VERSION)))
PREFIX   ?= /usr/local
DESTDIR  ?=
LIBDIR   ?= $(PREFIX)/lib
INCDIR   ?= $(PREFIX)/include
BINDIR   ?= $(PREFIX)/bin
PCDIR    ?= $(LIBDIR)/pkgconfig
PC_REQUIRES := libzstd liblz4 zlib libbrotlienc libbrotlidec jansson libssl libcrypto
PC_LIBS_PRIVATE := -lsnappy -lroaring -lxxhash -lre2 -lstdc++ -lm -pthread

$(BUILD)/lib/libtarn.so.$(VERSION): $(LIB_OBJ) scripts/libtarn.map
	@mkdir -p $(dir $@)
	$(CC) -shared $(BASEFLAGS) $(CFLAGS) $(LDFLAGS) -Wl,-soname,libtarn.so.$(SOMAJOR) \
	    -Wl,--version-script=scripts/libtarn.map -Wl,--no-undefined -Wl,--as-needed -o $@ $(LIB_OBJ) $(LDLIBS)
$(BUILD)/lib/libtarn.so: $(BUILD)/lib/libtarn.so.$(VERSION)
	ln -sf libtarn.so.$(VERSION) $(BUILD)/lib/libtarn.so.$(SOMAJOR)
	ln -sf libtarn.so.$(VERSION) $@
# One relocatable object: internal references resolved inside it, then every hidden symbol made
# local, so a program's own pq_compress or tn_buf_append never clashes with libtarn's. C++
# template instances the RE2 shim defines (weak, default visibility in libstdc++'s headers; seen
# at -O1) are made local too; undefined ones stay undefined.
$(BUILD)/lib/libtarn.a: $(LIB_OBJ)
	@mkdir -p $(dir $@)
	$(LD) -r -o $(BUILD)/lib/tarn.o $(LIB_OBJ)
	objcopy --localize-hidden --wildcard --localize-symbol='_Z*' --strip-unneeded $(BUILD)/lib/tarn.o
	rm -f $@ && ar rcs $@ $(BUILD)/lib/tarn.o && rm -f $(BUILD)/lib/tarn.o
$(BUILD)/lib/tarn.pc: scripts/tarn.pc.in include/tarn.h Makefile
	@mkdir -p $(dir $@)
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@LIBDIR@|$(LIBDIR)|g' -e 's|@INCDIR@|$(INCDIR)|g' \
	    -e 's|@VERSION@|$(VERSION)|g' -e 's|@REQUIRES@|$(PC_REQUIRES)|g' \
	    -e 's|@LIBS_PRIVATE@|$(PC_LIBS_PRIVATE)|g' $< > $@

install: $(BUILD)/tarn $(BUILD)/lib/libtarn.a $(BUILD)/lib/libtarn.so $(BUILD)/lib/tarn.pc
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCDIR) $(DESTDIR)$(PCDIR)
	install -m 755 $(BUILD)/tarn $(DESTDIR)$(BINDIR)/tarn
	install -m 644 $(BUILD)/lib/libtarn.a $(DESTDIR)$(LIBDIR)/libtarn.a
	install -m 755 $(BUILD)/lib/libtarn.so.$(VERSION) $(DESTDIR)$(LIBDIR)/libtarn.so.$(VERSION)
	ln -sf libtarn.so.$(VERSION) $(DESTDIR)$(LIBDIR)/libtarn.so.$(SOMAJOR)
	ln -sf libtarn.so.$(VERSION) $(DESTDIR)$(LIBDIR)/libtarn.so
	install -m 644 include/tarn.h $(DESTDIR)$(INCDIR)/tarn.h
	install -m 644 $(BUILD)/lib/tarn.pc $(DESTDIR)$(PCDIR)/tarn.pc
	@if [ -z "$(DESTDIR)" ] && command -v ldconfig >/dev/null && [ -w /etc/ld.so.cache ]; then ldconfig; fi

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/tarn $(DESTDIR)$(LIBDIR)/libtarn.a $(DESTDIR)$(LIBDIR)/libtarn.so \
	      $(DESTDIR)$(LIBDIR)/libtarn.so.$(SOMAJOR) $(DESTDIR)$(LIBDIR)/libtarn.so.$(VERSION) \
	      $(DESTDIR)$(INCDIR)/tarn.h $(DESTDIR)$(PCDIR)/tarn.pc

$(BUILD)/tarn: $(CLI_OBJ) $(BUILD)/libtarn.a
	$(CC) $(BASEFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $(CLI_OBJ) $(BUILD)/libtarn.a $(LDLIBS)

$(BUILD)/tests/%: tests/unit/%.c $(wildcard tests/unit/*.h) $(BUILD)/libtarn.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Itests/unit $(BASEFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< $(BUILD)/libtarn.a $(LDLIBS)

# TPC-H data generator (tests/tpch/): the TPC-H suite and bench/tpch_bench.sh use it.
$(BUILD)/tpch_dbgen: tests/tpch/dbgen.c
	@mkdir -p $(dir $@)
	$(CC) $(BASEFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< -lm

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
	$(MAKE) BUILD=build-fuzz CC=clang CXX=clang++ OPT=-O1 CFLAGS="$(FUZZ_SAN)" CXXFLAGS="$(FUZZ_SAN)" build-fuzz/libtarn.a
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
