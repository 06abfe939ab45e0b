# 00-kernel.sh — the VM is the machine it claims to be: the LSM list is the
# one the command line asked for, Landlock is there exactly when asked, and
# the file systems later tests need work.  If these fail, every other
# result of the boot is suspect.
#
# needs: landlock-abi mkfs.ext4 setfattr getfattr

vm_plan 6 "lsm-list landlock-abi bpffs ext4-loop ext4-xattr user"

echo "  uname -r: $(uname -r)"
echo "  lsm: $(cat /sys/kernel/security/lsm 2>/dev/null)"

# The kernel puts capability first and may append LSMs ordered last
# (6.9+: ima, evm); every LSM named in lsm= must be active, and bpf and
# landlock must be active exactly when named.
want=$(vm_cmdline lsm)
if [ ! -r /sys/kernel/security/lsm ]; then
	fail lsm-list "/sys/kernel/security/lsm is not readable (securityfs not mounted?)"
elif [ -z "$want" ]; then
	skip lsm-list "booted without lsm="
else
	missing=
	for l in $(echo "$want" | tr ',' ' '); do
		vm_lsm_active "$l" || missing="$missing $l"
	done
	extra=
	for l in bpf landlock; do
		vm_lsm_active "$l" && ! vm_lsm_requested "$l" && extra="$extra $l"
	done
	if [ -n "$missing$extra" ]; then
		fail lsm-list "lsm=$want but active $(cat /sys/kernel/security/lsm)${missing:+; missing:$missing}${extra:+; not asked for:$extra}"
	else
		pass lsm-list "lsm=$want -> active $(cat /sys/kernel/security/lsm)"
	fi
fi

abi=$(landlock-abi)
st=$?
if vm_lsm_requested landlock; then
	if [ "$st" = 0 ] && [ "$abi" -ge 1 ]; then
		pass landlock-abi "ABI $abi"
	else
		fail landlock-abi "landlock is in lsm= but $abi"
	fi
elif [ "$st" != 0 ]; then
	pass landlock-abi "not in lsm=, $abi"
else
	fail landlock-abi "landlock is not in lsm= but reports ABI $abi"
fi

# bpffs must be mounted for pinning; the eBPF tests depend on it.
if grep -q ' /sys/fs/bpf bpf ' /proc/mounts; then
	pass bpffs "mounted on /sys/fs/bpf"
else
	fail bpffs "/sys/fs/bpf is not a bpf file system"
fi

# An ext4 file system on a loop device: real inodes and xattrs for the
# write-filter tests (tmpfs lacks user xattrs and behaves differently).
rm -f /tmp/ext4.img
mkdir -p /mnt/ext4
if truncate -s 32M /tmp/ext4.img &&
	mkfs.ext4 -q -F /tmp/ext4.img > /tmp/mkfs.out 2>&1 &&
	dev=$(losetup -f) && losetup "$dev" /tmp/ext4.img &&
	mount -t ext4 "$dev" /mnt/ext4 &&
	echo hello > /mnt/ext4/file &&
	[ "$(cat /mnt/ext4/file)" = hello ]; then
	pass ext4-loop "ext4 on $dev: written and read back"
	if setfattr -n user.sg -v 1 /mnt/ext4/file &&
		[ "$(getfattr -n user.sg --only-values /mnt/ext4/file)" = 1 ]; then
		pass ext4-xattr "user.sg set and read back"
	else
		fail ext4-xattr "user xattrs do not work on ext4"
	fi
	umount /mnt/ext4
	losetup -d "$dev"
else
	vm_show < /tmp/mkfs.out
	umount /mnt/ext4 2> /dev/null
	[ -n "${dev-}" ] && losetup -d "$dev" 2> /dev/null
	fail ext4-loop "could not make, attach or mount an ext4 image (loop module loaded? $(lsmod | grep -c '^loop'))"
	fail ext4-xattr "not tried: no ext4 image (ext4-loop)"
fi
rm -f /tmp/ext4.img

# The unprivileged user the Landlock tests run as.
# shellcheck disable=SC2016 # expanded by the user's shell
ids=$(as_user sh -c 'echo "$(id -u):$(id -g):$(id -G):$HOME"; touch "$HOME/.w" && echo writable' 2>&1)
if [ "$ids" = "1000:1000:1000:/home/sgtest
writable" ]; then
	pass user "as_user runs as sgtest (1000:1000), home writable"
else
	fail user "as_user gave: $(echo "$ids" | tr '\n' ' ')"
fi
rm -f /home/sgtest/.w
