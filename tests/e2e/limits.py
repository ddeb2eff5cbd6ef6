#!/usr/bin/env python3
"""End-to-end tests of a compile's process, time and memory limits.

Usage: limits.py TACCLC SKETCH COMMAND, where SKETCH is
tests/e2e/inputs/limits.sketch and COMMAND one of:
  signals  SIGTERM, SIGINT and SIGKILL in turn, sent mid-solve, end tacclc
           with the signal's status and leave no process behind (every
           process started carries a marker in its environment; none may
           be alive afterwards) and no output or temporary file
  time     --time-limit on sketches too large for it: tacclc ends well
           within the limit plus a generous slack, with a result that
           checks or the diagnostic naming the phase that ran out
  deadline --time-limit is the whole compile's wall clock: a standard-
           library sketch that needs far longer ends within the limit plus
           a tenth (at least 1 s), with a program that checks and a warning
           saying the time limit stopped a solver, or with the diagnostic
           and no file
  nan      a compile stopped by its limit before any bound is known prints
           no "nan" (or a '-' value) in --stats, --summary, -v or its JSON
           report, whose unknown values are null
  progress -v without a terminal prints sparse progress lines: a phase
           once it has lasted a second, then at most every 10 s, so no two
           lines of one stage name the same phase less than ~10 s apart
  memory   --max-memory too small for the routing model: refused with the
           diagnostic before the model is built (the process stays far
           below the model's size)
  ulimit   under an address-space limit (ulimit -v) an over-large sketch
           ends with a diagnostic and status 1 or 2, never an abort; so
           do tighter limits, where allocations fail mid-compile
Exact overruns are measured by bench/limits; `time` and `ulimit` use bounds
loose enough for a loaded machine, `deadline` the documented one.
"""
import json
import re
import os
import resource
import signal
import subprocess
import sys
import tempfile
import time
import uuid

TACCLC = SKETCH = None
MARK = "TACCLC_LIMITS_TEST"
HERE = os.path.dirname(os.path.abspath(__file__))
# DGX-2 x2 allgather of 1 MB without symmetry (limits.sketch): a routing
# model of 16,865 variables whose warm start is not provably optimal and
# that CBC needs about 20 s to solve.
SLOW = ("slow_solve",)
# Generous bound on any compile here (the limits asked for are seconds).
SLACK_SECONDS = 30


def fail(message):
    sys.exit(f"FAIL: {message}")


def default_signals():
    """In the child: the termination signals take their default action,
    whatever this process inherited (a background job ignores SIGINT)."""
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, signal.SIG_DFL)


def with_address_limit(kib):
    def setup():
        default_signals()
        resource.setrlimit(resource.RLIMIT_AS, (kib * 1024, kib * 1024))
    return setup


def compile_sketch(name, *args, setup=default_signals, env=None,
                   sketch=None):
    """Runs tacclc on one sketch of SKETCH (or of the file sketch); returns
    (status, stderr, seconds, peak resident KiB)."""
    with tempfile.TemporaryFile() as err:
        start = time.monotonic()
        proc = subprocess.Popen([TACCLC, sketch or SKETCH, "--sketch", name,
                                 *args],
                                stdout=subprocess.DEVNULL, stderr=err,
                                preexec_fn=setup, env=env)
        deadline = start + SLACK_SECONDS + 60
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() > deadline:
                proc.kill()
                proc.wait()
                fail(f"tacclc {name} {' '.join(args)} did not end")
            time.sleep(0.05)
        seconds = time.monotonic() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        text = err.read().decode(errors="replace")
    return proc.returncode, text, seconds, usage.ru_maxrss


def state(pid):
    """The /proc state letter of pid, or None when it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            text = f.read()
    except OSError:
        return None
    return text[text.rfind(")") + 2]


def marked(marker):
    """Live processes (not zombies) whose environment carries marker."""
    found = []
    needle = f"{MARK}={marker}".encode()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as f:
                env = f.read()
        except OSError:
            continue
        if needle in env.split(b"\0") and state(entry) not in (None, "Z", "X"):
            found.append(int(entry))
    return found


def children(pid):
    out = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                text = f.read()
        except OSError:
            continue
        fields = text[text.rfind(")") + 2:].split()
        if len(fields) > 1 and int(fields[1]) == pid:
            out.append(int(entry))
    return out


def signals():
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGKILL):
        marker = uuid.uuid4().hex
        env = dict(os.environ, **{MARK: marker})
        with tempfile.TemporaryDirectory() as tmp, \
                tempfile.TemporaryFile() as err:
            out = os.path.join(tmp, "out.xml")
            proc = subprocess.Popen(
                [TACCLC, SKETCH, "--sketch", "slow_solve", "--time-limit",
                 "120", "-o", out], stdout=subprocess.DEVNULL, stderr=err,
                preexec_fn=default_signals, env=env)
            # Mid-solve: once the solver's process exists.
            deadline = time.monotonic() + 60
            while not children(proc.pid):
                if proc.poll() is not None:
                    err.seek(0)
                    fail(f"tacclc ended ({proc.returncode}) before the solve "
                         f"could be interrupted:\n{err.read().decode()}")
                if time.monotonic() > deadline:
                    proc.kill()
                    fail("the solver's process never started")
                time.sleep(0.05)
            time.sleep(0.5)
            if not marked(marker)[1:]:
                fail("the solver's process is not running")
            proc.send_signal(sig)
            status = proc.wait(timeout=30)
            if status != -sig:
                err.seek(0)
                fail(f"after {sig.name} tacclc exited {status}, expected "
                     f"{-sig}:\n{err.read().decode()}")
            deadline = time.monotonic() + 10
            while marked(marker) and time.monotonic() < deadline:
                time.sleep(0.05)
            left = marked(marker)
            if left:
                for pid in left:
                    os.kill(pid, signal.SIGKILL)
                fail(f"after {sig.name} processes {left} were left running")
            if os.listdir(tmp):
                fail(f"after {sig.name} files were left: {os.listdir(tmp)}")
        print(f"signals: {sig.name}: status {status}, nothing left behind")


def time_limits():
    for name, limit in (("big_ring", 2), ("mid_ring", 1)):
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "out.xml")
            rc, err, seconds, _ = compile_sketch(
                name, "--time-limit", str(limit), "--max-memory", "none",
                "-o", out)
            if seconds > SLACK_SECONDS:
                fail(f"{name} under --time-limit {limit} took {seconds:.1f} s")
            if rc == 0:
                check = subprocess.run([TACCLC, "check", out],
                                       capture_output=True, text=True)
                if check.returncode != 0:
                    fail(f"{name}: the result does not check:\n"
                         f"{check.stderr}")
            elif rc != 1 or "ran out of time while" not in err:
                fail(f"{name} under --time-limit {limit}: exit {rc}:\n{err}")
            elif os.listdir(tmp):
                fail(f"{name}: files left: {os.listdir(tmp)}")
        print(f"time: {name} --time-limit {limit}: exit {rc} after "
              f"{seconds:.1f} s")


def memory():
    rc, err, seconds, peak_kib = compile_sketch(
        "huge_alltoall", "--max-memory", "256M", "--time-limit", "5")
    for want in ("error: the routing model would need",
                 "more than the", "(--max-memory)", "add a symmetry"):
        if want not in err:
            fail(f"--max-memory 256M: no '{want}' in:\n{err}")
    if rc != 1:
        fail(f"--max-memory 256M: exit {rc}, expected 1")
    # The model would take gigabytes; the refusal comes before it exists.
    if peak_kib > 512 * 1024:
        fail(f"--max-memory 256M: the process grew to {peak_kib} KiB")
    print(f"memory: refused in {seconds:.1f} s at {peak_kib // 1024} MiB")
    # Too small even for the warm start's paths: refused before them.
    rc, err, _, peak_kib = compile_sketch(
        "huge_alltoall", "--max-memory", "64M", "--time-limit", "5")
    if rc != 1 or "error: the routing warm start would need at least" \
            not in err:
        fail(f"--max-memory 64M: exit {rc}, expected the warm start's "
             f"refusal:\n{err}")
    # A ring allgather's warm start is at the lower bound: its model (a
    # gigabyte) is never built, so a budget it would exceed is no reason
    # to refuse the sketch.
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out.xml")
        rc, err, seconds, _ = compile_sketch(
            "big_ring", "--max-memory", "300M", "--time-limit", "30",
            "--stats", "-o", out)
        if rc != 0 or "model not built" not in err:
            fail(f"big_ring --max-memory 300M: exit {rc}, expected a "
                 f"compile without the model:\n{err}")
    print(f"memory: big_ring compiled without its model in {seconds:.1f} s")


def ulimit():
    two_gb = 2000000  # KiB, as `ulimit -v 2000000`
    rc, err, seconds, _ = compile_sketch(
        "huge_alltoall", "--time-limit", "10",
        setup=with_address_limit(two_gb))
    judge("huge_alltoall", two_gb, rc, err, seconds)
    if "the routing model would need" not in err:
        fail(f"huge_alltoall: the model was not refused up front:\n{err}")
    # Tighter limits make allocations fail wherever they happen; the lowest
    # the binary loads under (below it the dynamic loader fails, 127).
    tried = 0
    for kib in range(100000, two_gb, 50000):
        rc, err, seconds, _ = compile_sketch(
            "huge_alltoall", "--time-limit", "10",
            setup=with_address_limit(kib))
        if rc == 127:
            continue
        judge("huge_alltoall", kib, rc, err, seconds)
        tried += 1
        if tried == 3:
            break
    if not tried:
        fail("tacclc never started under an address-space limit")


def judge(name, kib, rc, err, seconds):
    where = f"{name} under ulimit -v {kib}"
    if rc not in (1, 2) or "LLVM ERROR" in err:
        fail(f"{where}: exit {rc}, expected 1 or 2:\n{err}")
    if "error:" not in err:
        fail(f"{where}: no diagnostic:\n{err}")
    if seconds > SLACK_SECONDS:
        fail(f"{where}: took {seconds:.1f} s")
    print(f"ulimit: {where}: exit {rc} in {seconds:.1f} s: "
          f"{err.splitlines()[0][:120]}")


def tolerance(limit):
    """How far past --time-limit a compile may end (docs/synthesis.md)."""
    return max(1.0, 0.1 * limit)


def slow_compile(limit, *args):
    """Compiles the slow sketch under --time-limit LIMIT (a spec) into a
    temporary folder; returns (status, stderr, seconds, files left, report
    JSON text or None)."""
    name, *flags = SLOW
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out.xml")
        report = os.path.join(tmp, "report.json")
        rc, err, seconds, _ = compile_sketch(
            name, *flags, "--time-limit", str(limit), "-o", out,
            "--report", report, *args)
        left = sorted(os.listdir(tmp))
        text = None
        if rc == 0:
            check = subprocess.run([TACCLC, "check", out],
                                   capture_output=True, text=True)
            if check.returncode != 0:
                fail(f"--time-limit {limit}: the result does not check:\n"
                     f"{check.stderr}")
            with open(report) as f:
                text = f.read()
    return rc, err, seconds, left, text


def deadline():
    # The compile's limit N, or the sum of the stages' own.
    for spec, limit in (("2", 2), ("4", 4), ("routing=1,schedule=1", 2)):
        rc, err, seconds, left, _ = slow_compile(spec)
        if seconds > limit + tolerance(limit):
            fail(f"--time-limit {spec} took {seconds:.2f} s, more than "
                 f"{limit + tolerance(limit):g} s:\n{err}")
        if rc == 0:
            # The program of a stopped solve comes with a note saying so.
            if not re.search(r"warning: .*(time limit|time \(|time ran "
                             r"out)", err):
                fail(f"--time-limit {spec}: compiled without a note that "
                     f"the limit stopped a stage:\n{err}")
        elif rc != 1 or "ran out of time while" not in err:
            fail(f"--time-limit {spec}: exit {rc}:\n{err}")
        elif left:
            fail(f"--time-limit {spec}: files left: {left}")
        print(f"deadline: --time-limit {spec}: exit {rc} after "
              f"{seconds:.2f} s")
    rc, err, _, _ = compile_sketch("mid_ring", "--time-limit", "5,6")
    if rc != 2 or "gives the compile's limit twice" not in err:
        fail(f"--time-limit 5,6: exit {rc}:\n{err}")


def nan():
    rc, err, seconds, _, report = slow_compile(3, "--stats", "--summary",
                                               "-v")
    if rc != 0:
        fail(f"--time-limit 3 did not compile (exit {rc}):\n{err}")
    if "stats: routing model" not in err or "routing     " not in err:
        fail(f"no --stats or --summary lines:\n{err}")
    unknown = re.compile(r"\bnan\b|\binf\b|(incumbent|bound|gap|objective)"
                         r" -(?![\d.])", re.I)
    for line in err.splitlines():
        if unknown.search(line):
            fail(f"an unknown value printed as nan or '-': {line}")
    if re.search(r"\b(nan|inf|infinity)\b", report, re.I):
        fail(f"the report holds nan or infinity:\n{report}")

    def walk(value):
        if isinstance(value, dict):
            for v in value.values():
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)
        elif isinstance(value, float) and value != value:
            fail(f"the report holds NaN:\n{report}")
    walk(json.loads(report))
    print(f"nan: none in --stats, --summary, -v and the report "
          f"({seconds:.1f} s)")


def progress():
    limit = 8
    rc, err, seconds, _, _ = slow_compile(limit, "-v")
    if rc not in (0, 1):
        fail(f"-v: exit {rc}:\n{err}")
    line = re.compile(r"^\[([a-z ]+)\] (\d+\.\d) s(?:  (.*))?$")
    value = re.compile(r"  (incumbent|warm start|bound|gap) .*$")
    seen = {}  # (stage, phase) -> seconds of its last line
    count = 0
    for text in err.splitlines():
        m = line.match(text)
        if not m:
            continue
        count += 1
        stage, at = m.group(1), float(m.group(2))
        phase = value.sub("", m.group(3) or "")
        if re.search(r"\bnan\b| - |-$", text):
            fail(f"an unknown value in a progress line: {text}")
        if not phase:
            fail(f"a progress line without its phase: {text}")
        last = seen.get((stage, phase))
        if last is not None and at - last < 9.5:
            fail(f"two '{phase}' lines of {stage} {at - last:.1f} s apart:"
                 f"\n{err}")
        seen[(stage, phase)] = at
    stages = sum(1 for t in err.splitlines()
                 if re.match(r"^\[[a-z ]+\] \d+\.\d\d s, ", t))
    if count > 5 * stages + seconds / 10 + 1:
        fail(f"{count} progress lines for {stages} stages in {seconds:.1f} s"
             f":\n{err}")
    print(f"progress: {count} lines for {stages} stages in {seconds:.1f} s")


def main():
    global TACCLC, SKETCH
    TACCLC, SKETCH, command = sys.argv[1:4]
    {"signals": signals, "time": time_limits, "memory": memory,
     "ulimit": ulimit, "deadline": deadline, "nan": nan,
     "progress": progress}[command]()


if __name__ == "__main__":
    main()
