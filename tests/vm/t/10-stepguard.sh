# 10-stepguard.sh — the built launcher on this kernel: it runs, decides,
# proves its confinement (--self-test), and refuses to start when the
# backend it needs is missing (the fail-closed row "Landlock off": the VM
# is booted with lsm= lacking landlock).
#
# needs: stepguard

# version, check-true, self-test, run-true, self-test-fmod; one bpf-lsm
# row; two Landlock rows; unload, unload-again
vm_plan 10

# The step's work directory: stepguard confines writes to it.
mkdir -p /tmp/work /home/sgtest/work
chown 1000:1000 /home/sgtest/work
cd /tmp/work || exit 1

# A refusal must say that Landlock is the missing piece, not merely echo
# "--filter landlock" back: "Landlock is built into this kernel but not
# enabled", "Landlock unavailable", "no Landlock"...
landlock_off='landlock[^.]*(not (an )?(active|enabled|available|supported)|unavailable|disabled)|no landlock'

vm_expect version 0 '^stepguard [0-9]' stepguard --version
# auto picks bpf-lsm where bpf is an active LSM, else bpf-fmod (as root,
# which the VM's tests are), else Landlock.  The start line names it.
if vm_lsm_active bpf; then
	backend=bpf-lsm
else
	backend=bpf-fmod
fi
vm_expect check-true 0 '' stepguard --check -- true
vm_expect self-test 0 "backend +$backend" stepguard --self-test
vm_expect run-true 0 "write filter $backend" stepguard -- true
vm_expect self-test-fmod 0 'backend +bpf-fmod' stepguard --filter bpf-fmod --self-test
if vm_lsm_active bpf; then
	vm_expect self-test-lsm 0 'backend +bpf-lsm' stepguard --filter bpf-lsm --self-test
else
	# a lsm/ program would attach here and enforce nothing: refused by name
	vm_expect refuse-filter-bpf-lsm 71 'not an active LSM' stepguard --filter bpf-lsm -- true
fi

if vm_lsm_active landlock; then
	vm_expect self-test-landlock 0 'backend +landlock' stepguard --filter landlock --self-test
	# unprivileged, no eBPF: Landlock enforces
	vm_expect run-true-user 0 'write filter landlock' as_user sh -c 'cd work && stepguard -- true'
else
	# Without Landlock an unprivileged step has no backend at all: refused,
	# never run unconfined; and Landlock asked for by name is refused.
	vm_expect refuse-no-landlock-user 71 "$landlock_off" as_user sh -c 'cd work && stepguard -- true'
	vm_expect refuse-filter-landlock 71 "$landlock_off" stepguard --filter landlock -- true
fi

# The pinned filter outlives every stepguard; --unload removes it, once.
vm_expect unload 0 'unloaded' stepguard --unload
vm_expect unload-again 0 'nothing to unload' stepguard --unload
