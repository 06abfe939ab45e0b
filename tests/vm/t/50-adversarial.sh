# 50-adversarial.sh — the adversarial suite (tests/host/run.sh) inside the
# VM, through the backends this boot can provide, each named with
# --filter so that nothing falls back to another backend unseen:
#
#   boot with bpf in lsm=      bpf-lsm as root; below 6.12 also landlock as
#                              the unprivileged sgtest
#   boot without bpf           bpf-fmod as root; landlock as root
#
# (sg.adv=bpf-fmod:sudo:sgtest runs the suite as GitHub's runners run
# stepguard, started by root with SUDO_UID; 30-launcher-bpf covers that
# drop on eBPF in every boot.)
#   boot without Landlock      nothing here (10-stepguard proves the refusal)
#
# Every case of every pass is one result line,
#     VMTEST adv.<backend>.<user>/<kind>/<case> PASS|FAIL|SKIP <what>
# (kind deny or allow: a case name can be both, e.g. chown)
# so a regression names the case, the backend, the user and the kernel.
# The suite judges each case from outside (the file system afterwards)
# and first runs it unconfined to prove that it can land: a case that does
# not land even unconfined on this kernel is a SKIP with the reason.
#
# sg.adv=BACKEND:USER,... on the kernel command line (SG_VM_APPEND of
# tests/vm/run.sh) chooses the passes instead, e.g. sg.adv=bpf-fmod:root
# for a quick look, sg.adv=ebpf:root for the one eBPF backend the boot
# enforces with (what `make asan` runs); sg.adv=none turns the suite off.
#
# needs: stepguard adversary mkfs.ext4 /usr/local/share/stepguard/adversarial.sh
# needs: /opt/gnu/bin/bash /opt/gnu/bin/grep /opt/gnu/bin/setpriv /opt/gnu/bin/getent /opt/gnu/bin/losetup

SUITE=/usr/local/share/stepguard/adversarial.sh
GNU=/opt/gnu/bin

# Which passes this boot runs.  The unconfined half of each case depends
# on the kernel and the user, not on the backend: it runs once per user
# and boot (SG_ADV_SANITY_CACHE), so a second backend for the same user
# costs about half a pass.
if vm_lsm_active bpf; then
	passes="bpf-lsm:root"
	# Landlock as the unprivileged user on the older kernel only: the
	# host runs it on its own (newest) ABI, and 6.12's ABI 6 differs from
	# that by nothing the suite can see; 6.1's ABI 2 is where Landlock and
	# the supervisor split the work differently.  CI's time is bounded: a
	# whole pass costs about three minutes of TCG.
	case $(uname -r) in
	[0-5].* | 6.[0-9].* | 6.1[01].*) passes="$passes landlock:sgtest" ;;
	esac
elif vm_lsm_active landlock; then
	# landlock:root reuses bpf-fmod:root's unconfined runs: half a pass.
	passes="bpf-fmod:root landlock:root"
else
	vm_plan 1
	skip adversarial "Landlock is off in this boot: every unprivileged step is refused (10-stepguard)"
	return 0
fi
want=$(vm_cmdline sg.adv)
case $want in
'') ;;
none) vm_plan 1; skip adversarial "sg.adv=none on the kernel command line"; return 0 ;;
*) passes=$(echo "$want" | tr ',' ' ') ;;
esac

# The plan: every case the suite lists, once a pass, and the pass's own
# result.  (--list names the cases without running anything.)
ncases=$(PATH=$GNU:$PATH STEPGUARD=$(command -v stepguard) ADVERSARY=$(command -v adversary) \
	"$GNU/bash" "$SUITE" --list | grep -cE '^(deny|allow) ')
npasses=$(echo $passes | wc -w)
vm_plan $((npasses * (ncases + 1))) "$npasses passes of $ncases cases, and each pass's result"

# The tree lives on ext4, not tmpfs: real inodes, user xattrs on 6.1
# (tmpfs has them only from 6.6), inode flags (chattr), and set-user-ID
# programs that run (the initramfs mounts /var/tmp nosuid).
img=/run/adv-ext4.img
if ! { dd if=/dev/zero of="$img" bs=1M count=0 seek=192 2> /dev/null &&
	mkfs.ext4 -q -F "$img" && mount -o loop "$img" /var/tmp; } > /run/adv-mount.out 2>&1; then
	vm_show < /run/adv-mount.out
	fail adversarial "could not mount an ext4 image on /var/tmp for the suite's tree"
	return 0
fi
chmod 1777 /var/tmp
# A second group for sgtest, so that chgrp is an attack it can make.
grep -q '^sgtest-alt:' /etc/group || echo 'sgtest-alt:x:1001:sgtest' >> /etc/group

sanity=/run/adv-sanity
mkdir -p "$sanity" && chmod 1777 "$sanity"

for pass in $passes; do
	backend=${pass%%:*} who=${pass#*:}
	# "ebpf": the eBPF backend this boot enforces with (sg.adv=ebpf:root).
	if [ "$backend" = ebpf ]; then
		if vm_lsm_active bpf; then backend=bpf-lsm; else backend=bpf-fmod; fi
	fi
	tag="adv.$backend.$(echo "$who" | tr ':' '-')"
	out=/run/$tag.out
	start=$(awk '{ print $1 }' /proc/uptime)
	# GNU tools first for the harness (the steps themselves get PATH
	# /usr/local/bin:/usr/bin:/bin, busybox, as the suite sets).
	PATH=$GNU:$PATH SG_ADV_SANITY_CACHE=$sanity STEPGUARD=$(command -v stepguard) ADVERSARY=$(command -v adversary) \
		"$GNU/bash" "$SUITE" --as "$who" --filter "$backend" > "$out" 2>&1
	st=$?
	secs=$(awk -v a="$start" '{ printf "%.0f", $1 - a }' /proc/uptime)
	# Result lines are "STATUS KIND NAME WHAT"; the lines under a FAIL
	# say what landed, and are shown as they are.
	sed -n 's/^\(PASS\|FAIL\|SKIP\) \(deny\|allow\) *\([^ ]*\) *\(.*\)$/\1 \2\/\3 \4/p' "$out" |
		while read -r r name what; do
			vm_result "$r" "$tag/$name" "$what"
		done
	grep -v '^\(PASS\|SKIP\) ' "$out" | grep -v '^VMTEST' | vm_show
	summary=$(grep '^adversarial: ' "$out" | tail -n 1)
	if [ -z "$summary" ]; then
		fail "$tag" "the suite did not finish (exit $st)"
	elif [ "$st" != 0 ]; then
		fail "$tag" "exit $st: $summary"
	else
		pass "$tag" "$summary in $secs s"
	fi
done
umount /var/tmp 2> /dev/null || vm_show < /dev/null
