# ftnet - trace the Linux network stack through ftrace.
#
#   make            library and tools (tools land in bin/)
#   make check      every test tier that can run here (SKIP lines otherwise)
#   make bench      parser / consumer benchmarks against a baseline
#   make fuzz       build the libFuzzer harnesses (clang) and run each for
#                   FUZZ_SECONDS (default 20; FUZZ_SECONDS=600 for long runs)
#   make install    PREFIX=/usr/local DESTDIR=
#   make help
#
# Knobs: V=1 (show commands), CFLAGS= (yours; required flags are added
# separately), STRICT=1 (extra warnings, -Werror), STATIC=1 (static tools),
# SANITIZE=address,undefined.

CC      ?= cc
AR      ?= ar
CFLAGS  ?= -O2 -g
PREFIX  ?= /usr/local
DESTDIR ?=
BINDIR  ?= $(PREFIX)/sbin
MANDIR  ?= $(PREFIX)/share/man
LIBDIR  ?= $(PREFIX)/lib
INCDIR  ?= $(PREFIX)/include

REQ_CFLAGS := -std=gnu11 -Wall -Wextra -Wno-unused-parameter -D_GNU_SOURCE -Ilib
ifeq ($(STRICT),1)
REQ_CFLAGS += -Werror -Wshadow -Wformat=2 -Wstrict-prototypes -Wmissing-prototypes \
	      -Wpointer-arith -Wcast-qual -Wvla
endif
ifneq ($(SANITIZE),)
REQ_CFLAGS += -fsanitize=$(SANITIZE) -fno-omit-frame-pointer
LDFLAGS += -fsanitize=$(SANITIZE)
endif
ifeq ($(STATIC),1)
LDFLAGS += -static
endif

ifneq ($(V),1)
Q = @
quiet = @printf '  %-6s %s\n' $(1) $(2);
else
Q =
quiet =
endif

LIB_SRC   := $(sort $(wildcard lib/*.c))
LIB_OBJ   := $(patsubst lib/%.c,build/lib/%.o,$(LIB_SRC))
LIB_A     := build/libftnet.a
# Shared library: libftnet.so.MAJOR.MINOR.PATCH, soname libftnet.so.MAJOR.
# MAJOR changes when the ABI of ftnet.h breaks (0: no promise yet).
SO_VER    := $(shell sed -n 's/^\#define FTNET_VERSION "\(.*\)"/\1/p' lib/ftnet.h)
SO_MAJOR  := $(firstword $(subst ., ,$(SO_VER)))
SO_NAME   := libftnet.so.$(SO_MAJOR)
LIB_SO    := build/libftnet.so.$(SO_VER)
LIB_PIC   := $(patsubst lib/%.c,build/pic/%.o,$(LIB_SRC))
LIB_PC    := build/ftnet.pc
# The tools module (tools/common.h + tools/common/*.c): tool policy shared
# by every bin/ tool, linked in from its own archive.
TC_SRC    := $(sort $(wildcard tools/common/*.c))
TC_OBJ    := $(patsubst tools/common/%.c,build/tools/%.o,$(TC_SRC))
TC_A      := build/libftntools.a
TOOL_SRC  := $(sort $(wildcard tools/*.c))
TOOLS     := $(patsubst tools/%.c,bin/%,$(TOOL_SRC))
UNIT_SRC  := $(sort $(wildcard tests/unit/*.c))
UNITS     := $(patsubst tests/unit/%.c,build/tests/%,$(UNIT_SRC))
# fakeinst.c is not a program: an LD_PRELOAD shim (and an object linked
# into the unit tests) giving fake tracefs trees what mkdir does in a real one.
FAKEINST  := build/tests/fakeinst.so build/tests/fakeinst.o
HELP_SRC  := $(filter-out tests/helpers/fakeinst.c,$(sort $(wildcard tests/helpers/*.c)))
HELPERS   := $(patsubst tests/helpers/%.c,build/tests/%,$(HELP_SRC))
EX_SRC    := $(sort $(wildcard examples/*.c))
EXAMPLES  := $(patsubst examples/%.c,build/examples/%,$(EX_SRC))
BENCH_SRC := $(sort $(wildcard tests/bench/*.c))
BENCHES   := $(patsubst tests/bench/%.c,build/bench/%,$(BENCH_SRC))

# Fuzz harnesses (tests/fuzz/fuzz_*.c): clang's libFuzzer with ASan and
# UBSan, the library compiled from source with the same sanitizers into
# build/fuzz/ (never the normal build/libftnet.a).
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 20
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=undefined \
		-fno-omit-frame-pointer
FUZZ_CFLAGS  := -std=gnu11 -g -O1 -Wall -Wextra -Wno-unused-parameter \
		-D_GNU_SOURCE -Ilib -Itests/fuzz $(FUZZ_SAN)
FUZZ_SRC     := $(sort $(wildcard tests/fuzz/fuzz_*.c))
FUZZERS      := $(patsubst tests/fuzz/%.c,build/fuzz/%,$(FUZZ_SRC))
FUZZ_LIB_OBJ := $(patsubst lib/%.c,build/fuzz/lib/%.o,$(LIB_SRC))
# The tools module (tools/common/*.c), sanitized too: the probe-spec
# harness (tests/fuzz/fuzz_spec.c) fuzzes its spec parsers.
FUZZ_TOOL_SRC := $(sort $(wildcard tools/common/*.c))
FUZZ_TOOL_OBJ := $(patsubst tools/common/%.c,build/fuzz/tools/%.o,$(FUZZ_TOOL_SRC))
FUZZ_TOOL_A   := build/fuzz/libftntools.a

.PHONY: FORCE all lib tools check test-bins bench install uninstall clean help examples \
	fuzz fuzz-bins fuzz-seeds tools-lib

all: lib tools examples

lib: $(LIB_A) $(LIB_SO) $(LIB_PC)
tools: $(TOOLS)
tools-lib: $(TC_A)
examples: $(EXAMPLES)

# Hidden by default: what ftnet.h declares with FTN_EXPORT is the whole ABI
# of libftnet.so (tests/offline/layers.sh compares nm with the header).
LIB_CFLAGS := -fvisibility=hidden

build/lib/%.o: lib/%.c lib/ftnet.h $(wildcard lib/*_int.h)
	@mkdir -p $(dir $@)
	$(call quiet,CC,$@)
	$(Q)$(CC) $(REQ_CFLAGS) $(LIB_CFLAGS) $(CFLAGS) -c -o $@ $<

$(LIB_A): $(LIB_OBJ)
	$(call quiet,AR,$@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

build/pic/%.o: lib/%.c lib/ftnet.h $(wildcard lib/*_int.h)
	@mkdir -p $(dir $@)
	$(call quiet,CC,$@)
	$(Q)$(CC) $(REQ_CFLAGS) $(LIB_CFLAGS) $(CFLAGS) -fPIC -c -o $@ $<

$(LIB_SO): $(LIB_PIC)
	$(call quiet,CCLD,$@)
	$(Q)$(CC) -shared -Wl,-soname,$(SO_NAME) -Wl,--no-undefined $(CFLAGS) -o $@ $^ $(LDFLAGS:-static=)
	$(Q)ln -sf $(notdir $@) build/$(SO_NAME) && ln -sf $(SO_NAME) build/libftnet.so

# pkg-config file for the installed library (paths as installed: made
# again whenever PREFIX/LIBDIR/INCDIR differ from the last make).
$(LIB_PC): lib/ftnet.pc.in lib/ftnet.h FORCE
	@mkdir -p build
	$(Q)sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@LIBDIR@|$(LIBDIR)|g' \
		-e 's|@INCDIR@|$(INCDIR)|g' -e 's|@VERSION@|$(SO_VER)|g' $< > $@.tmp
	$(Q)if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; fi

FORCE:

build/tools/%.o: tools/common/%.c tools/common.h $(wildcard tools/common/*.h) lib/ftnet.h
	@mkdir -p $(dir $@)
	$(call quiet,CC,$@)
	$(Q)$(CC) $(REQ_CFLAGS) -Itools $(CFLAGS) -c -o $@ $<

$(TC_A): $(TC_OBJ)
	$(call quiet,AR,$@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

bin/%: tools/%.c tools/common.h $(TC_A) $(LIB_A)
	@mkdir -p bin
	$(call quiet,CCLD,$@)
	$(Q)$(CC) $(REQ_CFLAGS) -Itools $(CFLAGS) -o $@ $< $(TC_A) $(LIB_A) $(LDFLAGS)

# Unit tests may test the tools module too: both archives, tools module first.
build/tests/%: tests/unit/%.c tests/unit/tap.h $(TC_A) $(LIB_A) build/tests/fakeinst.o
	@mkdir -p build/tests
	$(call quiet,CCLD,$@)
	$(Q)$(CC) $(REQ_CFLAGS) -Ilib/ -Itools -Itests/unit $(CFLAGS) -o $@ $< build/tests/fakeinst.o $(TC_A) $(LIB_A) $(LDFLAGS)

# Never sanitized: it is preloaded into every program an offline test runs
# (sh, cc, nm ...), which an instrumented shim would break.
SHIM_CFLAGS := $(filter-out -fsanitize=% -fno-omit-frame-pointer,$(REQ_CFLAGS) $(CFLAGS))

build/tests/fakeinst.o: tests/helpers/fakeinst.c
	@mkdir -p build/tests
	$(call quiet,CC,$@)
	$(Q)$(CC) $(SHIM_CFLAGS) -c -o $@ $<

build/tests/fakeinst.so: tests/helpers/fakeinst.c
	@mkdir -p build/tests
	$(call quiet,CCLD,$@)
	$(Q)$(CC) $(SHIM_CFLAGS) -fPIC -shared -o $@ $<

build/tests/%: tests/helpers/%.c
	@mkdir -p build/tests
	$(call quiet,CCLD,$@)
	$(Q)$(CC) $(REQ_CFLAGS) $(CFLAGS) -o $@ $< $(LDFLAGS)

build/examples/%: examples/%.c $(LIB_A)
	@mkdir -p build/examples
	$(call quiet,CCLD,$@)
	$(Q)$(CC) $(REQ_CFLAGS) $(CFLAGS) -o $@ $< $(LIB_A) $(LDFLAGS)

build/bench/%: tests/bench/%.c $(LIB_A)
	@mkdir -p build/bench
	$(call quiet,CCLD,$@)
	$(Q)$(CC) $(REQ_CFLAGS) $(CFLAGS) -O2 -o $@ $< $(LIB_A) $(LDFLAGS)

test-bins: $(UNITS) $(HELPERS) $(FAKEINST)

build/fuzz/lib/%.o: lib/%.c lib/ftnet.h $(wildcard lib/*_int.h)
	@mkdir -p $(dir $@)
	$(call quiet,FUZZCC,$@)
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

build/fuzz/libftnet.a: $(FUZZ_LIB_OBJ)
	$(call quiet,AR,$@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

build/fuzz/tools/%.o: tools/common/%.c lib/ftnet.h $(wildcard tools/*.h)
	@mkdir -p $(dir $@)
	$(call quiet,FUZZCC,$@)
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -Itools -fsanitize=fuzzer-no-link -c -o $@ $<

build/fuzz/libftntools.a: $(FUZZ_TOOL_OBJ)
	$(call quiet,AR,$@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

build/fuzz/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz.h build/fuzz/libftnet.a $(FUZZ_TOOL_A) \
		   tools/common.h
	$(call quiet,FUZZLD,$@)
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -Itools -fsanitize=fuzzer \
		-o $@ $< $(FUZZ_TOOL_A) build/fuzz/libftnet.a

# Seed corpora, built from tests/fixtures (tests/fuzz/seeds.sh).
build/fuzz/seeds/.stamp: tests/fuzz/seeds.sh $(shell find tests/fixtures -type f)
	$(call quiet,SEEDS,build/fuzz/seeds)
	$(Q)sh tests/fuzz/seeds.sh build/fuzz/seeds && touch $@

fuzz-seeds: build/fuzz/seeds/.stamp
fuzz-bins: $(FUZZERS) fuzz-seeds

# Run every harness for FUZZ_SECONDS; crashes land in build/fuzz/artifacts.
fuzz:
	$(Q)sh tests/fuzz/run.sh $(FUZZ_SECONDS)

# The one test command (README, .ci/run): every tier, one closing line.
check: all test-bins
	$(Q)sh tests/run.sh

bench: all test-bins $(BENCHES)
	$(Q)sh tests/bench/run.sh

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man8 $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCDIR)
	install -m 0755 $(TOOLS) $(DESTDIR)$(BINDIR)/
	install -d $(DESTDIR)$(MANDIR)/man7
	install -m 0644 $(wildcard man/*.8) $(DESTDIR)$(MANDIR)/man8/
	install -d $(DESTDIR)$(LIBDIR)/pkgconfig
	install -m 0644 $(wildcard man/*.7) $(DESTDIR)$(MANDIR)/man7/
	install -m 0644 $(LIB_A) $(DESTDIR)$(LIBDIR)/
	install -m 0755 $(LIB_SO) $(DESTDIR)$(LIBDIR)/
	ln -sf $(notdir $(LIB_SO)) $(DESTDIR)$(LIBDIR)/$(SO_NAME)
	ln -sf $(SO_NAME) $(DESTDIR)$(LIBDIR)/libftnet.so
	install -m 0644 $(LIB_PC) $(DESTDIR)$(LIBDIR)/pkgconfig/
	install -m 0644 lib/ftnet.h $(DESTDIR)$(INCDIR)/

uninstall:
	rm -f $(addprefix $(DESTDIR)$(BINDIR)/,$(notdir $(TOOLS)))
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/man8/,$(notdir $(wildcard man/*.8)))
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/man7/,$(notdir $(wildcard man/*.7)))
	rm -f $(DESTDIR)$(LIBDIR)/libftnet.a $(DESTDIR)$(INCDIR)/ftnet.h
	rm -f $(DESTDIR)$(LIBDIR)/$(notdir $(LIB_SO)) $(DESTDIR)$(LIBDIR)/$(SO_NAME)
	rm -f $(DESTDIR)$(LIBDIR)/libftnet.so $(DESTDIR)$(LIBDIR)/pkgconfig/ftnet.pc

clean:
	rm -rf build bin/*

help:
	@echo 'targets: all (default) lib tools tools-lib (build/libftntools.a) examples check bench fuzz install uninstall clean help'
	@echo 'knobs:   V=1 CFLAGS=... STRICT=1 STATIC=1 SANITIZE=address,undefined PREFIX= DESTDIR='
	@echo '         FUZZ_SECONDS=20 (per harness) FUZZ_CC=clang'
	@echo 'check:   offline tier always; fuzz tier with clang+libFuzzer (FTNET_FUZZ_SECONDS);'
	@echo '         host tier as root; kprobe VM tier with qemu'
