#!/usr/bin/env python3
"""The `tacclc import-taccl` tests (cases.txt has the list and the format).

Usage: run_import.py --tacclc PATH [--update] NAME...   (NAME `all`: every case)

For each case, `tacclc import-taccl ARGUMENTS -o OUT` runs in this folder,
with OUT an existing file in a fresh temporary folder. The exit status, the
written file (expected/NAME.sketch) and the messages (expected/NAME.stderr,
with the temporary folder's path removed) are compared; an error must leave
OUT as it was and nothing beside it. A successful import must print the same
text to standard output, be in the `tacclc fmt` layout and pass its CHECK.
--update rewrites the expected files from the actual output (review the
diff).
"""
import argparse
import os
import shlex
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
EXPECTED = os.path.join(HERE, "expected")
SENTINEL = "an older file that a failed import must leave alone\n"


def load_cases():
    cases = {}
    with open(os.path.join(HERE, "cases.txt"), encoding="utf-8") as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                name, check, *args = shlex.split(line)
                cases[name] = (check, args)
    return cases


def run(argv, **kw):
    env = dict(os.environ)
    env.pop("TACCLC_PATH", None)  # imports must not depend on the caller
    return subprocess.run(argv, capture_output=True, text=True, timeout=120,
                          cwd=HERE, env=env, **kw)


def compare(path, actual, update, what):
    """Compares `actual` with the file `path` (missing: empty)."""
    if update:
        if actual:
            with open(path, "w", encoding="utf-8") as f:
                f.write(actual)
        elif os.path.exists(path):
            os.remove(path)
        return []
    expected = ""
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            expected = f.read()
    if actual == expected:
        return []
    return [f"{what} differs from {os.path.relpath(path, HERE)}:\n"
            f"--- expected\n{expected}--- actual\n{actual}"]


def check_output(tacclc, name, check, args, tmp, out):
    """The checks of a successful import; a list of failures."""
    with open(out, encoding="utf-8") as f:
        text = f.read()
    failures = []
    again = run([tacclc, "import-taccl", *args])
    if again.returncode != 0 or again.stdout != text:
        failures.append("importing again to standard output gave other "
                        f"text (exit {again.returncode}):\n{again.stdout}")
    fmt = run([tacclc, "fmt", "--check", out])
    if fmt.returncode != 0:
        failures.append(f"not in the fmt layout:\n{fmt.stdout}{fmt.stderr}")
    if check == "compile":
        xml = os.path.join(tmp, "out.xml")
        comp = run([tacclc, out, "-o", xml, "--time-limit", "2"])
        if comp.returncode != 0:
            failures.append(f"compile exited {comp.returncode}:\n"
                            f"{comp.stderr}")
        else:
            proof = run([tacclc, "check", xml])
            if proof.returncode != 0:
                failures.append(f"check exited {proof.returncode}:\n"
                                f"{proof.stdout}{proof.stderr}")
    elif check == "frontend":
        ir = run([tacclc, out, "--emit=ir"])
        if ir.returncode != 0:
            failures.append(f"--emit=ir exited {ir.returncode}:\n{ir.stderr}")
    return failures


def run_help(tacclc, args):
    """`import-taccl --help` lists the subcommand's options."""
    proc = run([tacclc, "import-taccl", *args])
    missing = [o for o in ("--topology", "--machine", "--collective", "--size",
                           "--profile-size", "--profile-scale", "-o")
               if o not in proc.stdout]
    if proc.returncode != 0 or missing:
        return [f"--help exited {proc.returncode}, missing {missing}"]
    return []


def run_case(tacclc, name, check, args, update):
    if check == "help":
        return run_help(tacclc, args)
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out.sketch")
        with open(out, "w", encoding="utf-8") as f:
            f.write(SENTINEL)
        proc = run([tacclc, "import-taccl", *args, "-o", out])
        stderr = proc.stderr.replace(tmp + os.sep, "")
        want = {"error": 1, "usage": 2}.get(check, 0)
        failures = []
        if proc.returncode != want:
            failures.append(f"exit {proc.returncode}, expected {want}")
        failures += compare(os.path.join(EXPECTED, name + ".stderr"), stderr,
                            update, "stderr")
        if want:
            with open(out, encoding="utf-8") as f:
                if f.read() != SENTINEL:
                    failures.append("the failed import changed -o's file")
            if os.listdir(tmp) != ["out.sketch"]:
                failures.append(f"files left behind: {os.listdir(tmp)}")
        elif proc.returncode == 0:
            with open(out, encoding="utf-8") as f:
                failures += compare(os.path.join(EXPECTED, name + ".sketch"),
                                    f.read(), update, "the imported sketch")
            failures += check_output(tacclc, name, check, args, tmp, out)
    return failures


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tacclc", required=True)
    ap.add_argument("--update", action="store_true")
    ap.add_argument("names", nargs="+")
    opts = ap.parse_args()
    cases = load_cases()
    names = sorted(cases) if opts.names == ["all"] else opts.names
    bad = 0
    for name in names:
        if name not in cases:
            sys.exit(f"no case '{name}' in cases.txt")
        check, args = cases[name]
        failures = run_case(os.path.abspath(opts.tacclc), name, check, args,
                            opts.update)
        for f in failures:
            print(f"FAIL {name}: {f}", file=sys.stderr)
        bad += bool(failures)
        if not failures:
            print(f"ok {name}")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
