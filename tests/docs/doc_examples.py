#!/usr/bin/env python3
"""Runs the fenced examples of a Markdown document, so docs cannot drift.

Usage: doc_examples.py --bin BUILD_BIN --root REPO DOC.md

Every fenced block must name its language in the info string; a block
without one is an error (so a command cannot hide in an untagged block).
What happens to a block depends on that language:

  sketch      written to the sandbox (as NAME with `file=NAME`, else as
              blockN.sketch) and checked with `tacclc FILE --list` and
              `tacclc FILE --sketch S --emit=ir` for each sketch it declares;
              with `expect=error` the check must fail with exit 1 instead
              (the transcript that follows shows the diagnostics).
  console     a transcript: each `$ COMMAND` line is run with bash in the
              sandbox and its output (stdout and stderr, as a pipe interleaves them) must equal the
              lines up to the next `$` line. A line `...` matches any number
              of lines and `[..]` inside a line matches any text, for
              timings and paths. The exit status must be 0 unless the block
              says `exit=N` (for every command of the block).
  sh          each command line (comments and blank lines skipped, `\\`
              continuations joined) is run with bash in the sandbox and must
              exit 0; its output is not compared.
  synopsis    a usage line, `PROGRAM [--option VALUE] ...`: `PROGRAM --help`
              must exit 0 and name every `--option` the synopsis shows
              (`PROGRAM SUBCOMMAND ...`: `PROGRAM SUBCOMMAND --help`).
  json, xml, text, cpp, python, diff, ebnf, cmake, lua
              shown only.

Outside the blocks, every repository path the prose names (in backquotes,
`scripts/algo-dir`, or as a link target, `(docs/runtime.md)`) must exist,
relative to the repository root or to the document.

A `sh` or `console` block that cannot run here (it needs a GPU, root, a
network or a long time) says why in the info string: ```sh skip="needs a
GPU"```. The skip reason is printed, so skipped blocks stay visible.

The sandbox is a fresh temporary folder holding a link to each top-level
entry of the repository (so `build/bin/tacclc`, `scripts/...` and
`stdlib-sketches/...` resolve as they do at the root) with `build/bin` first
on PATH (so a bare `tacclc` works too). Blocks of one document share the
sandbox in order, so a later block can use a file an earlier one wrote.
"""
import argparse
import os
import re
import shlex
import subprocess
import sys
import tempfile

SHOWN = {"json", "xml", "text", "cpp", "python", "diff", "ebnf", "cmake",
         "lua"}
RUN = {"sketch", "console", "sh", "synopsis"}
FENCE = re.compile(r"^( *)(```+)(.*)$")
TIMEOUT = 120


class Block:
    """One fenced block: where it starts, its language, options and text."""

    def __init__(self, line, lang, opts, text):
        self.line, self.lang, self.opts, self.text = line, lang, opts, text


def parse_info(info):
    """`sh skip="needs a GPU" exit=1` -> ("sh", {"skip": ..., "exit": "1"})."""
    words = shlex.split(info)
    if not words:
        return "", {}
    opts = {}
    for w in words[1:]:
        key, eq, value = w.partition("=")
        opts[key] = value if eq else ""
    return words[0], opts


def blocks_of(path):
    """Every fenced block of the Markdown file, in order."""
    out, lines = [], open(path, encoding="utf-8").read().splitlines()
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, fence, start = m.group(1), m.group(2), i + 1
        j = i + 1
        while j < len(lines) and lines[j].strip() != fence:
            j += 1
        if j == len(lines):
            raise SystemExit(f"{path}:{start}: unterminated fenced block")
        lang, opts = parse_info(m.group(3).strip())
        body = [l[len(indent):] if l.startswith(indent) else l.lstrip()
                for l in lines[i + 1:j]]
        out.append(Block(start, lang, opts, body))
        i = j + 1
    return out


TOP = ("bench", "checker", "codegen", "docs", "editors", "exec", "format",
       "frontend", "grammar", "ir", "lsp", "passes", "scripts", "shim", "sim",
       "solver", "stdlib-sketches", "support", "tests", "tools")
PATH_REF = re.compile(r"`((?:%s)/[^`\s]*)`|\]\(([^)#\s:]+)(?:#[^)]*)?\)"
                      % "|".join(TOP))


def test_names(build):
    """The CTest names of the build (`shim/fake-nccl` looks like a path)."""
    try:
        proc = subprocess.run(["ctest", "--test-dir", build, "-N"],
                              capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return set()
    return set(re.findall(r"Test\s+#\d+: (\S+)", proc.stdout))


def names_something(ref, root, doc_dir, tests):
    """A path (or a source file's stem, `format/PlanWriter`) or a test."""
    for base in (root, doc_dir):
        full = os.path.join(base, ref)
        if any(os.path.exists(full + ext) for ext in ("", ".h", ".cpp")):
            return True
    return ref in tests


def missing_paths(path, root, tests):
    """(line, path) for each repository path the prose names that is not
    there. Paths with placeholders (`*`, `...`, `<`, capitals-only words)
    are patterns, and a path in a link's text names the link's target, so
    both are skipped."""
    out, in_block = [], False
    doc_dir = os.path.dirname(os.path.abspath(path))
    for number, line in enumerate(open(path, encoding="utf-8"), 1):
        if FENCE.match(line.rstrip("\n")):
            in_block = not in_block
            continue
        if in_block:
            continue
        line = re.sub(r"\[[^\]]*\]\(https?:[^)]*\)", "", line)
        for m in PATH_REF.finditer(line):
            ref = (m.group(1) or m.group(2)).rstrip(".,;")
            if any(c in ref for c in "*<{") or "..." in ref or \
                    re.search(r"(^|/)[A-Z][A-Z_]+(\.|/|$)", ref):
                continue
            if not names_something(ref, root, doc_dir, tests):
                out.append((number, ref))
    return out


def shell(cmd, sandbox, env):
    """Runs one command line with bash; returns (exit status, output)."""
    try:
        proc = subprocess.run(["bash", "-c", cmd], cwd=sandbox, env=env,
                              stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True,
                              timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return None, f"timed out after {TIMEOUT} s"
    return proc.returncode, proc.stdout


def line_matches(want, got):
    parts = [re.escape(p) for p in want.split("[..]")]
    return re.fullmatch(".*".join(parts), got) is not None


def output_matches(want, got):
    """Compares transcript lines; `...` matches any run of lines."""
    if not want:
        return not got
    if want[0] == "...":
        return any(output_matches(want[1:], got[k:])
                   for k in range(len(got) + 1))
    return bool(got) and line_matches(want[0], got[0]) and \
        output_matches(want[1:], got[1:])


class Runner:
    def __init__(self, doc, sandbox, env):
        self.doc, self.sandbox, self.env = doc, sandbox, env
        self.failures, self.ran, self.skipped = [], 0, []

    def fail(self, block, what):
        self.failures.append(f"{self.doc}:{block.line}: {what}")

    def sketch(self, index, block):
        name = block.opts.get("file") or f"block{index}.sketch"
        with open(os.path.join(self.sandbox, name), "w") as f:
            f.write("\n".join(block.text) + "\n")
        quoted = shlex.quote(name)
        rc, out = shell(f"tacclc {quoted} --list", self.sandbox, self.env)
        if rc == 0:
            for line in out.splitlines():
                m = re.match(r"sketch (\w+)", line)
                if m and rc == 0:
                    rc, out = shell(f"tacclc {quoted} --sketch {m.group(1)} "
                                    "--emit=ir", self.sandbox, self.env)
        expect_error = "expect" in block.opts
        if expect_error and rc != 1:
            self.fail(block, f"sketch {name} should be refused (exit 1), "
                      f"got exit {rc}:\n{out}")
        elif not expect_error and rc != 0:
            self.fail(block, f"sketch {name} does not check (exit {rc}):\n"
                      f"{out}")

    def console(self, block):
        expect = int(block.opts.get("exit", "0"))
        cmds, cur = [], None
        for line in block.text:
            if line.startswith("$ "):
                cur = (line[2:], [])
                cmds.append(cur)
            elif cur is None:
                self.fail(block, f"transcript line before any `$ `: {line}")
                return
            else:
                cur[1].append(line.rstrip())
        for cmd, want in cmds:
            rc, out = shell(cmd, self.sandbox, self.env)
            got = [l.rstrip() for l in out.splitlines()]
            while got and not got[-1]:
                got.pop()
            if rc != expect:
                self.fail(block, f"`{cmd}` exited {rc}, expected {expect}:\n"
                          f"{out}")
            elif not output_matches(want, got):
                self.fail(block, f"`{cmd}` printed:\n" + "\n".join(got) +
                          "\n--- the document shows:\n" + "\n".join(want))

    def sh(self, block):
        joined, cur = [], ""
        for line in block.text:
            if line.rstrip().endswith("\\"):
                cur += line.rstrip()[:-1] + " "
                continue
            cur += line
            if cur.strip() and not cur.strip().startswith("#"):
                joined.append(cur)
            cur = ""
        for cmd in joined:
            rc, out = shell(cmd, self.sandbox, self.env)
            if rc != 0:
                self.fail(block, f"`{cmd}` exited {rc}:\n{out}")

    def synopsis(self, block):
        text = " ".join(block.text)
        words = text.split()
        program = words[0]
        # `PROGRAM SUBCOMMAND [--option] ...`: the subcommand's own --help.
        if len(words) > 1 and re.fullmatch(r"[a-z][a-z-]*", words[1]):
            program = f"{words[0]} {words[1]}"
        rc, out = shell(" ".join(map(shlex.quote, program.split())) +
                        " --help", self.sandbox,
                        self.env)
        if rc != 0:
            self.fail(block, f"`{program} --help` exited {rc}:\n{out}")
            return
        for option in sorted(set(re.findall(r"--[a-z][a-z0-9-]*", text))):
            if not re.search(re.escape(option) + r"\b", out):
                self.fail(block, f"`{program} --help` does not mention "
                          f"{option}")

    def run(self, blocks):
        for index, block in enumerate(blocks):
            if not block.lang:
                self.fail(block, "a fenced block must name its language "
                          f"(one of {', '.join(sorted(RUN | SHOWN))})")
                continue
            if block.lang not in RUN | SHOWN:
                self.fail(block, f"unknown block language '{block.lang}'")
                continue
            if block.lang in SHOWN:
                continue
            if "skip" in block.opts:
                if not block.opts["skip"]:
                    self.fail(block, "skip needs a reason: skip=\"...\"")
                self.skipped.append(f"{self.doc}:{block.line}: "
                                    f"{block.opts['skip']}")
                continue
            self.ran += 1
            if block.lang == "sketch":
                self.sketch(index, block)
            else:
                getattr(self, block.lang)(block)


def make_sandbox(root, bindir):
    sandbox = tempfile.mkdtemp(prefix="tacclc-docs-")
    root = os.path.abspath(root)
    for entry in os.listdir(root):
        if entry.startswith(".") or entry == "build":
            continue
        os.symlink(os.path.join(root, entry), os.path.join(sandbox, entry))
    build = os.path.dirname(os.path.abspath(bindir))
    os.symlink(build, os.path.join(sandbox, "build"))
    env = dict(os.environ)
    env["PATH"] = os.path.abspath(bindir) + os.pathsep + env.get("PATH", "")
    env["TACCLC_BUILD"] = build
    env.pop("TACCLC_PATH", None)
    return sandbox, env


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", required=True, help="the build's bin folder")
    ap.add_argument("--root", required=True, help="the repository root")
    ap.add_argument("doc")
    args = ap.parse_args()
    sandbox, env = make_sandbox(args.root, args.bin)
    rel = os.path.relpath(args.doc, args.root)
    runner = Runner(rel, sandbox, env)
    runner.run(blocks_of(args.doc))
    tests = test_names(os.path.dirname(os.path.abspath(args.bin)))
    for number, ref in missing_paths(args.doc, os.path.abspath(args.root),
                                     tests):
        runner.failures.append(f"{rel}:{number}: names '{ref}', which is "
                               "not in the repository")
    for s in runner.skipped:
        print(f"skipped {s}")
    print(f"{rel}: {runner.ran} block(s) run, {len(runner.skipped)} "
          f"skipped, {len(runner.failures)} failed")
    for f in runner.failures:
        print(f"FAIL {f}", file=sys.stderr)
    subprocess.run(["rm", "-rf", sandbox])
    return 1 if runner.failures else 0


if __name__ == "__main__":
    sys.exit(main())
