#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Run a composite action, or a workflow job that uses it, the way a
GitHub-hosted runner would: each `run:` step as the runner user, with the
shell GitHub uses, in the workspace, with GITHUB_ENV, GITHUB_OUTPUT,
GITHUB_PATH and GITHUB_STEP_SUMMARY files that later steps see the effect
of.  Expressions are evaluated for the few contexts the action and the
example use; any other expression is an error, so that what the test runs
is what the runner runs.

Run as root; the steps are run as --user through setpriv(1) (sudo in a
step is the real sudo).  Prints one JSON document: the steps, their
status, outputs and output text, the action's outputs and the final
environment.

The Actions cache is simulated too (actions/cache/restore and
actions/cache/save, the only `uses:` an action may have here): its
entries are tar archives in --cache-dir, which the caller keeps between
runs as GitHub keeps a repository's cache between jobs.  As on GitHub, a
key matches exactly (cache-hit true) or as the prefix of an entry's key
(restored, cache-hit false), an entry is never overwritten, and the
archives are written and unpacked by the runner user.  Each step's
wall time is in its "seconds".

  simulate.py action DIR [--input NAME=VALUE]... [--only-step ID] COMMON
  simulate.py workflow FILE JOB --local-action ID=DIR [--secret NAME=VALUE]...
                                [--skip-step NAME]... COMMON
  COMMON: --user NAME --workspace DIR --temp DIR [--path-prepend DIR]
          [--env-file FILE] [--cache-dir DIR] [--action-path-prepend DIR]
--action-path-prepend puts DIR first on PATH in the action's steps only
(a tripwire for what they run).
"""

import argparse
import json
import os
import platform
import pwd
import re
import subprocess
import sys
import time
import urllib.parse

import yaml

EXPR = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


class SimError(Exception):
    pass


def evaluate(text, ctx):
    """Substitute ${{ ... }} in text; only the contexts the action uses."""
    if not isinstance(text, str):
        return "" if text is None else str(text)

    def one(m):
        expr = m.group(1)
        parts = expr.split(".")
        if parts[0] == "inputs" and len(parts) == 2:
            if "inputs" not in ctx or parts[1] not in ctx["inputs"]:
                raise SimError(f"undefined input in ${{{{ {expr} }}}}")
            return ctx["inputs"][parts[1]]
        if parts[0] == "github" and len(parts) == 2 and parts[1] in ("action_path", "workspace"):
            if parts[1] == "action_path" and "action_path" not in ctx:
                raise SimError("github.action_path outside an action")
            return ctx["action_path"] if parts[1] == "action_path" else ctx["workspace"]
        if parts[0] == "runner" and len(parts) == 2 and parts[1] in ("temp", "os", "arch"):
            return {"temp": ctx["temp"], "os": "Linux", "arch": runner_arch()}[parts[1]]
        if parts[0] == "steps" and len(parts) == 4 and parts[2] == "outputs":
            step = ctx["steps"].get(parts[1])
            if step is None and ctx.get("only_step"):
                return ""  # a step that --only-step left out
            if step is None:
                raise SimError(f"${{{{ {expr} }}}}: no earlier step with id {parts[1]}")
            return step.get("outputs", {}).get(parts[3], "")  # none when skipped
        if parts[0] == "secrets" and len(parts) == 2:
            return ctx["secrets"].get(parts[1], "")
        if parts[0] == "env" and len(parts) == 2:
            return ctx["env"].get(parts[1], "")
        raise SimError(f"expression not simulated: ${{{{ {expr} }}}}")

    return EXPR.sub(one, text)


def runner_arch():
    """runner.arch, as GitHub names the machine."""
    machine = platform.machine()
    arch = {"x86_64": "X64", "aarch64": "ARM64", "i686": "X86", "armv7l": "ARM"}.get(machine)
    if arch is None:
        raise SimError(f"runner.arch: no GitHub name for {machine}")
    return arch


def condition(cond, failed, ctx):
    """An if: of a status function, or of one comparison (== or !=) of a
    context and a quoted string, which GitHub compares ignoring case and
    ANDs with success()."""
    if cond is None:
        return not failed
    c = str(cond).strip()
    m = EXPR.fullmatch(c)
    if m:
        c = m.group(1)
    if c == "always()":
        return True
    if c == "success()":
        return not failed
    if c == "failure()":
        return failed
    m = re.fullmatch(r"([a-z][\w.-]*)\s*(==|!=)\s*'([^']*)'", c)
    if m:
        value = evaluate("${{ %s }}" % m.group(1), ctx).lower()
        equal = value == m.group(3).lower()
        return not failed and (equal if m.group(2) == "==" else not equal)
    raise SimError(f"if: not simulated: {cond}")


def parse_file_commands(path):
    """NAME=VALUE lines and NAME<<DELIMITER blocks, as GitHub reads them."""
    out = {}
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().split("\n")
    except FileNotFoundError:
        return out
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if not line:
            continue
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delim = line.split("<<", 1)
            value = []
            while i < len(lines) and lines[i] != delim:
                value.append(lines[i])
                i += 1
            if i >= len(lines):
                raise SimError(f"{path}: {name}: no closing {delim}")
            i += 1
            out[name] = "\n".join(value)
        elif "=" in line:
            name, value = line.split("=", 1)
            out[name] = value
        else:
            raise SimError(f"{path}: not a file command: {line!r}")
    return out


class Runner:
    def __init__(self, args):
        self.user = pwd.getpwnam(args.user)
        self.workspace = args.workspace
        self.temp = args.temp
        self.env = {
            "HOME": self.user.pw_dir,
            "USER": self.user.pw_name,
            "LOGNAME": self.user.pw_name,
            "SHELL": "/bin/bash",
            "LANG": "C.UTF-8",
            "PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
            "CI": "true",
            "GITHUB_ACTIONS": "true",
            "GITHUB_WORKSPACE": self.workspace,
            "GITHUB_RUN_ID": "4242",
            "GITHUB_RUN_ATTEMPT": "1",
            "RUNNER_TEMP": self.temp,
            "RUNNER_OS": "Linux",
        }
        for d in reversed(args.path_prepend or []):
            self.env["PATH"] = d + ":" + self.env["PATH"]
        if args.env_file:
            self.env.update(parse_file_commands(args.env_file))
        self.steps = {}
        self.results = []
        self.failed = False
        self.counter = 0
        self.cache_dir = args.cache_dir
        self.action_path_prepend = args.action_path_prepend
        self.sim_dir = os.path.join(self.temp, "_simulator")
        os.makedirs(self.sim_dir, exist_ok=True)
        os.chown(self.sim_dir, self.user.pw_uid, self.user.pw_gid)
        self.summary = os.path.join(self.sim_dir, "step_summary.md")

    def _file(self, name):
        path = os.path.join(self.sim_dir, f"{name}.{self.counter}")
        open(path, "w").close()
        os.chown(path, self.user.pw_uid, self.user.pw_gid)
        return path

    def run_script(self, label, script, shell, env_extra, cwd):
        """One `run:` step; returns (status, outputs, text)."""
        self.counter += 1
        files = {k: self._file(k) for k in ("env", "output", "path", "summary")}
        script_path = os.path.join(self.sim_dir, f"step{self.counter}.sh")
        with open(script_path, "w", encoding="utf-8") as f:
            f.write(script)
        os.chmod(script_path, 0o644)
        if shell is None:
            argv = ["bash", "-e", script_path]  # GitHub's default on Linux
        elif shell == "bash":
            argv = ["bash", "--noprofile", "--norc", "-eo", "pipefail", script_path]
        elif shell == "sh":
            argv = ["sh", "-e", script_path]
        else:
            raise SimError(f"{label}: shell {shell!r} not simulated")
        env = dict(self.env)
        env.update(env_extra)
        env["GITHUB_ENV"] = files["env"]
        env["GITHUB_OUTPUT"] = files["output"]
        env["GITHUB_PATH"] = files["path"]
        env["GITHUB_STEP_SUMMARY"] = files["summary"]
        proc = subprocess.run(
            ["setpriv", f"--reuid={self.user.pw_uid}", f"--regid={self.user.pw_gid}",
             "--init-groups", "--"] + argv,
            env=env, cwd=cwd, stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, check=False)
        text = proc.stdout.decode("utf-8", "replace")
        self.env.update(parse_file_commands(files["env"]))
        with open(files["path"], encoding="utf-8") as f:
            for d in f.read().split("\n"):
                if d:
                    self.env["PATH"] = d + ":" + self.env["PATH"]
        with open(files["summary"], encoding="utf-8") as f, \
                open(self.summary, "a", encoding="utf-8") as all_summary:
            all_summary.write(f.read())
        return proc.returncode, parse_file_commands(files["output"]), text

    def as_user(self, argv, **kw):
        return subprocess.run(
            ["setpriv", f"--reuid={self.user.pw_uid}", f"--regid={self.user.pw_gid}",
             "--init-groups", "--"] + argv, check=False, **kw)

    def cache_step(self, label, uses, inputs):
        """actions/cache/restore or actions/cache/save; returns (status,
        outputs, text)."""
        if not self.cache_dir:
            raise SimError(f"{label}: uses {uses} needs --cache-dir")
        path, key = inputs.get("path", ""), inputs.get("key", "")
        if not path or not key or "\n" in path or "restore-keys" in inputs:
            raise SimError(f"{label}: one path and one key simulated, no restore-keys: {inputs}")
        path = os.path.join(self.workspace, path)
        entries = {urllib.parse.unquote(f[:-4]): os.path.join(self.cache_dir, f)
                   for f in os.listdir(self.cache_dir) if f.endswith(".tar")}
        if uses.startswith("actions/cache/restore@"):
            matched = key if key in entries else next(
                (k for k in sorted(entries, key=lambda k: -os.path.getmtime(entries[k]))
                 if k.startswith(key)), None)
            outs = {"cache-primary-key": key, "cache-hit": "false"}
            if matched is None:
                return 0, outs, f"Cache not found for input keys: {key}\n"
            self.as_user(["mkdir", "-p", "--", path])
            with open(entries[matched], "rb") as f:
                proc = self.as_user(["tar", "-xf", "-", "-C", path], stdin=f,
                                    stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            if proc.returncode != 0:
                return 1, outs, proc.stdout.decode("utf-8", "replace")
            outs.update({"cache-matched-key": matched, "cache-hit": str(matched == key).lower()})
            return 0, outs, f"Cache restored from key: {matched}\n"
        if uses.startswith("actions/cache/save@"):
            if key in entries:
                # GitHub's entries are immutable: a warning, not a failure.
                return 0, {}, f"::warning::Failed to save: cache entry {key} already exists\n"
            proc = self.as_user(["tar", "-cf", "-", "-C", path, "."],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            if proc.returncode != 0:
                return 0, {}, "::warning::Failed to save: " + proc.stderr.decode("utf-8", "replace")
            with open(os.path.join(self.cache_dir, urllib.parse.quote(key, safe="") + ".tar"),
                      "wb") as f:
                f.write(proc.stdout)
            return 0, {}, f"Cache saved with key: {key}\n"
        raise SimError(f"{label}: uses {uses}: not simulated")

    def record(self, entry):
        self.results.append(entry)
        if entry.get("id"):
            self.steps[entry["id"]] = entry
        if entry.get("status", 0) != 0:
            self.failed = True

    def run_action(self, action_dir, inputs, step_id=None, only_step=None):
        """A composite action: its steps in order; returns its outputs."""
        with open(os.path.join(action_dir, "action.yml"), encoding="utf-8") as f:
            action = yaml.safe_load(f)
        if action["runs"]["using"] != "composite":
            raise SimError("not a composite action")
        declared = action.get("inputs") or {}
        for name in inputs:
            if name not in declared:
                raise SimError(f"input {name} is not declared by the action")
        values = {}
        for name, spec in declared.items():
            values[name] = inputs.get(name, str((spec or {}).get("default", "")))
        ctx = {"inputs": values, "action_path": action_dir, "workspace": self.workspace,
               "temp": self.temp, "steps": {}, "secrets": {}, "env": self.env,
               "only_step": only_step}
        saved_steps, self.steps = self.steps, ctx["steps"]
        status = 0
        try:
            for step in action["runs"]["steps"]:
                sid = step.get("id")
                if only_step is not None and sid != only_step:
                    continue
                if "run" not in step and "uses" not in step:
                    raise SimError(f"action step {step.get('name')}: neither run nor uses")
                if not condition(step.get("if"), status != 0, ctx):
                    self.record({"scope": "action", "name": step.get("name"), "id": sid,
                                 "skipped": "condition"})
                    continue
                started = time.monotonic()
                if "uses" in step:
                    inputs = {k: evaluate(v, ctx) for k, v in (step.get("with") or {}).items()}
                    st, outs, text = self.cache_step(step.get("name"), step["uses"], inputs)
                else:
                    env = {k: evaluate(v, ctx) for k, v in (step.get("env") or {}).items()}
                    env["GITHUB_ACTION_PATH"] = action_dir
                    if self.action_path_prepend:
                        env["PATH"] = self.action_path_prepend + ":" + self.env["PATH"]
                    cwd = evaluate(step.get("working-directory"), ctx) or self.workspace
                    st, outs, text = self.run_script(step.get("name"), step["run"],
                                                     step.get("shell"), env, cwd)
                self.record({"scope": "action", "name": step.get("name"), "id": sid,
                             "status": st, "outputs": outs, "text": text,
                             "seconds": round(time.monotonic() - started, 3)})
                if st != 0 and status == 0:
                    status = st
            outputs = {name: evaluate(spec.get("value"), ctx)
                       for name, spec in (action.get("outputs") or {}).items()}
        finally:
            self.steps = saved_steps
        entry = {"scope": "workflow", "name": f"action {action_dir}", "id": step_id,
                 "status": status, "outputs": outputs, "text": ""}
        return entry

    def run_workflow(self, path, job_name, local_actions, secrets, skip):
        with open(path, encoding="utf-8") as f:
            wf = yaml.safe_load(f)
        job = wf["jobs"][job_name]
        ctx = {"workspace": self.workspace, "temp": self.temp, "steps": self.steps,
               "secrets": secrets, "env": self.env}
        for scope in (wf.get("env") or {}, job.get("env") or {}):
            for k, v in scope.items():
                self.env[k] = evaluate(v, ctx)
        for step in job["steps"]:
            sid, name = step.get("id"), step.get("name") or step.get("uses") or step.get("run")
            if not condition(step.get("if"), self.failed, ctx):
                self.record({"scope": "workflow", "name": name, "id": sid, "skipped": "condition"})
                continue
            if "uses" in step:
                if sid in local_actions:
                    inputs = {k: evaluate(v, ctx) for k, v in (step.get("with") or {}).items()}
                    self.record(self.run_action(local_actions[sid], inputs, sid))
                else:
                    self.record({"scope": "workflow", "name": name, "id": sid,
                                 "skipped": f"uses {step['uses']}: not simulated"})
                continue
            if name in skip:
                self.record({"scope": "workflow", "name": name, "id": sid,
                             "skipped": "--skip-step"})
                continue
            env = {k: evaluate(v, ctx) for k, v in (step.get("env") or {}).items()}
            cwd = evaluate(step.get("working-directory"), ctx) or self.workspace
            st, outs, text = self.run_script(name, step["run"], step.get("shell"), env, cwd)
            self.record({"scope": "workflow", "name": name, "id": sid, "status": st,
                         "outputs": outs, "text": text})


def pairs(items, what):
    out = {}
    for item in items or []:
        if "=" not in item:
            raise SimError(f"{what}: NAME=VALUE expected, not {item!r}")
        k, v = item.split("=", 1)
        out[k] = v
    return out


def main():
    p = argparse.ArgumentParser()
    p.add_argument("mode", choices=("action", "workflow"))
    p.add_argument("target")
    p.add_argument("job", nargs="?")
    p.add_argument("--input", action="append")
    p.add_argument("--only-step")
    p.add_argument("--local-action", action="append")
    p.add_argument("--secret", action="append")
    p.add_argument("--skip-step", action="append", default=[])
    p.add_argument("--user", required=True)
    p.add_argument("--workspace", required=True)
    p.add_argument("--temp", required=True)
    p.add_argument("--path-prepend", action="append")
    p.add_argument("--env-file")
    p.add_argument("--cache-dir")
    p.add_argument("--action-path-prepend")
    args = p.parse_args()
    try:
        r = Runner(args)
        if args.mode == "action":
            entry = r.run_action(args.target, pairs(args.input, "--input"),
                                 only_step=args.only_step)
            r.record(entry)
            outputs = entry["outputs"]
        else:
            r.run_workflow(args.target, args.job, pairs(args.local_action, "--local-action"),
                           pairs(args.secret, "--secret"), set(args.skip_step))
            outputs = {}
    except (SimError, KeyError, OSError, yaml.YAMLError) as e:
        print(json.dumps({"error": f"{type(e).__name__}: {e}"}))
        return 2
    with open(r.summary, encoding="utf-8") as f:
        summary = f.read()
    print(json.dumps({"steps": r.results, "outputs": outputs, "env": r.env,
                      "failed": r.failed, "step_summary": summary}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
