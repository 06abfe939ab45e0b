# 10-stepguard.sh — the built launcher on this kernel: it runs, decides,
# proves its confinement (--self-test), and refuses to start when the
# backend it needs is missing (the fail-closed row "Landlock off": the VM
# is booted with lsm= lacking landlock).

if ! command -v stepguard > /dev/null; then
	skip stepguard "stepguard is not in the image (not built)"
	return 0
fi

# The step's work directory: stepguard confines writes to it.
mkdir -p /tmp/work /home/sgtest/work
chown 1000:1000 /home/sgtest/work
cd /tmp/work || exit 1

# A refusal must say that Landlock is the missing piece, not merely echo
# "--filter landlock" back: "Landlock is built into this kernel but not
# enabled", "Landlock unavailable", "no Landlock"...
landlock_off='landlock[^.]*(not (an )?(active|enabled|available|supported)|unavailable|disabled)|no landlock'

vm_expect version 0 '^stepguard [0-9]' stepguard --version
# --check says whether the step would run: without Landlock (and until
# an eBPF backend exists) it would not, and --check says so with 71.
if vm_lsm_active landlock; then
	vm_expect check-true 0 '' stepguard --check -- true
else
	vm_expect check-true 71 "$landlock_off" stepguard --check -- true
fi

if vm_lsm_active landlock; then
	vm_expect self-test 0 '' stepguard --self-test
	# The allowed side of the refusal below: with Landlock, a step runs.
	vm_expect run-true 0 '' stepguard -- true
	vm_expect run-true-user 0 '' as_user sh -c 'cd work && stepguard -- true'
else
	# No backend can enforce on this boot yet (no eBPF backend exists), so
	# stepguard must refuse rather than run the step unconfined.  When
	# bpf-fmod lands, auto will pick it here: the self-test and run rows
	# then expect 0 and a start line naming bpf-fmod.
	vm_expect self-test 71 '' stepguard --self-test
	vm_expect refuse-no-landlock 71 "$landlock_off" stepguard -- true
	vm_expect refuse-filter-landlock 71 "$landlock_off" stepguard --filter landlock -- true
fi
