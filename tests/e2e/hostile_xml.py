#!/usr/bin/env python3
"""Hostile TACCL-EF inputs for `tacclc check`, `tacclc run` and taccl-bench.

Each input is built to be slow to load, to flood the output or to never end:
50,000 unknown attributes on <algo> (once quadratic to read), 100,000 nops
that each warn, /dev/zero, a FIFO nobody writes to, a directory and a sparse
file over the loader's 512 MiB cap. Every tool must refuse each with the
expected error, exit status 1 and at most a few dozen lines (repeated
warnings end in one "... and N more warnings like this"), under a 2 GiB
address-space limit. The inputs are
generated here, in a temporary folder. Exits 1 on the first failure.

Usage: hostile_xml.py --tacclc PATH --bench PATH
"""
import argparse
import os
import resource
import subprocess
import sys
import tempfile

# A two-rank allgather the hostile inputs are built around.
SMALL_ALLGATHER = (
    '<algo name="a" proto="Simple" nchannels="1" nchunksperloop="2" '
    'ngpus="2" coll="allgather" inplace="0" outofplace="1" minBytes="0" '
    'maxBytes="0"{attrs}>\n{gpus}</algo>\n')
STEP = ('      <step s="{s}" type="{t}" srcbuf="i" srcoff="0" dstbuf="o" '
        'dstoff="{o}" cnt="{c}" depid="-1" deps="-1" hasdep="0"/>\n')


def small_allgather(attrs="", extra_steps=""):
    """The two-rank allgather with `attrs` added to <algo> and
    `extra_steps` appended to rank 0's receiving threadblock."""
    gpus = ""
    for r in (0, 1):
        p = 1 - r
        gpus += (f'  <gpu id="{r}" i_chunks="1" o_chunks="2" s_chunks="0">\n'
                 f'    <tb id="0" send="{p}" recv="-1" chan="0">\n'
                 + STEP.format(s=0, t="s", o=r, c=1) +
                 f'    </tb>\n    <tb id="1" send="-1" recv="{p}" '
                 'chan="0">\n' + STEP.format(s=0, t="r", o=p, c=1) +
                 (extra_steps if r == 0 else "") +
                 '    </tb>\n    <tb id="2" send="-1" recv="-1" chan="0">\n'
                 + STEP.format(s=0, t="cpy", o=r, c=1) +
                 '    </tb>\n  </gpu>\n')
    return SMALL_ALLGATHER.format(attrs=attrs, gpus=gpus)


def fail(message):
    print(f"FAIL: {message}")
    sys.exit(1)


# Every tool runs under this address-space limit: hostile inputs must be
# refused before they need more.
ADDRESS_SPACE = 2 << 30


def limit_memory():
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))


def tools(opts, path):
    """Runs check, run and taccl-bench on `path`; yields (name, result)."""
    for name, argv in (("check", [opts.tacclc, "check", path]),
                       ("run", [opts.tacclc, "run", path]),
                       ("taccl-bench", [opts.bench, path, "--sizes", "4KB"])):
        yield name, subprocess.run(argv, capture_output=True, text=True,
                                   timeout=120, preexec_fn=limit_memory)


def expect(opts, path, needles, max_lines=40):
    """Every tool exits 1 on `path`, prints every needle and at most
    `max_lines` lines."""
    for tool, proc in tools(opts, path):
        out = proc.stdout + proc.stderr
        lines = out.splitlines()
        if proc.returncode != 1:
            fail(f"{tool} {path} exited {proc.returncode}, expected 1:\n"
                 f"{out[-3000:]}")
        if len(lines) > max_lines:
            fail(f"{tool} {path} printed {len(lines)} lines (at most "
                 f"{max_lines}):\n{out[:3000]}")
        for needle in needles:
            if needle not in out:
                fail(f"{tool} {path}: no '{needle}' in:\n{out[-3000:]}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tacclc", required=True)
    ap.add_argument("--bench", required=True, help="the taccl-bench binary")
    opts = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        # The plain file passes, so the failures below are the inputs'.
        good = os.path.join(tmp, "good.xml")
        open(good, "w").write(small_allgather())
        proc = subprocess.run([opts.tacclc, "check", good],
                              capture_output=True, text=True, timeout=120)
        if proc.returncode != 0:
            fail(f"check {good} exited {proc.returncode}:\n{proc.stderr}")
        # 50,000 unknown attributes on <algo> (about 540 KB).
        attrs = os.path.join(tmp, "attrs.xml")
        open(attrs, "w").write(small_allgather(
            "".join(f' x{i}="1"' for i in range(50000))))
        expect(opts, attrs, ["<algo> has 50010 attributes",
                             "... and 49,980 more warnings like this"])
        # 100,000 nops without a dependency: a warning each.
        steps = os.path.join(tmp, "steps.xml")
        open(steps, "w").write(small_allgather(extra_steps="".join(
            STEP.format(s=k, t="nop", o=0, c=0) for k in range(1, 100001))))
        expect(opts, steps, ["allows at most 64",
                             "... and 99,980 more warnings like this"])
        # Not regular files: never read, never waited for.
        expect(opts, "/dev/zero", ["/dev/zero: error: is a character device"],
               max_lines=3)
        fifo = os.path.join(tmp, "fifo.xml")
        os.mkfifo(fifo)
        expect(opts, fifo, ["is a FIFO (named pipe), not a regular file"],
               max_lines=3)
        expect(opts, tmp, ["is a directory"], max_lines=3)
        # Over the size cap (a sparse file: no disk space, nothing read).
        big = os.path.join(tmp, "big.xml")
        with open(big, "wb") as f:
            f.truncate(512 * 1024 * 1024 + 1)
        expect(opts, big, ["TACCL-EF files are limited to 536,870,912 bytes"],
               max_lines=3)
    print("hostile-xml: attribute and warning floods, devices, FIFOs, "
          "directories and oversized files are refused briefly")


if __name__ == "__main__":
    main()
