#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Structural checks of action.yml and docs/examples/factory.yml, and of
what docs/ci.md and the examples say about stepguard's command line against
the binary's --help.  Prints "ok NAME" or "FAIL NAME: why" per check, and
writes the run: scripts to OUTDIR (for shellcheck).

Usage: check_action.py TOP STEPGUARD OUTDIR
"""

import os
import re
import shlex
import subprocess
import sys

import yaml

TOP, SG, OUTDIR = sys.argv[1], sys.argv[2], sys.argv[3]
EXPR = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")
results = []


def check(name, cond, why=""):
    results.append(bool(cond))
    print(f"ok {name}" if cond else f"FAIL {name}: {why}")


def load(rel):
    with open(os.path.join(TOP, rel), encoding="utf-8") as f:
        return f.read()


def help_options(argv):
    """The options of the option table: the lines that start with blanks
    and a dash."""
    out = subprocess.run(argv, capture_output=True, text=True, check=False).stdout
    table = "\n".join(line for line in out.splitlines() if re.match(r" +-", line))
    return set(re.findall(r"(?<![\w-])(--?[a-z][a-z-]*)", table))


# --- action.yml ---------------------------------------------------------------
text = load("action.yml")
try:
    action = yaml.safe_load(text)
    check("action.yml is YAML", isinstance(action, dict), "not a mapping")
except yaml.YAMLError as e:
    check("action.yml is YAML", False, str(e))
    sys.exit(0)

for key in ("name", "description", "runs"):
    check(f"action.yml has {key}", bool(action.get(key)), "missing or empty")
known = {"name", "author", "description", "inputs", "outputs", "runs", "branding"}
check("action.yml has only metadata keys", set(action) <= known, str(set(action) - known))
runs = action.get("runs") or {}
check("runs.using is composite", runs.get("using") == "composite", str(runs.get("using")))
steps = runs.get("steps") or []
check("composite steps present", len(steps) > 0, "no steps")
inputs = action.get("inputs") or {}
outputs = action.get("outputs") or {}
for name in ("policy", "log"):
    check(f"input {name} declared, optional, described",
          name in inputs and not (inputs[name] or {}).get("required", False)
          and bool((inputs[name] or {}).get("description")), str(inputs.get(name)))
check("output backend declared", "backend" in outputs, str(list(outputs)))

ids = [s.get("id") for s in steps if s.get("id")]
check("step ids unique", len(ids) == len(set(ids)), str(ids))
# The only uses: steps are the Actions cache's, pinned to a major version
# or a commit: a moving ref like @main could change under every user.
CACHE_USES = re.compile(r"actions/cache/(restore|save)@(v\d+|[0-9a-f]{40})")
used_inputs = set()
earlier_ids = set()
for i, step in enumerate(steps):
    label = step.get("name") or f"step {i + 1}"
    check(f"action step '{label}' has a name", bool(step.get("name")), "no name")
    if "uses" in step:
        check(f"action step '{label}' uses the Actions cache, pinned",
              CACHE_USES.fullmatch(str(step["uses"])) is not None, str(step["uses"]))
    elif "run" in step:
        check(f"action step '{label}' has shell:", step.get("shell") in ("bash", "sh"),
              f"shell {step.get('shell')!r} (composite run steps need one)")
        check(f"action step '{label}' has no expression in its script",
              not EXPR.search(step["run"]),
              "pass values through env:, never into the script")
        with open(os.path.join(OUTDIR, f"action-{i + 1}.sh"), "w", encoding="utf-8") as f:
            f.write("#!/bin/bash\n" + step["run"])
    else:
        check(f"action step '{label}' is a run step or the cache", False, "neither run: nor uses:")
    cond = str(step.get("if") or "")
    if cond and not EXPR.search(cond):
        cond = "${{ " + cond + " }}"  # an if: is an expression without the braces too
    values = list((step.get("env") or {}).values()) + list((step.get("with") or {}).values())
    for value in values + [cond]:
        for expr in EXPR.findall(str(value)):
            m = re.fullmatch(r"inputs\.([A-Za-z0-9_-]+)", expr)
            ms = re.fullmatch(r"steps\.([A-Za-z0-9_-]+)\.outputs\.[A-Za-z0-9_-]+(\s*[!=]=\s*'[a-z]*')?",
                              expr)
            if m:
                used_inputs.add(m.group(1))
                check(f"'{label}': input {m.group(1)} declared", m.group(1) in inputs,
                      "undeclared input")
            elif ms:
                check(f"'{label}': {expr} is an earlier step's output", ms.group(1) in earlier_ids,
                      f"no earlier step {ms.group(1)}")
            else:
                check(f"'{label}': expression {expr} is a context the action may use",
                      re.fullmatch(r"(github\.action_path|github\.workspace|runner\.(temp|arch))",
                                   expr) is not None, "unexpected expression")
    if step.get("id"):
        earlier_ids.add(step["id"])
check("every input is used", used_inputs == set(inputs), str(set(inputs) - used_inputs))
for name, spec in outputs.items():
    value = (spec or {}).get("value", "")
    m = re.fullmatch(r"\$\{\{\s*steps\.([A-Za-z0-9_-]+)\.outputs\.([A-Za-z0-9_-]+)\s*\}\}", value)
    check(f"output {name} is a step's output", m is not None, repr(value))
    if not m:
        continue
    step = next((s for s in steps if s.get("id") == m.group(1)), None)
    check(f"output {name}: step {m.group(1)} exists", step is not None, "no such step id")
    if step:
        script = step.get("run", "")
        writes = re.search(rf"(^|[\"'f ]){re.escape(m.group(2))}=", script) and "GITHUB_OUTPUT" in script
        check(f"output {name}: step {m.group(1)} writes {m.group(2)} to GITHUB_OUTPUT",
              bool(writes), "not written")
        check(f"output {name} described", bool((spec or {}).get("description")), "no description")

scripts = "\n".join(s.get("run", "") for s in steps)
for needle, what in (("stepguard --self-test --json", "runs the self-test with --json under sudo"),
                     ("make -C \"$SG_SOURCE\" deps-build", "installs the build dependencies"),
                     ("make -C \"$SG_SOURCE\" install DESTDIR=\"$SG_STAGE\" PREFIX=/usr/local",
                      "stages the install under /usr/local"),
                     ("STEPGUARD_POLICY=", "exports STEPGUARD_POLICY"),
                     ("STEPGUARD_LOG=", "exports STEPGUARD_LOG"),
                     ("GITHUB_ENV", "writes GITHUB_ENV")):
    check(f"action {what}", needle in scripts, f"no {needle!r}")
check("action's self-test is run with sudo", "sudo stepguard --self-test" in scripts, "no sudo")

# The cache (docs/ci.md, "How the action is cached"): one exact key of the
# source's files, the OS release and the architecture; the build steps
# only on a miss; the install from the staged tree, verified, without
# make or apt; the save right after it, before any step of the job.
def step_where(pred):
    return next((i for i, s in enumerate(steps) if pred(s)), None)


MISS = re.compile(r"(\$\{\{\s*)?steps\.cache\.outputs\.cache-hit != 'true'(\s*\}\})?")
i_src = step_where(lambda s: s.get("id") == "source")
i_restore = step_where(lambda s: str(s.get("uses", "")).startswith("actions/cache/restore@"))
i_save = step_where(lambda s: str(s.get("uses", "")).startswith("actions/cache/save@"))
i_install = step_where(lambda s: s.get("name") == "Install stepguard")
i_configure = step_where(lambda s: s.get("id") == "configure")
check("the cache steps exist: source, restore, install, save",
      None not in (i_src, i_restore, i_install, i_save, i_configure),
      str((i_src, i_restore, i_install, i_save, i_configure)))
if None not in (i_src, i_restore, i_install, i_save, i_configure):
    src, restore, save = steps[i_src], steps[i_restore], steps[i_save]
    install = steps[i_install]
    check("restore has id cache", restore.get("id") == "cache", str(restore.get("id")))
    key = str((restore.get("with") or {}).get("key", ""))
    for part, why in (("runner.arch", "the architecture"), ("steps.source.outputs.os", "the OS release"),
                      ("steps.source.outputs.tree", "the source's files")):
        check(f"the cache key has {why} ({part})", re.search(r"\{\{\s*" + re.escape(part) + r"\s*\}\}", key),
              key)
    check("the cache key has no other expression",
          len(EXPR.findall(key)) == 3, key)
    check("no restore-keys (a prefix would restore another source's build)",
          "restore-keys" not in (restore.get("with") or {}), str(restore.get("with")))
    script = src.get("run", "")
    check("the source step hashes every file but .git and build/",
          "sha256sum" in script and "./.git" in script and "./build" in script, script)
    check("the source step reads the OS release", "/etc/os-release" in script, script)
    check("the staged tree is under $RUNNER_TEMP", 'stage=$RUNNER_TEMP/' in script, script)
    stage_expr = "${{ steps.source.outputs.stage }}"
    check("restore and save the staged tree", (restore.get("with") or {}).get("path") == stage_expr
          and (save.get("with") or {}).get("path") == stage_expr, str((restore.get("with"), save.get("with"))))
    check("save under the key restore looked up",
          re.fullmatch(r"\$\{\{\s*steps\.cache\.outputs\.cache-primary-key\s*\}\}",
                       str((save.get("with") or {}).get("key", ""))) is not None, str(save.get("with")))
    check("the order: source, restore, ..., install, save, configure",
          i_src < i_restore < i_install < i_save < i_configure,
          str((i_src, i_restore, i_install, i_save, i_configure)))
    build_steps = [s for s in steps if re.search(r"\bmake\b|apt", s.get("run", ""))]
    check("make is run by the deps, build and stage steps",
          len(build_steps) == 3 and all(i_restore < steps.index(s) < i_install for s in build_steps),
          str([s.get("name") for s in build_steps]))
    for s in build_steps + [save]:
        check(f"'{s.get('name')}' runs only on a miss", MISS.fullmatch(str(s.get("if", ""))) is not None,
              str(s.get("if")))
    for s in steps[i_install:]:
        if s is not save:
            check(f"'{s.get('name')}' runs on a hit too", "if" not in s, str(s.get("if")))
    iscript = install.get("run", "")
    check("the install step checks the staged stepguard --version against the source's",
          re.search(r'--version.*\n.*\[ "\$got" = "stepguard \$SG_VERSION" \]', iscript) is not None, iscript)
    check("the install step installs as root, with install(1)", "sudo install -D -o root -g root" in iscript,
          iscript)
    check("the install step refuses what is not a file or directory under /usr/local, /etc/stepguard",
          "find . -mindepth 1 -printf '%y %p\\0'" in iscript and "refuse \"unexpected entry" in iscript,
          iscript)

# --- the example workflow -------------------------------------------------------
try:
    wf = yaml.safe_load(load("docs/examples/factory.yml"))
except yaml.YAMLError as e:
    check("factory.yml is YAML", False, str(e))
    sys.exit(0)
check("factory.yml is YAML", isinstance(wf, dict), "not a mapping")
# PyYAML reads the key on: as the boolean true (YAML 1.1).
check("factory.yml has on:", "on" in wf or True in wf, str(list(wf)))
jobs = wf.get("jobs") or {}
check("factory.yml has one job", len(jobs) == 1, str(list(jobs)))
job = next(iter(jobs.values()))
check("the job runs on ubuntu-24.04", job.get("runs-on") == "ubuntu-24.04", str(job.get("runs-on")))
wsteps = job.get("steps") or []

credentials = set()
m = re.search(r"^\[credentials\][^\[]*?^variables\s*=\s*(.*)$", load("rules.d/10-defaults.ini"), re.M | re.S)
if m:
    credentials = set(m.group(1).split())
check("credential variables read from rules.d", len(credentials) >= 1, "none found")
for scope, env in (("workflow", wf.get("env") or {}), ("job", job.get("env") or {})):
    check(f"no credential in the {scope}'s env", not credentials & set(env),
          str(credentials & set(env)))

act = [s for s in wsteps if str(s.get("uses", "")).split("@")[0].endswith("/stepguard")
       or s.get("uses") == "./"]
check("the example uses the action, with an id", len(act) == 1 and act[0].get("id"), str(act))
if act:
    check("the example passes the policy input", "policy" in (act[0].get("with") or {}),
          str(act[0].get("with")))
    check("the example's action inputs are declared",
          set(act[0].get("with") or {}) <= set(inputs), str(act[0].get("with")))
    i_act = wsteps.index(act[0])
else:
    i_act = len(wsteps)

holders = [s for s in wsteps if credentials & set(s.get("env") or {})]
check("exactly one step holds the credential", len(holders) == 1,
      str([s.get("name") for s in holders]))
for s in holders:
    env = s.get("env") or {}
    check("the credential comes from secrets",
          all(re.fullmatch(r"\$\{\{\s*secrets\.[A-Z0-9_]+\s*\}\}", str(env[v]))
              for v in credentials & set(env)), str(env))
    run = s.get("run", "")
    check("the model step runs claude under stepguard with --tools \"\"",
          re.search(r"stepguard\b.*?--\s*\\?\s*claude\b.*?--tools \"\"", run, re.S) is not None, run)
    check("the model step names its step (-s)", re.search(r"stepguard -s \w", run) is not None, run)
    check("the model step comes after the action", wsteps.index(s) > i_act, "before the action")
builds = [s for s in wsteps if s not in holders and "stepguard -s build" in s.get("run", "")]
check("a build step under stepguard, without the credential", len(builds) == 1,
      str([s.get("name") for s in builds]))
last = wsteps[-1] if wsteps else {}
check("the last step runs if: always()", str(last.get("if", "")).replace(" ", "") in
      ("always()", "${{always()}}"), str(last.get("if")))
check("the last step runs stepguard audit --github on the log",
      re.search(r"stepguard audit --github \"\$STEPGUARD_LOG\"", last.get("run", "")) is not None,
      last.get("run", ""))
for i, s in enumerate(wsteps):
    if "run" in s:
        check(f"example step '{s.get('name')}' has no expression in its script",
              not EXPR.search(s["run"]), "pass values through env:")
        with open(os.path.join(OUTDIR, f"factory-{i + 1}.sh"), "w", encoding="utf-8") as f:
            f.write("#!/bin/bash\n" + s["run"])
    if "sudo" in s.get("run", "") and "stepguard -s" in s.get("run", ""):
        check(f"example step '{s.get('name')}': sudo -E env PATH=... stepguard",
              "sudo -E env \"PATH=$PATH\" stepguard" in s["run"], s["run"])
    # stepguard makes each step its own temporary directory: no step sets
    # TMPDIR, nor makes a directory for it.
    if "run" in s or s.get("env"):
        check(f"example step '{s.get('name') or s.get('uses')}' sets no TMPDIR",
              not {"TMPDIR", "TMP", "TEMP", "TEMPDIR"} & set(s.get("env") or {})
              and "TMPDIR=" not in s.get("run", ""), str(s.get("env")) + " " + s.get("run", ""))

# --- what the docs say about the command line -------------------------------------
main_opts = help_options([SG, "--help"])
audit_opts = help_options([SG, "audit", "--help"])
check("--help lists options", {"--filter", "--mode", "--self-test", "--json"} <= main_opts,
      str(sorted(main_opts)))
check("audit --help lists options", {"--github", "--json", "--step"} <= audit_opts,
      str(sorted(audit_opts)))
man = load("man/stepguard.1")


def stepguard_lines(text):
    """The command lines that run stepguard, joined across backslashes."""
    text = re.sub(r"\\\n\s*", " ", text)
    for line in text.splitlines():
        for m in re.finditer(r"(?<![\w/.-])stepguard((?:\s+[^\s`|;&)]+)*)", line):
            yield m.group(0)


docs = {rel: load(rel) for rel in ("docs/ci.md", "docs/examples/factory.yml", "action.yml",
                                   "README.md")}
for rel, text in docs.items():
    seen = 0
    for cmd in stepguard_lines(text):
        try:
            words = shlex.split(cmd, comments=False)
        except ValueError:
            words = cmd.split()
        words = words[1:]
        if "--" in words:
            words = words[:words.index("--")]
        opts = audit_opts if words[:1] == ["audit"] else main_opts
        for w in words:
            if re.fullmatch(r"--?[a-z][a-z-]*(=.*)?", w):
                seen += 1
                name = w.split("=")[0]
                if name not in opts:
                    check(f"{rel}: stepguard option {name} exists", False, cmd)
    check(f"{rel}: stepguard's options it uses were found and exist ({seen})", seen > 0,
          "no stepguard option found: is the extraction broken?")
    # anywhere, prose included
    for w in re.findall(r"--filter[= ]([a-z+-]+)", text):
        check(f"{rel}: --filter {w} is a backend", w in ("auto", "bpf-lsm", "bpf-fmod", "landlock"))
    for w in re.findall(r"--mode[= ]([a-z]+)", text):
        check(f"{rel}: --mode {w} is a mode", w in ("enforce", "audit"))
for var in sorted(set(re.findall(r"\bSTEPGUARD_[A-Z_]+", "".join(docs.values())))):
    check(f"{var} is documented in stepguard(1)", var in man, "not in man/stepguard.1")
ci = docs["docs/ci.md"]
for link in re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", ci):
    path = os.path.normpath(os.path.join(TOP, "docs", link))
    check(f"docs/ci.md: link {link} resolves", os.path.exists(path), path)
for backend in ("bpf-fmod", "landlock", "--mode audit", "SUDO_UID", "CLAUDE_CONFIG_DIR",
                "stepguard audit --github", "--allow-write", "[writes]", "RUNNER_TEMP",
                "npm_config_cache", "PIP_CACHE_DIR", "CARGO_HOME", "GOCACHE", "GOMODCACHE",
                "examples/rules.d/50-caches.ini", "## How the action is cached", "make deb", "CO-RE",
                "runner.arch", "/etc/os-release", "restore-keys"):
    check(f"docs/ci.md speaks of {backend}", backend in ci, "missing")
for s in steps:
    if "uses" in s:
        check(f"docs/ci.md names the action's {s['uses']}", s["uses"] in ci, "another version, or none")
# The old advice, passing TMPDIR through sudo and making it a root, is gone:
# the step's temporary directory is stepguard's own.
for rel in ("docs/ci.md", "docs/examples/factory.yml", "docs/examples/stepguard.ini", "README.md"):
    text = load(rel)
    for old in ('"TMPDIR=$TMPDIR"', "${env:TMPDIR}"):
        check(f"{rel}: no {old}", old not in text, "the step's temporary directory is stepguard's own")
# Every sudo line in the docs is the example's form.
for m in re.finditer(r"sudo -E env[^\n]*?stepguard", ci):
    check(f"docs/ci.md: {m.group(0)}", m.group(0) == 'sudo -E env "PATH=$PATH" stepguard', m.group(0))

# --- the example policy and drop-ins parse ---------------------------------------------
EX = os.path.join(TOP, "docs", "examples")
dropins = sorted(f for f in os.listdir(os.path.join(EX, "rules.d")) if f.endswith(".ini"))
check("docs/examples/rules.d has 50-caches.ini", "50-caches.ini" in dropins, str(dropins))
# Copies, 0644: a checkout made under umask 002 would be group-writable,
# which stepguard refuses for a policy, and that is not what this tests.
PX = os.path.join(OUTDIR, "examples")
os.makedirs(os.path.join(PX, "rules.d"), exist_ok=True)
for rel in ["stepguard.ini"] + [os.path.join("rules.d", f) for f in dropins]:
    with open(os.path.join(EX, rel), encoding="utf-8") as src, \
            open(os.path.join(PX, rel), "w", encoding="utf-8") as dst:
        dst.write(src.read())
    os.chmod(os.path.join(PX, rel), 0o644)
cmd = [os.path.abspath(SG), "-p", os.path.join(PX, "stepguard.ini"), "--rules-dir",
       os.path.join(PX, "rules.d"), "--check"]
r = subprocess.run(cmd, capture_output=True, text=True, check=False, cwd=TOP)
check("the example policy and its drop-ins parse (--check)", r.returncode == 0,
      f"status {r.returncode}: {r.stdout[-2000:]}{r.stderr[-2000:]}")
for f in dropins:
    check(f"--check reads docs/examples/rules.d/{f}", f"rules.d/{f}: read" in r.stdout, r.stdout[:2000])
caches = load("docs/examples/rules.d/50-caches.ini")
for step in ("npm", "pip", "cargo", "go"):
    check(f"50-caches.ini has [step:{step}]", f"[step:{step}]" in caches, "missing")
for line in re.findall(r"^write\.\S+\s*=\s*(.*)$", caches, re.M):
    check(f"50-caches.ini: {line} is skipped when absent, below the home",
          line.startswith("?${HOME}/"), line)

print(f"# {sum(results)} of {len(results)} structural checks passed")
