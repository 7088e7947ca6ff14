# SPDX-License-Identifier: GPL-2.0 OR MIT
# SPDX-FileCopyrightText: 2026 The ivring authors
#
# ivring: build, test and install the host side; build the guest module.
#
#   make [all]        libivring (.so, .a, .pc) and the tools, into build/,
#                     and the module when KDIR has kernel headers
#   make check        every variant and the module, then selftests/run_tests.sh
#                     (which boots test guests: selftests/vm/)
#                     (TESTS='pattern ...' runs only the matching tests)
#   make bench        build and run selftests/bench_*.c
#   make bench-guest  ivring.ko against the guest's ftrace, in a test guest
#   make bench-record-guest  hackbench untraced, in ftrace, and in ivring
#                     with the host recording it, in a test guest
#   make demo         a test guest's sched and irq events, live on the host
#   make demo-gen     the same without a guest: ivring-gen writes the segment
#   make module       ivring.ko through Kbuild, against KDIR, into build/module/
#   make install      prefix, DESTDIR, libdir, includedir, bindir, mandir
#   make deps         install every Debian package the project needs (root)
#   make clean
#   V=1 shows the commands.  WERROR=0 turns warnings back into warnings.
#
# Nothing lists source files: lib/*/*.c is the library (a folder a layer,
# lib/LAYERS); include/writer/*.c is the ring writer that the module and
# userspace share; tools/ivring-*.c are programs and the other tools/*.c
# helper objects; selftests/test_*.c are tests,
# selftests/bench_*.c benchmarks, and the other selftests/*.c are helper
# programs (if they define main()) or helper objects linked into the tests.
#
# Userspace variants, each in build/<variant>/ with its own objects, archives,
# tools and tests: plain, asan (ASan + UBSan) and tsan.  The installable
# library and tools in build/lib and build/tools use the plain flags.

# kmod/main.c's MODULE_VERSION says the same (test_dkms checks that).
VERSION		:= 1.10.0
SOVERSION	:= 1

prefix		?= /usr/local
exec_prefix	?= $(prefix)
bindir		?= $(exec_prefix)/bin
libdir		?= $(exec_prefix)/lib
includedir	?= $(prefix)/include
mandir		?= $(prefix)/share/man
# Where DKMS looks for module sources: /usr/src/<name>-<version>.
dkmsdir		?= /usr/src/ivring-$(VERSION)
DESTDIR		?=

CC		?= gcc
AR		?= ar
LD		?= ld
OBJCOPY		?= objcopy
PKG_CONFIG	?= pkg-config
INSTALL		?= install

B		:= build
KSFT_DIR	:= $(B)/kselftest
LINUX_SOURCE	?= /usr/src/linux-source-6.1.tar.xz

# The guest kernel's headers: those of Debian's default kernel, the version
# that linux-headers-amd64 depends on.  A newer kernel installed beside it
# (6.12 from bookworm, an -rt flavour) never becomes the default by being
# newer; "make modules-all" builds for every installed one.  Without the
# meta package: the newest 6.1 generic headers, else the running kernel's.
# tools/ivring-vm boots the version the module was built for.
DEB_KVER	:= $(shell dpkg-query -W -f='$${Depends}' linux-headers-amd64 \
			2>/dev/null | sed -n 's/^linux-headers-\([^ ,]*\).*/\1/p')
DEB_KDIR	:= $(firstword $(wildcard /usr/src/linux-headers-$(DEB_KVER)) \
		     $(shell ls -d /usr/src/linux-headers-6.1.*[0-9]-amd64 \
			2>/dev/null | sort -V | tail -n 1))
ifndef KDIR
KDIR		:= $(or $(DEB_KDIR),/lib/modules/$(shell uname -r)/build)
endif
# Every installed Debian kernel flavour that can run a test guest.
ALL_KDIRS	:= $(shell ls -d /usr/src/linux-headers-*-amd64 2>/dev/null | \
			grep -v -e '-common' | sort -V)

ifeq ($(V),1)
Q		:=
msg		:=
else
Q		:= @
msg		= @printf '  %-8s %s\n' '$(1)' '$(2)';
endif

# --- flags ----------------------------------------------------------------

CFLAGS		?= -O2 -g
WERROR		?= 1
WARNINGS	:= -Wall -Wextra -Wshadow -Wno-unused-parameter
ifeq ($(WERROR),1)
WARNINGS	+= -Werror
endif
BASE_CFLAGS	:= -std=gnu11 -D_GNU_SOURCE $(WARNINGS) -MMD -MP \
		   -DIVRING_VERSION=\"$(VERSION)\"

TEP_CFLAGS	:= $(shell $(PKG_CONFIG) --cflags libtraceevent 2>/dev/null)
TEP_LIBS	:= $(or $(shell $(PKG_CONFIG) --libs libtraceevent 2>/dev/null),-ltraceevent)
# A compressed trace.dat (lib/record/tracedat_zstd.c).
ZSTD_LIBS	:= $(or $(shell $(PKG_CONFIG) --libs libzstd 2>/dev/null),-lzstd)
LIBS		:= $(TEP_LIBS) $(ZSTD_LIBS) -lpthread -ldl
# The tools' many-guest registry (tools/guest_registry.c), and the host's own
# trace through libtracefs (tools/host_trace.c); not the library's.
URCU_LIBS	:= -lurcu -lurcu-cds
TRACEFS_CFLAGS	:= $(shell $(PKG_CONFIG) --cflags libtracefs 2>/dev/null)
TRACEFS_LIBS	:= $(or $(shell $(PKG_CONFIG) --libs libtracefs 2>/dev/null),-ltracefs)
# ivring-vcpus reads trace.dat files with trace-cmd's own library.
TRACECMD_CFLAGS	:= $(shell $(PKG_CONFIG) --cflags libtracecmd 2>/dev/null)
TRACECMD_LIBS	:= $(or $(shell $(PKG_CONFIG) --libs libtracecmd 2>/dev/null),-ltracecmd)
TOOL_LIBS	:= $(URCU_LIBS) $(TRACECMD_LIBS) $(TRACEFS_LIBS) $(LIBS)

# Who may include whom (include/DESIGN, section 2): one include path per
# folder.
lib_INC		:= -Iinclude/uapi -Ilib $(TEP_CFLAGS) -fvisibility=hidden
writer_INC	:= -Iinclude/uapi -Iinclude/writer
filter_INC	:= -Iinclude/uapi -Iinclude/filter
tools_INC	:= -Iinclude/uapi -Ilib -Iinclude/writer -Iinclude/filter -Itools \
		   $(TEP_CFLAGS) \
		   $(TRACEFS_CFLAGS) $(TRACECMD_CFLAGS)
selftests_INC	:= -Iinclude/uapi -Ilib -Iinclude/writer -Iinclude/filter -Itools \
		   -Iselftests \
		   -isystem $(KSFT_DIR) $(TEP_CFLAGS) $(TRACEFS_CFLAGS) \
		   $(TRACECMD_CFLAGS) \
		   -DIVRING_SELFTESTS_DATA=\"$(CURDIR)/selftests/data\"

VARIANTS	:= plain asan tsan
plain_CFLAGS	:= $(CFLAGS)
plain_LDFLAGS	:=
asan_CFLAGS	:= -O1 -g -fno-omit-frame-pointer -fno-sanitize-recover=all \
		   -fsanitize=address,undefined,float-cast-overflow,float-divide-by-zero
asan_LDFLAGS	:= -fsanitize=address,undefined
tsan_CFLAGS	:= -O1 -g -fsanitize=thread
tsan_LDFLAGS	:= -fsanitize=thread

# --- sources --------------------------------------------------------------

LIB_SRCS	:= $(sort $(wildcard lib/*/*.c))
WRITER_SRCS	:= $(sort $(wildcard include/writer/*.c))
FILTER_SRCS	:= $(sort $(wildcard include/filter/*.c))
TOOL_PROGS	:= $(patsubst tools/%.c,%,$(sort $(wildcard tools/ivring-*.c)))
TOOL_HELPERS	:= $(filter-out tools/ivring-%.c,$(sort $(wildcard tools/*.c)))
TESTS_C		:= $(patsubst selftests/%.c,%,$(sort $(wildcard selftests/test_*.c)))
BENCHES		:= $(patsubst selftests/%.c,%,$(sort $(wildcard selftests/bench_*.c)))
ST_OTHER	:= $(filter-out selftests/test_%.c selftests/bench_%.c, \
			$(sort $(wildcard selftests/*.c)))
ST_PROGS_C	:= $(if $(ST_OTHER),$(shell grep -lw '^int main' $(ST_OTHER)))
ST_PROGS	:= $(patsubst selftests/%.c,%,$(ST_PROGS_C))
ST_HELPERS	:= $(filter-out $(ST_PROGS_C),$(ST_OTHER))

# --- per-variant rules ----------------------------------------------------

# $(1): variant.  Archives are listed so that each may use those after it.
define variant_rules
$(1)_LIB_A	:= $(B)/$(1)/libivring.a
$(1)_WRITER_A	:= $(B)/$(1)/libivring-writer.a
$(1)_FILTER_A	:= $(B)/$(1)/libivring-filter.a
$(1)_TOOLS_A	:= $(B)/$(1)/libivring-tools.a
$(1)_ST_A	:= $(B)/$(1)/libivring-selftests.a
$(1)_LIB_OBJS	:= $(LIB_SRCS:%.c=$(B)/$(1)/%.o)
$(1)_WRITER_OBJS := $(WRITER_SRCS:%.c=$(B)/$(1)/%.o)
$(1)_FILTER_OBJS := $(FILTER_SRCS:%.c=$(B)/$(1)/%.o)
$(1)_TOOLS_OBJS	:= $(TOOL_HELPERS:%.c=$(B)/$(1)/%.o)
$(1)_ST_OBJS	:= $(ST_HELPERS:%.c=$(B)/$(1)/%.o)
$(1)_TOOLS	:= $(TOOL_PROGS:%=$(B)/$(1)/tools/%)
$(1)_TESTS	:= $(TESTS_C:%=$(B)/$(1)/selftests/%)
$(1)_HELPERS	:= $(ST_PROGS:%=$(B)/$(1)/helpers/%)
$(1)_BENCHES	:= $(BENCHES:%=$(B)/$(1)/selftests/%)
$(1)_ARCHIVES	:= $$($(1)_TOOLS_A) $$($(1)_WRITER_A) $$($(1)_FILTER_A) \
		   $$($(1)_LIB_A)

$(B)/$(1)/lib/%.o: lib/%.c
	$$(call msg,CC,$$@)
	$(Q)mkdir -p $$(@D)
	$(Q)$$(CC) $$($(1)_CFLAGS) $$(BASE_CFLAGS) $$(lib_INC) -c -o $$@ $$<

$(B)/$(1)/include/writer/%.o: include/writer/%.c
	$$(call msg,CC,$$@)
	$(Q)mkdir -p $$(@D)
	$(Q)$$(CC) $$($(1)_CFLAGS) $$(BASE_CFLAGS) $$(writer_INC) -c -o $$@ $$<

$(B)/$(1)/include/filter/%.o: include/filter/%.c
	$$(call msg,CC,$$@)
	$(Q)mkdir -p $$(@D)
	$(Q)$$(CC) $$($(1)_CFLAGS) $$(BASE_CFLAGS) $$(filter_INC) -c -o $$@ $$<

$(B)/$(1)/tools/%.o: tools/%.c
	$$(call msg,CC,$$@)
	$(Q)mkdir -p $$(@D)
	$(Q)$$(CC) $$($(1)_CFLAGS) $$(BASE_CFLAGS) $$(tools_INC) -c -o $$@ $$<

$(B)/$(1)/selftests/%.o: selftests/%.c $(KSFT_DIR)/kselftest_harness.h \
			 $(KSFT_DIR)/kselftest.h
	$$(call msg,CC,$$@)
	$(Q)mkdir -p $$(@D)
	$(Q)$$(CC) $$($(1)_CFLAGS) $$(BASE_CFLAGS) $$(selftests_INC) -c -o $$@ $$<

$$($(1)_LIB_A): $$($(1)_LIB_OBJS)
$$($(1)_WRITER_A): $$($(1)_WRITER_OBJS)
$$($(1)_FILTER_A): $$($(1)_FILTER_OBJS)
$$($(1)_TOOLS_A): $$($(1)_TOOLS_OBJS)
$$($(1)_ST_A): $$($(1)_ST_OBJS)

$$($(1)_TOOLS): $(B)/$(1)/tools/%: $(B)/$(1)/tools/%.o $$($(1)_ARCHIVES)
	$$(call msg,LD,$$@)
	$(Q)$$(CC) $$($(1)_CFLAGS) $$($(1)_LDFLAGS) $$(LDFLAGS) -o $$@ $$^ $$(TOOL_LIBS)

$$($(1)_TESTS) $$($(1)_BENCHES): $(B)/$(1)/selftests/%: $(B)/$(1)/selftests/%.o \
		$$($(1)_ST_A) $$($(1)_ARCHIVES)
	$$(call msg,LD,$$@)
	$(Q)$$(CC) $$($(1)_CFLAGS) $$($(1)_LDFLAGS) $$(LDFLAGS) -o $$@ $$^ $$(TOOL_LIBS)

$$($(1)_HELPERS): $(B)/$(1)/helpers/%: $(B)/$(1)/selftests/%.o \
		$$($(1)_ST_A) $$($(1)_ARCHIVES)
	$$(call msg,LD,$$@)
	$(Q)mkdir -p $$(@D)
	$(Q)$$(CC) $$($(1)_CFLAGS) $$($(1)_LDFLAGS) $$(LDFLAGS) -o $$@ $$^ $$(TOOL_LIBS)

.PHONY: variant-$(1)
variant-$(1): $$($(1)_TOOLS) $$($(1)_TESTS) $$($(1)_HELPERS)

DEPS += $$(patsubst %.o,%.d,$$($(1)_LIB_OBJS) $$($(1)_WRITER_OBJS) \
	$$($(1)_FILTER_OBJS) \
	$$($(1)_TOOLS_OBJS) $$($(1)_ST_OBJS)) \
	$$(patsubst %,%.d,$$($(1)_TOOLS) $$($(1)_TESTS) $$($(1)_BENCHES)) \
	$$(ST_PROGS:%=$(B)/$(1)/selftests/%.d)
endef

$(foreach v,$(VARIANTS),$(eval $(call variant_rules,$(v))))

# --- coverage-guided fuzzing: selftests/fuzz, libFuzzer --------------------

# The library, the writer and the synthetic events again, built by clang
# with libFuzzer's coverage under ASan and UBSan, into a target for each
# selftests/fuzz/fuzz_*.c.  make check runs each for FUZZ_SECONDS (10) from
# its seeds (run_tests.sh); make fuzz-long for longer, into its corpus in
# build/fuzz/corpus/.
FUZZ_CC		?= clang
FUZZ_CFLAGS	:= -O1 -g -fno-omit-frame-pointer -fno-sanitize-recover=all \
		   -fsanitize=address,undefined,float-cast-overflow \
		   -fsanitize=float-divide-by-zero
FUZZ_SRCS	:= $(sort $(wildcard selftests/fuzz/fuzz_*.c))
FUZZERS		:= $(FUZZ_SRCS:selftests/fuzz/%.c=$(B)/fuzz/%)
FUZZ_OBJS	:= $(LIB_SRCS:%.c=$(B)/fuzz/obj/%.o) \
		   $(WRITER_SRCS:%.c=$(B)/fuzz/obj/%.o) \
		   $(FILTER_SRCS:%.c=$(B)/fuzz/obj/%.o) \
		   $(B)/fuzz/obj/tools/synth_events.o

$(B)/fuzz/obj/lib/%.o: lib/%.c
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link $(BASE_CFLAGS) \
		$(lib_INC) -c -o $@ $<

$(B)/fuzz/obj/include/writer/%.o: include/writer/%.c
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link $(BASE_CFLAGS) \
		$(writer_INC) -c -o $@ $<

$(B)/fuzz/obj/include/filter/%.o: include/filter/%.c
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link $(BASE_CFLAGS) \
		$(filter_INC) -c -o $@ $<

$(B)/fuzz/obj/tools/%.o: tools/%.c
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link $(BASE_CFLAGS) \
		$(tools_INC) -c -o $@ $<

$(FUZZERS): $(B)/fuzz/%: selftests/fuzz/%.c $(FUZZ_OBJS) \
		$(KSFT_DIR)/kselftest_harness.h $(KSFT_DIR)/kselftest.h
	$(call msg,LD,$@)
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer $(BASE_CFLAGS) \
		$(selftests_INC) -Iselftests/fuzz -o $@ $< $(FUZZ_OBJS) $(TOOL_LIBS)

DEPS += $(FUZZ_OBJS:%.o=%.d) $(FUZZERS:%=%.d)

.PHONY: fuzz fuzz-long
fuzz: $(FUZZERS)

# Each target for FUZZ_SECONDS (default an hour), one after the other;
# then test_hostile's random mutations, FUZZ_ITERS (200000) of each mode,
# plain and under ASan: make check runs 10000 and 3000.
fuzz-long: fuzz variant-plain variant-asan
	$(Q)for f in $(FUZZERS); do \
		selftests/fuzz/run.sh $(or $(FUZZ_SECONDS),3600) \
			$(abspath $(B))/fuzz/corpus/$$(basename $$f) $$f || \
			exit 1; \
	done
	$(Q)for v in plain asan; do \
		IVRING_FUZZ_ITERS=$(or $(FUZZ_ITERS),200000) \
			$(B)/$$v/selftests/test_hostile || exit 1; \
	done

# Archives may be empty (no helper objects yet): ar then writes an empty one.
$(B)/%.a:
	$(call msg,AR,$@)
	$(Q)mkdir -p $(@D)
	$(Q)rm -f $@
	$(Q)$(AR) rcs $@ $^

# --- the installable library and tools -----------------------------------

SO_NAME		:= libivring.so.$(SOVERSION)
SO_FILE		:= $(B)/lib/libivring.so.$(VERSION)
PIC_OBJS	:= $(LIB_SRCS:lib/%.c=$(B)/lib/%.o)
LIB_A		:= $(B)/lib/libivring.a
PC_FILE		:= $(B)/lib/ivring.pc
TOOLS		:= $(TOOL_PROGS:%=$(B)/tools/%)
DEPS		+= $(PIC_OBJS:%.o=%.d)

$(B)/lib/%.o: lib/%.c
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(BASE_CFLAGS) $(lib_INC) -fPIC -c -o $@ $<

$(SO_FILE): $(PIC_OBJS) lib/libivring.map
	$(call msg,LD,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -shared -fPIC -Wl,-soname,$(SO_NAME) \
		-Wl,--version-script=lib/libivring.map -Wl,--no-undefined \
		-o $@ $(PIC_OBJS) $(LIBS)
	$(Q)ln -sf $(notdir $@) $(B)/lib/$(SO_NAME)
	$(Q)ln -sf $(SO_NAME) $(B)/lib/libivring.so

# One relocatable object whose hidden symbols are made local: in a plain
# archive the internal ivr_* functions would stay global, free to collide
# with the application's own names in a static link.  The ivr_* entry
# points behind versioned symbols (ivring__open@@LIBIVRING_1.5) are not
# hidden, so that the shared library can export their versions; here they
# go local too.
LIB_RELOC	:= $(B)/lib/libivring-reloc.o

$(LIB_RELOC): $(PIC_OBJS)
	$(call msg,LD,$@)
	$(Q)$(LD) -r -o $@.tmp $^
	$(Q)$(OBJCOPY) --localize-hidden --wildcard --localize-symbol='ivr_*' \
		$@.tmp $@
	$(Q)rm -f $@.tmp

$(LIB_A): $(LIB_RELOC)

# The .pc file names the install directories: remade when they change.
PC_VARS		:= $(prefix):$(exec_prefix):$(libdir):$(includedir):$(VERSION)
$(B)/lib/pc-vars: FORCE
	$(Q)mkdir -p $(@D)
	$(Q)echo '$(PC_VARS)' | cmp -s - $@ || echo '$(PC_VARS)' > $@

$(PC_FILE): lib/ivring.pc.in $(B)/lib/pc-vars
	$(call msg,GEN,$@)
	$(Q)mkdir -p $(@D)
	$(Q)sed -e 's|@prefix@|$(prefix)|g' -e 's|@exec_prefix@|$(exec_prefix)|g' \
		-e 's|@libdir@|$(libdir)|g' -e 's|@includedir@|$(includedir)|g' \
		-e 's|@VERSION@|$(VERSION)|g' $< > $@

# The tools use the plain variant's objects with the installable library.
$(TOOLS): $(B)/tools/%: $(B)/plain/tools/%.o $(plain_TOOLS_A) $(plain_WRITER_A) \
		$(plain_FILTER_A) $(LIB_A)
	$(call msg,LD,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(TOOL_LIBS)

# --- the kselftest harness, from Debian's linux-source-6.1 ----------------

KSFT_MEMBERS	:= $(addprefix linux-source-6.1/tools/testing/selftests/, \
			kselftest_harness.h kselftest.h)

$(KSFT_DIR)/kselftest_harness.h:
	$(call msg,TAR,$(KSFT_DIR))
	$(Q)test -r $(LINUX_SOURCE) || { echo "$(LINUX_SOURCE) is missing;" \
		"install linux-source-6.1 (make deps)" >&2; exit 1; }
	$(Q)mkdir -p $(KSFT_DIR)
	$(Q)tar -xJmf $(LINUX_SOURCE) -C $(KSFT_DIR) --strip-components=4 \
		$(KSFT_MEMBERS)

$(KSFT_DIR)/kselftest.h: $(KSFT_DIR)/kselftest_harness.h

# --- top-level targets ----------------------------------------------------

.DEFAULT_GOAL	:= all
.PHONY: all lib tools variants check check-matrix check-build bench bench-guest \
	bench-relayd \
	check-migrate-control \
	bench-record-guest demo \
	demo-gen install install-dkms uninstall uninstall-dkms clean deps module module-test modules-all \
	no-module module-clean FORCE

# The module too when there are Debian's 6.1 headers (the module's probes
# are checked against 6.1's prototypes) or KDIR is given; a host that only
# reads segments needs neither.
all: lib tools $(if $(or $(DEB_KDIR),$(filter command line environment,$(origin KDIR))),module,no-module)

no-module:
	@echo "  SKIP     ivring.ko: no linux-headers-*-amd64 in /usr/src; make module KDIR=..."

lib: $(SO_FILE) $(LIB_A) $(PC_FILE)

tools: $(TOOLS)

variants: $(addprefix variant-,$(VARIANTS))

# Build with -k so that one broken file still lets every other test run; the
# runner then counts the failed build once, and each missing program.  The
# build runs a job per CPU (CHECK_JOBS) whatever -j make check was given:
# it is a fifth of a CI run, and CI gives no -j.
CHECK_JOBS	?= $(shell nproc 2>/dev/null || echo 1)
check: FORCE
	$(Q)build_ok=1; \
	$(MAKE) --no-print-directory -k -j$(CHECK_JOBS) check-build || build_ok=0; \
	IVRING_BUILD_ROOT='$(abspath $(B))' IVRING_BUILD_OK=$$build_ok \
	IVRING_VARIANTS='$(VARIANTS)' TESTS='$(TESTS)' \
	IVRING_VM_MATRIX='$(IVRING_VM_MATRIX)' \
	IVRING_SOAK='$(or $(SOAK),$(IVRING_SOAK))' \
		selftests/run_tests.sh

# Every guest test on every installed kernel (make check runs them all on
# the default kernel and a smoke set on the others), and DKMS for each.
# About 10 minutes per kernel under TCG.
check-matrix: FORCE
	$(Q)IVRING_DKMS_ALL=1 $(MAKE) --no-print-directory check \
		TESTS='$(or $(TESTS),vm test_dkms)' IVRING_VM_MATRIX=1

# Every guest test of the default kernel SOAK times (20), and which failed
# how often, with their logs: a guest test that fails once in twenty runs
# blocks every landing.  TESTS narrows it (TESTS=vm/migrate).
check-soak: FORCE
	$(Q)$(MAKE) --no-print-directory check TESTS='$(or $(TESTS),vm/)' \
		SOAK=$(or $(SOAK),20)

# The guest crash seen after a live migration (issue 21, item 8), against
# controls: migrate_busy.sh's migration RUNS times (50) with ivring never
# loaded, loaded but idle, tracing, and tracing in overwrite mode, with no
# host reader, and a guest without ivring whose userspace writes the BAR;
# the consoles of failures in build/logs/control/.
# selftests/vm/control/migrate_bare.sh says more.
check-migrate-control: module
	$(Q)selftests/vm/control/run.sh $(or $(RUNS),50) \
		$(abspath $(B))/logs/control $(or $(MODES),bare idle tracing overwrite bar)

# The recipe keeps make from saying "Nothing to be done".  The module is
# for the guest tests, selftests/vm/.
check-build: all variants fuzz module module-test modules-all
	@:

# The benchmarks that time ivring-gen, ivring-read, cp and trace-cmd find
# the tools in build/tools (IVRING_TOOLS overrides).
bench: $(plain_BENCHES) tools
	$(Q)set -e; \
	if [ -z '$(plain_BENCHES)' ]; then echo 'no selftests/bench_*.c'; fi; \
	for b in $(plain_BENCHES); do \
		echo "== $$b"; \
		$$b; \
	done

# A recording streamed to a loopback lttng-relayd against the same one
# written as a CTF directory, both to tmpfs, then the same over 1, 8 and
# 64 guests (selftests/bench_relayd.sh [ROUNDS [EVENTS_PER_CPU
# [GUESTS...]]] through BENCH_RELAYD_ARGS).
bench-relayd: tools
	$(Q)IVRING_TOOLS=$(B)/tools selftests/bench_relayd.sh $(BENCH_RELAYD_ARGS)

# ivring, its native probes and its generic lane, against the guest's own
# ftrace, in one TCG guest run of a few minutes (selftests/kbench/run.sh;
# BENCH_GUEST_ARGS='--help' lists options; with --record the host reads the
# segment throughout, with build/tools/ivring-read).
bench-guest: module
	$(Q)KDIR='$(KDIR)' WERROR='$(WERROR)' selftests/kbench/run.sh \
		$(BENCH_GUEST_ARGS)

# hackbench's load in a TCG guest with every sched, timer and kmem event:
# untraced, in ftrace alone, and in ivring while the host records it to a
# trace.dat (selftests/kbench/record.sh; BENCH_GUEST_ARGS='--help').
bench-record-guest: module tools
	$(Q)selftests/kbench/record.sh $(BENCH_GUEST_ARGS)

# A test guest streams its sched and irq events to the host live
# (tools/ivring-demo); demo-gen needs no guest: ivring-gen stands in for it,
# two writer threads with nested writes from a timer signal, into
# /dev/shm/$(DEMO_SHM), and ivring-read follows it.
DEMO_SHM	?= ivring-demo
DEMO_SECONDS	?= 5

demo: all module
	$(Q)tools/ivring-demo $(DEMO_SECONDS)

demo-gen: all
	$(Q)set -e; shm=/dev/shm/$(DEMO_SHM); rm -f $$shm; \
	$(B)/tools/ivring-gen --cpus 2 --nested=200 --rate 1000 \
		--keep-running $(DEMO_SHM) & gen=$$!; \
	trap 'kill $$gen 2>/dev/null; wait $$gen 2>/dev/null; rm -f $$shm' EXIT; \
	for i in 1 2 3 4 5 6 7 8 9 10; do [ -e $$shm ] && break; sleep 0.2; done; \
	sleep 0.5; \
	echo "== ivring-read --follow --stats $$shm, for $(DEMO_SECONDS) s"; \
	timeout -s INT $(DEMO_SECONDS) $(B)/tools/ivring-read --follow --stats \
		$(DEMO_SHM) | awk 'NR <= 20 { print; next } \
			{ n++ } END { if (n) printf("... and %d more events\n", n) }'

install: all
	$(INSTALL) -D -m 644 $(SO_FILE) $(DESTDIR)$(libdir)/$(notdir $(SO_FILE))
	ln -sf $(notdir $(SO_FILE)) $(DESTDIR)$(libdir)/$(SO_NAME)
	ln -sf $(SO_NAME) $(DESTDIR)$(libdir)/libivring.so
	$(INSTALL) -D -m 644 $(LIB_A) $(DESTDIR)$(libdir)/libivring.a
	$(INSTALL) -D -m 644 $(PC_FILE) $(DESTDIR)$(libdir)/pkgconfig/ivring.pc
	$(INSTALL) -D -m 644 lib/libivring.h $(DESTDIR)$(includedir)/libivring.h
	$(INSTALL) -D -m 644 include/uapi/linux/ivring.h \
		$(DESTDIR)$(includedir)/ivring/linux/ivring.h
	$(foreach t,$(TOOLS),$(INSTALL) -D -m 755 $(t) $(DESTDIR)$(bindir)/$(notdir $(t));)
	$(INSTALL) -D -m 644 tools/ivring-read.1 $(DESTDIR)$(mandir)/man1/ivring-read.1
	$(INSTALL) -D -m 644 tools/ivring-vcpus.1 $(DESTDIR)$(mandir)/man1/ivring-vcpus.1
	$(INSTALL) -D -m 644 lib/libivring.3 $(DESTDIR)$(mandir)/man3/libivring.3
	$(foreach f,$(MAN3_LINKS),echo '.so man3/libivring.3' > $(DESTDIR)$(mandir)/man3/$(f).3;)
	$(Q)$(MAKE) --no-print-directory install-dkms

# "man ivring__open" and the like: one page per exported function, each
# pointing at libivring(3), which documents them all.
MAN3_LINKS	:= $(sort $(shell sed -n 's/^[[:space:]]*\(ivring__[a-z_]*\);$$/\1/p' \
			lib/libivring.map))

# The module's sources and a dkms.conf, for "dkms install ivring/$(VERSION)".
# The test build's hooks need IVRING_TEST, which DKMS never sets.
DKMS_SRCS	:= Kbuild include/uapi/linux/ivring.h \
		   $(wildcard include/writer/*.[ch]) \
		   $(wildcard include/filter/*.[ch]) $(wildcard kmod/*.[ch])

install-dkms:
	$(foreach f,$(DKMS_SRCS),$(INSTALL) -D -m 644 $(f) $(DESTDIR)$(dkmsdir)/$(f);)
	sed 's|@VERSION@|$(VERSION)|g' kmod/dkms.conf.in > $(DESTDIR)$(dkmsdir)/dkms.conf

uninstall-dkms:
	rm -rf $(DESTDIR)$(dkmsdir)

uninstall:
	rm -f $(DESTDIR)$(libdir)/$(notdir $(SO_FILE)) \
		$(DESTDIR)$(libdir)/$(SO_NAME) $(DESTDIR)$(libdir)/libivring.so \
		$(DESTDIR)$(libdir)/libivring.a \
		$(DESTDIR)$(libdir)/pkgconfig/ivring.pc \
		$(DESTDIR)$(includedir)/libivring.h \
		$(DESTDIR)$(includedir)/ivring/linux/ivring.h \
		$(addprefix $(DESTDIR)$(bindir)/,$(TOOL_PROGS)) \
		$(DESTDIR)$(mandir)/man1/ivring-read.1 \
		$(DESTDIR)$(mandir)/man1/ivring-vcpus.1 \
		$(DESTDIR)$(mandir)/man3/libivring.3 \
		$(MAN3_LINKS:%=$(DESTDIR)$(mandir)/man3/%.3)
	rm -rf $(DESTDIR)$(dkmsdir)

clean:
	rm -rf $(B)

# Every Debian package that building, checking and the VM tests need.
DEB_PKGS	:= build-essential make pkg-config xz-utils libtraceevent-dev \
		   libtracefs-dev libtracecmd-dev libzstd-dev zstd \
		   liburcu-dev linux-source-6.1 babeltrace2 trace-cmd lttng-tools \
		   kernelshark xvfb xauth imagemagick xdotool \
		   qemu-system-x86 busybox-static socat cpio kmod procps dkms \
		   linux-headers-amd64 linux-image-amd64 \
		   linux-headers-rt-amd64 linux-image-rt-amd64 \
		   linux-headers-6.12-amd64 linux-image-6.12-amd64 \
		   linux-headers-6.12-rt-amd64 linux-image-6.12-rt-amd64 \
		   clang libfuzzer-14-dev
SUDO		:= $(if $(filter 0,$(shell id -u)),,sudo)

deps:
	$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get update
	$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y \
		-o Dpkg::Options::=--force-confdef \
		-o Dpkg::Options::=--force-confold $(DEB_PKGS)

# --- the guest module -----------------------------------------------------

# Kbuild writes its objects next to the sources, and 6.1 has no separate
# output directory for external modules, so it builds in a directory of
# symbolic links to Kbuild, include/uapi/, include/writer/*.[ch],
# include/filter/*.[ch] and kmod/*.[ch] (the directories that get objects
# are real ones):
#   build/module/            ivring.ko for KDIR (the default kernel)
#   build/module-test/       the same with IVRING_TEST: fault injection and
#                            the test hooks that selftests/vm needs
#   build/module-VERSION/    one per installed kernel (make modules-all),
#                            with build/module-VERSION-test/ beside it
MOD_DIR		:= $(abspath $(B)/module)

# $(call build_module,DIR,KDIR,EXTRA kbuild variables).  Warnings are
# errors here, as in the userspace build (WERROR=0 to allow them), but not
# in what DKMS builds for a user: a future kernel's new warning must not
# keep the module from loading.
define build_module
	$(Q)if [ -L $(1)/include ]; then rm $(1)/include; fi
	$(Q)mkdir -p $(1)/kmod $(1)/include/writer $(1)/include/filter
	$(Q)find $(1)/kmod $(1)/include/writer $(1)/include/filter -maxdepth 1 \
		-type l -delete
	$(Q)ln -sfn $(CURDIR)/Kbuild $(1)/Kbuild
	$(Q)ln -sfn $(CURDIR)/include/uapi $(1)/include/uapi
	$(Q)for f in $(wildcard $(CURDIR)/kmod/*.[ch]); do \
		ln -sf $$f $(1)/kmod/; \
	done
	$(Q)for f in $(wildcard $(CURDIR)/include/writer/*.[ch]); do \
		ln -sf $$f $(1)/include/writer/; \
	done
	$(Q)for f in $(wildcard $(CURDIR)/include/filter/*.[ch]); do \
		ln -sf $$f $(1)/include/filter/; \
	done
	$(Q)test -r $(2)/Makefile || { echo "no kernel headers in" \
		"KDIR=$(2); install linux-headers-amd64 (make deps)" >&2; \
		exit 1; }
	+$(MAKE) -C $(2) M=$(1) $(if $(filter 1,$(WERROR)),W=e) $(3) modules
endef

module: FORCE
	$(call build_module,$(MOD_DIR),$(KDIR),)

module-test: FORCE
	$(call build_module,$(MOD_DIR)-test,$(KDIR),IVRING_TEST=1)

# Both builds for every other installed kernel, for the guest tests on them.
modules-all: FORCE
	$(Q)set -e; for k in $(filter-out $(realpath $(KDIR)),$(ALL_KDIRS)); do \
		v=$${k#/usr/src/linux-headers-}; \
		$(MAKE) --no-print-directory module MOD_DIR=$(MOD_DIR)-$$v KDIR=$$k; \
		$(MAKE) --no-print-directory module-test MOD_DIR=$(MOD_DIR)-$$v KDIR=$$k; \
	done

module-clean: FORCE
	rm -rf $(MOD_DIR) $(MOD_DIR)-*

FORCE:

-include $(DEPS)
