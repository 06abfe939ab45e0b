#!/bin/bash
# tests/concurrency/run.sh — fifty steps at once on one machine, each with
# its own work dir, all appending to ONE log (issue 6, "Concurrency"):
#
#   - every step's writes into its own work dir land;
#   - no step's write into two other steps' work dirs, nor into a file
#     outside every work dir, lands (judged from outside: listings, stat
#     including ctime, content hashes);
#   - the shared log holds exactly one JSON line per expected denial plus
#     each step's start and end records, every line whole (parsed one by
#     one with python3's json module: nothing lost, torn or interleaved),
#     each with the fields of docs/log-format.md;
#   - `stepguard audit --json LOG` accounts for every denial.
#
# Usage (from the source tree, as root for both passes):
#   STEPGUARD=build/stepguard bash tests/concurrency/run.sh [--repeat N]
#       [--steps N] [--rounds N] [--as root|sgtest|both] [--keep] [-v]
#
# See tests/concurrency/README.md.  Last line:
#   concurrency: N passed, M failed        (one count per repetition)
set -u
umask 022

usage() {
	sed -n '2,/^set -u/p' "$0" | sed -e '/^set -u/d' -e 's/^# \{0,1\}//'
	exit "${1:-64}"
}

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
SG=${STEPGUARD:-$top/build/stepguard}
REPEAT=1 STEPS=50 ROUNDS=4 AS=both KEEP=0 VERBOSE=0
while [ $# -gt 0 ]; do
	case $1 in
	--repeat) REPEAT=${2:?}; shift 2 ;;
	--repeat=*) REPEAT=${1#*=}; shift ;;
	--steps) STEPS=${2:?}; shift 2 ;;
	--steps=*) STEPS=${1#*=}; shift ;;
	--rounds) ROUNDS=${2:?}; shift 2 ;;
	--rounds=*) ROUNDS=${1#*=}; shift ;;
	--as) AS=${2:?}; shift 2 ;;
	--as=*) AS=${1#*=}; shift ;;
	--keep) KEEP=1; shift ;;
	-v) VERBOSE=1; shift ;;
	-h | --help) usage 0 ;;
	*) echo "concurrency: unknown argument: $1" >&2; usage ;;
	esac
done
for n in "$REPEAT" "$STEPS" "$ROUNDS"; do
	case $n in '' | *[!0-9]*) echo "concurrency: not a number: $n" >&2; exit 64 ;; esac
done
if [ "$STEPS" -lt 3 ] || [ "$STEPS" -gt 999 ] || [ "$ROUNDS" -lt 1 ] || [ "$REPEAT" -lt 1 ]; then
	echo "concurrency: need 3 <= --steps <= 999, --rounds >= 1, --repeat >= 1" >&2
	exit 64
fi
case $SG in /*) ;; *) SG=$PWD/$SG ;; esac
if [ ! -x "$SG" ]; then
	echo "concurrency: $SG is not an executable (set STEPGUARD, or make)" >&2
	exit 64
fi
PY=$(command -v python3) || { echo "concurrency: python3 is needed to judge" >&2; exit 64; }
command -v timeout > /dev/null || { echo "concurrency: timeout (coreutils) is needed" >&2; exit 64; }

# Who runs the steps.  As root: root itself, and the unprivileged sgtest
# through setpriv (stepguard started as sgtest).  Otherwise: the caller.
passes=()
if [ "$(id -u)" = 0 ]; then
	case $AS in
	root) passes=(root) ;;
	sgtest) passes=(sgtest) ;;
	both) passes=(root sgtest) ;;
	*) echo "concurrency: --as root, sgtest or both" >&2; exit 64 ;;
	esac
	# The sgtest pass is never dropped unseen: a missing user is made, as
	# tests/host and tests/failclosed do, and if that fails the run fails,
	# unless SG_NO_SGTEST=REASON says why this machine runs without it.
	if [[ " ${passes[*]} " == *" sgtest "* ]] && ! id sgtest > /dev/null 2>&1; then
		if [ -n "${SG_NO_SGTEST:-}" ]; then
			echo "SKIP concurrency sgtest pass: no user sgtest, and SG_NO_SGTEST: $SG_NO_SGTEST"
			[ "$AS" = sgtest ] && exit 77
			passes=(root)
		elif ! useradd -m sgtest > /dev/null 2>&1 || ! id sgtest > /dev/null 2>&1; then
			echo "FAIL concurrency sgtest pass: no user sgtest, and useradd -m sgtest failed (SG_NO_SGTEST=REASON runs without it)"
			echo "concurrency: 0 passed, 1 failed"
			exit 1
		fi
	fi
	if [[ " ${passes[*]} " == *" sgtest "* ]] && ! command -v setpriv > /dev/null; then
		echo "concurrency: setpriv (util-linux) is needed for the sgtest pass" >&2
		exit 64
	fi
else
	[ "$AS" = both ] || [ "$AS" = "$(id -un)" ] ||
		{ echo "concurrency: --as $AS needs root" >&2; exit 64; }
	passes=("$(id -un)")
fi

BASE=$(mktemp -d /var/tmp/sg-concurrency.XXXXXX) || exit 1
chmod 0755 "$BASE"
failed_any=0
cleanup() {
	if [ "$KEEP" = 1 ] || [ "$failed_any" = 1 ]; then
		echo "concurrency: left $BASE for inspection" >&2
	else
		rm -rf "$BASE"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# An empty policy file: with -p, only the compiled-in defaults and this
# file are read (no /etc/stepguard), so the run does not depend on the
# machine's policy.  Root's, 0644: valid for root and for sgtest.
: > "$BASE/policy.ini"
# A copy of the binary under test: every step of every repetition runs the
# same build, even if the tree is rebuilt meanwhile (a half-linked
# build/stepguard is not executable).
cp "$SG" "$BASE/stepguard" || exit 1
chmod 0755 "$BASE/stepguard"
SG_SRC=$SG
SG=$BASE/stepguard

# --- The step ----------------------------------------------------------------
#
# Run under stepguard as: step.py IDX OWN FOREIGN1 FOREIGN2 OUTSIDE GO ROUNDS.
# Each attempt is one system call, reported as "RESULT WHAT PATH ERRNO".
# Under landlock+supervisor, per round and per target:
#   create  new file     open(O_WRONLY|O_CREAT|O_EXCL)  supervisor EACCES (a write intent), record create
#   chmod   the victim   fchmodat                       supervisor EPERM, record chmod
#   utime   the victim   utimensat                      supervisor EPERM, record utimes
#   truncate the victim  truncate(2)                    supervisor EACCES, record truncate
#   otrunc  the victim   openat(O_RDONLY|O_TRUNC)       supervisor EACCES, record truncate
# The two foreign work dirs are attacked by a forked child, the outside
# file by the step's first process, so two processes of each step wait on
# the supervisor at once.  In its own work dir the step makes the same
# kinds of call, which must land and leave no record.
cat > "$BASE/step.py" << 'EOF'
import os, sys, time

idx, own, f1, f2, outside, go = sys.argv[1:7]
rounds = int(sys.argv[7])

def say(*words):
    os.write(1, (" ".join(str(w) for w in words) + "\n").encode())

def attempt(what, path, fn):
    try:
        fn()
        say("RESULT", what, path, 0)
    except OSError as e:
        say("RESULT", what, path, e.errno)

def create(path, data):
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    try:
        os.write(fd, data)
    finally:
        os.close(fd)

def otrunc(path):
    os.close(os.open(path, os.O_RDONLY | os.O_TRUNC))

# Running under the filters: say so in the work dir, then wait for all.
create(own + "/ready", b"")
deadline = time.monotonic() + 120
while not os.path.exists(go):
    if time.monotonic() > deadline:
        say("TIMEOUT", go)
        sys.exit(3)
    time.sleep(0.01)

mine = own + "/own.txt"
attempt("create", mine, lambda: create(mine, ("own %03d\n" % int(idx)).encode()))
attempt("chmod", mine, lambda: os.chmod(mine, 0o600))
attempt("utime", mine, lambda: os.utime(mine, (1000000000, 1000000000)))
t = own + "/trunc.txt"
attempt("create", t, lambda: create(t, b"xxxx"))
attempt("truncate", t, lambda: os.truncate(t, 0))
o = own + "/otrunc.txt"
attempt("create", o, lambda: create(o, b"xxxx"))
attempt("otrunc", o, lambda: otrunc(o))

def refused(d, target, r):
    new = "%s/from-%s-%d" % (d, idx, r)
    attempt("create", new, lambda: create(new, b"x"))
    attempt("chmod", target, lambda: os.chmod(target, 0o600))
    attempt("utime", target, lambda: os.utime(target, (1000000000, 1000000000)))
    attempt("truncate", target, lambda: os.truncate(target, 0))
    attempt("otrunc", target, lambda: otrunc(target))

pid = os.fork()
if pid == 0:
    status = 5
    try:
        for r in range(rounds):
            for d in (f1, f2):
                refused(d, d + "/victim", r)
        status = 0
    finally:
        os._exit(status)
for r in range(rounds):
    refused(os.path.dirname(outside), outside, r)
_, st = os.waitpid(pid, 0)
sys.exit(0 if st == 0 else 4)
EOF

# --- The judge ---------------------------------------------------------------
#
# judge.py setup P N UID GID: the tree (P/wNNN/victim, P/outside/target,
#   P/log/, P/out/) and P/before.json, the state of every victim.
# judge.py check P N ROUNDS UID SG STEP_PYTHON STEP_PY [-v]: everything.
# judge.py control P N ROUNDS: the file-system half only, on a tree where
#   the steps ran unconfined; succeeds when it sees every kind of landed
#   write (so the judge can fail).
cat > "$BASE/judge.py" << 'EOF'
import collections, hashlib, json, os, re, stat, subprocess, sys

def name(i):
    return "w%03d" % i

def step_name(i):
    return "cc-%03d" % i

def foreign(i, n):
    return ((i + 1) % n, (i + 2) % n)

def snap(path):
    st = os.lstat(path)
    with open(path, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()
    return [st.st_mode, st.st_uid, st.st_gid, st.st_size, st.st_mtime_ns,
            st.st_ctime_ns, st.st_ino, st.st_nlink, digest]

def setup(p, n, uid, gid):
    def mk(path, owner=True):
        os.mkdir(path, 0o755)
        if owner:
            os.chown(path, uid, gid)
    def put(path, data):
        with open(path, "wb") as f:
            f.write(data)
        os.chown(path, uid, gid)
        os.chmod(path, 0o644)
        os.utime(path, (978307200, 978307200))  # 2001-01-01
    mk(p)
    for d in ("log", "outside"):
        mk(os.path.join(p, d))
    mk(os.path.join(p, "out"), owner=False)
    before = {}
    for i in range(n):
        w = os.path.join(p, name(i))
        mk(w)
        put(w + "/victim", ("victim %03d\n" % i).encode())
        before[w + "/victim"] = snap(w + "/victim")
    put(p + "/outside/target", b"outside every work dir\n")
    before[p + "/outside/target"] = snap(p + "/outside/target")
    with open(p + "/before.json", "w") as f:
        json.dump(before, f)

def fs_problems(p, n, rounds):
    """(kind, text) for every write that landed where it must not, and
    every own write that did not land."""
    out = []
    with open(p + "/before.json") as f:
        before = json.load(f)
    for path, was in sorted(before.items()):
        try:
            now = snap(path)
        except OSError as e:
            now = str(e)
        if now != was:
            kind = "outside-changed" if "/outside/" in path else "victim-changed"
            out.append((kind, "%s changed: %s -> %s" % (path, was, now)))
    own_files = {"victim", "ready", "own.txt", "trunc.txt", "otrunc.txt"}
    for i in range(n):
        w = os.path.join(p, name(i))
        names = set(os.listdir(w))
        for extra in sorted(names - own_files):
            out.append(("foreign-created", "%s/%s exists (a write from another step landed)" % (w, extra)))
        for missing in sorted(own_files - names):
            out.append(("own-missing", "%s/%s is missing (the step's own write did not land)" % (w, missing)))
        try:
            st = os.lstat(w + "/own.txt")
            with open(w + "/own.txt", "rb") as f:
                data = f.read()
            if data != ("own %03d\n" % i).encode() or stat.S_IMODE(st.st_mode) != 0o600 \
                    or st.st_mtime_ns != 1000000000 * 10**9:
                out.append(("own-wrong", "%s/own.txt: %r mode %o mtime %d" %
                            (w, data, stat.S_IMODE(st.st_mode), st.st_mtime_ns)))
            for t in ("trunc.txt", "otrunc.txt"):
                if os.lstat(w + "/" + t).st_size != 0:
                    out.append(("own-wrong", "%s/%s was not truncated" % (w, t)))
        except OSError as e:
            out.append(("own-wrong", "%s: %s" % (w, e)))
    names = set(os.listdir(p + "/outside"))
    for extra in sorted(names - {"target"}):
        out.append(("outside-created", "%s/outside/%s exists" % (p, extra)))
    return out

def control(p, n, rounds):
    kinds = collections.Counter(k for k, _ in fs_problems(p, n, rounds))
    need = ("victim-changed", "foreign-created", "outside-changed", "outside-created")
    lacking = [k for k in need if kinds[k] == 0]
    if lacking or any(k.startswith("own") for k in kinds):
        print("control: unconfined, the judge saw %s; it should have seen every one of %s and "
              "no own-write problem" % (dict(kinds), ", ".join(need)))
        return 1
    print("control: unconfined, the judge sees the writes land (%s)" %
          ", ".join("%s %d" % kv for kv in sorted(kinds.items())))
    return 0

TIME = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$")
COMMON = {"time": str, "event": str, "step": str, "run": str}
FIELDS = {
    "start": {"pid": int, "uid": int, "command": list, "cwd": str, "roots": list,
              "policy_digest": str, "backend": str, "mode": str, "landlock_abi": int,
              "not_covered": list, "accepted_gaps": list, "tmpdir": str, "core_dumps": bool},
    "denial": {"event_time": str, "pid": int, "uid": int, "comm": str, "op": str, "path": str,
               "decision": str, "reason": str, "errno": int, "backend": str},
    "end": {"pid": int, "status": int, "exit": int, "denials": int, "lost": int,
            "unlogged": int, "tmpdir_removed": bool, "backend": str, "policy_digest": str},
}
ERRNO = {"chmod": 1, "utimes": 1, "truncate": 13, "create": 13}
RESULT_ERRNO = {"create": 13, "chmod": 1, "utime": 1, "truncate": 13, "otrunc": 13}

def expected_denials(p, i, n, rounds):
    """{(op, path): count} of step i's denial records."""
    exp = collections.Counter()
    targets = [os.path.join(p, name(j), "victim") for j in foreign(i, n)]
    targets.append(p + "/outside/target")
    for t in targets:
        for r in range(rounds):
            exp[("create", "%s/from-%d-%d" % (os.path.dirname(t), i, r))] += 1
        exp[("chmod", t)] += rounds
        exp[("utimes", t)] += rounds
        exp[("truncate", t)] += 2 * rounds  # truncate(2) and O_RDONLY|O_TRUNC
    return exp

def check(p, n, rounds, uid, sg, step_python, step_py, verbose):
    problems = []
    def bad(text):
        problems.append(text)

    # 1. The file system, from outside.
    for _, text in fs_problems(p, n, rounds):
        bad(text)

    # 2. What each step saw, and how each stepguard ended.
    per_step_denials = sum(expected_denials(p, 0, n, rounds).values())
    for i in range(n):
        try:
            rc = open("%s/out/%03d.rc" % (p, i)).read().strip()
        except OSError:
            rc = "(none)"
        report = open("%s/out/%03d.out" % (p, i), "rb").read().decode("utf-8", "replace")
        if rc != "0":
            bad("step %s: stepguard exited %s; output: %s" % (step_name(i), rc, report[-400:]))
        results = [l.split() for l in report.splitlines() if l.startswith("RESULT ")]
        others = [l for l in report.splitlines() if l and not l.startswith("RESULT ")]
        if others:
            bad("step %s printed: %s" % (step_name(i), others[:3]))
        want_n = 7 + 15 * rounds
        if len(results) != want_n:
            bad("step %s: %d results, expected %d" % (step_name(i), len(results), want_n))
        w = os.path.join(p, name(i))
        for r in results:
            if len(r) != 4:
                bad("step %s: bad result line %r" % (step_name(i), r))
                continue
            _, what, path, err = r
            want = 0 if path.startswith(w + "/") else RESULT_ERRNO.get(what)
            if str(want) != err:
                bad("step %s: %s %s gave errno %s, expected %s" % (step_name(i), what, path, err, want))

    # 3. The log, line by line.
    log = p + "/log/steps.jsonl"
    try:
        st = os.lstat(log)
        data = open(log, "rb").read()
    except OSError as e:
        bad("log: %s" % e)
        return problems, {}
    if not stat.S_ISREG(st.st_mode) or stat.S_IMODE(st.st_mode) != 0o640 or st.st_uid != uid:
        bad("log: mode %o owner %d, expected a regular file, 0640, owner %d" %
            (stat.S_IMODE(st.st_mode), st.st_uid, uid))
    if data and not data.endswith(b"\n"):
        bad("log: the last line has no newline (torn write)")
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    names = {step_name(i): i for i in range(n)}
    by_step = collections.defaultdict(list)
    for lineno, raw in enumerate(lines, 1):
        try:
            rec = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as e:
            bad("log line %d is not one JSON object (%s): %r" % (lineno, e, raw[:200]))
            continue
        if not isinstance(rec, dict):
            bad("log line %d is not an object: %r" % (lineno, raw[:200]))
            continue
        ev = rec.get("event")
        want = dict(COMMON)
        want.update(FIELDS.get(ev, {}))
        # A root step's start names what it runs without (docs/log-format.md).
        if ev == "start" and rec.get("uid") == 0:
            want["dropped_capabilities"] = list
        if ev not in FIELDS:
            bad("log line %d: event %r" % (lineno, ev))
            continue
        # A bool is an int to isinstance(): only a field typed bool may hold one.
        missing = [k for k, t in want.items()
                   if not isinstance(rec.get(k), t) or (t is not bool and isinstance(rec.get(k), bool))]
        extra = sorted(set(rec) - set(want))
        if missing or extra:
            bad("log line %d (%s): missing or mistyped %s, unexpected %s" % (lineno, ev, missing, extra))
            continue
        if not TIME.match(rec["time"]):
            bad("log line %d: time %r" % (lineno, rec["time"]))
        if rec["step"] not in names:
            bad("log line %d: step %r is none of ours" % (lineno, rec["step"]))
            continue
        by_step[rec["step"]].append((lineno, rec))

    runs = {}
    tmpdirs = {}
    counts = {}
    for s, i in sorted(names.items(), key=lambda kv: kv[1]):
        recs = by_step.get(s, [])
        w = os.path.join(p, name(i))
        starts = [r for _, r in recs if r["event"] == "start"]
        ends = [r for _, r in recs if r["event"] == "end"]
        dens = [r for _, r in recs if r["event"] == "denial"]
        counts[s] = len(dens)
        if len(starts) != 1 or len(ends) != 1:
            bad("step %s: %d start and %d end records" % (s, len(starts), len(ends)))
            continue
        start, end = starts[0], ends[0]
        if recs[0][1] is not start or recs[-1][1] is not end:
            bad("step %s: its records do not run start ... end in the log (lines %s)" %
                (s, [l for l, _ in recs][:5]))
        run_ids = {r["run"] for _, r in recs}
        if len(run_ids) != 1:
            bad("step %s: run ids %s" % (s, sorted(run_ids)))
        runs[s] = start["run"]
        tmpdirs[s] = start.get("tmpdir")
        argv = [step_python, "-I", "-S", "-B", step_py, str(i), w] + \
            [os.path.join(p, name(j)) for j in foreign(i, n)] + \
            [p + "/outside/target", p + "/go", str(rounds)]
        checks = [
            (start["uid"] == uid, "start uid %r" % start["uid"]),
            (start["command"] == argv, "start command %r" % start["command"]),
            (start["cwd"] == w, "start cwd %r" % start["cwd"]),
            (start["roots"][:1] == [w], "start roots %r" % start["roots"][:2]),
            (start["backend"] == "landlock+supervisor", "start backend %r" % start["backend"]),
            (start["mode"] == "enforce", "start mode %r" % start["mode"]),
            (start["accepted_gaps"] == [], "accepted_gaps %r" % start["accepted_gaps"]),
            (start["policy_digest"].startswith("sha256:"), "policy_digest %r" % start["policy_digest"]),
            (end["pid"] == start["pid"], "end pid %r, start pid %r" % (end["pid"], start["pid"])),
            (end["status"] == 0 and end["exit"] == 0, "end status %r exit %r" % (end["status"], end["exit"])),
            (end["denials"] == len(dens), "end denials %r, %d denial records" % (end["denials"], len(dens))),
            (end["lost"] == 0, "end lost %r" % end["lost"]),
            (end["unlogged"] == 0, "end unlogged %r" % end["unlogged"]),
            (end["backend"] == start["backend"], "end backend %r" % end["backend"]),
            (end["policy_digest"] == start["policy_digest"], "end policy_digest differs"),
            # Each step's own temporary directory: one of its roots, removed at the end.
            (start["tmpdir"] in start["roots"], "tmpdir %r not a root" % start["tmpdir"]),
            (end["tmpdir_removed"] is True and not os.path.lexists(start["tmpdir"]),
             "tmpdir %r not removed" % start["tmpdir"]),
        ]
        for ok, text in checks:
            if not ok:
                bad("step %s: %s" % (s, text))
        got = collections.Counter((r["op"], r["path"]) for r in dens)
        exp = expected_denials(p, i, n, rounds)
        if got != exp:
            bad("step %s: denial records differ: missing %s, unexpected %s" %
                (s, dict(exp - got), dict(got - exp)))
        child = set()
        for r in dens:
            if r["decision"] != "denied" or r["backend"] != "supervisor" or r["uid"] != uid \
                    or r["errno"] != ERRNO.get(r["op"]) or r["reason"] != "outside" \
                    or not TIME.match(r["event_time"]):
                bad("step %s: denial %r" % (s, r))
            if os.path.basename(os.path.dirname(r["path"])) == "outside":
                if r["pid"] != start["pid"]:
                    bad("step %s: outside denial from pid %r, not the step's %r" % (s, r["pid"], start["pid"]))
            else:
                child.add(r["pid"])
        if len(child) != 1 or start["pid"] in child:
            bad("step %s: foreign-dir denials from pids %s (expected the one forked child)" % (s, sorted(child)))
    # Evidence that the steps ran at once: the most steps whose denial
    # records were still coming at one line of the log.
    span = {}
    for s, recs in by_step.items():
        ls = [l for l, r in recs if r["event"] == "denial"]
        if ls:
            span[s] = (min(ls), max(ls))
    overlap = max([sum(1 for a, b in span.values() if a <= l <= b) for l in range(1, len(lines) + 1)] or [0])
    if n > 1 and overlap < 2:
        bad("log: no two steps' denials interleave; the steps did not run at once")
    if len(set(runs.values())) != len(runs):
        bad("log: two steps share a run id")
    if len(set(tmpdirs.values())) != len(tmpdirs):
        bad("log: two steps share a temporary directory")
    want_lines = n * (2 + per_step_denials)
    if len(lines) != want_lines:
        bad("log: %d lines, expected %d (%d steps x (start + end + %d denials))" %
            (len(lines), want_lines, n, per_step_denials))

    # 4. stepguard audit --json accounts for every denial.
    a = subprocess.run([sg, "audit", "--json", log], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        doc = json.loads(a.stdout)
    except ValueError as e:
        bad("audit --json: exit %d, not JSON (%s): %s" % (a.returncode, e, a.stderr[:300]))
        doc = None
    if doc is not None:
        total = n * per_step_denials
        top = {"lines": len(lines), "records": len(lines), "unparsable": 0, "torn": 0,
               "problem_lines": 0, "unknown_records": 0, "other_steps": 0,
               "count": total, "denied": total, "audited": 0, "lost": 0}
        if a.returncode != 0:
            bad("audit --json exited %d: %s" % (a.returncode, a.stderr[:300]))
        for k, v in top.items():
            if doc.get(k) != v:
                bad("audit: %s is %r, expected %r" % (k, doc.get(k), v))
        steps = {s["step"]: s for s in doc.get("steps", [])}
        if set(steps) != set(names):
            bad("audit: steps %d, expected %d" % (len(steps), n))
        for s in names:
            a_s = steps.get(s)
            if a_s is None:
                continue
            want_s = {"runs": 1, "unfinished": 0, "count": per_step_denials, "denied": per_step_denials,
                      "audited": 0, "lost": 0, "end_denials": per_step_denials,
                      "outcomes": [{"status": 0, "runs": 1}], "backends": ["landlock+supervisor"]}
            diff = {k: a_s.get(k) for k, v in want_s.items() if a_s.get(k) != v}
            if diff:
                bad("audit: step %s: %s" % (s, diff))
        ops = {o["op"]: o["count"] for o in doc.get("operations", [])}
        want_ops = {"chmod": 3 * rounds * n, "utimes": 3 * rounds * n, "truncate": 6 * rounds * n,
                    "create": 3 * rounds * n}
        if ops != want_ops:
            bad("audit: operations %s, expected %s" % (ops, want_ops))
        paths = collections.Counter()
        for e in doc.get("paths", []):
            paths[(e["step"], e["op"], e["path"])] += e["count"]
        want_paths = collections.Counter()
        for s, i in names.items():
            for (op, path), c in expected_denials(p, i, n, rounds).items():
                want_paths[(s, op, path)] += c
        if paths != want_paths:
            bad("audit: paths differ: %d entries, expected %d; e.g. %s" %
                (len(paths), len(want_paths), list((want_paths - paths) + (paths - want_paths))[:3]))
    if verbose:
        for s in sorted(counts):
            print("  %s: %d denial records, run %s" % (s, counts[s], runs.get(s)))
    return problems, {"lines": len(lines), "denials": sum(counts.values()), "overlap": overlap}

if __name__ == "__main__":
    cmd, p = sys.argv[1], sys.argv[2]
    if cmd == "setup":
        setup(p, int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]))
        sys.exit(0)
    if cmd == "control":
        sys.exit(control(p, int(sys.argv[3]), int(sys.argv[4])))
    n, rounds, uid = int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
    problems, stats = check(p, n, rounds, uid, sys.argv[6], sys.argv[7], sys.argv[8],
                            len(sys.argv) > 9)
    for text in problems[:40]:
        print("  " + text)
    if len(problems) > 40:
        print("  ... and %d more problems" % (len(problems) - 40))
    if problems:
        sys.exit(1)
    print("  %d denial records and %d log lines, every line one whole record "
          "(denials of up to %d steps interleaved); audit --json agrees" %
          (stats["denials"], stats["lines"], stats["overlap"]))
EOF

# as_cmd USER: the command prefix that runs as USER (empty for the caller)
as_cmd() {
	if [ "$1" = root ] || [ "$1" = "$(id -un)" ]; then
		AS_CMD=()
	else
		AS_CMD=(setpriv --reuid="$1" --regid="$1" --init-groups --)
	fi
}

# A python3 the step's user can run (root's may live in /root, e.g. pyenv).
step_python() {
	local c
	for c in ${SG_CONC_STEP_PYTHON:-} /usr/bin/python3 /usr/local/bin/python3 "$PY"; do
		[ -x "$c" ] || continue
		if "${AS_CMD[@]}" "$c" -I -S -B -c 'import os, sys, time' > /dev/null 2>&1; then
			echo "$c"
			return 0
		fi
	done
	return 1
}

now_ms() { date +%s%3N; }

# run_steps P N USER STEP_PYTHON CONFINED: start the N steps in the
# background, wait until every one runs under its filters (its "ready"
# file), then let them all go at once, and wait for them.
run_steps() {
	local p=$1 n=$2 user=$3 spy=$4 confined=$5 i w f1 f2 home
	home=$(getent passwd "$user" | cut -d: -f6)
	local pids=()
	for ((i = 0; i < n; i++)); do
		w=$(printf '%s/w%03d' "$p" "$i")
		f1=$(printf '%s/w%03d' "$p" $(((i + 1) % n)))
		f2=$(printf '%s/w%03d' "$p" $(((i + 2) % n)))
		local step=("$spy" -I -S -B "$BASE/step.py" "$i" "$w" "$f1" "$f2" "$p/outside/target" "$p/go" "$ROUNDS")
		local pre=()
		if [ "$confined" = 1 ]; then
			pre=("$SG" -q -p "$BASE/policy.ini" --filter landlock --log "$p/log/steps.jsonl"
				--step "$(printf 'cc-%03d' "$i")" -w "$w" --)
		fi
		{
			(cd "$w" && exec "${AS_CMD[@]}" env -i PATH=/usr/bin:/bin HOME="${home:-/}" LANG=C.UTF-8 \
				timeout --foreground -k 5 120 "${pre[@]}" "${step[@]}") > "$(printf '%s/out/%03d.out' "$p" "$i")" 2>&1 < /dev/null
			echo $? > "$(printf '%s/out/%03d.rc' "$p" "$i")"
		} &
		pids+=($!)
	done
	# The barrier: every step under its filters, or one already ended
	# (the judge will say why), or 60 s.
	local t0 ready ended
	t0=$(now_ms)
	while :; do
		ready=$(find "$p" -maxdepth 2 -name ready | wc -l)
		ended=$(find "$p/out" -name '*.rc' | wc -l)
		[ "$ready" -ge "$n" ] || [ "$ended" -gt 0 ] && break
		if [ $(($(now_ms) - t0)) -gt 60000 ]; then
			echo "  only $ready of $n steps ready after 60 s" >&2
			break
		fi
		sleep 0.05
	done
	: > "$p/go"
	wait "${pids[@]}"
}

# one_pass RUN USER: one pass of N steps as USER; 0 when it passed.
one_pass() {
	local run=$1 user=$2 p uid gid spy t0 t1 st
	p=$BASE/run$run-$user
	uid=$(id -u "$user") gid=$(id -g "$user")
	as_cmd "$user"
	if ! spy=$(step_python); then
		echo "FAIL $user: no python3 that $user can run (set SG_CONC_STEP_PYTHON)"
		return 1
	fi
	# Once per user: the same steps, unconfined, on a small tree, must
	# land every kind of write the judge looks for (the test can fail).
	if [ ! -e "$BASE/control-$user.ok" ]; then
		"$PY" "$BASE/judge.py" setup "$BASE/control-$user" 3 "$uid" "$gid" || return 1
		run_steps "$BASE/control-$user" 3 "$user" "$spy" 0
		if ! "$PY" "$BASE/judge.py" control "$BASE/control-$user" 3 "$ROUNDS"; then
			echo "FAIL $user: the unconfined control did not land; the judge cannot tell"
			return 1
		fi
		[ "$KEEP" = 1 ] || rm -rf "$BASE/control-$user"
		: > "$BASE/control-$user.ok"
	fi
	"$PY" "$BASE/judge.py" setup "$p" "$STEPS" "$uid" "$gid" || return 1
	t0=$(now_ms)
	run_steps "$p" "$STEPS" "$user" "$spy" 1
	t1=$(now_ms)
	local v=()
	[ "$VERBOSE" = 1 ] && v=(-v)
	local out
	out=$("$PY" "$BASE/judge.py" check "$p" "$STEPS" "$ROUNDS" "$uid" "$SG" "$spy" "$BASE/step.py" "${v[@]}" 2>&1)
	st=$?
	printf '%s %s: %d steps at once in %d.%03d s\n' "$([ $st = 0 ] && echo PASS || echo FAIL)" \
		"$user" "$STEPS" $(((t1 - t0) / 1000)) $(((t1 - t0) % 1000))
	printf '%s\n' "$out"
	if [ $st = 0 ] && [ "$KEEP" != 1 ]; then
		rm -rf "$p"
	fi
	return $st
}

echo "concurrency: $SG_SRC ($("$SG" --version 2>&1)); $STEPS steps a pass, $ROUNDS rounds," \
	"passes: ${passes[*]}; base $BASE"
passed=0 failed=0
for ((r = 1; r <= REPEAT; r++)); do
	ok=1
	for u in "${passes[@]}"; do
		one_pass "$r" "$u" || ok=0
	done
	if [ $ok = 1 ]; then
		passed=$((passed + 1))
		echo "run $r: PASS"
	else
		failed=$((failed + 1))
		failed_any=1
		echo "run $r: FAIL"
	fi
done
echo "concurrency: $passed passed, $failed failed"
[ "$failed" = 0 ]
