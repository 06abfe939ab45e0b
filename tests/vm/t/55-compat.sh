# 55-compat.sh — the compatibility suite (tests/compat/run.sh) on eBPF:
# real GNU tools bare and under stepguard, trees compared, through the
# boot's eBPF backend, one user a boot to keep VM time small (about 80 s
# a pass under TCG):
#
#   boot with bpf in lsm=      bpf-lsm, as root
#   boot without bpf           bpf-fmod, as sudo:sgtest (root starting
#                              stepguard with SUDO_UID: GitHub's runners)
#
# Every case is one result line,
#     VMTEST compat.<backend>.<user>/<case> PASS|FAIL|SKIP <what>
# The unprivileged sgtest cannot use eBPF (stepguard takes Landlock), and
# the host runs that pass on its newer Landlock ABI: not here.  Only the
# newest kernel's boots run it; tools the image lacks (tests/vm/run.sh
# copies GNU tar, coreutils, sed, patch, acl's tools and rsync) are
# skipped as "not in the VM image".  The steps' commands run under bash:
# busybox's sh would run its own applets (cp, tar, ...) before the GNU
# tools in PATH.  sg.compat=USER,... on the kernel command line chooses
# the users instead (root, sudo:sgtest); sg.compat=none turns it off.
#
# needs: stepguard /usr/local/share/stepguard/compat/run.sh /usr/local/share/stepguard/compat/tree.sh
# needs: /opt/gnu/bin/bash /opt/compat/bin/find

SUITE=/usr/local/share/stepguard/compat/run.sh
GNU=/opt/gnu/bin
TOOLS=/opt/compat/bin

case $(uname -r) in
[0-5].* | 6.[0-9].* | 6.1[01].*)
	vm_plan 1
	skip compat "runs in the boots of the newest kernel only (VM time): $(uname -r) is older"
	return 0 ;;
esac
if vm_lsm_active bpf; then
	backend=bpf-lsm users=root
elif vm_lsm_active landlock; then
	backend=bpf-fmod users=sudo:sgtest
else
	vm_plan 1
	skip compat "the boot without Landlock is for the fail-closed rows; compat runs in the bpf and nobpf boots"
	return 0
fi

want=$(vm_cmdline sg.compat)
case $want in
'') ;;
none) vm_plan 1; skip compat "sg.compat=none on the kernel command line"; return 0 ;;
*) users=$(echo "$want" | tr ',' ' ') ;;
esac

# The plan: every case the suite lists (the control "outside" among
# them), once a user, and each pass's own result.
ncases=$(PATH=$TOOLS:$GNU:$PATH "$GNU/bash" "$SUITE" --list | grep -c .)
nusers=$(echo $users | wc -w)
vm_plan $((nusers * (ncases + 1))) "$nusers passes of $ncases cases, and each pass's result"

for who in $users; do
	tag="compat.$backend.$(echo "$who" | tr ':' '-')"
	out=/run/$tag.out
	start=$(awk '{ print $1 }' /proc/uptime)
	# /var/tmp is tmpfs here: user xattrs and ACLs from 6.6 on.
	PATH=$TOOLS:$GNU:$PATH SG_COMPAT_BASE=/var/tmp \
		SG_COMPAT_PATH=$TOOLS:/usr/local/bin:/usr/bin:/bin \
		SG_COMPAT_MISSING="not in the VM image" SG_COMPAT_SHELL=$GNU/bash \
		STEPGUARD=$(command -v stepguard) \
		"$GNU/bash" "$SUITE" --as "$who" --filter "$backend" > "$out" 2>&1
	st=$?
	secs=$(awk -v a="$start" '{ printf "%.0f", $1 - a }' /proc/uptime)
	# "RESULT USER/CASE — WHAT"; the indented lines under a FAIL say why.
	sed -n 's/^\(PASS\|FAIL\|SKIP\) [^/ ]*\/\([^ ]*\) — \(.*\)$/\1 \2 \3/p' "$out" |
		while read -r r name what; do
			vm_result "$r" "$tag/$name" "$what"
		done
	grep -v '^\(PASS\|SKIP\) ' "$out" | grep -v '^VMTEST' | vm_show
	summary=$(grep '^compat' "$out" | grep ' passed, ' | tail -n 1)
	if [ -z "$summary" ]; then
		fail "$tag" "the suite did not finish (exit $st)"
	elif [ "$st" != 0 ]; then
		fail "$tag" "exit $st: $summary"
	else
		pass "$tag" "$summary in $secs s"
	fi
done
