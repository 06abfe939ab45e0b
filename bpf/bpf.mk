# bpf/bpf.mk — the eBPF write filter, included by the top Makefile (which
# defines BUILD, CC, CFLAGS, CPPFLAGS, PKG_CONFIG, PLAIN_CFLAGS).
#
#   $(BUILD)/bpf/vmlinux.h         this machine's kernel types (bpftool btf dump);
#                                  generated, never committed
#   $(BUILD)/bpf/stepguard.bpf.o   CO-RE: clang -g -O2 -target bpf
#   $(BUILD)/bpf/stepguard.skel.h  bpftool gen skeleton: embeds the object,
#                                  so the binary is all that is installed
#   $(BPF_OBJS)                    the loader and the event helpers
#   $(BUILD)/tests/bpfdrive        the VM tests' driver (tests/bpf/bpfdrive.c)
#   bpf-unit                       cmocka tests of the event reader (no root)
#
# The object is CO-RE: built against this machine's BTF, it relocates at
# load time to the running kernel's (6.1 and 6.12 in the VM tests).
# VMLINUX_BTF names another BTF source (a vmlinux with .BTF, or a raw BTF
# file) for build machines without /sys/kernel/btf/vmlinux.

BPF_CLANG   ?= clang
BPFTOOL     ?= bpftool
LLVM_STRIP  ?= llvm-strip
VMLINUX_BTF ?= /sys/kernel/btf/vmlinux
BPF_ARCH    := $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/' \
			-e 's/ppc64le/powerpc/' -e 's/s390x/s390/' -e 's/riscv64/riscv/')
BPF_GEN     := $(BUILD)/bpf
BPF_OBJS    := $(BUILD)/bpf/loader.o $(BUILD)/bpf/pins.o $(BUILD)/bpf/scope.o \
	       $(BUILD)/bpf/events.o
BPF_CPPFLAGS = -I$(BPF_GEN) $(shell $(PKG_CONFIG) --cflags libbpf)
BPF_LDLIBS   = $(shell $(PKG_CONFIG) --libs libbpf)

$(BPF_GEN)/vmlinux.h:
	@mkdir -p $(@D)
	@if [ ! -r "$(VMLINUX_BTF)" ]; then \
		echo "bpf: no kernel BTF at $(VMLINUX_BTF) (a kernel built without CONFIG_DEBUG_INFO_BTF?)." >&2; \
		echo "bpf: the eBPF filter is compiled against it; set VMLINUX_BTF=<vmlinux or BTF file>." >&2; \
		exit 1; \
	fi
	$(BPFTOOL) btf dump file $(VMLINUX_BTF) format c > $@.tmp
	mv $@.tmp $@

# DWARF is stripped (the skeleton embeds the object; BTF, which CO-RE
# needs, stays).
BPF_SRCS := bpf/stepguard.bpf.c bpf/maps.bpf.h bpf/decide.bpf.h bpf/report.bpf.h bpf/guards.bpf.h bpf/reach.bpf.h \
	bpf/events.h lib/vocab.h

$(BPF_GEN)/stepguard.bpf.o: $(BPF_SRCS) $(BPF_GEN)/vmlinux.h
	@mkdir -p $(@D)
	$(BPF_CLANG) -g -O2 -target bpf -D__TARGET_ARCH_$(BPF_ARCH) -Wall -Werror \
		-I$(BPF_GEN) -I. $(shell $(PKG_CONFIG) --cflags libbpf) -c $< -o $@.tmp
	$(LLVM_STRIP) -g $@.tmp
	mv $@.tmp $@

$(BPF_GEN)/stepguard.skel.h: $(BPF_GEN)/stepguard.bpf.o
	$(BPFTOOL) gen skeleton $< name stepguard_bpf > $@.tmp
	mv $@.tmp $@

# The skeleton is only included by loader.c; the others need libbpf's headers.
$(BUILD)/bpf/loader.o: $(BPF_GEN)/stepguard.skel.h
$(BUILD)/bpf/loader.o $(BUILD)/bpf/pins.o $(BUILD)/bpf/scope.o $(BUILD)/bpf/events.o: \
		$(BUILD)/bpf/%.o: bpf/%.c bpf/loader.h bpf/loader_internal.h bpf/pins.h bpf/events.h
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(BPF_CPPFLAGS) $(CFLAGS) -MMD -MP -c -o $@ $<

# Runs as root in the VM, outside the filter: no sanitizers needed, but
# built with the same warnings.
$(BUILD)/tests/bpfdrive: tests/bpf/bpfdrive.c $(BPF_OBJS)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(BPF_CPPFLAGS) $(PLAIN_CFLAGS) -I. -o $@ $< $(BPF_OBJS) $(BPF_LDLIBS)

.PHONY: bpf
bpf: $(BUILD)/tests/bpfdrive

# Unit tests of the pure parts (no kernel, no root): cmocka.
BPF_UNIT_BINS := $(BUILD)/tests/bpf/test_bpf_events

$(BUILD)/tests/bpf/test_bpf_events: tests/bpf/test_bpf_events.c $(BUILD)/bpf/events.o
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(BPF_CPPFLAGS) $(shell $(PKG_CONFIG) --cflags cmocka) $(CFLAGS) \
		-Wno-missing-prototypes -o $@ $^ $(shell $(PKG_CONFIG) --libs cmocka)

.PHONY: bpf-unit
bpf-unit: $(BPF_UNIT_BINS)
	@set -e; for t in $(BPF_UNIT_BINS); do echo "== $$t"; $$t; done
