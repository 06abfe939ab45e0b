# 10-stepguard.sh — the built launcher on this kernel: it runs, decides,
# proves its confinement (--self-test), and refuses to start when the
# backend it needs is missing (the fail-closed row "Landlock off": the VM
# is booted with lsm= lacking landlock).
#
# Every step here writes a marker in its work dir first thing, so that a
# refusal is judged by the step not having run (no marker), not by the
# status alone, and every refusal has a control: the same step allowed,
# which writes its marker.
#
# needs: stepguard /usr/local/libexec/stepguard/stepguard-probe

# The step's work directory: stepguard confines writes to it.
mkdir -p /tmp/work /home/sgtest/work
chown 1000:1000 /home/sgtest/work
cd /tmp/work || exit 1

# marked MARKER: the step of a row, as sh -c's script: it writes MARKER
# before anything else
marked() { echo "echo ran > $1 && echo the step ran"; }
RM=/tmp/work/ran UM=/home/sgtest/work/ran

# A refusal must say that Landlock is the missing piece, not merely echo
# "--filter landlock" back: "Landlock is built into this kernel but not
# enabled", "Landlock unavailable", "no Landlock"...
landlock_off='landlock[^.]*(not (an )?(active|enabled|available|supported)|unavailable|disabled)|no landlock'

# version, check, self-test, run, self-test-fmod; one bpf-lsm row; the
# Landlock rows (2 with it, 3 without); unload, unload-again
if vm_lsm_active landlock; then
	vm_plan 10
else
	vm_plan 11
fi

vm_expect version 0 '^stepguard [0-9]' stepguard --version
# auto picks bpf-lsm where bpf is an active LSM, else bpf-fmod (as root,
# which the VM's tests are), else Landlock.  The start line names it.
if vm_lsm_active bpf; then
	backend=bpf-lsm
else
	backend=bpf-fmod
fi
# --check decides without running anything.
vm_refused check 0 'decision: run' $RM stepguard --check -- sh -c "$(marked $RM)"
vm_expect self-test 0 "backend +$backend" stepguard --self-test
# The control of the root refusals below: the same step, allowed.
vm_ran run 0 "write filter $backend" $RM stepguard -- sh -c "$(marked $RM)"
vm_expect self-test-fmod 0 'backend +bpf-fmod' stepguard --filter bpf-fmod --self-test
if vm_lsm_active bpf; then
	vm_expect self-test-lsm 0 'backend +bpf-lsm' stepguard --filter bpf-lsm --self-test
else
	# a lsm/ program would attach here and enforce nothing: refused by name
	vm_refused refuse-filter-bpf-lsm 71 'not an active LSM' $RM \
		stepguard --filter bpf-lsm -- sh -c "$(marked $RM)"
fi

if vm_lsm_active landlock; then
	vm_expect self-test-landlock 0 'backend +landlock' stepguard --filter landlock --self-test
	# unprivileged, no eBPF: Landlock enforces
	vm_ran run-user 0 'write filter landlock' $UM as_user sh -c "cd work && stepguard -- sh -c '$(marked $UM)'"
else
	# Without Landlock an unprivileged step has no backend at all: refused,
	# never run unconfined; and Landlock asked for by name is refused.
	# The control: sgtest can write the marker (no stepguard here).
	vm_ran step-user 0 '' $UM as_user sh -c "$(marked $UM)"
	vm_refused refuse-no-landlock-user 71 "$landlock_off" $UM \
		as_user sh -c "cd work && stepguard -- sh -c '$(marked $UM)'"
	vm_refused refuse-filter-landlock 71 "$landlock_off" $RM \
		stepguard --filter landlock -- sh -c "$(marked $RM)"
fi

# The pinned filter outlives every stepguard; --unload removes it, once.
vm_expect unload 0 'unloaded' stepguard --unload
vm_expect unload-again 0 'nothing to unload' stepguard --unload
