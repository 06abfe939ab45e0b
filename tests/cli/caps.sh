#!/bin/bash
# What a step runs without (issue 16), judged from the step's own /proc
# and from outside: a root step's capabilities (bounding, permitted,
# effective, ambient), [stepguard] keep-capabilities, RLIMIT_CORE and
# [stepguard] core-dumps, the private IPC namespace, and the same for a
# step that root drops to sgtest.  Every judged step also prints "ran", so
# a stepguard that runs nothing fails.  Needs root (exit 77 otherwise).
# Usage: STEPGUARD=build/stepguard bash tests/cli/caps.sh
set -u
SG=${STEPGUARD:?set STEPGUARD to the binary under test}
if [ "$(id -u)" != 0 ]; then
	echo "SKIP caps: needs root (a root step's capabilities)"
	exit 77
fi
pass=0 fail=0
T=$(mktemp -d /var/tmp/sg-caps.XXXXXX)
qids=()
cleanup() {
	for q in "${qids[@]}"; do ipcrm -q "$q" 2>/dev/null; done
	rm -rf "$T"
}
trap cleanup EXIT
chmod 755 "$T"
cd "$T" || exit 1
mkdir work
E=(env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME="$T")

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); printf 'FAIL %s\n' "$*"; }

# The bit of capability NR in the hex mask of LINE "CapXxx:\t0000...".
has_cap() { # MASK NR
	(( (16#$1 >> $2) & 1 ))
}
field() { # OUTPUT NAME
	sed -n "s/^$2:[[:space:]]*//p" <<<"$1" | head -n 1
}

CAP_CHOWN=0 CAP_DAC_OVERRIDE=1 CAP_FOWNER=3 CAP_SETUID=7 CAP_SYS_PTRACE=19
CAP_SYS_ADMIN=21 CAP_SYS_NICE=23 CAP_SYS_RESOURCE=24 CAP_PERFMON=38 CAP_BPF=39

status_of() { grep -E '^Cap(Inh|Prm|Eff|Bnd|Amb):' /proc/self/status; }

# --- the control: what a root process has without stepguard --------------
bare=$(status_of)
if ! has_cap "$(field "$bare" CapEff)" $CAP_SYS_ADMIN; then
	echo "SKIP caps: this root has no CAP_SYS_ADMIN to begin with (a container?)"
	exit 77
fi

# --- a root step: the dropped ones gone from every set, the kept ones there
out=$("${E[@]}" "$SG" -q -w work -- sh -c 'grep -E "^Cap(Inh|Prm|Eff|Bnd|Amb):" /proc/self/status; echo ran' 2>&1)
if ! grep -qx ran <<<"$out"; then
	bad "caps-root: the step did not run: $out"
else
	bad_sets=""
	for set in CapPrm CapEff CapBnd CapInh CapAmb; do
		m=$(field "$out" $set)
		for c in $CAP_SYS_ADMIN $CAP_PERFMON $CAP_SYS_PTRACE $CAP_SYS_RESOURCE $CAP_BPF $CAP_SYS_NICE; do
			has_cap "$m" "$c" && bad_sets+=" $set:$c"
		done
	done
	for set in CapPrm CapEff CapBnd; do
		m=$(field "$out" $set)
		for c in $CAP_CHOWN $CAP_DAC_OVERRIDE $CAP_FOWNER $CAP_SETUID; do
			has_cap "$m" "$c" || bad_sets+=" $set:missing-$c"
		done
	done
	[ -z "$bad_sets" ] && ok || bad "caps-root: wrong bits:$bad_sets (got: $out)"
fi

# a second exec (sh -> sh) gets nothing back: the bounding set holds it
out=$("${E[@]}" "$SG" -q -w work -- sh -c 'exec sh -c "grep ^CapEff: /proc/self/status; echo ran"' 2>&1)
m=$(field "$out" CapEff)
if grep -qx ran <<<"$out" && [ -n "$m" ] && ! has_cap "$m" $CAP_SYS_ADMIN; then ok; else
	bad "caps-root-reexec: $out"; fi

# the start line says what a root step runs without
out=$("${E[@]}" "$SG" -w work -- true 2>&1)
grep -q "note: the step runs as root without .*SYS_ADMIN" <<<"$out" && ok ||
	bad "caps-root-said: $out"

# keep-capabilities keeps the named one, and only it
printf '[stepguard]\nkeep-capabilities = CAP_SYS_NICE\n' > keep.ini
out=$("${E[@]}" "$SG" -q -p keep.ini -w work -- sh -c 'grep -E "^Cap(Eff|Bnd):" /proc/self/status; echo ran' 2>&1)
if grep -qx ran <<<"$out" && has_cap "$(field "$out" CapEff)" $CAP_SYS_NICE &&
	has_cap "$(field "$out" CapBnd)" $CAP_SYS_NICE && ! has_cap "$(field "$out" CapEff)" $CAP_SYS_ADMIN; then
	ok
else
	bad "keep-capabilities: $out"
fi
printf '[stepguard]\nkeep-capabilities = CAP_CHOWN\n' > keep-bad.ini
out=$("${E[@]}" "$SG" -q -p keep-bad.ini -w work --check 2>&1); rc=$?
[ "$rc" = 64 ] && grep -q 'keep-bad.ini:2:.*never dropped' <<<"$out" && ok ||
	bad "keep-capabilities-never-dropped: status $rc: $out"

# --- core dumps: none, and a root step cannot raise the limit back ------------
# The control first: without stepguard, root raises its hard limit at will.
if ! sh -c 'ulimit -Hc unlimited' 2>/dev/null; then
	echo "SKIP core-raise: root cannot raise RLIMIT_CORE here even unconfined"
else
	out=$("${E[@]}" "$SG" -q -w work -- sh -c 'grep "core file size" /proc/self/limits; echo ran; ulimit -Hc unlimited && echo raised' 2>&1)
	if grep -qx ran <<<"$out" && grep -Eq 'core file size +1 +1 +bytes' <<<"$out" &&
		! grep -qx raised <<<"$out"; then ok; else bad "core-limit: $out"; fi
fi
# A hard core limit of 0 (sudo's default for what it runs): the step
# runs, never refused for it (status 71 broke every sudo stepguard), with
# 1/1 where stepguard may raise it (CAP_SYS_RESOURCE), else 0/0, and the
# gap core-helper said exactly where core_pattern is a pipe.
pipe=no
[ "$(head -c 1 /proc/sys/kernel/core_pattern)" = '|' ] && pipe=yes
chmod 755 "$T" work
for who in root sgtest; do
	pre=()
	if [ "$who" = sgtest ]; then
		id sgtest >/dev/null 2>&1 || { echo "SKIP core-hard-zero.sgtest: no user sgtest"; continue; }
		pre=(setpriv --reuid=sgtest --regid=sgtest --init-groups)
		chown sgtest work
	fi
	out=$("${pre[@]}" "${E[@]}" sh -c 'ulimit -Hc 0 && exec "$@"' sh "$SG" -w work -- \
		sh -c 'grep "core file size" /proc/self/limits; echo ran' 2>&1); rc=$?
	[ "$who" = sgtest ] && chown root work
	if [ "$rc" != 0 ] || ! grep -qx ran <<<"$out"; then
		bad "core-hard-zero.$who: status $rc: $out"
	elif ! grep -Eq 'core file size +(0 +0|1 +1) +bytes' <<<"$out"; then
		bad "core-hard-zero.$who: the limit is neither 0/0 nor 1/1: $out"
	elif grep -Eq 'core file size +0 +0' <<<"$out" && [ $pipe = yes ] && ! grep -q 'core-helper' <<<"$out"; then
		bad "core-hard-zero.$who: 0/0 under a pipe core_pattern, and the gap core-helper not said: $out"
	elif [ $pipe = no ] && grep -q 'core-helper' <<<"$out"; then
		bad "core-hard-zero.$who: core-helper said, but core_pattern is no pipe: $out"
	else
		ok
	fi
done

printf '[stepguard]\ncore-dumps = yes\n' > core.ini
want=$(grep "core file size" /proc/self/limits)
out=$("${E[@]}" "$SG" -q -p core.ini -w work -- sh -c 'grep "core file size" /proc/self/limits; echo ran' 2>&1)
grep -qx ran <<<"$out" && grep -qxF "$want" <<<"$out" && ok || bad "core-dumps-yes: want $want, got $out"

# --- the IPC namespace: the step's own, another process's queue unseen -----
q=$(ipcmk -Q 2>/dev/null | grep -o '[0-9]*$')
if [ -z "$q" ]; then
	echo "SKIP ipc: ipcmk cannot make a queue here"
else
	qids+=("$q")
	# ipcs -i exits 0 for an id it does not find: read the list instead
	visible='ipcs -q | awk "{print \$2}" | grep -qx'
	# unconfined, the queue is there: the attack would land
	sh -c "$visible $q" || bad "ipc-control: the queue $q is not visible even unconfined"
	# The step says "ran", looks for the queue, tries to remove it by its
	# id, and makes and removes one of its own: the queue outside unseen
	# and intact, its own made and gone.
	out=$("${E[@]}" "$SG" -q -w work -- sh -c "echo ran; $visible $q && echo seen; \
		ipcrm -q $q 2>/dev/null && echo removed; echo tried; \
		own=\$(ipcmk -Q | grep -o '[0-9]*\$') && $visible \$own && ipcrm -q \$own && echo own-ok" 2>&1)
	if grep -qx ran <<<"$out" && ! grep -qx seen <<<"$out" && grep -qx own-ok <<<"$out"; then ok; else
		bad "ipc-private: $out"; fi
	if grep -qx tried <<<"$out" && ! grep -qx removed <<<"$out" && sh -c "$visible $q"; then ok; else
		bad "ipc-outside-intact: the step's ipcrm -q $q (tried: $(grep -cx tried <<<"$out")) removed it, or it is gone: $out"
	fi
fi

# --- root dropping to sgtest (sudo stepguard on a runner) ---------------------
if id sgtest >/dev/null 2>&1; then
	chown sgtest work
	out=$("${E[@]}" SUDO_UID="$(id -u sgtest)" SUDO_GID="$(id -g sgtest)" "$SG" -q -w work -- \
		sh -c 'id -u; grep -E "^Cap(Eff|Bnd):" /proc/self/status; grep "core file size" /proc/self/limits; readlink /proc/self/ns/ipc; echo ran' 2>&1)
	if grep -qx ran <<<"$out" && grep -qx "$(id -u sgtest)" <<<"$out" &&
		[ "$(field "$out" CapEff)" = 0000000000000000 ] &&
		! has_cap "$(field "$out" CapBnd)" $CAP_SYS_ADMIN &&
		grep -Eq 'core file size +1 +1 +bytes' <<<"$out" &&
		! grep -qxF "$(readlink /proc/self/ns/ipc)" <<<"$out"; then ok; else
		bad "sudo-user: $out"; fi
	chown root work
else
	echo "SKIP sudo-user: no user sgtest (make host creates it)"
fi

echo "caps: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
