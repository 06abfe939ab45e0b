#!/bin/bash
# tests/fresh/run.sh [--check] — the README's quick start, typed as written
# (read from README.md), on a fresh minimal Debian: a debootstrap
# --variant=minbase root (no make, no compiler, nothing but apt), a clean
# clone of this repository in it, and, as root in that chroot:
#
#     sh deps.sh && make && build/stepguard --self-test        (always)
#     sh deps.sh check && make check                           (--check)
#
# The chroot is what a container gives a newcomer: /proc, /dev and /sys
# of the host, but no bpf file system, no securityfs, and a root whose
# mount propagation cannot be changed from inside.  Each command must
# exit 0, and the self-test must print PASS.
#
# Needs root, debootstrap and the Debian archive (the machine's apt
# sources name it); without them it is skipped with the reason (exit 77).
# FRESH_SUITE (bookworm), FRESH_MIRROR (the first deb.debian.org URI of
# the machine's apt sources), FRESH_CACHE (tests/fresh/cache: the minbase
# tarball, reused while it is younger than a week).
set -u
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
check=0
[ "${1:-}" = --check ] && check=1

skip() { echo "SKIP fresh: $*"; exit 77; }
[ "$(id -u)" = 0 ] || skip "needs root (debootstrap, chroot)"
command -v debootstrap >/dev/null || skip "no debootstrap (apt-get install debootstrap)"
command -v git >/dev/null || skip "no git"

# The commands are the README's own, read from its quick start (the
# first two sh blocks after "## Quick start", in the commit the chroot
# clones), so that this test types
# what the README says and fails when the two part; read first, so that
# a README that breaks the test fails before minutes of debootstrap.
readme_cmds=$(awk '/^## Quick start/ { q = 1 }
	q && /^```sh/ { b = 1; next }
	q && b && /^```/ { b = 0; if (++n == 2) exit; next }
	q && b { print }' < <(git -C "$src" show HEAD:README.md))
first_cmd=$(sed -n 1p <<<"$readme_cmds")
check_cmd=$(sed -n 2p <<<"$readme_cmds")
if [ "$(wc -l <<<"$readme_cmds")" != 2 ] || [ -z "$first_cmd" ] || [ -z "$check_cmd" ]; then
	echo "FAIL fresh: README.md's quick start is not two one-line sh blocks:"
	sed 's/^/    | /' <<<"$readme_cmds"
	exit 1
fi
case $first_cmd in *--self-test*) ;; *)
	echo "FAIL fresh: the README's first command does not run the self-test: $first_cmd"; exit 1 ;;
esac
case $check_cmd in *'make check'*) ;; *)
	echo "FAIL fresh: the README's second command does not run make check: $check_cmd"; exit 1 ;;
esac

suite=${FRESH_SUITE:-bookworm}
mirror=${FRESH_MIRROR:-}
if [ -z "$mirror" ]; then
	mirror=$(grep -rhoE 'https?://deb\.debian\.org/debian/?' /etc/apt/sources.list /etc/apt/sources.list.d/ 2>/dev/null |
		head -n 1)
	mirror=${mirror:-http://deb.debian.org/debian}
fi
cache=${FRESH_CACHE:-$here/cache}
mkdir -p "$cache"
tarball=$cache/$suite-minbase.tgz

T=$(mktemp -d /var/tmp/sg-fresh.XXXXXX)
root=$T/root
mounted=()
cleanup() {
	local i
	for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount -l "${mounted[i]}" 2>/dev/null; done
	rm -rf --one-file-system "$T"
}
trap cleanup EXIT

# The minbase root, from the cached tarball when it is recent: the
# archive is asked once a week, not on every run.
if [ -z "$(find "$tarball" -mtime -7 2>/dev/null)" ]; then
	echo "== debootstrap --variant=minbase $suite ($mirror)"
	if ! debootstrap --variant=minbase --make-tarball="$tarball.tmp" "$suite" "$T/tb" "$mirror" \
		>"$T/debootstrap.log" 2>&1; then
		tail -n 5 "$T/debootstrap.log"
		grep -qiE 'could not resolve|failed to download|unable to fetch|connection' "$T/debootstrap.log" &&
			skip "debootstrap cannot reach the archive $mirror"
		echo "FAIL fresh: debootstrap failed (above)"
		exit 1
	fi
	mv "$tarball.tmp" "$tarball"
	rm -rf "$T/tb"
fi
echo "== unpacking the minbase root"
if ! debootstrap --variant=minbase --unpack-tarball="$tarball" "$suite" "$root" "$mirror" \
	>"$T/debootstrap.log" 2>&1; then
	tail -n 5 "$T/debootstrap.log"
	echo "FAIL fresh: debootstrap could not unpack its tarball"
	exit 1
fi
# A newcomer's machine has no make, no compiler: prove this one has none.
for tool in make cc gcc clang; do
	if chroot "$root" sh -c "command -v $tool" >/dev/null 2>&1; then
		echo "FAIL fresh: the minbase root already has $tool"
		exit 1
	fi
done
cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null
cp -r /etc/apt/sources.list* "$root/etc/apt/" 2>/dev/null

# A clean clone: what a user gets, with nothing of this work tree's builds.
git clone -q "$src" "$root/src" || { echo "FAIL fresh: git clone"; exit 1; }

mnt() { mount "$@" && mounted+=("${@: -1}"); }
mnt -t proc proc "$root/proc"
mnt --rbind /dev "$root/dev"
mount --make-rslave "$root/dev" 2>/dev/null
mnt -t sysfs sysfs "$root/sys"
mnt -t tmpfs tmpfs "$root/tmp"
chmod 1777 "$root/tmp"

inroot() { # NAME COMMAND: run COMMAND as root in the chroot, in /src, by sh -c
	local name=$1 cmd=$2 start=$SECONDS rc
	echo "== in the chroot: $cmd"
	chroot "$root" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		HOME=/root TERM=dumb LANG=C.UTF-8 /bin/sh -c "cd /src && $cmd" >"$T/$name.log" 2>&1
	rc=$?
	echo "   exit $rc after $((SECONDS - start)) s"
	return $rc
}

fail=0
if inroot first "$first_cmd"; then
	if grep -q '^PASS' "$T/first.log"; then
		echo "PASS fresh-first — $(grep '^PASS' "$T/first.log" | head -n 1 | cut -c1-120)"
	else
		echo "FAIL fresh-first: exit 0 but no PASS line"; fail=1
	fi
else
	echo "FAIL fresh-first:"; tail -n 30 "$T/first.log" | sed 's/^/    | /'; fail=1
fi
if [ "$check" = 1 ] && [ "$fail" = 0 ]; then
	if inroot check "$check_cmd"; then
		echo "PASS fresh-check — $(grep -cE '^(PASS|FAIL|SKIP) ' "$T/check.log") results; skipped:"
		grep -E '^SKIP ' "$T/check.log" | cut -c1-160 | sed 's/^/    /' | head -n 60
	else
		echo "FAIL fresh-check:"
		grep -E '^FAIL|FAILED|failed' "$T/check.log" | head -n 40 | sed 's/^/    | /'
		tail -n 20 "$T/check.log" | sed 's/^/    | /'
		fail=1
	fi
	cp "$T/check.log" "$cache/last-check.log" 2>/dev/null
fi
cp "$T/first.log" "$cache/last-first.log" 2>/dev/null
echo "fresh: $((1 - fail)) passed, $fail failed"
exit $fail
