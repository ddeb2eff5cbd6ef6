#!/usr/bin/env python3
"""Hostile inputs and unsafe outputs: what no input may do to tacclc.

Each subcommand rebuilds inputs that once crashed tacclc, exhausted its
memory or destroyed files, and checks the answer is a diagnostic with exit
status 1 (or a refused usage, 2): never a signal, an abort, a hang, a file
replaced that should not be, or a file left behind.

Usage: hostile.py TACCLC SUBCOMMAND [ARGS]
  deep-nesting PROFILE  inputs nested tens of thousands of levels deep, after
                        a lexer error, through compile, fmt, --list, the
                        --topology of bounds and of taccl-profile (PROFILE),
                        and the language server
  big-inputs            devices, pipes, folders, oversized files and import
                        chains as inputs, under a 2 GiB address-space limit
  outputs               -o, --report and fmt -i: never over an input,
                        through links and devices, owner and mode kept,
                        all outputs or none, errors naming path and reason
  signals               a run killed while it writes leaves its target as it
                        was and no temporary file (SIGKILL: the next run
                        removes it)
"""
import os
import resource
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lsp_client  # noqa: E402

TACCLC = None
# The address-space limit every run here gets: large inputs must be refused
# before they need more.
ADDRESS_SPACE = 2 << 30
RING = """topology ring4 {
  ranks 4
  link 0 -> 1 alpha 0.7 us beta 46 us/MB
  link 1 -> 2 alpha 0.7 us beta 46 us/MB
  link 2 -> 3 alpha 0.7 us beta 46 us/MB
  link 3 -> 0 alpha 0.7 us beta 46 us/MB
}
sketch ring4_allgather on ring4 {
  collective allgather
  size 1 MB
}
"""


def fail(why):
    sys.exit(f"FAIL: {why}")


def limit_memory():
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))


def run(*args, binary=None, expect=(1,), stdin=None, env=None, timeout=120,
        needle=None):
    """Runs tacclc (or `binary`) under the memory limit; checks the exit
    status is in `expect` and stderr contains `needle`."""
    cmd = [binary or TACCLC, *args]
    t0 = time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, stdin=stdin,
                          timeout=timeout, preexec_fn=limit_memory,
                          env=env)
    took = time.monotonic() - t0
    shown = " ".join(a if len(a) < 80 else a[:60] + "..." for a in cmd)
    err = proc.stderr.decode(errors="replace")
    if proc.returncode not in expect:
        fail(f"{shown} exited {proc.returncode}, expected {expect} "
             f"({took:.1f} s)\nstderr:\n{err[-3000:]}")
    if needle and needle not in err:
        fail(f"{shown}: stderr lacks {needle!r}\nstderr:\n{err[-3000:]}")
    if len(err) > 64 * 1024:
        fail(f"{shown}: {len(err)} bytes of diagnostics")
    return proc


def write(path, text, mode="w"):
    with open(path, mode) as f:
        f.write(text)


#===- deep-nesting ----------------------------------------------------------===#

def nested_inputs():
    return {
        "parens-after-lexer-error": "@" + "(" * 50000,
        "minus-after-lexer-error": "#" + "-" * 100000,
        "for-after-lexer-error": "$" + "for i in 0..2 {" * 50000,
        "brackets": "machine m { x = " + "[" * 60000 + " }",
    }


def deep_nesting(profile):
    with tempfile.TemporaryDirectory() as tmp:
        for name, text in nested_inputs().items():
            path = os.path.join(tmp, name + ".sketch")
            write(path, text)
            for args in ([path, "--emit=ir"], ["fmt", path], ["--list", path]):
                run(*args, expect=(1,))
            run(path, "--emit=ir", needle="nesting is deeper than")
            lsp_did_open(text)
        deep = "(" * 50000 + "2" + ")" * 50000
        ref = "ndv2(nodes: @" + deep + ")"
        run("bounds", "--topology", ref, "--collective", "allgather",
            "--size", "1MB", expect=(1,), needle="nesting is deeper than")
        # A name that finds no machine is refused before any parsing, and
        # the message quotes it cut short.
        run("bounds", "--topology", "@" + ref, "--collective", "allgather",
            "--size", "1MB", expect=(1,), needle="no machine '@ndv2'")
        run("--simulate", ref, binary=profile, expect=(1,),
            needle="nesting is deeper than")
    print("deep-nesting: ok")


def lsp_did_open(text):
    """The server reports the nesting and answers the next request."""
    client = lsp_client.Client(TACCLC)
    client.request("initialize", {"processId": None, "rootUri": None,
                                  "capabilities": {}})
    client.notify("initialized", {})
    uri = "file:///tmp/deep.sketch"
    client.notify("textDocument/didOpen", {"textDocument": {
        "uri": uri, "languageId": "sketch", "version": 1, "text": text}})
    diags = client.diagnostics(uri)
    if not diags:
        fail("the language server reported nothing for a deep input")
    client.request("shutdown", None)
    client.notify("exit", None)
    if client.proc.wait(timeout=60) != 0:
        fail(f"the language server exited {client.proc.returncode}")


#===- big-inputs ------------------------------------------------------------===#

def feed_fifo(path, size):
    """Writes `size` bytes into the FIFO `path` (until the reader leaves)."""
    def go():
        try:
            with open(path, "wb") as f:
                chunk = b";" * 65536
                for _ in range(size // len(chunk)):
                    f.write(chunk)
        except (BrokenPipeError, OSError):
            pass
    t = threading.Thread(target=go, daemon=True)
    t.start()
    return t


def big_inputs():
    with tempfile.TemporaryDirectory() as tmp:
        for args in (["/dev/zero"], ["check", "/dev/zero"], ["fmt", "/dev/zero"],
                     ["--list", "/dev/zero"]):
            run(*args, expect=(1,), needle="character device", timeout=60)
        run(tmp, expect=(1,), needle="directory")
        with open("/dev/zero", "rb") as zero:
            run("-", stdin=zero, expect=(1,), needle="larger than 4 MiB")
        fifo = os.path.join(tmp, "pipe.sketch")
        os.mkfifo(fifo)
        feeder = feed_fifo(fifo, 6 << 20)
        run(fifo, expect=(1,), needle="larger than 4 MiB")
        feeder.join(timeout=10)

        semis = os.path.join(tmp, "semicolons.sketch")
        write(semis, ";" * (8 << 20))
        run(semis, expect=(1,), needle="larger than 4 MiB")
        run("fmt", semis, expect=(1,), needle="larger than 4 MiB")
        write(semis, ";" * (3 << 20))
        run(semis, expect=(1,), needle="more than 1000000 tokens")
        run("fmt", semis, expect=(1,), needle="more than 1000000 tokens")

        # An import chain deeper than the limit, and a wide fan of large
        # files whose sum is over the compile's limit.
        chain = os.path.join(tmp, "chain")
        os.mkdir(chain)
        depth = 10000
        for i in range(depth):
            write(os.path.join(chain, f"f{i}.sketch"),
                  f'import "f{i + 1}"\n' if i + 1 < depth else "")
        run("--list", os.path.join(chain, "f0.sketch"), expect=(1,),
            needle="imports are nested more than 64 files deep")
        wide = os.path.join(tmp, "wide")
        os.mkdir(wide)
        filler = "// " + "x" * 1000 + "\n"
        for i in range(6):
            write(os.path.join(wide, f"w{i}.sketch"), filler * 3500)
        write(os.path.join(wide, "main.sketch"),
              "".join(f'import "w{i}"\n' for i in range(6)))
        run("--list", os.path.join(wide, "main.sketch"), expect=(1,),
            needle="more than 16 MiB in all")
    print("big-inputs: ok")


#===- outputs ---------------------------------------------------------------===#

def outputs():
    with tempfile.TemporaryDirectory() as tmp:
        sk = os.path.join(tmp, "same.sketch")
        write(sk, RING)
        for out in (sk, os.path.join(tmp, ".", ".", ".", "same.sketch")):
            run(sk, "-o", out, expect=(1,),
                needle="it is one of this command's inputs")
        if open(sk).read() != RING:
            fail("the input was overwritten")
        hard = os.path.join(tmp, "hard.xml")
        os.link(sk, hard)
        run(sk, "-o", hard, expect=(1,), needle="one of this command's inputs")

        # A symbolic link is followed: its target is written, the link stays.
        target = os.path.join(tmp, "target.xml")
        write(target, "old\n")
        os.chmod(target, 0o640)
        link = os.path.join(tmp, "link.xml")
        os.symlink("target.xml", link)
        run(sk, "-o", link, expect=(0,))
        if not os.path.islink(link) or "<algo" not in open(target).read():
            fail("-o through a symbolic link replaced the link")
        if stat.S_IMODE(os.stat(target).st_mode) != 0o640:
            fail("the mode of the replaced file was not kept")
        dangling = os.path.join(tmp, "dangling.xml")
        os.symlink("created.xml", dangling)
        run(sk, "-o", dangling, expect=(0,))
        if not os.path.islink(dangling) or not os.path.exists(
                os.path.join(tmp, "created.xml")):
            fail("-o through a dangling link did not create its target")

        # fmt -i through a symbolic link formats the target.
        messy = os.path.join(tmp, "messy.sketch")
        write(messy, RING.replace("  ranks 4", "ranks   4"))
        mlink = os.path.join(tmp, "messy-link.sketch")
        os.symlink("messy.sketch", mlink)
        run("fmt", "-i", mlink, expect=(0,))
        if not os.path.islink(mlink) or "  ranks 4" not in open(messy).read():
            fail("fmt -i through a symbolic link replaced the link")

        # Devices, pipes and standard output are written through.
        null_link = os.path.join(tmp, "null")
        os.symlink("/dev/null", null_link)
        run(sk, "-o", null_link, expect=(0,))
        if not stat.S_ISCHR(os.stat("/dev/null").st_mode):
            fail("/dev/null is no longer a device")
        if os.geteuid() == 0:
            dev = os.path.join(tmp, "mynull")
            os.mknod(dev, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
            run(sk, "-o", dev, expect=(0,))
            if not stat.S_ISCHR(os.lstat(dev).st_mode):
                fail("-o a character device made it a regular file")
            owned = os.path.join(tmp, "owned.xml")
            write(owned, "old\n")
            os.chown(owned, 65534, 65534)
            run(sk, "-o", owned, expect=(0,))
            st = os.stat(owned)
            if (st.st_uid, st.st_gid) != (65534, 65534):
                fail("the owner of the replaced file was not kept")
        proc = run(sk, "-o", "/dev/stdout", expect=(0,))
        if b"<algo" not in proc.stdout or not os.path.islink("/dev/stdout"):
            fail("-o /dev/stdout did not print the program")
        proc = run(sk, "-o", "-", expect=(0,))
        if not proc.stdout.startswith(b"<algo"):
            fail("-o - did not print the program")
        fifo = os.path.join(tmp, "out.fifo")
        os.mkfifo(fifo)
        got = []
        reader = threading.Thread(
            target=lambda: got.append(open(fifo, "rb").read()), daemon=True)
        reader.start()
        run(sk, "-o", fifo, expect=(0,))
        reader.join(timeout=30)
        if not got or b"<algo" not in got[0]:
            fail("-o a FIFO did not write through it")

        # All or none: a report that cannot be written leaves -o untouched,
        # before anything is solved; the message names the path and reason.
        out = os.path.join(tmp, "out.xml")
        write(out, "previous\n")
        run(sk, "-o", out, "--report=/nonexistent/r.json", expect=(1,),
            needle="cannot write '/nonexistent/r.json': no such directory "
                   "'/nonexistent'")
        if open(out).read() != "previous\n":
            fail("-o was replaced although --report could not be written")
        run(sk, "-o", tmp, expect=(1,), needle="it is a directory")
        run(sk, "-o", out, "--report", out, expect=(1,),
            needle="named as two outputs")
        if os.geteuid() != 0:
            ro = os.path.join(tmp, "ro")
            os.mkdir(ro, 0o555)
            run(sk, "-o", os.path.join(ro, "x.xml"), expect=(1,),
                needle="permission denied")
        leftovers = [n for n in os.listdir(tmp) if "tacclc-tmp" in n]
        if leftovers:
            fail(f"temporary files left behind: {leftovers}")
    print("outputs: ok")


#===- signals ---------------------------------------------------------------===#

def temporaries(folder):
    return sorted(n for n in os.listdir(folder) if n.endswith(".tacclc-tmp"))


def kill_while_writing(folder, sk, out, sig):
    """Starts a compile that pauses with its temporary named, signals it
    there, and returns the temporaries left."""
    env = dict(os.environ, TACCLC_TEST_WRITE_PAUSE_MS="20000")
    proc = subprocess.Popen([TACCLC, sk, "-o", out], env=env,
                            stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while not temporaries(folder):
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            fail(f"no temporary file appeared (exit {proc.returncode})")
        time.sleep(0.01)
    proc.send_signal(sig)
    rc = proc.wait(timeout=60)
    if rc != -sig:
        fail(f"signal {sig}: tacclc exited {rc}, not by the signal")
    if open(out).read() != "previous\n":
        fail(f"signal {sig}: the target was changed")
    return temporaries(folder)


def signals():
    with tempfile.TemporaryDirectory() as tmp:
        sk = os.path.join(tmp, "ring.sketch")
        write(sk, RING)
        out = os.path.join(tmp, "out.xml")
        write(out, "previous\n")
        for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            left = kill_while_writing(tmp, sk, out, sig)
            if left:
                fail(f"signal {sig}: temporary files left: {left}")
        left = kill_while_writing(tmp, sk, out, signal.SIGKILL)
        if len(left) != 1:
            fail(f"SIGKILL: expected its one temporary, found {left}")
        # The next run that writes beside it removes it.
        run(sk, "-o", out, expect=(0,))
        if temporaries(tmp) or "<algo" not in open(out).read():
            fail(f"a later run left {temporaries(tmp)}")
        if sorted(os.listdir(tmp)) != ["out.xml", "ring.sketch"]:
            fail(f"files left behind: {os.listdir(tmp)}")
    print("signals: ok")


def main():
    global TACCLC
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    TACCLC = sys.argv[1]
    cmd, rest = sys.argv[2], sys.argv[3:]
    {
        "deep-nesting": lambda: deep_nesting(rest[0]),
        "big-inputs": big_inputs,
        "outputs": outputs,
        "signals": signals,
    }[cmd]()


if __name__ == "__main__":
    main()
