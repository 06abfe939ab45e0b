#!/bin/bash
# mkinitramfs.sh — build the initramfs a test VM boots into.
#
#   tests/vm/mkinitramfs.sh --test SCRIPT [--kernel RELEASE] [--module NAME]...
#           OUT.cpio.gz [FILE | SRC:DEST]...
#
# The image holds busybox-static and its applet links, each FILE (at
# /usr/local/bin/<name>, or at DEST when given as SRC:DEST; a directory is
# copied whole) with every shared library ldd names for it and the dynamic
# loader, /etc/passwd and /etc/group with root and the unprivileged sgtest
# (uid 1000, /home/sgtest), the guest library (/lib/vmtest.sh), SCRIPT as
# /test.sh, and /init.  /init mounts proc, sys, devtmpfs, securityfs, bpffs,
# cgroup2 and tmpfs (/tmp, /var/tmp, /run, /dev/shm), loads the modules,
# runs /test.sh, prints `VM-EXIT <status>` and powers off.
#
# --kernel RELEASE   take modules from tests/vm/cache/RELEASE (or a path to
#                    an unpacked tree holding lib/modules/RELEASE)
# --module NAME      a module to load at boot, with what it depends on
#                    (repeatable; default with --kernel: loop).  Built-in
#                    modules are noted and skipped.
#
# Needs: busybox (static), cpio, gzip, ldd, xz/zstd for compressed modules.
# Does not need root: the one device node (/dev/console) is written into
# the archive directly.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cache=${SG_VM_CACHE:-$here/cache}
usage() {
	echo "usage: $0 --test SCRIPT [--kernel RELEASE] [--module NAME]... OUT.cpio.gz [FILE|SRC:DEST]..." >&2
	exit 64
}
die() { echo "mkinitramfs: $*" >&2; exit 1; }

test_script='' kernel='' modules=() modules_given=0
while [ $# -gt 0 ]; do
	case $1 in
	--test) [ $# -ge 2 ] || usage; test_script=$2; shift 2 ;;
	--kernel) [ $# -ge 2 ] || usage; kernel=$2; shift 2 ;;
	--module) [ $# -ge 2 ] || usage; modules+=("$2"); modules_given=1; shift 2 ;;
	--) shift; break ;;
	-*) usage ;;
	*) break ;;
	esac
done
if [ $# -lt 1 ] || [ -z "$test_script" ]; then usage; fi
out=$1
shift
[ -r "$test_script" ] || die "$test_script: not readable"

busybox=$(command -v busybox) || die "busybox not found (apt-get install busybox-static)"
# A dynamic busybox would need its libraries and fail in confusing ways.
if ldd "$busybox" >/dev/null 2>&1; then
	die "$busybox is dynamically linked; install busybox-static"
fi

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage"/{bin,sbin,usr/bin,usr/sbin,usr/local/bin,etc,lib,lib64,proc,sys,tmp,var/tmp,run,root,home,mnt}
chmod 1777 "$stage/tmp" "$stage/var/tmp"
chmod 0700 "$stage/root"

cp "$busybox" "$stage/bin/busybox"
"$busybox" --list-full | while read -r applet; do
	[ "$applet" = bin/busybox ] && continue
	mkdir -p "$stage/$(dirname "$applet")"
	ln -sf /bin/busybox "$stage/$applet"
done

is_elf() { [ "$(LC_ALL=C head -c 4 "$1" 2>/dev/null)" = $'\177ELF' ]; }

# put SRC DEST: copy into the image (dereferenced; DEST replaces an applet
# link of the same name), with the libraries an ELF file needs.
put() {
	local src=$1 dest=$2 lib
	[ -e "$src" ] || die "$src: no such file"
	rm -rf "${stage:?}$dest"
	mkdir -p "$stage$(dirname "$dest")"
	if [ -d "$src" ]; then
		cp -a "$src" "$stage$dest"
		return
	fi
	cp -L --preserve=mode "$src" "$stage$dest"
	is_elf "$src" || return 0
	# ldd lists the loader as an absolute path and each library as
	# "name => path"; "not found" means the binary cannot run in the VM.
	if ldd "$src" 2>&1 | grep -q 'not found'; then
		die "$src: ldd reports a missing library: $(ldd "$src" | grep 'not found' | tr -s ' \t' ' ')"
	fi
	for lib in $(ldd "$src" 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }'); do
		[ -e "$stage$lib" ] && continue
		mkdir -p "$stage$(dirname "$lib")"
		cp -L --preserve=mode "$lib" "$stage$lib"
	done
}

for spec in "$@"; do
	case $spec in
	*:/*) put "${spec%%:/*}" "/${spec#*:/}" ;;
	*) put "$spec" "/usr/local/bin/$(basename "$spec")" ;;
	esac
done
cp "$test_script" "$stage/test.sh"
chmod 0755 "$stage/test.sh"
cp "$here/vmtest.sh" "$stage/lib/vmtest.sh"

cat > "$stage/etc/passwd" <<'PASSWD'
root:x:0:0:root:/root:/bin/sh
sgtest:x:1000:1000:stepguard test user:/home/sgtest:/bin/sh
nobody:x:65534:65534:nobody:/nonexistent:/bin/false
PASSWD
cat > "$stage/etc/group" <<'GROUP'
root:x:0:
sgtest:x:1000:
nogroup:x:65534:
GROUP
printf 'passwd: files\ngroup: files\nshadow: files\nhosts: files\n' > "$stage/etc/nsswitch.conf"
printf '127.0.0.1 localhost sgvm\n' > "$stage/etc/hosts"
: > "$stage/etc/fstab"

# Modules: resolve dependencies here from each module's "depends=" string
# (no depmod or kmod needed on the host), decompress, and write the load
# order for /init, which loads them with busybox insmod.
release=
: > "$stage/lib/modules.load"
if [ -n "$kernel" ]; then
	if [ -d "$kernel/lib/modules" ]; then
		tree=$kernel
	else
		tree=$cache/$kernel
	fi
	release=$(find "$tree/lib/modules" -mindepth 1 -maxdepth 1 -type d -printf '%f\n' 2>/dev/null | head -n 1 || true)
	[ -n "$release" ] || die "$tree: no lib/modules/<release> (run tests/vm/fetch-kernels.sh)"
	moddir=$tree/lib/modules/$release
	[ "$modules_given" = 1 ] || modules=(loop)
	mkdir -p "$stage/lib/modules/$release"
	declare -A done_mod=()

	modfile() {  # NAME -> path of its .ko[.xz|.zst|.gz], "-" and "_" alike
		local n=$1 alt=${1//-/_}
		find "$moddir/kernel" \( -name "$n.ko*" -o -name "$alt.ko*" -o -name "${n//_/-}.ko*" \) | head -n 1
	}
	unpack() {
		case $1 in
		*.ko) cat "$1" ;;
		*.ko.xz) xz -dc "$1" ;;
		*.ko.zst) zstd -dcq "$1" ;;
		*.ko.gz) gzip -dc "$1" ;;
		*) return 1 ;;
		esac
	}
	add_module() {
		local name=${1//-/_} f dep
		[ -n "${done_mod[$name]-}" ] && return 0
		done_mod[$name]=1
		if grep -Eq "/${name//_/[-_]}\.ko$" "$moddir/modules.builtin" 2>/dev/null; then
			echo "mkinitramfs: module $name is built into $release" >&2
			return 0
		fi
		f=$(modfile "$name")
		[ -n "$f" ] || die "module $name: not in $moddir"
		unpack "$f" > "$stage/lib/modules/$release/$name.ko"
		# Load what it depends on first.
		for dep in $(tr '\0' '\n' < "$stage/lib/modules/$release/$name.ko" |
			LC_ALL=C grep -a '^depends=' | head -n 1 | cut -d= -f2 | tr ',' ' '); do
			add_module "$dep"
		done
		echo "/lib/modules/$release/$name.ko" >> "$stage/lib/modules.load"
	}
	for m in "${modules[@]}"; do add_module "$m"; done
fi

cat > "$stage/init" <<'INIT'
#!/bin/sh
# /init — PID 1 of a stepguard test VM: mount what the tests need, run
# /test.sh, report its status on the console, power off.  If this script
# ever exits, the kernel panics and (panic=-1, -no-reboot) QEMU stops: the
# host sees no VM-EXIT line and fails the boot.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root TERM=dumb LANG=C

mount -t devtmpfs -o mode=0755,nosuid devtmpfs /dev
exec </dev/console >/dev/console 2>&1

warn() { echo "VM-INIT: $*"; }
mnt() {  # TYPE DIR [OPTIONS]: a missing file system is reported, not fatal
	mkdir -p "$2"
	mount -t "$1" ${3:+-o "$3"} "$1" "$2" || warn "mount -t $1 $2 failed"
}
mnt proc /proc nosuid,nodev,noexec
mnt sysfs /sys nosuid,nodev,noexec
mnt securityfs /sys/kernel/security nosuid,nodev,noexec
mnt bpf /sys/fs/bpf mode=0700
mnt cgroup2 /sys/fs/cgroup nosuid,nodev,noexec
mnt tmpfs /run mode=0755,nosuid,nodev
mnt tmpfs /tmp mode=1777,nosuid,nodev
mnt tmpfs /var/tmp mode=1777,nosuid,nodev
mnt devpts /dev/pts mode=0620,ptmxmode=0666,nosuid,noexec
mnt tmpfs /dev/shm mode=1777,nosuid,nodev
# What udev would link: bash's process substitution opens /dev/fd/N.
ln -s /proc/self/fd /dev/fd
ln -s /proc/self/fd/0 /dev/stdin
ln -s /proc/self/fd/1 /dev/stdout
ln -s /proc/self/fd/2 /dev/stderr
# Kernel messages would interleave with the test lines on the one console;
# the guest library reads dmesg instead.
dmesg -n 1
ip link set lo up 2>/dev/null
hostname sgvm

while read -r ko; do
	insmod "$ko" || warn "insmod $ko failed"
done < /lib/modules.load

mkdir -p /home/sgtest
chown 1000:1000 /home/sgtest
chmod 0755 /home/sgtest

if [ -x /test.sh ]; then
	(cd / && /test.sh)
	status=$?
else
	warn "no /test.sh"
	status=127
fi
sync
echo "VM-EXIT $status"
poweroff -f
sleep 10
INIT
chmod 0755 "$stage/init"

# newc header for one entry without data (mtime 0, owned by root).
newc() {  # NAME MODE RDEVMAJOR RDEVMINOR
	local namesize=$((${#1} + 1)) pad
	printf '070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X' \
		0 "$2" 0 0 1 0 0 0 0 "$3" "$4" "$namesize" 0
	printf '%s\0' "$1"
	pad=$(((4 - (110 + namesize) % 4) % 4))
	head -c "$pad" /dev/zero
}

mkdir -p "$(dirname "$out")"
{
	# /dev/console must exist before devtmpfs is mounted, or the kernel
	# starts /init without stdin, stdout and stderr.
	newc dev $((0040755)) 0 0
	newc dev/console $((0020600)) 5 1
	(cd "$stage" && find . -mindepth 1 -printf '%P\n' | LC_ALL=C sort |
		cpio -o -H newc -R 0:0 --reproducible --quiet)
} | gzip -n -1 > "$out.tmp"
mv "$out.tmp" "$out"
echo "mkinitramfs: $out ($(du -k "$out" | cut -f1) KiB${release:+, modules for $release: $(wc -l < "$stage/lib/modules.load")})" >&2
