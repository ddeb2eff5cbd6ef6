#!/usr/bin/env python3
"""Golden-file test runner for tacclc.

Each test is one input file whose first lines carry directives:

    // RUN: tacclc --emit=ast %s
    // EXIT: 1            (optional, default 0)
    // MASK: [0-9.]+ s\b  (optional, repeatable: a Python regex whose matches
                          in stdout and stderr become `*`, for wall times)
    // DROP: ^referee     (optional, repeatable: lines of stdout and stderr
                          matching this regex are left out, for output
                          that only some builds print)

`%s` is the test file's name; the command runs in the test file's folder so
diagnostics print paths as `name.sketch:3:5`. Expected exit status, stdout
and stderr live in a sidecar `<name>.expected`:

    ;; exit: 0
    ;; stdout:
    ...
    ;; stderr:
    ...

Usage: run_golden.py --tacclc PATH [--update] FILE...
--update rewrites the sidecars from the actual output (review the diff).
"""
import argparse
import difflib
import os
import re
import shlex
import subprocess
import sys


def parse_directives(path):
    run, exit_code, masks, drops = None, 0, [], []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line.startswith("// RUN:"):
                run = line[len("// RUN:"):].strip()
            elif line.startswith("// EXIT:"):
                exit_code = int(line[len("// EXIT:"):].strip())
            elif line.startswith("// MASK:"):
                masks.append(re.compile(line[len("// MASK:"):].strip()))
            elif line.startswith("// DROP:"):
                drops.append(re.compile(line[len("// DROP:"):].strip()))
    if run is None:
        raise SystemExit(f"{path}: no '// RUN:' line")
    return run, exit_code, masks, drops


def render(exit_code, out, err):
    return f";; exit: {exit_code}\n;; stdout:\n{out};; stderr:\n{err}"


def run_one(tacclc, path, update):
    run, want_exit, masks, drops = parse_directives(path)
    folder, name = os.path.split(os.path.abspath(path))
    argv = shlex.split(run.replace("%s", name))
    if argv[0] != "tacclc":
        raise SystemExit(f"{path}: RUN must start with 'tacclc'")
    argv[0] = tacclc
    env = dict(os.environ)
    env.pop("TACCLC_PATH", None)  # imports must not depend on the caller
    proc = subprocess.run(argv, cwd=folder, capture_output=True, text=True,
                          timeout=300, env=env)
    out, err = proc.stdout, proc.stderr
    if drops:
        out, err = ("".join(l for l in text.splitlines(True)
                            if not any(d.search(l) for d in drops))
                    for text in (out, err))
    for mask in masks:
        out, err = mask.sub("*", out), mask.sub("*", err)
    actual = render(proc.returncode, out, err)
    expected_path = os.path.splitext(os.path.abspath(path))[0] + ".expected"
    if update:
        with open(expected_path, "w", encoding="utf-8") as f:
            f.write(actual)
        print(f"updated {os.path.relpath(expected_path)}")
        return True
    ok = True
    if proc.returncode != want_exit:
        print(f"{path}: exit status {proc.returncode}, the EXIT line says "
              f"{want_exit}")
        ok = False
    try:
        with open(expected_path, encoding="utf-8") as f:
            expected = f.read()
    except FileNotFoundError:
        print(f"{path}: no {os.path.basename(expected_path)}; run with --update")
        return False
    if expected != actual:
        print(f"{path}: output differs from {os.path.basename(expected_path)}:")
        sys.stdout.writelines(difflib.unified_diff(
            expected.splitlines(True), actual.splitlines(True),
            "expected", "actual"))
        ok = False
    return ok


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tacclc", required=True)
    ap.add_argument("--update", action="store_true")
    ap.add_argument("files", nargs="+")
    args = ap.parse_args()
    results = [run_one(args.tacclc, f, args.update) for f in args.files]
    failed = results.count(False)
    print(f"{len(results) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
