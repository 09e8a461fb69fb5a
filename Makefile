# ftnet - trace the Linux network stack through ftrace.
#
#   make            library and tools (tools land in bin/)
#   make static     every tool in one static binary, build/static/ftnet (musl
#                   where musl-gcc is, else glibc); make install-static
#   make check      every test tier that can run here (SKIP lines otherwise);
#                   sudo make check-deps check installs what they need first
#   make bench      parser / consumer benchmarks against a baseline
#   make fuzz       build the libFuzzer harnesses (clang) and run each for
#                   FUZZ_SECONDS (default 20; FUZZ_SECONDS=600 for long runs)
#   make install    PREFIX=/usr/local DESTDIR= (tools, man pages, library,
#                   headers, pkg-config file, examples/ under DOCDIR)
#   make help
#
# Knobs: V=1 (show commands), CFLAGS= (yours; required flags are added
# separately), STRICT=1 (extra warnings, -Werror), STATIC=1 (static tools),
# SANITIZE=address,undefined (any UBSan report is fatal), O=DIR/ (outputs in
# DIR/build and DIR/bin instead of build/ and bin/).

CC      ?= cc
AR      ?= ar
CFLAGS  ?= -O2 -g
PREFIX  ?= /usr/local
DESTDIR ?=
BINDIR  ?= $(PREFIX)/sbin
MANDIR  ?= $(PREFIX)/share/man
LIBDIR  ?= $(PREFIX)/lib
INCDIR  ?= $(PREFIX)/include
DATADIR ?= $(PREFIX)/share
DOCDIR  ?= $(DATADIR)/doc/ftnet

REQ_CFLAGS := -std=gnu11 -Wall -Wextra -Wno-unused-parameter -D_GNU_SOURCE -Ilib
ifeq ($(STRICT),1)
REQ_CFLAGS += -Werror -Wshadow -Wformat=2 -Wstrict-prototypes -Wmissing-prototypes \
	      -Wpointer-arith -Wcast-qual -Wvla
endif
ifneq ($(SANITIZE),)
# -fno-sanitize-recover: a UBSan report ends the program (exit status and
# report), never a line in a log nobody reads.
REQ_CFLAGS += -fsanitize=$(SANITIZE) -fno-sanitize-recover=undefined -fno-omit-frame-pointer
LDFLAGS += -fsanitize=$(SANITIZE)
endif
ifeq ($(STATIC),1)
LDFLAGS += -static
endif

# Output directories. O=DIR/ builds a second, separate tree (make check's
# sanitizer build is O=build/san/): sources stay where they are.
O  ?=
B  := $(O)build
BO := $(O)bin

ifneq ($(V),1)
Q = @
quiet = @printf '  %-6s %s\n' $(1) $(2);
else
Q =
quiet =
endif

LIB_SRC   := $(sort $(wildcard lib/trace/*.c lib/net/*.c))
LIB_OBJ   := $(patsubst lib/%.c,$(B)/lib/%.o,$(LIB_SRC))
LIB_A     := $(B)/libftnet.a
# Shared library: libftnet.so.MAJOR.MINOR.PATCH, soname libftnet.so.MAJOR.
# MAJOR changes when the ABI of ftnet.h breaks (0: no promise yet).
SO_VER    := $(shell sed -n 's/^\#define FTNET_VERSION "\(.*\)"/\1/p' lib/ftnet.h)
SO_MAJOR  := $(firstword $(subst ., ,$(SO_VER)))
SO_NAME   := libftnet.so.$(SO_MAJOR)
LIB_SO    := $(B)/libftnet.so.$(SO_VER)
LIB_PIC   := $(patsubst lib/%.c,$(B)/pic/%.o,$(LIB_SRC))
LIB_PC    := $(B)/ftnet.pc
# The public headers: lib/ftnet.h, the one include, and the per-layer
# headers it includes (lib/ftnet/*.h: the tracing engine's, the network
# layer's), installed as INCDIR/ftnet.h and INCDIR/ftnet/*.h.
PUB_SUB   := $(sort $(wildcard lib/ftnet/*.h))
PUB_H     := lib/ftnet.h $(PUB_SUB)
# The tools module (tools/common.h, the object headers it includes from
# tools/common/*.h, tools/common/*.c): tool policy shared
# by every bin/ tool, linked in from its own archive.
TC_SRC    := $(sort $(wildcard tools/common/*.c))
TC_OBJ    := $(patsubst tools/common/%.c,$(B)/tools/%.o,$(TC_SRC))
TC_A      := $(B)/libftntools.a
TOOL_SRC  := $(sort $(wildcard tools/*.c))
TOOLS     := $(patsubst tools/%.c,$(BO)/%,$(TOOL_SRC))
UNIT_SRC  := $(sort $(wildcard tests/unit/*.c))
UNITS     := $(patsubst tests/unit/%.c,$(B)/tests/%,$(UNIT_SRC))
# fakeinst.c is not a program: an LD_PRELOAD shim (and an object linked
# into the unit tests) giving fake tracefs trees what mkdir does in a real one.
FAKEINST  := $(B)/tests/fakeinst.so $(B)/tests/fakeinst.o
# failalloc.c: an LD_PRELOAD shim too (the Nth allocation fails).
FAILALLOC := $(B)/tests/failalloc.so
HELP_SRC  := $(filter-out tests/helpers/fakeinst.c tests/helpers/failalloc.c,\
	     $(sort $(wildcard tests/helpers/*.c)))
HELPERS   := $(patsubst tests/helpers/%.c,$(B)/tests/%,$(HELP_SRC))
EX_SRC    := $(sort $(wildcard examples/*.c))
EXAMPLES  := $(patsubst examples/%.c,$(B)/examples/%,$(EX_SRC))
BENCH_SRC := $(sort $(wildcard tests/bench/*.c))
BENCHES   := $(patsubst tests/bench/%.c,$(B)/bench/%,$(BENCH_SRC))

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

.PHONY: FORCE all lib tools check test-bins bench install install-examples uninstall clean help examples \
	fuzz fuzz-bins fuzz-seeds tools-lib soak san-bins arm64-bins \
	static multi-bin multi-bins install-static uninstall-static static-arm64 check-deps check-bins

all: lib tools examples

lib: $(LIB_A) $(LIB_SO) $(LIB_PC)
tools: $(TOOLS)
tools-lib: $(TC_A)
examples: $(EXAMPLES)

# Hidden by default: what ftnet.h declares with FTN_EXPORT is the whole ABI
# of libftnet.so (tests/offline/layers.sh compares nm with the header).
LIB_CFLAGS := -fvisibility=hidden

$(B)/lib/%.o: lib/%.c $(PUB_H) $(wildcard lib/*_int.h)
	@mkdir -p $(dir $@)
	$(call quiet,CC,$@)
	$(Q)$(CC) $(REQ_CFLAGS) $(LIB_CFLAGS) $(CFLAGS) -c -o $@ $<

$(LIB_A): $(LIB_OBJ)
	$(call quiet,AR,$@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(B)/pic/%.o: lib/%.c $(PUB_H) $(wildcard lib/*_int.h)
	@mkdir -p $(dir $@)
	$(call quiet,CC,$@)
	$(Q)$(CC) $(REQ_CFLAGS) $(LIB_CFLAGS) $(CFLAGS) -fPIC -c -o $@ $<

$(LIB_SO): $(LIB_PIC)
	$(call quiet,CCLD,$@)
	$(Q)$(CC) -shared -Wl,-soname,$(SO_NAME) -Wl,--no-undefined $(CFLAGS) -o $@ $^ $(LDFLAGS:-static=)
	$(Q)ln -sf $(notdir $@) $(B)/$(SO_NAME) && ln -sf $(SO_NAME) $(B)/libftnet.so

# pkg-config file for the installed library (paths as installed: made
# again whenever PREFIX/LIBDIR/INCDIR differ from the last make).
$(LIB_PC): lib/ftnet.pc.in $(PUB_H) FORCE
	@mkdir -p $(B)
	$(Q)sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@LIBDIR@|$(LIBDIR)|g' \
		-e 's|@INCDIR@|$(INCDIR)|g' -e 's|@VERSION@|$(SO_VER)|g' $< > $@.tmp
	$(Q)if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; fi

FORCE:

$(B)/tools/%.o: tools/common/%.c tools/common.h $(wildcard tools/common/*.h) $(PUB_H)
	@mkdir -p $(dir $@)
	$(call quiet,CC,$@)
	$(Q)$(CC) $(REQ_CFLAGS) -Itools $(CFLAGS) -c -o $@ $<

$(TC_A): $(TC_OBJ)
	$(call quiet,AR,$@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(BO)/%: tools/%.c tools/common.h $(wildcard tools/common/*.h) $(TC_A) $(LIB_A)
	@mkdir -p $(BO)
	$(call quiet,CCLD,$@)
	$(Q)$(CC) $(REQ_CFLAGS) -Itools $(CFLAGS) -o $@ $< $(TC_A) $(LIB_A) $(LDFLAGS)

# Unit tests may test the tools module too: both archives, tools module first.
$(B)/tests/%: tests/unit/%.c tests/unit/tap.h $(TC_A) $(LIB_A) $(B)/tests/fakeinst.o
	@mkdir -p $(B)/tests
	$(call quiet,CCLD,$@)
	$(Q)$(CC) $(REQ_CFLAGS) -Ilib/ -Itools -Itests/unit $(CFLAGS) -o $@ $< $(B)/tests/fakeinst.o $(TC_A) $(LIB_A) $(LDFLAGS)

# Never sanitized: it is preloaded into every program an offline test runs
# (sh, cc, nm ...), which an instrumented shim would break.
SHIM_CFLAGS := $(filter-out -fsanitize=% -fno-sanitize-recover=% -fno-omit-frame-pointer,$(REQ_CFLAGS) $(CFLAGS))

$(B)/tests/fakeinst.o: tests/helpers/fakeinst.c
	@mkdir -p $(B)/tests
	$(call quiet,CC,$@)
	$(Q)$(CC) $(SHIM_CFLAGS) -c -o $@ $<

$(B)/tests/fakeinst.so: tests/helpers/fakeinst.c
	@mkdir -p $(B)/tests
	$(call quiet,CCLD,$@)
	$(Q)$(CC) $(SHIM_CFLAGS) -fPIC -shared -o $@ $<

$(B)/tests/failalloc.so: tests/helpers/failalloc.c
	@mkdir -p $(B)/tests
	$(call quiet,CCLD,$@)
	$(Q)$(CC) $(SHIM_CFLAGS) -fPIC -shared -o $@ $<

# utarget's functions stay in .dynsym when a test strips a copy of it.
$(B)/tests/utarget: LDFLAGS += -rdynamic

$(B)/tests/%: tests/helpers/%.c
	@mkdir -p $(B)/tests
	$(call quiet,CCLD,$@)
	$(Q)$(CC) $(REQ_CFLAGS) $(CFLAGS) -o $@ $< $(LDFLAGS)

$(B)/examples/%: examples/%.c $(LIB_A)
	@mkdir -p $(B)/examples
	$(call quiet,CCLD,$@)
	$(Q)$(CC) $(REQ_CFLAGS) $(CFLAGS) -o $@ $< $(LIB_A) $(LDFLAGS)

$(B)/bench/%: tests/bench/%.c $(LIB_A)
	@mkdir -p $(B)/bench
	$(call quiet,CCLD,$@)
	$(Q)$(CC) $(REQ_CFLAGS) $(CFLAGS) -O2 -o $@ $< $(LIB_A) $(LDFLAGS)

test-bins: $(UNITS) $(HELPERS) $(FAKEINST) $(FAILALLOC)

build/fuzz/lib/%.o: lib/%.c $(PUB_H) $(wildcard lib/*_int.h)
	@mkdir -p $(dir $@)
	$(call quiet,FUZZCC,$@)
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

build/fuzz/libftnet.a: $(FUZZ_LIB_OBJ)
	$(call quiet,AR,$@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

build/fuzz/tools/%.o: tools/common/%.c $(PUB_H) $(wildcard tools/*.h tools/common/*.h)
	@mkdir -p $(dir $@)
	$(call quiet,FUZZCC,$@)
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -Itools -fsanitize=fuzzer-no-link -c -o $@ $<

build/fuzz/libftntools.a: $(FUZZ_TOOL_OBJ)
	$(call quiet,AR,$@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

build/fuzz/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz.h build/fuzz/libftnet.a $(FUZZ_TOOL_A) \
		   tools/common.h $(wildcard tools/common/*.h) $(PUB_H) $(wildcard lib/*_int.h)
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

# The sanitizer build for the sanitize tier of make check: everything again
# with ASan+UBSan into build/san/ (build/san/build, build/san/bin), which
# also gets links to the sources and tests (build/san/tests -> ../../tests),
# so a test run with FTNET_TOP=build/san runs the sanitized tools and test
# binaries unchanged; build/ and bin/ (what the VM tier boots) stay normal.
SAN_DIR   := build/san
# Built with clang (SAN_CC): with gcc's runtimes UBSan, beside ASan,
# ignores log_path and reports only on stderr, which a test keeps to itself;
# clang's honour it (tests/run.sh counts the report files). STRICT stays
# off there: the normal build checks warnings.
SAN_CC    ?= clang
SAN_FLAGS := SANITIZE=address,undefined O=$(SAN_DIR)/ CC=$(SAN_CC) CFLAGS='-O1 -g' STRICT=
san-bins:
	$(Q)$(MAKE) --no-print-directory $(SAN_FLAGS) tools test-bins
	$(Q)for f in *; do case $$f in build|bin) ;; *) ln -sfn ../../$$f $(SAN_DIR)/$$f ;; esac; done

# The arm64 guest of the VM tier (tests/vm/run.sh, series 6.1-arm64) boots
# a cross-built copy: tools and test helpers, linked against the cross libc
# (the guest gets bookworm's arm64 libc from its packages, as the x86
# guests get the host's: sockio -x probes libc's own wrappers there),
# without debug information (a smaller initramfs), into build/arm64/
# (build/arm64/bin, build/arm64/build/tests).
ARM64_CC    ?= aarch64-linux-gnu-gcc
ARM64_DIR   := build/arm64
ARM64_FLAGS := O=$(ARM64_DIR)/ CC=$(ARM64_CC) AR=aarch64-linux-gnu-ar CFLAGS='-O2'
arm64-bins:
	$(Q)$(MAKE) --no-print-directory $(ARM64_FLAGS) tools test-bins

# The multi-call binary (make static): every tool of tools/*.c in one
# static executable, build/static/ftnet, stripped - the one file to copy
# to a box. Each tools/X.c is compiled again with
# -DTOOL_MULTI_MAIN=ftnet_main_X (tools/common.h) into $(B)/multi/ and
# tools/multi/ftnet.c dispatches on argv[0]'s base name or argv[1]
# (the table: $(B)/multi/tools.h, written here from tools/*.c). Built with
# musl-gcc (Debian's musl-tools) where present, glibc's static libraries
# (libc6-dev's libc.a) otherwise, in its own tree O=build/static/ (the
# objects, build/static/build/ftnet unstripped): bin/ and build/ stay
# the normal build. Two trees of links for the tests, like build/san
# (absolute links: tests/mutants.inc copies a tree with cp -as):
#   build/static/host  FTNET_TOP of the host tier: bin/TOOL -> ftnet
#   build/static/fake  FTNET_TOP of the static tier (the offline scripts):
#                      bin/TOOL -> build/static/build/ftnet-fakeinst, the
#                      same objects with tests/helpers/fakeinst.c linked
#                      in (LD_PRELOAD, how the offline tests give fake
#                      tracefs trees their instances, does not reach into
#                      a static program)
# and in each ftnet -> build/static/ftnet (tests/offline/multicall.sh) and
# build/tests -> the normal build/tests (the test helpers, the shims).
STATIC_DIR    := build/static
MUSL_CC       ?= musl-gcc
HAVE_MUSL     := $(shell command -v $(MUSL_CC) >/dev/null 2>&1 && echo 1)
HAVE_LIBC_A   := $(shell f=$$($(CC) -print-file-name=libc.a 2>/dev/null) && [ -f "$$f" ] && echo 1)
HAVE_STATIC   := $(or $(HAVE_MUSL),$(HAVE_LIBC_A))
STATIC_LIBC   := $(if $(HAVE_MUSL),musl,glibc)
# musl-gcc searches musl's headers only: the kernel's (linux/*.h, asm/)
# come from linux-libc-dev through a directory of links (they are the
# kernel's interface, not a library)
STATIC_KINC   := $(STATIC_DIR)/kinc
MULTIARCH     := $(shell $(CC) -print-multiarch 2>/dev/null)
STATIC_CC     ?= $(if $(HAVE_MUSL),$(MUSL_CC) -isystem $(STATIC_KINC),$(CC))
# -Os and unused sections dropped: the target is 1 MiB stripped for all
# the tools together with musl (480 KiB in 11/2026); glibc's static
# libraries weigh about 800 KiB more than musl's (1260 KiB with Debian
# 12's glibc 2.36), so without musl-gcc the bound is 1.5 MiB
# (tests/offline/multicall.sh checks the one of the libc it finds)
STATIC_CFLAGS ?= -Os -ffunction-sections -fdata-sections
STATIC_MAX_KIB_musl  := 1024
STATIC_MAX_KIB_glibc := 1536
STATIC_MAX_KIB := $(STATIC_MAX_KIB_$(STATIC_LIBC))
STATIC_FLAGS  = O=$(STATIC_DIR)/ CC='$(STATIC_CC)' CFLAGS='$(STATIC_CFLAGS)' STATIC=1 STRICT=$(STRICT)
STRIP         ?= strip

MULTI_NAMES := $(patsubst tools/%.c,%,$(TOOL_SRC))
MULTI_OBJ   := $(patsubst tools/%.c,$(B)/multi/%.o,$(TOOL_SRC))
MULTI_LD    := $(MULTI_OBJ) $(B)/multi/ftnet.o $(TC_A) $(LIB_A)

$(B)/multi/%.o: tools/%.c tools/common.h $(wildcard tools/common/*.h) $(PUB_H)
	@mkdir -p $(dir $@)
	$(call quiet,CC,$@)
	$(Q)$(CC) $(REQ_CFLAGS) -Itools $(CFLAGS) -DTOOL_MULTI_MAIN=ftnet_main_$* -c -o $@ $<

$(B)/multi/tools.h: FORCE
	@mkdir -p $(dir $@)
	$(Q)printf 'FTNET_TOOL(%s)\n' $(MULTI_NAMES) > $@.tmp
	$(Q)if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; fi

$(B)/multi/ftnet.o: tools/multi/ftnet.c $(B)/multi/tools.h tools/common.h $(wildcard tools/common/*.h) $(PUB_H)
	@mkdir -p $(dir $@)
	$(call quiet,CC,$@)
	$(Q)$(CC) $(REQ_CFLAGS) -Itools -I$(B)/multi $(CFLAGS) -c -o $@ $<

$(B)/multi/fakeinst.o: tests/helpers/fakeinst.c
	@mkdir -p $(dir $@)
	$(call quiet,CC,$@)
	$(Q)$(CC) $(SHIM_CFLAGS) -c -o $@ $<

$(B)/ftnet: $(MULTI_LD)
	$(call quiet,CCLD,$@)
	$(Q)$(CC) $(CFLAGS) -o $@ $(MULTI_LD) $(LDFLAGS) -Wl,--gc-sections

$(B)/ftnet-fakeinst: $(MULTI_LD) $(B)/multi/fakeinst.o
	$(call quiet,CCLD,$@)
	$(Q)$(CC) $(CFLAGS) -o $@ $(B)/multi/fakeinst.o $(MULTI_LD) $(LDFLAGS) -Wl,--gc-sections

$(O)ftnet: $(B)/ftnet
	$(call quiet,STRIP,$@)
	$(Q)$(STRIP) -o $@ $<

multi-bin: $(O)ftnet
multi-bins: $(O)ftnet $(B)/ftnet-fakeinst

$(STATIC_KINC)/.stamp:
	@mkdir -p $(STATIC_KINC)
	$(Q)ln -sfn /usr/include/linux $(STATIC_KINC)/linux
	$(Q)ln -sfn /usr/include/asm-generic $(STATIC_KINC)/asm-generic
	$(Q)ln -sfn /usr/include/$(MULTIARCH)/asm $(STATIC_KINC)/asm
	$(Q)touch $@

# static-tree DIR BIN: a test tree of absolute links in DIR: the sources,
# build/tests -> build/tests (a directory of its own: a tool resolving a
# path relative to DIR/build must find DIR/build/tests), ftnet -> the
# stripped binary, bin/TOOL -> BIN
static-tree = rm -rf $(1) && mkdir -p $(1)/bin $(1)/build && \
	for f in *; do case $$f in build|bin) ;; *) ln -s $(CURDIR)/$$f $(1)/$$f ;; esac; done && \
	ln -s $(CURDIR)/build/tests $(1)/build/tests && ln -s $(CURDIR)/$(STATIC_DIR)/ftnet $(1)/ftnet && \
	for t in $(MULTI_NAMES); do ln -s $(2) $(1)/bin/$$t; done

ifeq ($(HAVE_STATIC),1)
static: $(if $(HAVE_MUSL),$(STATIC_KINC)/.stamp)
	$(Q)$(MAKE) --no-print-directory $(STATIC_FLAGS) multi-bins
	$(Q)$(call static-tree,$(STATIC_DIR)/host,$(CURDIR)/$(STATIC_DIR)/ftnet)
	$(Q)$(call static-tree,$(STATIC_DIR)/fake,$(CURDIR)/$(STATIC_DIR)/build/ftnet-fakeinst)
	$(Q)s=$$(stat -c %s $(STATIC_DIR)/ftnet); \
	printf '  SIZE   %s: %d KiB stripped, %d tools, static, %s (target %d KiB)\n' \
		$(STATIC_DIR)/ftnet $$(((s + 1023) / 1024)) $(words $(MULTI_NAMES)) $(STATIC_LIBC) $(STATIC_MAX_KIB)
else
static:
	@echo 'make static: neither $(MUSL_CC) (Debian: musl-tools) nor a static libc.a (libc6-dev) here' >&2; exit 2
endif

# ftnet and a link per tool under BINDIR (make install puts the man pages)
install-static: static
	install -d $(DESTDIR)$(BINDIR)
	install -m 0755 $(STATIC_DIR)/ftnet $(DESTDIR)$(BINDIR)/ftnet
	$(Q)for t in $(MULTI_NAMES); do echo "ln -sfn ftnet $(DESTDIR)$(BINDIR)/$$t"; \
		ln -sfn ftnet $(DESTDIR)$(BINDIR)/$$t || exit 1; done

uninstall-static:
	$(Q)for t in $(MULTI_NAMES); do [ "$$(readlink $(DESTDIR)$(BINDIR)/$$t)" != ftnet ] || \
		rm -f $(DESTDIR)$(BINDIR)/$$t; done
	rm -f $(DESTDIR)$(BINDIR)/ftnet

# The multi-call binary for arm64 (glibc's static libraries of the cross
# libc, libc6-dev-arm64-cross): built only, build/static-arm64/ftnet
static-arm64:
	$(Q)$(MAKE) --no-print-directory O=build/static-arm64/ CC=$(ARM64_CC) AR=aarch64-linux-gnu-ar \
		STRIP=aarch64-linux-gnu-strip CFLAGS='$(STATIC_CFLAGS)' STATIC=1 multi-bin
	$(Q)s=$$(stat -c %s build/static-arm64/ftnet); \
	printf '  SIZE   build/static-arm64/ftnet: %d KiB stripped (aarch64, static, glibc)\n' $$(((s + 1023) / 1024))

# make check builds what the tiers it runs need (FTNET_TIERS, tests/run.sh).
CHECK_TIERS := $(or $(FTNET_TIERS),default)
# (the sanitize tier SKIPs, saying why, without clang)
HAVE_SAN_CC := $(shell command -v $(SAN_CC) >/dev/null 2>&1 && echo 1)
# (the arm64 guest SKIPs, saying why, without the cross compiler)
HAVE_ARM64_CC := $(shell command -v $(ARM64_CC) >/dev/null 2>&1 && echo 1)
# (the static tier SKIPs, and the host tier runs bin/, without a static libc)
check-bins: all test-bins $(if $(HAVE_SAN_CC),$(if $(filter sanitize default,$(CHECK_TIERS)),san-bins)) \
	$(if $(HAVE_ARM64_CC),$(if $(filter vm default,$(CHECK_TIERS)),arm64-bins)) \
	$(if $(HAVE_STATIC),$(if $(filter static host default,$(CHECK_TIERS)),static))
# After check-deps when both are asked for (make check-deps check), and
# what to build decided by a second make: the compilers it looks for
# (HAVE_SAN_CC, HAVE_STATIC...) may have been installed by then.
check: $(filter check-deps,$(MAKECMDGOALS))
	$(Q)$(MAKE) --no-print-directory check-bins
	$(Q)sh tests/run.sh

# What the tests need on Debian (tests/deps.sh, as root; .ci/run calls it
# too): the newcomer's first command is sudo make check-deps check
check-deps:
	$(Q)sh tests/deps.sh

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
	install -d $(DESTDIR)$(INCDIR)/ftnet
	install -m 0644 $(PUB_SUB) $(DESTDIR)$(INCDIR)/ftnet/
	$(Q)$(MAKE) --no-print-directory install-examples

# examples/ (cron, systemd, logrotate, node_exporter, count_events.c:
# every file there) under DOCDIR/examples, the tools' path in them made the
# installed one: the sources say /usr/local/sbin (the default BINDIR).
EX_FILES := $(sort $(shell find examples -type f ! -name '*~' 2>/dev/null))
install-examples:
	$(Q)set -e; for f in $(EX_FILES); do \
		d=$(DESTDIR)$(DOCDIR)/$$(dirname $$f); \
		install -d $$d; \
		sed 's|/usr/local/sbin/|$(BINDIR)/|g' $$f > $$d/$$(basename $$f).tmp; \
		chmod 0644 $$d/$$(basename $$f).tmp; \
		mv $$d/$$(basename $$f).tmp $$d/$$(basename $$f); \
		echo "install $$f -> $(DOCDIR)/$$f"; \
	done

uninstall:
	rm -f $(addprefix $(DESTDIR)$(BINDIR)/,$(notdir $(TOOLS)))
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/man8/,$(notdir $(wildcard man/*.8)))
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/man7/,$(notdir $(wildcard man/*.7)))
	rm -f $(DESTDIR)$(LIBDIR)/libftnet.a $(DESTDIR)$(INCDIR)/ftnet.h
	rm -f $(addprefix $(DESTDIR)$(INCDIR)/ftnet/,$(notdir $(PUB_SUB)))
	-rmdir $(DESTDIR)$(INCDIR)/ftnet 2>/dev/null
	rm -f $(DESTDIR)$(LIBDIR)/$(notdir $(LIB_SO)) $(DESTDIR)$(LIBDIR)/$(SO_NAME)
	rm -f $(DESTDIR)$(LIBDIR)/libftnet.so $(DESTDIR)$(LIBDIR)/pkgconfig/ftnet.pc
	rm -f $(addprefix $(DESTDIR)$(DOCDIR)/,$(EX_FILES))
	-find $(DESTDIR)$(DOCDIR) -depth -type d -empty -delete 2>/dev/null

clean:
	rm -rf build bin/*

help:
	@echo 'targets: all (default) lib tools tools-lib (build/libftntools.a) examples check check-deps bench soak fuzz install uninstall clean help'
	@echo '         static (build/static/ftnet: every tool, one static binary; MUSL_CC=musl-gcc) install-static'
	@echo '         uninstall-static static-arm64 (build/static-arm64/ftnet)'
	@echo 'knobs:   V=1 CFLAGS=... STRICT=1 STATIC=1 SANITIZE=address,undefined O=DIR/ PREFIX= DESTDIR= DOCDIR='
	@echo '         FUZZ_SECONDS=20 (per harness) FUZZ_CC=clang'
	@echo 'soak:    SOAK="host probes vm"; host: FTNET_SOAK_SECS=600 per tool, FTNET_SOAK_TOOLS, FTNET_SOAK_RATE;'
	@echo '         probes (guest): FTNET_SOAK_SECS, FTNET_SOAK_VM_RATE'
	@echo 'check:   offline tier always; static (the offline scripts on build/static/ftnet, make static);'
	@echo '         fuzz tier with clang+libFuzzer (FTNET_FUZZ_SECONDS);'
	@echo '         host tier as root (on build/static/ftnet when built); analyse (cppcheck), valgrind (unit tests), sanitize'
	@echo '         (offline+host on an ASan+UBSan build in build/san: make san-bins);'
	@echo '         kprobe VM tier with qemu (5.10, 6.1, 6.12; arm64 6.1 on a cross build in'
	@echo '         build/arm64: make arm64-bins, ARM64_CC=aarch64-linux-gnu-gcc)'

# Outside CI (hardening issue), SOAK="host probes vm" by default:
#   host    tests/soak/host.sh: each tool FTNET_SOAK_SECS (600) at ~100k
#           events/s, RSS start/end, exact counts (FTNET_SOAK_TOOLS, _RATE)
#   probes  tests/soak/probes.sh: kprobe and funccount (no back end on the
#           host) the same way in the 6.12 guest, FTNET_SOAK_SECS each
#   vm      tests/vm/soak.sh: the guest lockup hunt, VM boots in a row
SOAK ?= host probes vm
soak: all test-bins
	$(Q)rc=0; \
	$(if $(filter host,$(SOAK)),sh tests/soak/host.sh || rc=1;) \
	$(if $(filter probes,$(SOAK)),sh tests/soak/probes.sh || rc=1;) \
	$(if $(filter vm,$(SOAK)),sh tests/vm/soak.sh || rc=1;) \
	exit $$rc
