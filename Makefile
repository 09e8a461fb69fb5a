# ftnet - trace the Linux network stack through ftrace.
#
#   make            library and tools (tools land in bin/)
#   make check      every test tier that can run here (SKIP lines otherwise)
#   make bench      parser / consumer benchmarks against a baseline
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

.PHONY: FORCE all lib tools check test-bins bench install uninstall clean help examples

all: lib tools examples

lib: $(LIB_A) $(LIB_SO) $(LIB_PC)
tools: $(TOOLS)
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

bin/%: tools/%.c $(LIB_A)
	@mkdir -p bin
	$(call quiet,CCLD,$@)
	$(Q)$(CC) $(REQ_CFLAGS) $(CFLAGS) -o $@ $< $(LIB_A) $(LDFLAGS)

build/tests/%: tests/unit/%.c tests/unit/tap.h $(LIB_A) build/tests/fakeinst.o
	@mkdir -p build/tests
	$(call quiet,CCLD,$@)
	$(Q)$(CC) $(REQ_CFLAGS) -Ilib/ -Itests/unit $(CFLAGS) -o $@ $< build/tests/fakeinst.o $(LIB_A) $(LDFLAGS)

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

# The one test command (README, .ci/run): every tier, one closing line.
check: all test-bins
	$(Q)sh tests/run.sh

bench: all test-bins $(BENCHES)
	$(Q)sh tests/bench/run.sh

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man8 $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCDIR)
	install -m 0755 $(TOOLS) $(DESTDIR)$(BINDIR)/
	install -m 0644 $(wildcard man/*.8) $(DESTDIR)$(MANDIR)/man8/
	install -d $(DESTDIR)$(LIBDIR)/pkgconfig
	install -m 0644 $(LIB_A) $(DESTDIR)$(LIBDIR)/
	install -m 0755 $(LIB_SO) $(DESTDIR)$(LIBDIR)/
	ln -sf $(notdir $(LIB_SO)) $(DESTDIR)$(LIBDIR)/$(SO_NAME)
	ln -sf $(SO_NAME) $(DESTDIR)$(LIBDIR)/libftnet.so
	install -m 0644 $(LIB_PC) $(DESTDIR)$(LIBDIR)/pkgconfig/
	install -m 0644 lib/ftnet.h $(DESTDIR)$(INCDIR)/

uninstall:
	rm -f $(addprefix $(DESTDIR)$(BINDIR)/,$(notdir $(TOOLS)))
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/man8/,$(notdir $(wildcard man/*.8)))
	rm -f $(DESTDIR)$(LIBDIR)/libftnet.a $(DESTDIR)$(INCDIR)/ftnet.h
	rm -f $(DESTDIR)$(LIBDIR)/$(notdir $(LIB_SO)) $(DESTDIR)$(LIBDIR)/$(SO_NAME)
	rm -f $(DESTDIR)$(LIBDIR)/libftnet.so $(DESTDIR)$(LIBDIR)/pkgconfig/ftnet.pc

clean:
	rm -rf build bin/*

help:
	@echo 'targets: all (default) lib tools examples check bench install uninstall clean help'
	@echo 'knobs:   V=1 CFLAGS=... STRICT=1 STATIC=1 SANITIZE=address,undefined PREFIX= DESTDIR='
	@echo 'check:   offline tier always; host tier as root; kprobe VM tier with qemu'
