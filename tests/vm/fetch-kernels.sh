#!/bin/bash
# fetch-kernels.sh — put the Debian cloud kernels the VM tests boot into
# tests/vm/cache/<release>/ and print their releases, one a line.
#
#   tests/vm/fetch-kernels.sh            resolve, download if needed, print
#   tests/vm/fetch-kernels.sh --offline  print what the cache already holds
#                                        (no apt; run.sh: SG_VM_OFFLINE=1)
#
# Which kernels: the package each meta-package in $SG_VM_KERNEL_METAS depends
# on, resolved with apt-cache now, never written down here, because the ABI
# number in the name (6.1.0-NN) moves with every stable update and a pinned
# name vanishes from the archive.  Default metas: linux-image-cloud-amd64
# (6.1 on bookworm) and linux-image-6.12-cloud-amd64 (6.12 from
# bookworm-security/backports).  A meta the archive lacks is reported and
# left out; no kernel at all is an error.
#
# Idempotent: a release whose unpacked tree records the same package and
# version is not downloaded again.  Safe to run concurrently (flock).
# Needs: apt-get, apt-cache, dpkg-deb, flock; network to the archive only
# when something is missing.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cache=${SG_VM_CACHE:-$here/cache}
metas=${SG_VM_KERNEL_METAS:-"linux-image-cloud-amd64 linux-image-6.12-cloud-amd64"}
offline=0
case ${1-} in
--offline) offline=1 ;;
"") ;;
*) echo "usage: $0 [--offline]" >&2; exit 64 ;;
esac

say() { echo "fetch-kernels: $*" >&2; }

mkdir -p "$cache"
exec 9>"$cache/.fetch.lock"
flock 9

cached_releases() {
	local d
	for d in "$cache"/*/; do
		[ -f "$d/vmlinuz" ] && [ -f "$d/.package" ] && basename "$d"
	done
	return 0
}

if [ "$offline" = 1 ]; then
	cached_releases
	exit 0
fi

# candidate PKG: the version apt would install, empty when none.
candidate() {
	apt-cache policy "$1" 2>/dev/null | awk '$1 == "Candidate:" && $2 != "(none)" { print $2 }'
}

# A fresh container has no package lists; CI runs `make deps` (apt-get
# update) first, but do it here too rather than fail on an empty cache.
lists=$(find /var/lib/apt/lists -maxdepth 1 -name '*_Packages*' 2>/dev/null | head -n 1 || true)
if [ "$(id -u)" = 0 ] && [ -z "$lists" ]; then
	say "no package lists: running apt-get update"
	apt-get update >&2
fi

releases=()
for meta in $metas; do
	if [ -z "$(candidate "$meta")" ]; then
		say "$meta: not in the archive, skipped"
		continue
	fi
	# The meta depends on the signed image; the -unsigned one has the
	# same vmlinuz and modules without the Secure Boot signature, which
	# QEMU's direct kernel boot does not need.  Take either.
	dep=$(apt-cache depends "$meta" | awk '$1 ~ /^\|?Depends:$/ && $2 ~ /^linux-image-/ { print $2; exit }')
	if [ -z "$dep" ]; then
		say "$meta: no linux-image dependency found, skipped"
		continue
	fi
	pkg=$dep-unsigned
	ver=$(candidate "$pkg")
	if [ -z "$ver" ]; then
		pkg=$dep
		ver=$(candidate "$pkg")
	fi
	if [ -z "$ver" ]; then
		say "$meta: $dep has no installable candidate, skipped"
		continue
	fi
	release=${dep#linux-image-}
	dest=$cache/$release
	if [ -f "$dest/vmlinuz" ] && [ "$(cat "$dest/.package" 2>/dev/null)" = "$pkg $ver" ]; then
		say "$release: cached ($pkg $ver)"
		releases+=("$release")
		continue
	fi

	say "$release: downloading $pkg $ver"
	tmp=$(mktemp -d "$cache/.dl.XXXXXX")
	# apt-get download writes into the current directory; as root it
	# warns that _apt cannot write there and downloads unsandboxed.
	(cd "$tmp" && apt-get download -q "$pkg=$ver" 2>&1 | grep -v '^W: Download is performed unsandboxed' >&2) || true
	deb=$(find "$tmp" -maxdepth 1 -name '*.deb' | head -n 1)
	if [ -z "$deb" ]; then
		rm -rf "$tmp"
		say "$release: apt-get download $pkg=$ver failed"
		exit 1
	fi
	dpkg-deb -x "$deb" "$tmp/root"
	if [ ! -f "$tmp/root/boot/vmlinuz-$release" ] || [ ! -d "$tmp/root/lib/modules/$release" ]; then
		rm -rf "$tmp"
		say "$release: $pkg holds no boot/vmlinuz-$release or lib/modules/$release"
		exit 1
	fi
	# Keep what a boot needs (kernel, config, modules); drop the rest
	# and the .deb, so the cache stays ~100 MB per kernel.
	mkdir -p "$tmp/out/lib/modules"
	mv "$tmp/root/boot/vmlinuz-$release" "$tmp/out/vmlinuz"
	mv "$tmp/root/boot/config-$release" "$tmp/out/config"
	mv "$tmp/root/lib/modules/$release" "$tmp/out/lib/modules/"
	echo "$pkg $ver" > "$tmp/out/.package"
	rm -rf "$dest"
	mv "$tmp/out" "$dest"
	rm -rf "$tmp"
	releases+=("$release")
done

if [ ${#releases[@]} = 0 ]; then
	say "no kernel found; is this a Debian archive with $metas?" \
		"(SG_VM_KERNEL_METAS overrides the list)"
	exit 1
fi
# Kernels an earlier run fetched that the archive has since replaced (the
# ABI number moved on): ~100 MB each, nothing boots them any more.
for d in "$cache"/*/; do
	r=$(basename "$d")
	[ -f "$d/.package" ] || continue
	printf '%s\n' "${releases[@]}" | grep -qxF -- "$r" && continue
	say "$r: superseded, removed from the cache"
	rm -rf "$d"
done
printf '%s\n' "${releases[@]}"
