#!/usr/bin/env python3
"""tests/e2e/tune.py TACCLC: `tacclc tune` on a small machine, end to end.

A machine of two nodes with two GPUs each (an NVLink pair per node, one NIC
per node), tuned for allgather and allreduce from 1 KiB to 256 KiB:
  - the cold run writes a folder whose files all pass `tacclc check`, run on
    the CPU executor, and whose minBytes/maxBytes tile the sweep: every
    size is served by exactly the file report.json names, or by none where
    NCCL wins;
  - a second run finds every job in the cache, runs nothing, and writes the
    same bytes;
  - --legacy writes the legacy runtime's exclusive upper ends;
  - --jobs writes one command per job; run elsewhere and merged with
    --merge from another folder, they give the same folder as a local run;
  - bad requests fail with a message and a non-zero exit.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

TACCLC = sys.argv[1]
MACHINE = """machine duo(nodes: int = 2) {
  gpus per node = 2
  class nv { alpha = 0.7 us; beta = 20 us/MB }
  class ib { alpha = 2 us; beta = 80 us/MB }
  nic ib
  for n in 0..nodes {
    link nv n:0 <-> n:1
  }
}
"""
SIZES = [1 << k for k in range(10, 19)]
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def run(*args, cwd):
    return subprocess.run([TACCLC, *args], cwd=cwd, capture_output=True,
                          text=True, timeout=900)


def tune(cwd, out, *extra):
    return run("tune", "--topology", "duo(nodes: 2)", "--collective",
               "allgather,allreduce", "--sizes", "1KiB:256KiB", "--time-limit",
               "20", "-j2", "--cache", "cache", "-o", out, *extra, cwd=cwd)


def attrs(path):
    with open(path) as f:
        head = f.read(2000)
    tag = head[head.index("<algo"):head.index(">", head.index("<algo"))]
    get = lambda k: int(tag.split(f'{k}="', 1)[1].split('"', 1)[0])
    return get("minBytes"), get("maxBytes")


def folder(path):
    return {n: open(os.path.join(path, n), "rb").read()
            for n in sorted(os.listdir(path))}


def tiles(cwd, out, legacy):
    with open(os.path.join(cwd, out, "report.json")) as f:
        rep = json.load(f)
    check(rep["dialect"] == ("msccl-legacy" if legacy else "msccl-executor"),
          "report names the dialect")
    for coll in rep["collectives"]:
        files = [f["file"] for f in coll["files"] if f["file"]]
        ranges = {f: attrs(os.path.join(cwd, out, f)) for f in files}
        check(len(coll["sizes"]) == len(SIZES), "a row per size")
        for row in coll["sizes"]:
            b = row["bytes"]
            want = [f["file"] for f in coll["files"]
                    if f["min_bytes"] <= b <= f["max_bytes"]]
            check(len(want) == 1, f"{coll['collective']} {b}: one range")
            got = [f for f, (lo, hi) in ranges.items()
                   if lo <= b and (b < hi if legacy else b <= hi)]
            check(got == [w for w in want if w],
                  f"{coll['collective']} {b}: served by {got}, want {want}")
        for f in files:
            r = run("check", os.path.join(out, f),
                    *(["--dialect=msccl-legacy"] if legacy else []), cwd=cwd)
            check(r.returncode == 0, f"{f} passes tacclc check: {r.stdout}")
    return rep


def main():
    tmp = tempfile.mkdtemp(prefix="tacclc-tune-")
    try:
        with open(os.path.join(tmp, "duo.sketch"), "w") as f:
            f.write(MACHINE)
        r = tune(tmp, "algos")
        check(r.returncode == 0, f"cold tune exits 0: {r.stderr[-2000:]}")
        check("0 cached" in r.stderr, "cold run starts from an empty cache")
        rep = tiles(tmp, "algos", legacy=False)
        xml = sorted(n for n in os.listdir(os.path.join(tmp, "algos"))
                     if n.endswith(".xml"))
        check(len(xml) >= 1, "tune writes at least one file")
        for n in xml[:2]:
            r2 = run("run", os.path.join("algos", n), cwd=tmp)
            check(r2.returncode == 0, f"{n} runs on the CPU: {r2.stderr}")
        jobs = [j for c in rep["collectives"] for j in c["jobs"]]
        check(any(j["kind"] == "nccl" for j in jobs), "NCCL's baselines run")
        check(any(j.get("band") == "medium" for j in jobs),
              "candidates of the medium band")
        check(os.path.exists(os.path.join(tmp, "algos", "allgather.svg")),
              "an SVG per collective")
        first = folder(os.path.join(tmp, "algos"))

        # Warm: nothing runs, the same bytes come out.
        r = tune(tmp, "algos")
        check(r.returncode == 0, "warm tune exits 0")
        check("tune: [" not in r.stderr, f"warm run runs no job: {r.stderr}")
        check(folder(os.path.join(tmp, "algos")) == first,
              "warm run writes the same bytes")

        # The legacy runtime's ranges.
        r = tune(tmp, "legacy", "--legacy")
        check(r.returncode == 0, f"legacy tune exits 0: {r.stderr[-2000:]}")
        tiles(tmp, "legacy", legacy=True)

        # --jobs, run as another scheduler would, then --merge.
        r = run("tune", "--topology", "duo(nodes: 2)", "--collective",
                "allgather,allreduce", "--sizes", "1KiB:256KiB", "--time-limit",
                "20", "--cache", "cache2", "--jobs", "jobs.txt", "-o", "m",
                cwd=tmp)
        check(r.returncode == 0, f"--jobs exits 0: {r.stderr}")
        lines = open(os.path.join(tmp, "jobs.txt")).read().splitlines()
        check(len(lines) == len(jobs), f"one line per job: {len(lines)}")
        for line in lines:
            subprocess.run(["bash", "-c", line], cwd=tmp, check=True,
                           capture_output=True, timeout=600)
        shutil.move(os.path.join(tmp, "cache2"), os.path.join(tmp, "elsewhere"))
        r = run("tune", "--topology", "duo(nodes: 2)", "--collective",
                "allgather,allreduce", "--sizes", "1KiB:256KiB", "--time-limit",
                "20", "--cache", "cache2", "--merge", "elsewhere", "-o", "m",
                cwd=tmp)
        check(r.returncode == 0, f"--merge exits 0: {r.stderr}")
        merged = folder(os.path.join(tmp, "m"))
        check({k: v for k, v in merged.items() if k.endswith(".xml")} ==
              {k: v for k, v in first.items() if k.endswith(".xml")},
              "merged results write the same files as a local run")

        # Bad requests.
        bad = [
            (["--topology", "nosuch(nodes: 2)", "--collective", "allgather",
              "-o", "x"], 1, "nosuch"),
            (["--topology", "duo(nodes: 2)", "--collective", "broadcast",
              "-o", "x"], 1, "broadcast"),
            (["--topology", "duo(nodes: 2)", "--collective", "allgather"], 2,
             "-o DIR"),
            (["--topology", "duo(nodes: 2)", "--collective", "allgather",
              "--sizes", "1KiB:", "-o", "x"], 2, "--sizes"),
        ]
        for args, rc, word in bad:
            r = run("tune", "--cache", "cache", *args, cwd=tmp)
            check(r.returncode == rc and word in r.stderr,
                  f"tune {' '.join(args)}: exit {r.returncode}, {r.stderr}")
        os.makedirs(os.path.join(tmp, "foreign"))
        open(os.path.join(tmp, "foreign", "mine.xml"), "w").write("<algo/>")
        r = tune(tmp, "foreign")
        check(r.returncode == 1 and "did not write" in r.stderr,
              f"a folder of someone else's XML is refused: {r.stderr[-500:]}")
        check(os.path.exists(os.path.join(tmp, "foreign", "mine.xml")),
              "and left alone")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if failures:
        print(f"{len(failures)} failure(s)")
        sys.exit(1)
    print("tune: all checks passed")


if __name__ == "__main__":
    main()
