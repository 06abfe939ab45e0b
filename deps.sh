#!/bin/sh
# deps.sh [--print] [build|check] — install what building stepguard (build, the
# default) or running its tests (check: make check, make asan, make lint,
# the packaging tests) needs, from Debian's or Ubuntu's archive, make
# included: a minimal image (a container, debootstrap --variant=minbase, a
# cloud "minimal" image) has no make, so this is plain sh and the README's
# first command.  As root, or through sudo where that is the way (a CI
# runner).  `make deps` and `make deps-build` call it; the package lists
# live here only.
#
# --print writes the list instead (the Makefile's DEB_*PACKAGES, which
# the packaging tests compare with debian/control).
#
# BPFTOOL_DEB overrides the packages that provide bpftool.  Debian has a
# bpftool package; Ubuntu ships bpftool with the running kernel's tools,
# behind a /usr/sbin/bpftool wrapper that fails without them: when the
# bpftool package cannot be had, or its bpftool does not run, this falls
# back to linux-tools-common and linux-tools-$(uname -r).
set -eu

print=0
if [ "${1:-}" = --print ]; then print=1; shift; fi
what=${1:-build}
case $what in
build | check) ;;
*) echo "usage: sh deps.sh [--print] [build|check]" >&2; exit 64 ;;
esac

# What building needs: the compiler and make (build-essential), the libraries (pkg-config,
# linked statically, see the Makefile), clang, llvm and bpftool for the
# CO-RE eBPF object and its skeleton.
BUILD_PACKAGES="build-essential pkg-config libinih-dev libseccomp-dev libbpf-dev
	libelf-dev zlib1g-dev libjson-c-dev nettle-dev clang llvm"
# What the tests add: cmocka; mandoc, cppcheck, clang-tidy, shellcheck
# (make lint); the VM tests (QEMU, busybox, cpio, e2fsprogs); the host and
# compatibility suites' tools (attr, acl, passwd for the test user, sudo,
# strace, rsync, git, python3 and its venv, patch, util-linux, bubblewrap
# for the benchmark); the Debian package (debhelper, dpkg-dev); ASan's and
# libFuzzer's runtime (libclang-rt-dev); python3-yaml (the Action's file);
# debootstrap (tests/fresh, the quick start on a fresh minimal Debian).
CHECK_PACKAGES="libcmocka-dev mandoc cppcheck attr python3 passwd qemu-system-x86
	busybox-static cpio e2fsprogs util-linux bubblewrap debhelper dpkg-dev python3-yaml
	shellcheck sudo git libclang-rt-dev clang-tidy strace rsync acl python3-venv patch
	ca-certificates debootstrap"

packages=$BUILD_PACKAGES
[ "$what" = check ] && packages="$packages $CHECK_PACKAGES"
if [ "$print" = 1 ]; then
	# shellcheck disable=SC2086 # one word a line
	printf '%s\n' $packages ${BPFTOOL_DEB:-bpftool}
	exit 0
fi

if [ "$(id -u)" = 0 ]; then
	as_root=
elif command -v sudo >/dev/null 2>&1; then
	as_root=sudo
else
	echo "deps.sh: installing packages needs root: run it as root, or install sudo" >&2
	exit 77
fi

install() {
	# shellcheck disable=SC2086 # the lists are words
	$as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "$@"
}

$as_root env DEBIAN_FRONTEND=noninteractive apt-get update
# shellcheck disable=SC2086
if [ -n "${BPFTOOL_DEB:-}" ]; then
	install $packages $BPFTOOL_DEB
elif ! install $packages bpftool || ! bpftool version >/dev/null 2>&1; then
	echo "deps.sh: no working bpftool package: trying linux-tools-$(uname -r)" >&2
	install $packages linux-tools-common "linux-tools-$(uname -r)"
fi
bpftool version | sed -n 1p
