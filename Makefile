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
# The tools module (tools/common.h + tools/common/*.c): tool policy shared
# by every bin/ tool, linked in from its own archive.
TC_SRC    := $(sort $(wildcard tools/common/*.c))
TC_OBJ    := $(patsubst tools/common/%.c,build/tools/%.o,$(TC_SRC))
TC_A      := build/libftntools.a
TOOL_SRC  := $(sort $(wildcard tools/*.c))
TOOLS     := $(patsubst tools/%.c,bin/%,$(TOOL_SRC))
UNIT_SRC  := $(sort $(wildcard tests/unit/*.c))
UNITS     := $(patsubst tests/unit/%.c,build/tests/%,$(UNIT_SRC))
HELP_SRC  := $(sort $(wildcard tests/helpers/*.c))
HELPERS   := $(patsubst tests/helpers/%.c,build/tests/%,$(HELP_SRC))
EX_SRC    := $(sort $(wildcard examples/*.c))
EXAMPLES  := $(patsubst examples/%.c,build/examples/%,$(EX_SRC))
BENCH_SRC := $(sort $(wildcard tests/bench/*.c))
BENCHES   := $(patsubst tests/bench/%.c,build/bench/%,$(BENCH_SRC))

.PHONY: all lib tools tools-lib check test-bins bench install uninstall clean help examples

all: tools examples

lib: $(LIB_A)
tools: $(TOOLS)
tools-lib: $(TC_A)
examples: $(EXAMPLES)

build/lib/%.o: lib/%.c lib/ftnet.h $(wildcard lib/*_int.h)
	@mkdir -p $(dir $@)
	$(call quiet,CC,$@)
	$(Q)$(CC) $(REQ_CFLAGS) $(CFLAGS) -c -o $@ $<

$(LIB_A): $(LIB_OBJ)
	$(call quiet,AR,$@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

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
build/tests/%: tests/unit/%.c tests/unit/tap.h $(TC_A) $(LIB_A)
	@mkdir -p build/tests
	$(call quiet,CCLD,$@)
	$(Q)$(CC) $(REQ_CFLAGS) -Ilib/ -Itools -Itests/unit $(CFLAGS) -o $@ $< $(TC_A) $(LIB_A) $(LDFLAGS)

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

test-bins: $(UNITS) $(HELPERS)

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
	install -m 0644 $(wildcard man/*.7) $(DESTDIR)$(MANDIR)/man7/
	install -m 0644 $(LIB_A) $(DESTDIR)$(LIBDIR)/
	install -m 0644 lib/ftnet.h $(DESTDIR)$(INCDIR)/

uninstall:
	rm -f $(addprefix $(DESTDIR)$(BINDIR)/,$(notdir $(TOOLS)))
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/man8/,$(notdir $(wildcard man/*.8)))
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/man7/,$(notdir $(wildcard man/*.7)))
	rm -f $(DESTDIR)$(LIBDIR)/libftnet.a $(DESTDIR)$(INCDIR)/ftnet.h

clean:
	rm -rf build bin/*

help:
	@echo 'targets: all (default) lib tools examples check bench install uninstall clean help'
	@echo 'knobs:   V=1 CFLAGS=... STRICT=1 STATIC=1 SANITIZE=address,undefined PREFIX= DESTDIR='
	@echo 'check:   offline tier always; host tier as root; kprobe VM tier with qemu'
