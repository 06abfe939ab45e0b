# stepguard — GNU make.  Everything generated goes under $(BUILD).
#
#   make            build/stepguard
#   make check      every test (unit, command line)
#   make asan       the same tests, built with ASan and UBSan
#   make lint       mandoc -Tlint on the man pages, cppcheck and clang-tidy on the sources
#   make install    PREFIX (/usr/local), DESTDIR, SYSCONFDIR (/etc)
#   make deps       install build and test dependencies (Debian/Ubuntu, apt-get)
#   make deb        the Debian package, from a clean export of HEAD, in build/deb/

VERSION    := 0.1.0
BUILD      ?= build
PREFIX     ?= /usr/local
BINDIR     ?= $(PREFIX)/bin
MANDIR     ?= $(PREFIX)/share/man
SYSCONFDIR ?= /etc
DESTDIR    ?=

CC         ?= cc
PKG_CONFIG ?= pkg-config
SHELL      := /bin/bash

LIBS_PKGS  := inih libseccomp json-c nettle libbpf
TEST_PKGS  := cmocka

# Warnings that catch bugs are errors; the rest must stay at zero too
# (CI builds with WERROR=1).
WARN := -Wall -Wextra -Wshadow -Wmissing-prototypes -Wstrict-prototypes \
	-Wformat=2 -Wswitch-default -Wvla -Wpointer-arith -Wcast-align \
	-Werror=implicit-function-declaration -Werror=missing-prototypes \
	-Werror=format-security -Werror=format=2 -Werror=shadow \
	-Werror=switch-default -Werror=return-type -Werror=int-conversion \
	-Werror=incompatible-pointer-types -Werror=implicit-int \
	-Werror=vla -Werror=strict-prototypes
ifeq ($(WERROR),1)
WARN += -Werror
endif

CFLAGS   ?= -O2 -g
CFLAGS   += -std=gnu11 $(WARN) -fno-strict-aliasing -D_FORTIFY_SOURCE=2 \
	-fstack-protector-strong $(SANFLAGS)
CPPFLAGS += -I. -D_GNU_SOURCE -DSTEPGUARD_VERSION='"$(VERSION)"' \
	$(shell $(PKG_CONFIG) --cflags $(LIBS_PKGS))
# The libraries are linked statically by default (libc stays shared, for
# NSS): every CI step starts stepguard, and resolving seven shared
# libraries was about a fifth of its start-up (docs/performance.md).  The
# price: a security update of one of them needs a rebuild of stepguard
# (the Debian package records them in Built-Using).  STATIC_LIBS=0 links
# them shared, as a distribution may prefer.
STATIC_LIBS ?= 1
ifeq ($(STATIC_LIBS),1)
# Debian 13's libelf.a calls elfutils' internal eu_search_tree_*, which
# no package ships as a static library: where a program that opens an
# ELF file does not link against the static libelf, libelf (and the
# compression libraries it brings) is linked shared, the rest static.
STATIC_ELF := $(shell printf '\043include <libelf.h>\nint main(void) { return elf_end(elf_begin(0, ELF_C_NULL, 0)); }\n' | \
	$(CC) -x c - -o /dev/null -Wl,-Bstatic $$($(PKG_CONFIG) --static --libs libelf) -Wl,-Bdynamic \
	2>/dev/null && echo 1)
ifeq ($(STATIC_ELF),1)
LDLIBS   += -Wl,-Bstatic $(shell $(PKG_CONFIG) --static --libs $(LIBS_PKGS)) -Wl,-Bdynamic
else
LDLIBS   += -Wl,-Bstatic $(filter-out -lelf -lz -lzstd,$(shell $(PKG_CONFIG) --static --libs $(LIBS_PKGS))) \
	-Wl,-Bdynamic $(shell $(PKG_CONFIG) --libs libelf) -lz
endif
else
LDLIBS   += $(shell $(PKG_CONFIG) --libs $(LIBS_PKGS))
endif
# Bind every symbol at start (full RELRO): the GOT is then read-only for
# the whole run, which a launcher that stays behind as a supervisor
# wants, and a start resolves libc's ~200 symbols in one pass instead of
# one lazy trampoline per first call (12 page faults fewer per start,
# docs/performance.md).
LDFLAGS  += -Wl,-z,relro,-z,now $(SANFLAGS)

# One list per directory (docs/design.md, "Layout").  Data flows one way:
# lib <- policy <- confine, bpf <- audit, selftest <- launcher; the unit
# tests of a directory link only against it and what it stands on, so a
# syscall or a launcher call creeping into policy/ fails their build.
LIB_SRCS      := lib/error.c lib/strbuf.c lib/env.c lib/log.c lib/opterr.c lib/denial.c lib/root.c
POLICY_SRCS   := policy/policy.c policy/scan.c policy/parse.c policy/words.c policy/dump.c \
	policy/expand.c policy/gaps.c policy/caps.c policy/ruling.c
CONFINE_SRCS  := confine/confine.c confine/events.c confine/landlock.c confine/seccomp.c \
	confine/seccomp_deny.c confine/seccomp_variant.c confine/seccomp_prebuilt.c confine/user.c \
	confine/fdpass.c confine/caps.c
SUPERVISOR_SRCS := confine/supervisor/supervisor.c confine/supervisor/target.c \
	confine/supervisor/resolve.c confine/supervisor/ops.c confine/supervisor/exec.c \
	confine/supervisor/calls.c confine/supervisor/intent.c confine/supervisor/sched.c \
	confine/supervisor/connect.c
AUDIT_SRCS    := audit/audit.c audit/table.c audit/strings.c audit/report.c audit/main.c
SELFTEST_SRCS := selftest/selftest.c selftest/prepare.c selftest/launch.c selftest/report.c \
	selftest/area.c selftest/holder.c selftest/modelcli.c selftest/stubapi.c
LAUNCHER_SRCS := launcher/options.c launcher/policy_load.c launcher/roots.c launcher/plan.c launcher/execs.c launcher/tmpdir.c \
	launcher/check.c launcher/run.c launcher/step.c launcher/unload.c launcher/summary.c
LAUNCHER_MAIN := launcher/main.c
RULES         := $(sort $(wildcard rules.d/*.ini))

objs = $(patsubst %.c,$(BUILD)/%.o,$(1))
GEN_DEFAULT   := $(BUILD)/gen/default_policy.c
LIB_OBJS      := $(call objs,$(LIB_SRCS))
POLICY_OBJS   := $(call objs,$(POLICY_SRCS)) $(LIB_OBJS)
DEFAULT_OBJS  := $(BUILD)/gen/default_policy.o
# The default policy's seccomp filters, generated at build time by a
# program linked with the same libseccomp (confine/seccomp_gen.c).
GEN_SECCOMP   := $(BUILD)/gen/seccomp_prebuilt_progs.c
SECCOMP_GEN   := $(BUILD)/gen/seccomp_gen
SECCOMP_OBJS  := $(call objs,confine/seccomp.c confine/seccomp_deny.c confine/seccomp_variant.c \
	$(SUPERVISOR_SRCS)) $(LIB_OBJS)
PREBUILT_OBJS := $(call objs,confine/seccomp_prebuilt.c) $(BUILD)/gen/seccomp_prebuilt_progs.o
CONFINE_OBJS  := $(call objs,$(CONFINE_SRCS) $(SUPERVISOR_SRCS)) $(BUILD)/gen/seccomp_prebuilt_progs.o
AUDIT_OBJS    := $(call objs,$(AUDIT_SRCS))
SELFTEST_OBJS := $(call objs,$(SELFTEST_SRCS))
LAUNCHER_OBJS := $(call objs,$(LAUNCHER_SRCS))
ALL_OBJS      := $(LAUNCHER_OBJS) $(SELFTEST_OBJS) $(AUDIT_OBJS) $(CONFINE_OBJS) \
	$(POLICY_OBJS) $(DEFAULT_OBJS)

UNIT_TESTS := test_policy test_expand test_ruling test_options test_default_policy \
	test_policy_load test_landlock test_seccomp test_log test_supervisor test_audit test_execs \
	test_tmpdir test_summary test_selftest
UNIT_BINS  := $(UNIT_TESTS:%=$(BUILD)/tests/%)

.DEFAULT_GOAL := all

# The eBPF write filter: vmlinux.h, the CO-RE object, its skeleton, the loader.
include bpf/bpf.mk
CPPFLAGS += -I$(BPF_GEN)

.PHONY: all check unit cli host modelcli concurrency failclosed vm asan lint install uninstall deps clean clean-vm \
	bench bench-smoke bench-profile fuzz fuzz-smoke
all: $(BUILD)/stepguard $(BUILD)/stepguard-probe

# The probe and the adversary run under the filter: built without
# sanitizers (their runtimes need what the filter refuses), statically
# where possible so they do not depend on what the step may read.
PLAIN_CFLAGS := -std=gnu11 -O2 -g $(WARN) -D_GNU_SOURCE
$(BUILD)/stepguard-probe: selftest/probe.c
	@mkdir -p $(@D)
	$(CC) $(PLAIN_CFLAGS) -o $@ $<

$(BUILD)/tests/adversary: tests/host/adversary.c
	@mkdir -p $(@D)
	$(CC) $(PLAIN_CFLAGS) -Wno-missing-prototypes -o $@ $<

$(BUILD)/stepguard: $(LAUNCHER_MAIN:%.c=$(BUILD)/%.o) $(ALL_OBJS) $(BPF_OBJS)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c -o $@ $<

# The compiled-in default policy is generated from the shipped rules.d.
$(GEN_DEFAULT): $(RULES) policy/embed.sh
	@mkdir -p $(@D)
	sh policy/embed.sh $(RULES) > $@.tmp && mv $@.tmp $@

$(BUILD)/gen/default_policy.o: $(GEN_DEFAULT)
	$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c -o $@ $<

# The generator runs here, on the build host, and asks its kernel which
# seccomp actions exist (libseccomp does): a variant it cannot make is
# left out of the table and generated at run time instead.  It is rebuilt,
# and so rerun, whenever a source of the filter's rules changes.
$(SECCOMP_GEN): $(call objs,confine/seccomp_gen.c) $(SECCOMP_OBJS)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(GEN_SECCOMP): $(SECCOMP_GEN)
	$(SECCOMP_GEN) > $@.tmp && mv $@.tmp $@

$(BUILD)/gen/seccomp_prebuilt_progs.o: $(GEN_SECCOMP)
	$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c -o $@ $<

$(BUILD)/tests/%.o: tests/%.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(shell $(PKG_CONFIG) --cflags $(TEST_PKGS)) $(CFLAGS) \
		-Wno-missing-prototypes -Wno-error=missing-prototypes -MMD -MP -c -o $@ $<

# Each unit test links against its own directory and what that stands on.
TEST_LINK_test_policy          := $(POLICY_OBJS) $(DEFAULT_OBJS)
TEST_LINK_test_expand          := $(POLICY_OBJS)
TEST_LINK_test_ruling          := $(POLICY_OBJS) $(DEFAULT_OBJS)
TEST_LINK_test_default_policy  := $(POLICY_OBJS) $(DEFAULT_OBJS)
TEST_LINK_test_options         := $(call objs,launcher/options.c) $(POLICY_OBJS)
TEST_LINK_test_policy_load     := $(call objs,launcher/policy_load.c confine/seccomp_deny.c) \
	$(POLICY_OBJS) $(DEFAULT_OBJS)
TEST_LINK_test_landlock        := $(call objs,confine/landlock.c) $(LIB_OBJS)
TEST_LINK_test_seccomp         := $(SECCOMP_OBJS) $(PREBUILT_OBJS)
TEST_LINK_test_supervisor      := $(call objs,confine/seccomp.c confine/seccomp_deny.c confine/fdpass.c \
	$(SUPERVISOR_SRCS)) $(LIB_OBJS)
TEST_LINK_test_log             := $(call objs,confine/user.c) $(POLICY_OBJS)
TEST_LINK_test_audit           := $(AUDIT_OBJS) $(POLICY_OBJS)
TEST_LINK_test_execs           := $(call objs,launcher/execs.c launcher/roots.c) $(POLICY_OBJS)
TEST_LINK_test_tmpdir          := $(call objs,launcher/tmpdir.c) $(POLICY_OBJS)
TEST_LINK_test_summary         := $(call objs,launcher/summary.c) $(LIB_OBJS)
# The self-test's judgement of the reads of another process; the rest of
# the self-test (its problems, its preflight) is stubbed by the test.
TEST_LINK_test_selftest        := $(call objs,selftest/holder.c confine/user.c confine/caps.c) \
	$(POLICY_OBJS)

# test_supervisor times a race by wrapping the supervisor's readlinkat
# (test_supervisor_acts_on_the_judged_object).
TEST_LDFLAGS_test_supervisor   := -Wl,--wrap=readlinkat

.SECONDEXPANSION:
$(BUILD)/tests/test_%: $(BUILD)/tests/test_%.o $$(TEST_LINK_test_$$*)
	$(CC) $(LDFLAGS) $(TEST_LDFLAGS_test_$*) -o $@ $^ $(LDLIBS) $(shell $(PKG_CONFIG) --libs $(TEST_PKGS))

check: unit cli host modelcli concurrency failclosed compat vm

# Confinement on this machine, judged from outside: the self-test and the
# adversarial suite, as root and as an unprivileged user.
host: $(BUILD)/stepguard $(BUILD)/stepguard-probe $(BUILD)/tests/adversary
	STEPGUARD_MODEL_CLI=$$(bash tests/modelcli/install.sh) \
		STEPGUARD=$(CURDIR)/$(BUILD)/stepguard bash tests/selftest/run.sh
	STEPGUARD=$(CURDIR)/$(BUILD)/stepguard ADVERSARY=$(CURDIR)/$(BUILD)/tests/adversary \
		bash tests/host/run.sh

# Ordinary tools (GNU tar, cp -a, rsync, git, npm, pip, make and gcc,
# sort, cargo, ...) bare and under stepguard, as root, as sgtest and as
# root dropping to sgtest; the trees must agree (tests/compat/README.md).
.PHONY: compat
compat: $(BUILD)/stepguard
	STEPGUARD=$(CURDIR)/$(BUILD)/stepguard bash tests/compat/run.sh

# The real model CLI (pinned, from npm; skipped with the reason when npm or
# the registry is not there) against a stub of the Messages API on
# 127.0.0.1, as root, as sgtest and as root dropping to sgtest.  `cli` (the
# CLI's --help against the policy) and `host` (--self-test --model-cli)
# take the same pinned CLI from tests/modelcli/install.sh, or skip.
modelcli: $(BUILD)/stepguard
	STEPGUARD=$(CURDIR)/$(BUILD)/stepguard bash tests/modelcli/run.sh

$(BUILD)/tests/fchelper: tests/failclosed/fchelper.c
	@mkdir -p $(@D)
	$(CC) $(PLAIN_CFLAGS) $(shell $(PKG_CONFIG) --cflags libseccomp) -o $@ $< \
		$(shell $(PKG_CONFIG) --libs libseccomp)

# The fail-closed matrix on this host, as root and as sgtest
# (tests/failclosed/README.md maps every row, the VM's included).
failclosed: $(BUILD)/stepguard $(BUILD)/tests/fchelper
	STEPGUARD=$(CURDIR)/$(BUILD)/stepguard FC_HELPER=$(CURDIR)/$(BUILD)/tests/fchelper \
		bash tests/failclosed/run.sh

# Fifty steps at once sharing one log, judged from outside (as root: the
# steps run as root and as sgtest, created if missing; a user that cannot be made fails the run).
# CONCURRENCY_ARGS=--repeat 10 for the issue's ten runs in a row.
concurrency: $(BUILD)/stepguard
	STEPGUARD=$(CURDIR)/$(BUILD)/stepguard bash tests/concurrency/run.sh $(CONCURRENCY_ARGS)

# eBPF backends and boots the host cannot give (lsm= with and without bpf,
# without landlock): QEMU/TCG boots Debian's 6.1 and 6.12 cloud kernels.
vm: $(BUILD)/stepguard $(BUILD)/stepguard-probe $(BUILD)/tests/adversary $(BUILD)/tests/bpfdrive \
		$(BUILD)/tests/fchelper
	BUILD=$(BUILD) STEPGUARD=$(CURDIR)/$(BUILD)/stepguard \
		STEPGUARD_PROBE=$(CURDIR)/$(BUILD)/stepguard-probe \
		ADVERSARY=$(CURDIR)/$(BUILD)/tests/adversary \
		bash tests/vm/run.sh $(CURDIR)/$(BUILD)/tests/bpfdrive:/usr/local/bin/bpfdrive \
			$(CURDIR)/$(BUILD)/tests/fchelper:/usr/local/bin/fchelper

# Unit tests: cmocka, no root, no kernel features.
unit: $(UNIT_BINS) bpf-unit
	@set -e; for t in $(UNIT_BINS); do \
		echo "== $$t"; STEPGUARD_SOURCE_DIR=$(CURDIR) $$t; done

# Command-line tests of the built binary (rulings, --check, statuses).
cli: $(BUILD)/stepguard
	STEPGUARD_MODEL_CLI=$$(bash tests/modelcli/install.sh) \
		STEPGUARD=$(CURDIR)/$(BUILD)/stepguard bash tests/cli/run.sh
	STEPGUARD=$(CURDIR)/$(BUILD)/stepguard bash tests/cli/audit.sh

# stepguard's cost against bare runs, bwrap and firejail, interleaved in one
# run; writes docs/performance.md (issue 5).  bench-smoke: a few iterations
# that judge nothing, for CI; bench-profile: the profiles behind the doc.
bench: all
	BUILD=$(BUILD) STEPGUARD=$(CURDIR)/$(BUILD)/stepguard bash bench/run.sh $(BENCH_ARGS)
bench-smoke: all
	BUILD=$(BUILD) STEPGUARD=$(CURDIR)/$(BUILD)/stepguard bash bench/run.sh --quick
bench-profile: all
	BUILD=$(BUILD) STEPGUARD=$(CURDIR)/$(BUILD)/stepguard bash bench/profile.sh

# libFuzzer targets (clang): replay tests/fuzz/regress, then fuzz each target
# FUZZ_SECONDS (default 60), two at a time; see tests/fuzz/README.md.
FUZZ_SECONDS ?= 60
fuzz:
	FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_BUILD=$(BUILD)/fuzz bash tests/fuzz/run.sh $(FUZZ_TARGETS)
fuzz-smoke:
	FUZZ_BUILD=$(BUILD)/fuzz bash tests/fuzz/run.sh --smoke

# Everything make check runs, with the launcher built with ASan and UBSan
# (the probe and the adversary, which run under the filter, are built
# plain).  The VM boots run every guest test but the adversarial suite
# (sg.adv=none, reported as a skip): the suite runs under ASan on the host
# (make host), and its VM passes would add ten minutes to CI.  Only the
# `bpf` boots (bpf-lsm and bpf-fmod, on both kernels): the others differ
# by kernel configuration, not by stepguard's code, and the plain matrix
# boots them; a heavy pass runs once, not in every combination.
asan:
	SG_VM_CONFIGS=bpf SG_VM_APPEND=sg.adv=none $(MAKE) BUILD=build/asan \
		SANFLAGS="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer" \
		CFLAGS="-O1 -g" check

lint:
	mandoc -Tlint -W warning man/stepguard.1 man/stepguard.ini.5
	cppcheck --quiet --error-exitcode=1 --enable=warning,portability,performance \
		--std=c11 --inline-suppr -I. -D__linux__ \
		--suppress=missingIncludeSystem lib policy confine audit selftest launcher
	cppcheck --quiet --error-exitcode=1 --enable=warning,portability,performance \
		--std=c11 --inline-suppr -I. -I$(BPF_GEN) -D__linux__ \
		--suppress=missingIncludeSystem bpf/loader.c bpf/pins.c bpf/scope.c bpf/events.c
	bash tests/lint/clang-tidy.sh

install: $(BUILD)/stepguard $(BUILD)/stepguard-probe
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5 \
		$(DESTDIR)$(SYSCONFDIR)/stepguard/rules.d
	install -m 0755 $(BUILD)/stepguard $(DESTDIR)$(BINDIR)/stepguard
	install -d $(DESTDIR)$(PREFIX)/libexec/stepguard
	install -m 0755 $(BUILD)/stepguard-probe $(DESTDIR)$(PREFIX)/libexec/stepguard/stepguard-probe
	install -m 0644 man/stepguard.1 $(DESTDIR)$(MANDIR)/man1/stepguard.1
	install -m 0644 man/stepguard.ini.5 $(DESTDIR)$(MANDIR)/man5/stepguard.ini.5
	install -m 0644 $(RULES) $(DESTDIR)$(SYSCONFDIR)/stepguard/rules.d/
	install -d $(DESTDIR)$(PREFIX)/share/bash-completion/completions
	install -m 0644 completion/stepguard.bash \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions/stepguard

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/stepguard $(DESTDIR)$(PREFIX)/libexec/stepguard/stepguard-probe \
		$(DESTDIR)$(MANDIR)/man1/stepguard.1 \
		$(DESTDIR)$(MANDIR)/man5/stepguard.ini.5 \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions/stepguard
	rm -f $(addprefix $(DESTDIR)$(SYSCONFDIR)/stepguard/rules.d/,$(notdir $(RULES)))

# The package lists live in deps.sh, which a machine without make runs
# first (the README); these targets and the packaging tests read them.
BPFTOOL_DEB ?=
DEB_PACKAGES = $(shell BPFTOOL_DEB="$(BPFTOOL_DEB)" sh deps.sh --print check)
DEB_BUILD_PACKAGES = $(shell BPFTOOL_DEB="$(BPFTOOL_DEB)" sh deps.sh --print build)
deps:
	BPFTOOL_DEB="$(BPFTOOL_DEB)" sh deps.sh check

# Only what building stepguard needs, for a machine that installs it (the
# GitHub Action, action.yml): no test tools, no VM packages.  BPFTOOL_DEB
# names the packages that provide bpftool where deps.sh's choice is wrong.
.PHONY: deps-build
deps-build:
	BPFTOOL_DEB="$(BPFTOOL_DEB)" sh deps.sh build

# The GitHub Action (its structure, and its steps run as a runner would:
# an unprivileged user with sudo, in a private mount namespace), the Debian
# package (built from a clean clone, unpacked into a throwaway root) and
# the bash completion.  Needs root; see tests/pkg/run.sh.
# The README's quick start typed as written in a fresh debootstrap
# --variant=minbase root (tests/fresh): the first command always,
# `make check` too with FRESH_CHECK=1 (half an hour).  Root, debootstrap
# and the Debian archive; skipped with the reason otherwise.  CI runs it.
# Every security decision flipped, one at a time, in a scratch copy: the
# test named for it must fail (tests/mutants/README.md holds the last full
# run).  mutants-quick: those a unit test kills, for CI; mutants: all,
# the live ones as root, the eBPF ones in one VM boot per cached kernel.
.PHONY: mutants mutants-quick
mutants:
	bash tests/mutants/run.sh
mutants-quick:
	bash tests/mutants/run.sh --quick

# Do the suites judge what they say?  Each against the real build and
# three stand-ins that confine nothing (tests/standin/run.sh); root, about
# 40 minutes, the vm part a boot per stand-in.  Not in CI: a proof of the
# tests, rerun when they change.
.PHONY: standin
standin: all $(BUILD)/tests/adversary $(BUILD)/tests/fchelper $(BUILD)/tests/bpfdrive
	BUILD=$(BUILD) bash tests/standin/run.sh $(STANDIN_SUITES)

.PHONY: fresh
fresh:
	bash tests/fresh/run.sh $(if $(filter 1,$(FRESH_CHECK)),--check)

.PHONY: package-test
package-test: $(BUILD)/stepguard
	STEPGUARD=$(CURDIR)/$(BUILD)/stepguard bash tests/pkg/run.sh

# The Debian package, built one way only (a release, a self-hosted
# runner's image and the packaging tests all use this): dpkg-buildpackage
# -us -uc -b in an export of HEAD (git archive), so that neither build/
# nor uncommitted changes reach the package.  The .deb, .buildinfo and
# .changes land in $(DEB_DIR).  The package's make must not inherit this
# one's command line (MAKEFLAGS: BUILD=, the jobserver): debian/rules
# says how it builds.
DEB_DIR ?= $(BUILD)/deb
.PHONY: deb
deb:
	@git rev-parse --verify -q HEAD > /dev/null || \
		{ echo "make deb: not a git checkout; in an unpacked source tree run dpkg-buildpackage -us -uc -b" >&2; exit 1; }
	@[ -z "$$(git status --porcelain --untracked-files=no)" ] || \
		echo "make deb: the work tree has uncommitted changes; the package is built from HEAD without them" >&2
	rm -rf $(DEB_DIR)
	mkdir -p $(DEB_DIR)/src
	git archive --format=tar HEAD | tar -xf - -C $(DEB_DIR)/src
	cd $(DEB_DIR)/src && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u MAKEOVERRIDES \
		dpkg-buildpackage -us -uc -b
	rm -rf $(DEB_DIR)/src
	@ls $(DEB_DIR)/*.deb

clean:
	rm -rf build

# The VM kernels (about 140 MB) survive "make clean"; this removes them.
clean-vm:
	rm -rf tests/vm/cache

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
