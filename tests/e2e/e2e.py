#!/usr/bin/env python3
"""End-to-end tests of the tacclc driver (compile -> check -> run).

Subcommands (each exits 0 on success and prints what failed otherwise):
  stdlib FILE          --list checks every machine of FILE; then each sketch
                       of it makes a roundtrip
  roundtrip SKETCH     compile (twice: byte-identical), check, run at 2 sizes
  delete-steps SKETCH  deleting any single <step> makes check and run fail
                       with a message naming rank, threadblock and step
  atomic-output        a failed compile leaves an existing -o file untouched
                       and no temporary files behind
  exit-codes           usage errors exit 2, unknown backends exit 2, a
                       misspelt collective names the right spelling
  help                 the overview only in `tacclc --help`; each
                       subcommand's --help opens with its own paragraph,
                       lists its options under its own category and states
                       its defaults
  search-path LIBDIR   an import is found through $TACCLC_PATH, and -I wins
  bounds               `tacclc bounds` on ndv2(nodes: 2): JSON fields, the
                       NIC cut, table, exit codes
  regressions DIR      every input the fuzzers once broke the compiler with
                       (DIR/frontend: sketches, DIR/xml: TACCL-EF files,
                       DIR/topology: --topology arguments) now gives exit 0
                       or 1 (never a crash or hang); the language server's
                       (DIR/lsp) go to `tacclc lsp`, whose answers must be
                       framed JSON
  handwritten DIR      every hand-written DIR/*.xml passes check for its
                       dialect (-exec / -legacy in the name; a name without
                       a dash, a runtime unit test's fixture, is -exec) and
                       runs on the CPU for each call kind it declares, also
                       at a size that needs several loop iterations
  gpu DIR...           every XML under the DIRs runs on the GPU (tacclc run
                       --backend cuda-virtual, and cuda for float64: ranks
                       spread over the GPUs) in several element types, in
                       place where it may, and over several loop iterations;
                       prints "no GPU: skipping" where there is none
  slice-overlap SKETCH  --slice-overlap=auto keeps whichever of on and off
                       simulates faster, on splits streams (more channels),
                       and the kept program runs correctly over slices
  provenance SKETCH    a program records its machine, sketch, sizes and
                       tacclc's version (the same bytes in any checkout):
                       sim, bounds and run need no --topology, check passes
                       in both dialects; a sketch given for a program, and
                       machines of local files named either way; SKETCH is
                       a stdlib example, whose machine is found anywhere
  bench BENCH XML REDUCE LEGACY
                       taccl-bench (path BENCH) on a correct ring XML for
                       every element type: rounded sizes, no wrong element,
                       exit 0; -b/-e/-i/-f sweeps as nccl-tests steps them;
                       nccl-tests' columns (out-of-place and in-place, type,
                       redop) and closing lines, on XML and on an allreduce
                       (REDUCE); --dialect and the deprecated --legacy on a
                       legacy in-place file (LEGACY: out-of-place N/A); on a
                       corrupted copy: wrong elements counted, exit 1, and
                       with -c 0 not compared, exit 0; without a relay step
                       (a deadlock): "not run", exit 1; bad usage exits 2
"""
import difflib
import glob
import json
import os
import shutil
import re
import subprocess
import sys
import tempfile

TACCLC = None
NAMES = re.compile(r"rank \d+ tb \d+ step \d+")


def run_tool(binary, *args, expect):
    """Runs another of the project's tools; fails unless it exits `expect`."""
    proc = subprocess.run([binary, *args], capture_output=True, text=True,
                          timeout=300)
    if proc.returncode != expect:
        sys.exit(f"FAIL: {os.path.basename(binary)} {' '.join(args)} exited "
                 f"{proc.returncode}, expected {expect}\n"
                 f"stdout:\n{proc.stdout}\nstderr:\n{proc.stderr}")
    return proc


def run(*args, expect=None, cwd=None):
    proc = subprocess.run([TACCLC, *args], capture_output=True, text=True,
                          timeout=120, cwd=cwd)
    if expect is not None and proc.returncode != expect:
        sys.exit(f"FAIL: tacclc {' '.join(args)} exited {proc.returncode}, "
                 f"expected {expect}\nstdout:\n{proc.stdout}\n"
                 f"stderr:\n{proc.stderr}")
    return proc


# Sketches larger than this are checked (front end, IR, routing model) but
# not solved here: solving them to optimality takes minutes (bench/ does).
MAX_SOLVED_RANKS = 16


def stdlib(path):
    listing = run("--list", path, expect=0).stdout.splitlines()
    names = [l.split()[1] for l in listing if l.startswith("sketch ")]
    for name in names:
        ir = run(path, "--sketch", name, "--emit=ir", expect=0).stdout
        ranks = int(re.search(r"^  ranks (\d+)", ir, re.M).group(1))
        coll = re.search(r"^  collective (\w+)", ir, re.M).group(1)
        if ranks <= MAX_SOLVED_RANKS:
            roundtrip(path, name, time_limit=20)
        else:
            run(path, "--sketch", name, "--emit=dot", expect=0)
            # Every stage's model (the routing one is solved for at most two
            # seconds, to reach the scheduling model: its warm start will do).
            # 128-rank machines need longer to build their models.
            limit = "20" if ranks <= 64 else "40"
            run(path, "--sketch", name, "--emit=milp", "--time-limit",
                f"{limit},routing=2", expect=0)
            print(f"checked {os.path.basename(path)} {name}: {ranks} ranks")
    print(f"stdlib {os.path.basename(path)}: {len(listing)} declarations ok")


def roundtrip(sketch, name=None, time_limit=None):
    select = ["--sketch", name] if name else []
    if time_limit:
        select += ["--time-limit", str(time_limit)]
    with tempfile.TemporaryDirectory() as tmp:
        a, b = os.path.join(tmp, "a.xml"), os.path.join(tmp, "b.xml")
        summary = run(sketch, *select, "-o", a, "--summary", expect=0).stderr
        # A protocol per part of the size range writes a.LL.xml, ...
        programs = written(a)
        # Fusion keeps schedule order and cannot deadlock: the driver's
        # unfused fallback must never be needed.
        if "fusion did not verify" in summary or \
                "fused program did not verify" in summary:
            sys.exit(f"FAIL: relay fusion needed the fallback:\n{summary}")
        # Byte-identical output is promised for solves that finish; one cut
        # short by the time limit depends on how far the solver got.
        if "time limit" not in summary:
            run(sketch, *select, "-o", b, expect=0)
            again = written(b)
            if len(again) != len(programs) or any(
                    open(x, "rb").read() != open(y, "rb").read()
                    for x, y in zip(programs, again)):
                sys.exit("FAIL: two compiles of the same sketch differ")
        else:
            print(f"note: {name or sketch} stopped at the time limit; "
                  "determinism not compared")
        for a in programs:
            run_program(a)
    print(f"roundtrip {os.path.basename(sketch)} {name or ''}: ok")


def written(out):
    """The programs a compile with `-o OUT` wrote: OUT, or one per protocol
    beside it (OUT.LL.xml, ...)."""
    if os.path.exists(out):
        return [out]
    found = sorted(glob.glob(out[:-len(".xml")] + ".*.xml"))
    if not found:
        sys.exit(f"FAIL: no program written for -o {out}")
    return found


def run_program(a):
    """Checks program A and runs it on the CPU executor at its default size
    and at one that takes several loop iterations."""
    run("check", a, expect=0)
    run("run", a, "--backend", "cpu", expect=0)
    # A size that needs several loop iterations of the executor.
    text = open(a).read()
    n = int(re.search(r'nchunksperloop="(\d+)"', text).group(1))
    g = int(re.search(r'ngpus="(\d+)"', text).group(1))
    unit = n * g * 4
    big = unit * ((5 * 1024 * 1024) // unit + 1)
    run("run", a, "--backend", "cpu", "--bytes", str(big), expect=0)
    if 'inplace="1"' in text:
        run("run", a, "--backend", "cpu", "--inplace", expect=0)


def delete_steps(sketch):
    with tempfile.TemporaryDirectory() as tmp:
        xml = os.path.join(tmp, "algo.xml")
        run(sketch, "-o", xml, expect=0)
        lines = open(xml).read().splitlines(True)
        steps = [i for i, l in enumerate(lines) if l.lstrip().startswith("<step")]
        if not steps:
            sys.exit("FAIL: no steps in the generated XML")
        broken = os.path.join(tmp, "broken.xml")
        for i in steps:
            with open(broken, "w") as f:
                f.writelines(lines[:i] + lines[i + 1:])
            for cmd in (["check", broken],
                        ["run", broken, "--backend", "cpu", "--watchdog", "5"]):
                proc = run(*cmd)
                if proc.returncode != 1:
                    sys.exit(f"FAIL: deleting line {i + 1} ({lines[i].strip()})"
                             f": tacclc {cmd[0]} exited {proc.returncode}\n"
                             f"{proc.stderr}")
                if not NAMES.search(proc.stderr):
                    sys.exit(f"FAIL: deleting line {i + 1}: tacclc {cmd[0]} did "
                             f"not name rank, tb and step:\n{proc.stderr}")
    print(f"delete-steps: all {len(steps)} single-step deletions detected")


def atomic_output():
    with tempfile.TemporaryDirectory() as tmp:
        bad = os.path.join(tmp, "bad.sketch")
        with open(bad, "w") as f:
            f.write("topology t { ranks 2 link 0 -> 5 alpha 1 us beta 1 us/MB }\n"
                    "sketch s on t { collective allgather }\n")
        out = os.path.join(tmp, "out.xml")
        with open(out, "w") as f:
            f.write("previous contents\n")
        run(bad, "-o", out, expect=1)
        if open(out).read() != "previous contents\n":
            sys.exit("FAIL: a failed compile modified the output file")
        if sorted(os.listdir(tmp)) != ["bad.sketch", "out.xml"]:
            sys.exit(f"FAIL: files left behind: {os.listdir(tmp)}")
    print("atomic-output: ok")


def exit_codes():
    run("--no-such-option", "x.sketch", expect=2)
    run(expect=2)  # no input
    run("run", "x.xml", "--backend", "tpu", expect=2)
    run("check", "does-not-exist.xml", expect=1)
    # A collective spelled as NCCL or MPI spell it is a usage error that
    # names the right spelling.
    for args in (("baseline", "ring", "--topology", "ndv2",
                  "--collective", "all_gather"),
                 ("bounds", "--topology", "ndv2", "--collective", "AllGather",
                  "--size", "1MB")):
        err = run(*args, expect=2).stderr
        if "did you mean 'allgather'?" not in err:
            sys.exit(f"FAIL: tacclc {' '.join(args)} suggests nothing:\n{err}")
    proc = run("--help", expect=0)
    for word in ("check", "run", "--emit"):
        if word not in proc.stdout:
            sys.exit(f"FAIL: --help does not mention {word}")
    print("exit-codes: ok")


SUBCOMMANDS = ("check", "run", "sim", "baseline", "bounds", "fmt", "lsp")


def help_texts():
    """`tacclc --help` opens with the overview of every command; each
    subcommand's --help with its own paragraph instead, its options each in
    the category of that command, and every default it has stated."""
    top = run("--help", expect=0).stdout
    overview = "tacclc FILE.sketch -o OUT.xml   compile, verify, write"
    if not top.startswith("OVERVIEW: tacclc: compile") or overview not in top:
        sys.exit(f"FAIL: tacclc --help has no overview:\n{top}")
    for sub in SUBCOMMANDS:
        text = run(sub, "--help", expect=0).stdout
        first = text.splitlines()[0] if text else ""
        if overview in text or not first.startswith(f"OVERVIEW: tacclc {sub}"):
            sys.exit(f"FAIL: tacclc {sub} --help does not open with its own "
                     f"paragraph:\n{text[:600]}")
        if "Exit status" not in text and sub != "lsp":
            sys.exit(f"FAIL: tacclc {sub} --help gives no exit statuses")
    # Each option under its own command's category.
    sections = {}
    for sub in SUBCOMMANDS:
        current = None
        for line in run(sub, "--help", expect=0).stdout.splitlines():
            if line.endswith(":") and not line.startswith(" "):
                current = line[:-1]
            elif current and line.strip().startswith("-"):
                name = line.strip().split()[0].split("=")[0]
                sections.setdefault(sub, {})[name] = current
    want = {("lsp", "-I"): "Language server options",
            ("bounds", "--no-protocol-costs"): "Bounds options",
            ("sim", "--no-protocol-costs"): "Simulation options",
            ("sim", "--dialect"): "Options of several commands",
            ("check", "--diag-names"): "Options of several commands"}
    for (sub, name), category in want.items():
        got = sections.get(sub, {}).get(name)
        if got != category:
            sys.exit(f"FAIL: tacclc {sub} --help lists {name} under {got!r}, "
                     f"not {category!r}")
    # Defaults are documented where they are applied.
    for sub, phrase in (("sim", "(default 1KiB:1GiB"),
                        ("baseline", "default allgather"),
                        ("baseline", "Root of a rooted collective (default 0)"),
                        ("baseline", "Simple (default)"),
                        ("check", "default 1")):
        if phrase not in run(sub, "--help", expect=0).stdout:
            sys.exit(f"FAIL: tacclc {sub} --help does not say '{phrase}'")
    print("help: overview once, a paragraph per subcommand, options placed")


def lsp_stream(data):
    """A saved input of the language server's fuzzer (tests/fuzz/
    LspFuzzer.cpp) as the bytes of `tacclc lsp`'s standard input: as it is
    when it starts with a Content-Length header, else one message per line,
    each framed with its length."""
    if data[:14].lower() == b"content-length":
        return data
    return b"".join(b"Content-Length: %d\r\n\r\n" % len(line) + line
                    for line in data.split(b"\n") if line.strip())


def lsp_replay(path):
    """Runs `tacclc lsp` on a saved input: it must end with exit 0 or 1 and
    every message it wrote must be framed JSON."""
    with open(path, "rb") as f:
        stream = lsp_stream(f.read())
    proc = subprocess.run([TACCLC, "lsp"], input=stream, capture_output=True,
                          timeout=120)
    out = proc.stdout
    while out:
        head, sep, rest = out.partition(b"\r\n\r\n")
        length = re.match(rb"Content-Length: (\d+)$", head)
        if not sep or not length or len(rest) < int(length.group(1)):
            return proc, f"an answer that is not framed: {out[:200]!r}"
        body, out = rest[:int(length.group(1))], rest[int(length.group(1)):]
        try:
            json.loads(body)
        except ValueError:
            return proc, f"an answer that is not JSON: {body[:200]!r}"
    return proc, None


def regressions(folder):
    count = 0
    for sub in ("frontend", "xml", "topology", "lsp"):
        path = os.path.join(folder, sub)
        if not os.path.isdir(path):
            continue
        for name in sorted(os.listdir(path)):
            file = os.path.join(path, name)
            problem = None
            if sub == "lsp":
                proc, problem = lsp_replay(file)
            elif sub == "xml":
                proc = run("check", file)
            elif sub == "topology":  # the file holds a --topology argument
                with open(file, encoding="utf-8", errors="replace") as f:
                    ref = f.read()
                proc = run("bounds", "--topology", ref, "--collective",
                           "allgather", "--size", "1MB")
            else:
                proc = run(file, "--emit=ir")
            if proc.returncode not in (0, 1) or problem:
                stderr = proc.stderr
                if isinstance(stderr, bytes):
                    stderr = stderr.decode(errors="replace")
                sys.exit(f"FAIL: {sub}/{name}: exit {proc.returncode} "
                         f"{problem or ''}\n{stderr[-2000:]}")
            count += 1
    print(f"regressions: {count} inputs handled")


# Data bytes one loop iteration moves per chunk (the executor's chunkSize).
SLICE_BYTES = {"Simple": 2 * 1024 * 1024, "LL": 32 * 1024, "LL128": 576000}


def attr(text, name):
    m = re.search(rf'<algo\b[^>]*\s{name}="([^"]*)"', text)
    return m.group(1) if m else None


def handwritten(folder):
    files = sorted(f for f in os.listdir(folder) if f.endswith(".xml"))
    if not files:
        sys.exit(f"FAIL: no .xml files in {folder}")
    for name in files:
        path = os.path.join(folder, name)
        stem = name[:-len(".xml")]
        if "-legacy" in stem:
            dialect, flags = "msccl-legacy", ["--dialect", "msccl-legacy"]
        elif "-exec" in stem or "-" not in stem:  # fixtures: executor
            dialect, flags = "msccl-executor", []
        else:
            sys.exit(f"FAIL: {name}: the name says neither -exec nor -legacy")
        out = run("check", path, *flags, expect=0).stdout
        if not re.search(rf"^{re.escape(path)}: valid for {dialect}\b", out,
                         re.M):
            sys.exit(f"FAIL: tacclc check {path} does not say it is valid "
                     f"for {dialect}:\n{out}")
        text = open(path).read()
        inplace = attr(text, "inplace") == "1"
        if dialect == "msccl-legacy":  # the legacy runtime ignores outofplace
            outofplace = not inplace
        else:
            outofplace = attr(text, "outofplace") == "1"
        kinds = ([[]] if outofplace else []) + ([["--inplace"]] if inplace
                                                else [])
        if not kinds:
            sys.exit(f"FAIL: {name} serves no call kind")
        for kind in kinds:
            run("run", path, "--backend", "cpu", *flags, *kind, expect=0)
        # A size that needs several loop iterations: each of the
        # nchunksperloop chunks is at least 2.5 slices long. For gather and
        # scatter the size is also multiplied by ngpus, so that this holds
        # whether --bytes counts one rank's part (the runtime's count) or
        # every rank's part (nccl-tests' size column).
        n = int(attr(text, "nchunksperloop"))
        g = int(attr(text, "ngpus"))
        parts = g if attr(text, "coll") in ("gather", "scatter") else 1
        unit = n * g * 4
        target = n * parts * SLICE_BYTES[attr(text, "proto")] * 5 // 2
        big = unit * (target // unit + 1)
        out = run("run", path, "--backend", "cpu", *flags, *kinds[0],
                  "--bytes", str(big), expect=0).stdout
        iters = re.search(r"(\d+) iterations? of", out)
        if iters and int(iters.group(1)) < 2:
            sys.exit(f"FAIL: {name} at {big} B ran a single loop iteration:"
                     f"\n{out}")
        print(f"handwritten {name}: {dialect}, "
              f"{' and '.join('in-place' if k else 'out-of-place' for k in kinds)}"
              f", {big} B ok")
    print(f"handwritten: {len(files)} files ok")


def search_path(libdir):
    with tempfile.TemporaryDirectory() as tmp:
        main = os.path.join(tmp, "main.sketch")
        with open(main, "w") as f:
            f.write('import "line"\nsketch s on line(3) { collective allgather }\n')
        run(main, "--emit=ir", expect=1)  # not found without a search path
        env = dict(os.environ, TACCLC_PATH=f"/nonexistent:{libdir}")
        proc = subprocess.run([TACCLC, main, "--emit=ir"], capture_output=True,
                              text=True, env=env, timeout=60)
        if proc.returncode != 0 or "ranks 3" not in proc.stdout:
            sys.exit(f"FAIL: TACCLC_PATH import: {proc.stderr}")
        other = os.path.join(tmp, "other")
        os.mkdir(other)
        with open(os.path.join(other, "line.sketch"), "w") as f:
            f.write("machine line(n: int = 3) { gpus per node = n + 1 "
                    "class c { alpha 1 us beta 1 us/MB } link c 0 <-> 1 }\n")
        proc = subprocess.run([TACCLC, "-I", other, main, "--emit=ir"],
                              capture_output=True, text=True, env=env,
                              timeout=60)
        if proc.returncode != 0 or "ranks 4" not in proc.stdout:
            sys.exit(f"FAIL: -I does not take precedence: {proc.stdout}"
                     f"{proc.stderr}")
    print("search-path: ok")


def sim(sketch):
    """`tacclc sim`: the ring closed form through the CLI, JSON, a stdlib
    machine with arguments, and clean errors for bad sizes and machines."""
    import json
    with tempfile.TemporaryDirectory() as tmp:
        xml = os.path.join(tmp, "ring.xml")
        run(sketch, "-o", xml, expect=0)
        topo = f"{sketch}:ring4"
        # The SimGrid referee, where this build has it, must give the same
        # closed forms (within 1%).
        probe = run("sim", xml, "--topology", topo, "--sizes", "4KiB",
                    "--engine", "simgrid")
        engines = [("inhouse", 1e-6)]
        if probe.returncode == 0:
            engines.append(("simgrid", 1e-2))
        elif "is not available" not in probe.stderr:
            sys.exit(f"FAIL: sim --engine simgrid:\n{probe.stderr}")
        else:
            print("sim: SimGrid engine not built, its checks skipped")
        for engine, tol in engines:
            out = run("sim", xml, "--topology", topo, "--sizes", "4KiB,1MiB",
                      "--json", "--no-protocol-costs", "--engine", engine,
                      expect=0).stdout
            files = json.loads(out)
            if files[0]["engine"] != engine:
                sys.exit(f"FAIL: sim does not name its engine: {out}")
            rows = files[0]["results"]
            if [r["bytes"] for r in rows] != [4096, 1048576]:
                sys.exit(f"FAIL: sim sizes: {out}")
            for r in rows:  # ring4-allgather.sketch: alpha 0.7 us, 46 us/MB
                want = 3 * (0.7 + 46e-6 * r["bytes"] / 4)
                if abs(r["time_us"] - want) > tol * want:
                    sys.exit(f"FAIL: sim ring time ({engine}) "
                             f"{r['time_us']} != {want}")
                # On a one-way ring the ring is optimal for large sizes: the
                # bound is below the time and close to it.
                if not 0 < r["efficiency"] <= 1 + 1e-9:
                    sys.exit(f"FAIL: sim efficiency {r['efficiency']}")
        # With the protocol's costs (Simple): 8.4 us launch, then three
        # NVLink-class hops of at least 3.4 us each.
        out = run("sim", xml, "--topology", topo, "--sizes", "4KiB", "--json",
                  expect=0).stdout
        t = json.loads(out)[0]["results"][0]["time_us"]
        want = 8.4 + 3 * (3.4 + 46e-6 * 1024)
        if abs(t - want) > 1e-6 * want:
            sys.exit(f"FAIL: sim ring time with Simple's costs {t} != {want}")
        if len(engines) == 2:
            # Serial ports on SimGrid, where pumps still wait for a port when
            # the call ends: they are killed cleanly, the run succeeds.
            direct = os.path.join(tmp, "direct.xml")
            run("baseline", "direct", "--topology", "a100", "--collective",
                "allgather", "-o", direct, expect=0)
            for service in ("fair", "serial"):
                run("sim", direct, "--topology", "a100", "--sizes", "32MiB",
                    "--engine", "simgrid", "--port-service", service,
                    expect=0)
        err = run("sim", xml, "--topology", topo, "--engine", "nosuch",
                  expect=1).stderr
        if "unknown --engine 'nosuch'" not in err:
            sys.exit(f"FAIL: sim with an unknown engine:\n{err}")
        err = run("sim", xml, "--topology", topo, "--engine", "simgrid:ns3",
                  expect=1).stderr
        if "is not available" not in err:
            sys.exit(f"FAIL: sim with the ns-3 engine:\n{err}")
        table = run("sim", xml, "--topology", topo, "--sizes", "1KiB:8KiB",
                    expect=0).stdout
        if len(table.splitlines()) != 2 + 4 or "algbw" not in table:
            sys.exit(f"FAIL: sim table:\n{table}")
        err = run("sim", xml, "--topology", topo, "--sizes", "1KB:x",
                  expect=2).stderr
        if "'1KB:x' is not a list of sizes" not in err or \
                "KiB, MiB, GiB, TiB" not in err:
            sys.exit(f"FAIL: a bad --sizes does not quote the grammar:\n{err}")
        # Decimal and binary units on the command line mean what they mean
        # in a sketch: 64MB is 64,000,000 B, 64MiB and 64M 2^26 B.
        got = json.loads(run("sim", xml, "--topology", topo, "--sizes",
                             "64MB,64MiB,64M,64mib", "--json",
                             expect=0).stdout)[0]["results"]
        if [r["bytes"] for r in got] != [64000000] + [64 << 20] * 3:
            sys.exit(f"FAIL: sim --sizes units: {[r['bytes'] for r in got]}")
        size_range(sketch, tmp, topo)
        # Charts: well-formed SVG, one line per file, one box per message.
        import xml.etree.ElementTree as ET
        plot, line = os.path.join(tmp, "p.svg"), os.path.join(tmp, "t.svg")
        run("sim", xml, xml, "--topology", topo, "--sizes", "1KiB:1MiB",
            "--plot", plot, "--timeline", line, expect=0)
        ns = "{http://www.w3.org/2000/svg}"
        # Two files and the (dashed) lower bound.
        if len(ET.parse(plot).getroot().findall(f"{ns}polyline")) != 3:
            sys.exit("FAIL: the plot does not have a line per file and one "
                     "for the bound")
        boxes = ET.parse(line).getroot().findall(f"{ns}rect")
        if len(boxes) != 1 + 12:  # background + 4 ranks x 3 hops
            sys.exit(f"FAIL: the timeline has {len(boxes)} rectangles")
        err = run("sim", xml, "--topology", "dgx1", expect=1).stderr
        if "the plan has 4 ranks, machine 'dgx1' has 8" not in err:
            sys.exit(f"FAIL: sim on the wrong machine:\n{err}")
        run("sim", xml, "--topology", "nosuchmachine", expect=1)
        nd = os.path.join(tmp, "nd.xml")
        run(os.path.join(os.path.dirname(sketch), "..", "sketches",
                         "ndv2-sk1-allgather.sketch"), "--sketch", "ndv2_sk1",
            "--time-limit", "10", "-o", nd, expect=0)
        run("sim", nd, "--topology", "ndv2(nodes: 2)", "--sizes", "1MiB",
            expect=0)
        # Closed forms of baselines on small machines (alpha 1 us, 1 us/KB):
        # a chain broadcast of K chunks pipelines: the first chunk reaches
        # the end after (N-1)(a + b M/K), the others follow it back to back
        # on the last link (their latency overlaps the chunk before),
        # (K-1) b M/K; the
        # double binary tree allreduce on two ranks is (up, down) per tree,
        # both trees at once, 2(a + b M/2).
        machines = os.path.join(tmp, "m.sketch")
        with open(machines, "w") as f:
            f.write("topology line4 { ranks 4\n"
                    "  link 0 -> 1 alpha 1 us beta 1000 us/MB\n"
                    "  link 1 -> 2 alpha 1 us beta 1000 us/MB\n"
                    "  link 2 -> 3 alpha 1 us beta 1000 us/MB\n"
                    "  link 3 -> 0 alpha 1 us beta 1000 us/MB }\n"
                    "topology pair { ranks 2\n"
                    "  link 0 <-> 1 alpha 1 us beta 1000 us/MB }\n")
        m = 1 << 16
        for algo, topo, coll, chunks, want in (
                ("ring", "line4", "broadcast", 4,
                 3 * (1 + 1e-3 * m / 4) + 3 * 1e-3 * m / 4),
                ("tree", "pair", "allreduce", 1, 2 * (1 + 1e-3 * m / 2))):
            out = os.path.join(tmp, f"{algo}.xml")
            run("baseline", algo, "--topology", f"{machines}:{topo}",
                "--collective", coll, "--chunks", str(chunks), "-o", out,
                expect=0)
            got = json.loads(run("sim", out, "--topology",
                                 f"{machines}:{topo}", "--sizes", str(m),
                                 "--json", "--no-protocol-costs",
                                 expect=0).stdout)
            t = got[0]["results"][0]["time_us"]
            if abs(t - want) > 1e-6 * want:
                sys.exit(f"FAIL: {algo} {coll} on {topo}: {t} us, want {want}")
    print("sim: ok")


def size_range(sketch, tmp, topo):
    """`tacclc sim` on a file whose minBytes..maxBytes leaves sizes out:
    their rows say that a runtime would not select it (a note in the table,
    `selected` in JSON), by each dialect's rule; `run --bytes` reads the
    same units."""
    import json
    for dialect, flags, want in (
            ("executor", [], [False, True, True, False]),
            ("legacy", ["--dialect", "msccl-legacy"],
             [False, True, False, False])):
        xml = os.path.join(tmp, f"range-{dialect}.xml")
        run(sketch, *flags, "-o", xml, expect=0)
        text = re.sub(r'minBytes="\d+"', 'minBytes="4096"', open(xml).read())
        text = re.sub(r'maxBytes="\d+"', 'maxBytes="65536"', text)
        open(xml, "w").write(text)
        sizes = ("--sizes", "1KiB,4KiB,64KiB,128KiB")
        proc = run("sim", xml, "--topology", topo, *sizes, "--json", *flags,
                   expect=0)
        got = [r["selected"] for r in json.loads(proc.stdout)[0]["results"]]
        if got != want:
            sys.exit(f"FAIL: sim selected ({dialect}): {got} != {want}")
        if f"{want.count(False)} of 4 sizes are outside" not in proc.stderr:
            sys.exit(f"FAIL: sim range note ({dialect}):\n{proc.stderr}")
        table = run("sim", xml, "--topology", topo, *sizes, *flags,
                    expect=0).stdout
        rows = [l for l in table.splitlines() if not l.startswith("#")]
        notes = ["not selected" in l for l in rows[1:]]
        if notes != [not w for w in want] or \
                "below minBytes=4096" not in rows[1]:
            sys.exit(f"FAIL: sim table range notes ({dialect}):\n{table}")
    out = run("run", xml, "--backend", "cpu", "--bytes", "16KiB",
              "--dialect", "msccl-legacy", expect=0).stdout
    if "16384" not in out:
        sys.exit(f"FAIL: run --bytes 16KiB:\n{out}")
    err = run("run", xml, "--bytes", "16 kB s", expect=2).stderr
    if "is not a size" not in err or "powers of 10" not in err:
        sys.exit(f"FAIL: run --bytes with a bad size:\n{err}")


MYBOX = """machine mybox(nodes: int = 1) {
  gpus per node = 2
  class nv { alpha = 0.7 us; beta = 46 us/MB }
  class ib { alpha = 2.6 us; beta = 105 us/MB }
  nic ib
  for n in 0..nodes {
    link nv n:0 <-> n:1
  }
}
"""


def attributes(xml):
    """The attributes of the <algo> element of the file `xml`."""
    head = open(xml).readline()
    return dict(re.findall(r'([\w-]+)="([^"]*)"', head))


def provenance(example):
    """What a program records, and the commands that use it."""
    with tempfile.TemporaryDirectory() as tmp:
        src, out = os.path.join(tmp, "src"), os.path.join(tmp, "out")
        os.mkdir(src)
        os.mkdir(out)
        with open(os.path.join(src, "mybox.sketch"), "w") as f:
            f.write(MYBOX)
        with open(os.path.join(src, "s.sketch"), "w") as f:
            f.write('import "mybox"\nsketch s on mybox(nodes: 1 + 1) {\n'
                    '  collective allgather\n  size 1 MB\n  relay all\n}\n')
        with open(os.path.join(src, "two.sketch"), "w") as f:
            f.write(MYBOX + "topology ring2 { ranks 2\n"
                    "  link 0 <-> 1 alpha 1 us beta 1 us/MB }\n")
        run("src/s.sketch", "-o", "out/s.xml", expect=0, cwd=tmp)
        want = {"machine": "../src/mybox.sketch:mybox(nodes: 2)",
                "sketch": "../src/s.sketch:s", "sizes": "1 MB"}
        got = attributes(os.path.join(out, "s.xml"))
        if any(got.get(k) != v for k, v in want.items()) or \
                not re.fullmatch(r"\d+\.\d+\.\d+", got["tacclc-version"]):
            sys.exit(f"FAIL: provenance attributes: {got}")
        # No absolute path: a copy of the tree compiles to the same bytes.
        copy = os.path.join(tmp, "copy")
        shutil.copytree(src, os.path.join(copy, "src"))
        os.mkdir(os.path.join(copy, "out"))
        run(os.path.join(copy, "src", "s.sketch"), "-o",
            os.path.join(copy, "out", "s.xml"), expect=0)
        if open(os.path.join(out, "s.xml"), "rb").read() != \
                open(os.path.join(copy, "out", "s.xml"), "rb").read():
            sys.exit("FAIL: provenance differs between two checkouts")
        # Our reader and checker accept the attributes, both dialects.
        for dialect in ("msccl-executor", "msccl-legacy"):
            xml = os.path.join(out, f"{dialect}.xml")
            run("src/s.sketch", "--dialect", dialect, "-o", xml, expect=0,
                cwd=tmp)
            err = run("check", "--dialect", dialect, xml, expect=0).stderr
            if "warning" in err:
                sys.exit(f"FAIL: check warns about provenance:\n{err}")
        # sim, bounds and run without --topology, from any folder.
        explicit = ["--topology", "src/mybox.sketch:mybox(nodes: 2)"]
        sim = ["sim", "out/s.xml", "--sizes", "1MB", "--json"]
        want = run(*sim, *explicit, expect=0, cwd=tmp).stdout
        for cwd, xml in ((tmp, "out/s.xml"), (out, "s.xml"),
                         ("/", os.path.join(out, "s.xml"))):
            proc = run("sim", xml, "--sizes", "1MB", "--json", expect=0,
                       cwd=cwd)
            if json.loads(proc.stdout)[0]["results"] != \
                    json.loads(want)[0]["results"]:
                sys.exit(f"FAIL: sim on the recorded machine:\n{proc.stdout}")
            if "the machine the program records" not in proc.stderr or \
                    "mybox.sketch:mybox(nodes: 2)" not in proc.stderr:
                sys.exit(f"FAIL: sim does not say its machine:\n"
                         f"{proc.stderr}")
        bounds = json.loads(run("bounds", "out/s.xml", "--json", expect=0,
                                cwd=tmp).stdout)
        given = json.loads(run("bounds", *explicit, "--collective",
                               "allgather", "--size", "1MB", "--json",
                               expect=0, cwd=tmp).stdout)
        if bounds[0]["bound"] != given[0]["bound"]:
            sys.exit(f"FAIL: bounds of the recorded machine: {bounds}")
        run("run", os.path.join(out, "s.xml"), expect=0)
        # An explicit --topology wins (a machine of the wrong size here).
        err = run("sim", "out/s.xml", "--topology", "dgx1", expect=1,
                  cwd=tmp).stderr
        if "machine 'dgx1' has 8" not in err:
            sys.exit(f"FAIL: --topology does not win:\n{err}")
        # A program without provenance needs --topology.
        bare = os.path.join(out, "bare.xml")
        with open(bare, "w") as f:
            f.write(re.sub(r' tacclc-version="[^"]*" machine="[^"]*"', "",
                           open(os.path.join(out, "s.xml")).read()))
        err = run("sim", bare, expect=1).stderr
        if "records no machine; name one with --topology" not in err:
            sys.exit(f"FAIL: sim of a program without a machine:\n{err}")
        # A sketch where a program is expected.
        for cmd in ("sim", "check", "run", "bounds"):
            err = run(cmd, "src/s.sketch", expect=2, cwd=tmp).stderr
            if "compile it first: tacclc src/s.sketch -o src/s.xml" \
                    not in err:
                sys.exit(f"FAIL: {cmd} of a sketch:\n{err}")
        # A machine of a local file, named either way, or the file alone.
        for ref in ("mybox(nodes: 2)", "mybox.sketch(nodes: 2)",
                    "mybox.sketch:mybox(nodes: 2)"):
            proc = run("sim", "../out/s.xml", "--topology", ref, "--sizes",
                       "1MB", "--json", expect=0, cwd=src)
            if json.loads(proc.stdout)[0]["results"] != \
                    json.loads(want)[0]["results"]:
                sys.exit(f"FAIL: --topology '{ref}':\n{proc.stdout}")
        run("bounds", "--topology", "mybox.sketch", "--collective",
            "allgather", "--size", "1MB", expect=0, cwd=src)
        for ref, says in (
                ("nobox(nodes: 2)", "a machine declared in a file is named "
                 "FILE.sketch:NAME(args)"),
                ("nobox(nodes: 2)", "FILE.sketch:nobox(nodes: 2)"),
                ("two.sketch", "--topology 'two.sketch:mybox'"),
                ("mybox.sketch:nosuch",
                 "declares no machine or topology 'nosuch'; it declares "
                 "machine mybox"),
                ("nosuch.sketch:mybox", "cannot find 'nosuch.sketch'")):
            err = run("bounds", "--topology", ref, "--collective",
                      "allgather", "--size", "1MB", expect=1, cwd=src).stderr
            if says not in err or "<--topology" in err:
                sys.exit(f"FAIL: --topology '{ref}':\n{err}")
        # A baseline records the machine it was built for; sim finds it.
        proc = run("baseline", "ring", "--topology", "mybox(nodes: 2)",
                   "-o", "../out/ring.xml", expect=0, cwd=src)
        if attributes(os.path.join(out, "ring.xml")).get("machine") != \
                "../src/mybox.sketch:mybox(nodes: 2)":
            sys.exit("FAIL: baseline provenance")
        for line in ("predicted ", "simulated ", "trust       tacclc sim"):
            if line not in proc.stderr:
                sys.exit(f"FAIL: baseline does not print '{line}':\n"
                         f"{proc.stderr}")
        run("sim", os.path.join(out, "ring.xml"), "--sizes", "4KB",
            expect=0)
        # A machine of the standard library is found from anywhere.
        ex = os.path.join(out, "example.xml")
        run(example, "-o", ex, expect=0)
        m = attributes(ex)["machine"]
        if m != "examples/" + os.path.basename(example) + ":ring4":
            sys.exit(f"FAIL: the stdlib example's machine: {m}")
        run("sim", ex, "--sizes", "4KB", expect=0, cwd="/")
        summary = run(example, "-o", ex, "--summary", expect=0).stderr
        if 'trust       tacclc sim for the program\'s time' not in summary \
                or '(docs/simulator.md, "Which prediction to trust")' \
                not in summary:
            sys.exit(f"FAIL: the summary does not say what to trust:\n"
                     f"{summary}")
    print("provenance: ok")


def baseline():
    """`tacclc baseline`: NCCL's ring for every collective and direct sends,
    each proven, run on the CPU and simulated; clean errors."""
    with tempfile.TemporaryDirectory() as tmp:
        cases = [("ring", "ndv2(nodes: 2)", c) for c in (
            "allgather", "reducescatter", "allreduce", "alltoall",
            "broadcast", "reduce", "gather", "scatter")]
        cases += [("ring", "dgx1", "allreduce"),
                  ("direct", "a100(nodes: 2)", "alltoall"),
                  ("direct", "dgx2(nodes: 1)", "allreduce"),
                  ("tree", "ndv2(nodes: 2)", "allreduce"),
                  ("tree", "a100(nodes: 4)", "allreduce"),
                  ("hierarchical", "ndv2(nodes: 2)", "allreduce"),
                  ("hierarchical", "a100(nodes: 2)", "allgather"),
                  ("hierarchical", "h100(nodes: 2)", "alltoall")]
        for algo, topo, coll in cases:
            xml = os.path.join(tmp, f"{algo}-{coll}.xml")
            run("baseline", algo, "--topology", topo, "--collective", coll,
                "--chunks", "2", "-o", xml, expect=0)
            run("check", xml, expect=0)
            run("run", xml, "--backend", "cpu", expect=0)
            run("sim", xml, "--topology", topo, "--sizes", "64KiB,4MiB",
                expect=0)
        legacy = os.path.join(tmp, "legacy.xml")
        run("baseline", "ring", "--topology", "dgx1", "--collective",
            "reducescatter", "--dialect", "msccl-legacy", "-o", legacy,
            expect=0)
        run("check", "--dialect", "msccl-legacy", legacy, expect=0)
        err = run("baseline", "direct", "--topology", "ndv2(nodes: 2)",
                  "--collective", "alltoall", expect=1).stderr
        if "direct sends need the link" not in err:
            sys.exit(f"FAIL: direct on a cube mesh:\n{err}")
        # Too many rings for the runtime's limits: the default count
        # halves until the program fits, an explicit --rings is an error.
        many = ("baseline", "ring", "--topology", "a100(nodes: 2)",
                "--collective", "allreduce", "--chunks", "16")
        res = run(*many, "-o", os.path.join(tmp, "fewer.xml"), expect=0)
        if "8 rings exceed the runtime's limits" not in res.stderr or \
                "4 ring(s)" not in res.stderr:
            sys.exit(f"FAIL: default rings over the limits:\n{res.stderr}")
        err = run(*many, "--rings", "8", "-o", os.path.join(tmp, "no.xml"),
                  expect=1).stderr
        if "the runtime allows" not in err or "internal error" in err or \
                os.path.exists(os.path.join(tmp, "no.xml")):
            sys.exit(f"FAIL: --rings over the limits:\n{err}")
        run("baseline", "spiral", "--topology", "dgx1", expect=2)
        # --size reads sizes as every flag does.
        for size in ("64MB", "64MiB", "64M"):
            run("baseline", "ring", "--topology", "dgx1", "--size", size,
                "-o", os.path.join(tmp, "sized.xml"), expect=0)
        err = run("baseline", "ring", "--topology", "dgx1", "--size", "64XB",
                  expect=2).stderr
        if "'64XB' is not a size" not in err or "KiB" not in err:
            sys.exit(f"FAIL: baseline --size with a bad size:\n{err}")
        run("baseline", "tree", "--topology", "dgx1", "--collective",
            "allgather", expect=2)
        run("baseline", "ring", "--topology", "dgx1", "--collective", "x",
            expect=2)
    print("baseline: ok")


def bounds():
    """`tacclc bounds`: the NIC cut of ndv2(nodes: 2) through the CLI, JSON
    fields consistent for every collective, a readable table, clean errors."""
    import json
    topo = "ndv2(nodes: 2)"
    out = run("bounds", "--topology", topo, "--collective", "allgather",
              "--size", "1GiB", "--json", expect=0).stdout
    rows = json.loads(out)
    if len(rows) != 1 or rows[0]["bytes"] != 1 << 30 or rows[0]["ranks"] != 16:
        sys.exit(f"FAIL: bounds JSON: {out}")
    r = rows[0]
    # One 105 us/MB NIC per node: the node cut allows 2 x 9.52 GB/s.
    if abs(r["cut"]["algbw_GBps"] - 2e3 / 105) > 1e-3:
        sys.exit(f"FAIL: bounds NDv2x2 allgather cut: {r['cut']}")
    cut = r["binding_cut"]
    if cut["kind"] != "nodes" or not any(
            "nic of" in t["name"] for t in cut["through"]) or \
            abs(cut["capacity_GBps"] - 1e3 / 105) > 1e-3:
        sys.exit(f"FAIL: bounds binding cut: {cut}")
    for coll in ("allgather", "reducescatter", "allreduce", "alltoall",
                 "broadcast", "reduce"):
        r = json.loads(run("bounds", "--topology", topo, "--collective", coll,
                           "--size", "1MiB,1GiB", "--root", "3", "--json",
                           expect=0).stdout)[-1]
        parts = [r[k] for k in ("cut", "per_rank", "latency")]
        factor = {"allreduce": 2 * 15 / 16, "broadcast": 1,
                  "reduce": 1}.get(coll, 15 / 16)
        for b in parts + [r["bound"]]:
            if abs(b["algbw_GBps"] * b["time_us"] * 1e3 - r["bytes"]) > \
                    1e-4 * r["bytes"] or \
                    abs(b["busbw_GBps"] - b["algbw_GBps"] * factor) > \
                    1e-4 * b["busbw_GBps"] or not b["why"]:
                sys.exit(f"FAIL: bounds {coll} fields: {b}")
        if abs(r["bound"]["time_us"] - max(p["time_us"] for p in parts)) > \
                1e-6 * r["bound"]["time_us"] or \
                r["bound"]["limited_by"] not in ("cut", "per-rank", "latency"):
            sys.exit(f"FAIL: bounds {coll}: the bound is not the max: {r}")
        if (r["root"] is None) != (coll not in ("broadcast", "reduce")):
            sys.exit(f"FAIL: bounds {coll} root: {r['root']}")
    # At 1 KiB the latency binds: LL's launch (6.6 us) and its network hop
    # (2.7 us, above the IB alpha of 2.6 us) by default, the alpha alone
    # with --no-protocol-costs.
    for extra, want in (((), 6.6 + 2.7), (("--no-protocol-costs",), 2.6)):
        r = json.loads(run("bounds", "--topology", topo, "--collective",
                           "allgather", "--size", "1KiB", "--json", *extra,
                           expect=0).stdout)[0]
        if abs(r["latency"]["time_us"] - want) > 1e-6 or \
                r["bound"]["limited_by"] != "latency":
            sys.exit(f"FAIL: bounds latency {extra}: {r['latency']}")
    table = run("bounds", "--topology", topo, "--collective", "alltoall",
                "--size", "1GiB", expect=0).stdout
    if "lower bound" not in table or "algbw" not in table or \
            "node" not in table:
        sys.exit(f"FAIL: bounds table:\n{table}")
    err = run("bounds", "--topology", topo, "--collective", "allgatherx",
              "--size", "1GiB", expect=2).stderr
    if "unknown --collective 'allgatherx'" not in err:
        sys.exit(f"FAIL: bounds bad collective message:\n{err}")
    err = run("bounds", "--topology", topo, "--collective", "allgather",
              "--size", "1QB", expect=2).stderr
    if "'1QB' is not a list of sizes" not in err or "KB, MB" not in err:
        sys.exit(f"FAIL: a bad --size does not quote the grammar:\n{err}")
    # 1GB is 10^9 B, as in a sketch.
    r = json.loads(run("bounds", "--topology", topo, "--collective",
                       "allgather", "--size", "1GB", "--json",
                       expect=0).stdout)[0]
    if r["bytes"] != 10 ** 9:
        sys.exit(f"FAIL: bounds --size 1GB is {r['bytes']} B")
    run("bounds", "--topology", "nosuchmachine", "--collective", "allgather",
        "--size", "1GiB", expect=1)
    run("bounds", "--topology", topo, "--collective", "broadcast", "--size",
        "1GiB", "--root", "16", expect=1)
    print("bounds: ok")


def bench_table(text):
    """The data rows of a taccl-bench table, split into fields."""
    return [l.split() for l in text.splitlines()
            if l.strip() and not l.startswith("#")]


def bench_sweep(go, xml):
    """-b/-e/-i/-f step as nccl-tests does; the defaults are its 32M/32M/1M;
    --sizes and -b/-e/-i/-f do not mix."""
    def sizes(*args):
        out = json.loads(go(xml, *args, "-n", "1", "-w", "0", "--json",
                            expect=0).stdout)
        return [r["bytes"] for r in out["rows"]]
    for args, want in ((["-b", "1K", "-e", "8K", "-f", "2"],
                       [1024, 2048, 4096, 8192]),
                       (["-b", "1K", "-e", "5000", "-i", "1K"],
                        [1024, 2048, 3072, 4096]),
                       (["--minbytes", "16", "--maxbytes", "500",
                         "--stepfactor", "3"], [16, 48, 144, 432]),
                       # 1K + 1M (the default step) fits, 1K + 2M does not.
                       (["-b", "1K", "-e", "1100K"], [1024, 1024 + (1 << 20)]),
                       # One size: -b = -e.
                       (["-b", "4KB", "-e", "4KB"], [4000])):
        got = sizes(*args)
        if got != want:
            sys.exit(f"FAIL: taccl-bench {' '.join(args)}: sizes {got}, "
                     f"expected {want}")
    # The defaults are nccl-tests': -b and -e 32M (32 MiB).
    for args, said in ((["-b", "33M"], "--minbytes 34603008 is above "
                        "--maxbytes 33554432"),
                       (["-e", "1K"], "--minbytes 33554432 is above "
                        "--maxbytes 1024")):
        proc = go(xml, *args, expect=2)
        if said not in proc.stderr:
            sys.exit(f"FAIL: taccl-bench {' '.join(args)}: no '{said}' in:\n"
                     f"{proc.stderr}")
    proc = go(xml, "-b", "1K", "-e", "4K", "-f", "2", "-i", "1K", "-n", "1",
              expect=0)
    if "--stepbytes is ignored" not in proc.stderr:
        sys.exit(f"FAIL: -i with -f > 1 is not warned about:\n{proc.stderr}")


def bench_columns(go, xml, reduce_xml):
    """Out-of-place and in-place columns with count, type, redop and root
    per row, and nccl-tests' closing lines."""
    text = go(xml, "-b", "1K", "-e", "4K", "-f", "2", "-n", "2", "-d", "half",
              expect=0).stdout
    header = [l for l in text.splitlines() if l.startswith("#  ")]
    if (len(header) < 2 or "out-of-place" not in header[0]
            or "in-place" not in header[0] or header[1].split()[1:] !=
            ["size", "count", "type", "redop", "root"] +
            ["time", "algbw", "busbw", "#wrong"] * 2):
        sys.exit(f"FAIL: not nccl-tests' header:\n{text}")
    rows = bench_table(text)
    if ([r[:5] for r in rows] !=
            [[str(b), str(b // 2 // 4), "float16", "none", "-1"]
             for b in (1024, 2048, 4096)]
            or any(len(r) != 13 or r[8] != "0" or r[12] != "0"
                   for r in rows)):
        sys.exit(f"FAIL: rows are not size count type redop root "
                 f"+ 2 x (time algbw busbw #wrong):\n{text}")
    if ("\n# Out of bounds values : 0 OK\n" not in text or not re.search(
            r"\n# Avg bus bandwidth    : [0-9.e+-]+\n", text)):
        sys.exit(f"FAIL: no nccl-tests closing lines:\n{text}")
    out = json.loads(go(reduce_xml, "-b", "4K", "-e", "8K", "-f", "2", "-o",
                        "max", "-n", "2", "--json", expect=0).stdout)
    busbw = [r[p]["busbw_GBps"] for r in out["rows"]
             for p in ("out_of_place", "in_place")]
    if (any((r["type"], r["redop"], r["root"], r["count"]) !=
            ("float32", "max", -1, r["bytes"] // 4) for r in out["rows"])
            or out["out_of_bounds"] != 0 or len(busbw) != 4 or
            abs(out["avg_busbw_GBps"] - sum(busbw) / 4) >
            1e-5 * max(busbw)):
        sys.exit(f"FAIL: allreduce JSON rows or average busbw: {out}")


def bench_dialect(go, legacy_xml):
    """--dialect as tacclc spells it; --legacy still works, with a warning;
    a legacy file serves only in-place calls: out-of-place is N/A."""
    args = [legacy_xml, "-b", "1K", "-e", "1K", "-n", "1"]
    go(*args, expect=1)  # as msccl-executor: outofplace is missing
    text = go(*args, "--dialect=msccl-legacy", expect=0).stdout
    rows = bench_table(text)
    if (len(rows) != 1 or rows[0][5:9] != ["N/A"] * 4
            or rows[0][12] != "0" or "dialect msccl-legacy" not in text):
        sys.exit(f"FAIL: legacy in-place file: out-of-place should be N/A:\n"
                 f"{text}")
    proc = go(*args, "--legacy", expect=0)
    if (bench_table(proc.stdout)[0][:5] != rows[0][:5] or
            "--legacy is deprecated; use --dialect=msccl-legacy"
            not in proc.stderr):
        sys.exit(f"FAIL: --legacy: no deprecation warning:\n{proc.stderr}")
    go(*args, "--legacy", "--dialect=msccl-executor", expect=2)
    go(*args, "--dialect=legacy", expect=2)


def bench_corrupted(go, text, tmp):
    """A receive into the wrong chunk: counted wrong (exit 1) with -c 1,
    not compared with -c 0 (exit 0, #wrong N/A)."""
    wrong = os.path.join(tmp, "wrong.xml")
    steps = re.findall(r'<step [^>]*type="r"[^>]*/>', text)
    if not steps:
        sys.exit("FAIL: no plain receive to corrupt")
    bad = re.sub(r'dstoff="(\d+)"',
                 lambda m: f'dstoff="{(int(m.group(1)) + 1) % 4}"',
                 steps[0], count=1)
    open(wrong, "w").write(text.replace(steps[0], bad, 1))
    out = json.loads(go(wrong, "--sizes", "4KB", "-n", "1", "--json",
                        expect=1).stdout)
    if (out["ok"] or out["out_of_bounds"] != 2 or
            out["rows"][0]["out_of_place"]["wrong"] == 0):
        sys.exit(f"FAIL: corrupted XML not counted wrong: {out}")
    table = go(wrong, "--sizes", "4KB", "-n", "1", expect=1).stdout
    if "# Out of bounds values : 2 FAILED" not in table:
        sys.exit(f"FAIL: out-of-bounds line:\n{table}")
    table = go(wrong, "--sizes", "4KB", "-n", "1", "-c", "0", expect=0).stdout
    row = bench_table(table)[0]
    if (row[8] != "N/A" or row[12] != "N/A" or "validation: 0" not in table
            or "# Out of bounds values : 0 OK" not in table):
        sys.exit(f"FAIL: -c 0 still checks:\n{table}")
    out = json.loads(go(wrong, "--sizes", "4KB", "-n", "1", "--check", "0",
                        "--json", expect=0).stdout)
    if not out["ok"] or out["rows"][0]["in_place"]["wrong"] is not None:
        sys.exit(f"FAIL: -c 0 JSON: {out}")


def bench(binary, xml, reduce_xml, legacy_xml):
    def go(*args, expect):
        return run_tool(binary, *args, expect=expect)

    for dtype in ("int8", "uint8", "int32", "uint32", "int64", "uint64",
                  "float16", "bfloat16", "float32", "float64"):
        out = json.loads(go(xml, "--sizes", "1000,4KB", "--dtype", dtype,
                            "--iters", "2", "--json", expect=0).stdout)
        rows = out["rows"]
        if (not out["ok"] or len(rows) != 2 or rows[0]["bytes"] < 1000
                or any(r[p]["wrong"] != 0 or r[p]["time_us"] <= 0
                       for r in rows for p in ("out_of_place", "in_place"))):
            sys.exit(f"FAIL: taccl-bench --dtype {dtype}: {out}")
    bench_sweep(go, xml)
    bench_columns(go, xml, reduce_xml)
    bench_dialect(go, legacy_xml)
    text = open(xml).read()
    with tempfile.TemporaryDirectory() as tmp:
        bench_corrupted(go, text, tmp)
        # A deleted relay (rcs) leaves the next rank waiting for a message
        # that never comes: a deadlock, the size is "not run", exit 1.
        hung = os.path.join(tmp, "hung.xml")
        relays = re.findall(r'<step [^>]*type="rcs"[^>]*/>', text)
        if not relays:
            sys.exit("FAIL: no relay step to delete")
        lines, k = [], 0
        for line in text.replace(relays[0], "", 1).splitlines(True):
            if "<tb " in line:
                k = 0
            if "<step " in line:  # the runtime wants s = 0, 1, 2, ...
                line = re.sub(r' s="\d+"', f' s="{k}"', line, count=1)
                k += 1
            lines.append(line)
        open(hung, "w").write("".join(lines))
        proc = go(hung, "--sizes", "4KB", "-n", "1", "-c", "0", expect=1)
        if ("# out-of-place not run:" not in proc.stdout or
                "Calls not run        : 2 FAILED" not in proc.stdout):
            sys.exit(f"FAIL: deadlock not reported:\n{proc.stdout}")
    # The GPU backends and the NCCL column: refused where the build has no
    # CUDA (exit 2) or the machine no GPU (the size is not run, exit 1).
    for args in (["--backend", "nccl"], ["--backend", "cuda-virtual"],
                 ["--nccl"]):
        proc = subprocess.run([binary, xml, "--sizes", "4KB", *args],
                              capture_output=True, text=True, timeout=300)
        said = proc.stdout + proc.stderr
        if proc.returncode == 0:
            continue  # a machine with enough GPUs ran it
        if not ((proc.returncode == 2 and "no CUDA interpreter" in said) or
                (proc.returncode in (0, 1) and "GPU" in said)):
            sys.exit(f"FAIL: taccl-bench {' '.join(args)} without a GPU "
                     f"exited {proc.returncode}:\n{said}")
    for args in (["--dtype", "float8"], ["--backend", "tpu"],
                 ["--sizes", "4KB:1KB"], ["-b", "foo"], ["-b", "8K", "-e",
                 "1K"], ["--sizes", "4KB", "-b", "1K"], ["-c", "x"],
                 ["--check"], ["-n", "0"], ["-b", "1", "-e", "1T", "-i", "1"]):
        go(xml, *args, expect=2)
    print("bench: nccl-tests sweeps, columns and closing lines, -c 0, "
          "--dialect, every element type, corrupted and hung files, usage "
          "errors")


def slice_overlap(sketch):
    inc = os.path.dirname(sketch)
    names = re.findall(r"^sketch (\w+)", open(sketch).read(), re.M)
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            got = {}
            for mode in ("auto", "on", "off"):
                xml = os.path.join(tmp, f"{name}-{mode}.xml")
                proc = run(sketch, "-I", inc, "--sketch", name,
                           f"--slice-overlap={mode}", "--summary", "-o", xml,
                           expect=0)
                m = re.search(r"simulated\s+([\d.]+) us", proc.stderr +
                              proc.stdout)
                if not m:
                    sys.exit(f"FAIL: no simulated time for {name} {mode}:\n"
                             f"{proc.stderr}")
                chans = int(re.search(r'nchannels="(\d+)"',
                                      open(xml).read()).group(1))
                got[mode] = (float(m.group(1)), chans, xml)
            if got["on"][1] <= got["off"][1]:
                sys.exit(f"FAIL: {name}: waves did not add channels: {got}")
            if got["auto"][0] != min(got["on"][0], got["off"][0]):
                sys.exit(f"FAIL: {name}: auto is not the faster one: {got}")
            run("run", got["auto"][2], "--backend", "cpu", "--bytes",
                str(9 << 20), expect=0)
    print(f"slice-overlap: auto kept the faster program for {len(names)} "
          "sketches")


def pace_nics(sketch):
    """--pace-nics: `on` makes sends through a NIC wait (more steps: the
    waits' nops), says so in the summary and verifies and runs; `auto`
    keeps whichever of `on` and `off` simulates faster."""
    names = re.findall(r"^sketch (\w+)", open(sketch).read(), re.M)
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            got = {}
            for mode in ("auto", "on", "off"):
                xml = os.path.join(tmp, f"{name}-{mode}.xml")
                out = run(sketch, "--sketch", name, f"--pace-nics={mode}",
                          "--summary", "-o", xml, expect=0).stderr
                m = re.search(r"simulated\s+([\d.]+) us", out)
                steps = re.search(r"program\s+(\d+) steps", out)
                if not m or not steps:
                    sys.exit(f"FAIL: no times for {name} {mode}:\n{out}")
                got[mode] = (float(m.group(1)), int(steps.group(1)),
                             "NIC sends paced" in out, xml)
            if not got["on"][2] or got["off"][2]:
                sys.exit(f"FAIL: {name}: pacing not as asked: {got}")
            if got["on"][1] <= got["off"][1]:
                sys.exit(f"FAIL: {name}: pacing added no waits: {got}")
            if got["auto"][0] != min(got["on"][0], got["off"][0]):
                sys.exit(f"FAIL: {name}: auto is not the faster one: {got}")
            run("check", got["on"][3], expect=0)
            run("run", got["on"][3], "--backend", "cpu", expect=0)
    print(f"pace-nics: paced programs verify and auto kept the faster for "
          f"{len(names)} sketches")


def fifo_order(sketch):
    """A fused program ordered for the FIFO's 8 messages that does not
    verify: the driver also builds it with the named ranks unfused, keeps
    the faster, and its simulation then agrees with the prediction
    (pair_reducescatter: fused for a FIFO of one it takes longer)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "a.xml")
        summary = run(sketch, "--sketch", "pair_reducescatter", "-o", out,
                      "--summary", expect=0).stderr
        if "faster than relays fused for a FIFO of one message" not in \
                summary or "differs" in summary:
            sys.exit(f"FAIL: fifo order not chosen by time:\n{summary}")
        run("check", out, expect=0)
        run("run", out, "--backend", "cpu", expect=0)
    print("fifo-order: ok")


def spread_overlap(sketch):
    """An allreduce whose sums are spread as each completes: the summary
    says so, prediction and simulation agree, and the program is correct."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "a.xml")
        summary = run(sketch, "-o", out, "--summary", expect=0).stderr
        if "sums spread as they finish" not in summary or \
                "differs" in summary:
            sys.exit(f"FAIL: the spread does not overlap the reduction:\n"
                     f"{summary}")
        run("check", out, expect=0)
        run("run", out, "--backend", "cpu", expect=0)
    print("spread-overlap: ok")


def scramble(text):
    """The same sketch in a careless layout: no indentation or a wrong one,
    no spaces around operators and commas, doubled blank lines. Comments
    are left as they are."""
    out = []
    for k, line in enumerate(text.splitlines()):
        code, sep, comment = line.partition("//")
        code = code.strip()
        for a, b in ((", ", ","), (" = ", "="), (" <-> ", "<->"),
                     (" -> ", "->"), (" {", "{"), ("{ ", "{"), (" }", "}"),
                     (": ", ":")):
            code = code.replace(a, b)
        if not code and not sep:
            out.append("\n")  # a blank line becomes two
        out.append(" " * (5 * (k % 3)) + code + sep + comment)
    return "\n".join(out) + "\n"


def fmt(stdlib):
    files = sorted(os.path.join(d, n) for d, _, ns in os.walk(stdlib)
                   for n in ns if n.endswith(".sketch"))
    # The stdlib is in the layout (CI runs this).
    run("fmt", "--check", *files, expect=0)
    with tempfile.TemporaryDirectory() as tmp:
        copy = os.path.join(tmp, "stdlib")
        shutil.copytree(stdlib, copy)
        messy = [os.path.join(copy, os.path.relpath(f, stdlib))
                 for f in files]
        for f in messy:
            text = scramble(open(f).read())
            open(f, "w").write(text)
        proc = run("fmt", "--check", *messy, expect=1)
        if proc.stdout.count("not formatted") != len(files):
            sys.exit(f"FAIL: --check missed scrambled files:\n{proc.stdout}")
        os.chmod(messy[0], 0o640)
        run("fmt", "-i", *messy, expect=0)
        if os.stat(messy[0]).st_mode & 0o777 != 0o640:
            sys.exit("FAIL: fmt -i changed the file's permissions")
        # Formatting restores every file exactly (the stdlib is canonical).
        for orig, f in zip(files, messy):
            if open(orig).read() != open(f).read():
                sys.exit(f"FAIL: fmt did not restore {orig}:\n" +
                         "".join(difflib.unified_diff(
                             open(orig).readlines(), open(f).readlines())))
        before = {f: os.stat(f).st_mtime_ns for f in messy}
        run("fmt", "-i", *messy, expect=0)
        if any(os.stat(f).st_mtime_ns != before[f] for f in messy):
            sys.exit("FAIL: fmt -i rewrote a file already in the layout")
        # Meaning: the IR of every sketch, and of every machine, from the
        # scrambled and the formatted library is the original's.
        scrambled = os.path.join(tmp, "scrambled")
        shutil.copytree(stdlib, scrambled)
        for f in files:
            dst = os.path.join(scrambled, os.path.relpath(f, stdlib))
            open(dst, "w").write(scramble(open(f).read()))
        compared = 0
        for f in files:
            rel = os.path.relpath(f, stdlib)
            text = open(f).read()
            jobs = [(rel, ["--sketch", n]) for n in
                    re.findall(r"^sketch (\w+)", text, re.M)]
            for name in re.findall(r"^machine (\w+)", text, re.M):
                probe = f"probe-{name}.sketch"
                for root in (stdlib, copy, scrambled):
                    open(os.path.join(tmp, root == stdlib and "o-" + probe
                                      or root == copy and "f-" + probe
                                      or "s-" + probe), "w").write(
                        f'import "{os.path.splitext(rel)[0]}"\n'
                        f"sketch probe on {name}(nodes: 2) "
                        "{ collective allgather }\n")
                jobs.append((probe, []))
            for target, extra in jobs:
                irs = []
                for root, tag in ((stdlib, "o-"), (copy, "f-"),
                                  (scrambled, "s-")):
                    path = (os.path.join(root, target) if target == rel
                            else os.path.join(tmp, tag + target))
                    irs.append(run(path, "-I", root, "--emit=ir", *extra,
                                   expect=0).stdout)
                if not (irs[0] == irs[1] == irs[2]) or not irs[0]:
                    sys.exit(f"FAIL: the IR of {target} {extra} changed")
                compared += 1
    # Standard input, and a file that does not parse.
    proc = subprocess.run([TACCLC, "fmt", "-"], input="topology t{ranks 2}",
                          capture_output=True, text=True, timeout=60)
    if proc.returncode != 0 or proc.stdout != "topology t {\n  ranks 2\n}\n":
        sys.exit(f"FAIL: fmt - printed {proc.stdout!r} ({proc.returncode})")
    run("fmt", "-i", "--check", files[0], expect=2)
    print(f"fmt: {len(files)} files restored from a scrambled layout; "
          f"{compared} IRs equal before and after")


def profile(binary):
    import json

    def go(*args, expect):
        return run_tool(binary, *args, expect=expect)

    with tempfile.TemporaryDirectory() as tmp:
        out, raw = os.path.join(tmp, "meas.sketch"), os.path.join(tmp, "m.json")
        go("--simulate", "ndv2(nodes: 2)", "--name", "ndv2_measured",
           "--date", "2026-12-03", "-o", out, "--json", raw, expect=0)
        data = json.load(open(raw))
        if (len(data["intra_node"]) != 56 or len(data["network"]) != 8 or
                data["nics"][0]["gpus"] != list(range(8))):
            sys.exit(f"FAIL: the raw measurements: {list(data)}")
        run("fmt", "--check", out, expect=0)
        user = os.path.join(tmp, "use.sketch")
        open(user, "w").write(
            'import "meas"\n'
            "sketch s on ndv2_measured(nodes: 2) {\n"
            "  collective allgather\n  size 1 MB\n  relay each 0 -> 1\n}\n")
        ir = run(user, "--emit=ir", expect=0).stdout
        if "ranks 16 (2 node(s) x 8 GPUs)" not in ir:
            sys.exit(f"FAIL: the measured machine in a sketch:\n{ir}")
    go("--simulate", "ndv2(nodes: 2)", "--remove-link", "0+1", expect=2)
    go("--simulate", "ndv2(nodes: 2)", "--name", "1st", expect=2)
    go("--simulate", "ndv2(nodes: 2)", "--name", "link", expect=2)
    go("--simulate", "nosuch(nodes: 2)", expect=1)
    proc = subprocess.run([binary], capture_output=True, text=True,
                          timeout=300)
    if proc.returncode != 0 and "GPU" not in proc.stderr + proc.stdout \
            and "CUDA" not in proc.stderr:
        sys.exit(f"FAIL: taccl-profile without a GPU: {proc.stderr}")
    print("profile: a simulated NDv2 written, formatted and used by a "
          "sketch; usage errors")


def algo_dir(script, sketch):
    """scripts/algo-dir is `tacclc tune --sketches FILE --no-candidates`:
    the machine and the collective come from the file's sketches, only
    they and NCCL's algorithms compete, every file written is one of them
    and passes the checker, and the folder is the one tune writes when told
    the machine and the collective. A file whose sketches are on two
    machines needs --topology."""
    import json
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, TACCLC=TACCLC,
                   TACCLC_CACHE_DIR=os.path.join(tmp, "cache"))
        sweep = ["--sizes", "1KiB:64MiB", "-j2", "--time-limit", "30"]
        out = os.path.join(tmp, "algos")
        proc = subprocess.run(["bash", script, sketch, out, *sweep],
                              capture_output=True, text=True, timeout=600,
                              env=env)
        if proc.returncode != 0:
            sys.exit(f"FAIL: algo-dir exited {proc.returncode}:\n"
                     f"{proc.stdout}{proc.stderr}")
        rep = json.load(open(os.path.join(out, "report.json")))
        colls = rep["collectives"]
        if [c["collective"] for c in colls] != ["allgather"] or \
                not rep["topology"].endswith("duo-algos.sketch:duo(nodes: 2)"):
            sys.exit(f"FAIL: algo-dir tuned {rep['topology']} "
                     f"{[c['collective'] for c in colls]}")
        mine = os.path.basename(sketch)
        jobs = colls[0]["jobs"]
        ours = sorted(j["label"] for j in jobs if j["kind"] == "sketch")
        if ours != ["ag_large", "ag_medium", "ag_tiny"] or any(
                j["kind"] == "sketch" and j["family"] != mine for j in jobs):
            sys.exit(f"FAIL: algo-dir compiled {ours} (no candidates)")
        files = [f for f in colls[0]["files"] if f["file"]]
        if not files or any(f["family"] != mine for f in files):
            sys.exit(f"FAIL: algo-dir's files: {colls[0]['files']}")
        xml = sorted(n for n in os.listdir(out) if n.endswith(".xml"))
        if xml != sorted(f["file"] for f in files):
            sys.exit(f"FAIL: algo-dir wrote {xml}")
        for name in xml:
            run("check", os.path.join(out, name), expect=0)
        # The same as tune told the machine and the collective.
        told = os.path.join(tmp, "told")
        proc = subprocess.run(
            [TACCLC, "tune", "--topology", f"{sketch}:duo(nodes: 2)",
             "--collective", "allgather", "--sketches", sketch,
             "--no-candidates", "-o", told, *sweep],
            capture_output=True, text=True, timeout=600, env=env)
        if proc.returncode != 0 or "tune: [" in proc.stderr or xml != sorted(
                n for n in os.listdir(told) if n.endswith(".xml")) or any(
                open(os.path.join(out, n), "rb").read() !=
                open(os.path.join(told, n), "rb").read() for n in xml):
            sys.exit(f"FAIL: tune told the machine differs from algo-dir:"
                     f"\n{proc.stderr}")
        # Sketches on two machines: tune cannot guess which.
        two = os.path.join(tmp, "two.sketch")
        with open(two, "w") as f:
            f.write(open(sketch).read() + "sketch ag_n3 on duo(nodes: 3) "
                    "{\n  collective allgather\n  size 768 KiB\n}\n")
        bad = subprocess.run(["bash", script, two, os.path.join(tmp, "x")],
                             capture_output=True, text=True, timeout=120,
                             env=env)
        if bad.returncode != 1 or "several machines" not in bad.stderr or \
                os.path.exists(os.path.join(tmp, "x")):
            sys.exit(f"FAIL: two machines: {bad.returncode} {bad.stderr}")
        bad = subprocess.run(["bash", script, sketch], capture_output=True,
                             text=True, timeout=60, env=env)
        if bad.returncode != 2:
            sys.exit("FAIL: algo-dir without an output directory")
        algo_dir_without_tacclc(script, sketch, tmp)
    print(f"algo-dir: tune over the file's sketches wrote {len(xml)} "
          "verified file(s)")


def algo_dir_without_tacclc(script, sketch, tmp):
    """Without a build (a copy of the script in a tree that has none) or
    with TACCLC naming nothing, algo-dir says once how to get a compiler and
    exits 2; a file tacclc cannot list fails with tacclc's message."""
    tree = os.path.join(tmp, "tree")
    os.makedirs(os.path.join(tree, "scripts"))
    copy = os.path.join(tree, "scripts", "algo-dir")
    shutil.copy(script, copy)
    env = {k: v for k, v in os.environ.items() if k != "TACCLC"}
    out = os.path.join(tmp, "unbuilt")
    for extra, want in (({}, "tacclc not built: run scripts/build "
                             "(or set TACCLC=...)"),
                        ({"TACCLC": os.path.join(tmp, "no-tacclc")},
                         "no such executable")):
        proc = subprocess.run(["bash", copy, sketch, out], capture_output=True,
                              text=True, timeout=60, env=dict(env, **extra))
        lines = proc.stderr.splitlines()
        if (proc.returncode != 2 or len(lines) != 1 or want not in lines[0]
                or os.path.exists(out)):
            sys.exit(f"FAIL: algo-dir without tacclc ({extra}) exited "
                     f"{proc.returncode}:\n{proc.stderr}")
    broken = os.path.join(tmp, "broken.sketch")
    with open(broken, "w") as f:
        f.write("sketch s on {\n")
    proc = subprocess.run(["bash", script, broken, out], capture_output=True,
                          text=True, timeout=60, env=dict(env, TACCLC=TACCLC))
    if (proc.returncode != 1 or "has no sketch" in proc.stderr
            or "error" not in proc.stderr or os.path.exists(out)):
        sys.exit(f"FAIL: algo-dir on a broken file exited {proc.returncode}:"
                 f"\n{proc.stderr}")


def fmt_fuzz(stdlib):
    """Comments and separators inserted at random token boundaries of every
    stdlib file (seeded): `tacclc fmt` must never fail its own checks (exit
    2), and what it prints must be a fixed point."""
    import random
    rng = random.Random(20261203)
    files = sorted(os.path.join(d, n) for d, _, ns in os.walk(stdlib)
                   for n in ns if n.endswith(".sketch"))
    inserts = ["// c\n", " /* c */ ", "\n/* two\n lines */\n", " ; ",
               "\n\n\n", "\t", "//\n"]
    runs = formatted = 0
    with tempfile.TemporaryDirectory() as tmp:
        for path in files:
            text = open(path).read()
            # Token boundaries outside comments and strings.
            spots, in_line, in_str = [], False, False
            for i, ch in enumerate(text):
                if in_line:
                    in_line = ch != "\n"
                    continue
                if ch == '"':
                    in_str = not in_str
                elif not in_str and text.startswith("//", i):
                    in_line = True
                elif not in_str and ch in " \n":
                    spots.append(i)
            for _ in range(12):
                chosen = sorted(rng.sample(spots, min(4, len(spots))),
                                reverse=True)
                mutated = text
                for at in chosen:
                    mutated = mutated[:at] + rng.choice(inserts) + mutated[at:]
                src = os.path.join(tmp, "m.sketch")
                open(src, "w").write(mutated)
                proc = run("fmt", src)
                runs += 1
                if proc.returncode == 2 or proc.returncode not in (0, 1):
                    sys.exit(f"FAIL: fmt exited {proc.returncode} on a "
                             f"variant of {path}:\n{mutated}\n{proc.stderr}")
                if proc.returncode == 0:
                    formatted += 1
                    open(src, "w").write(proc.stdout)
                    run("fmt", "--check", src, expect=0)
    print(f"fmt-fuzz: {runs} variants, {formatted} formatted, every result a "
          "fixed point, no failed self-check")


def with_protocols(files, tmp):
    """Every file as written, and each under the two protocols it does not
    name: LL and LL128 run the kernel's line path, Simple its slot path."""
    out = []
    for xml in files:
        text = open(xml).read()
        own = attr(text, "proto")
        out.append(xml)
        for proto in ("Simple", "LL", "LL128"):
            if proto == own:
                continue
            stem, ext = os.path.splitext(os.path.basename(xml))
            copy = os.path.join(tmp, f"{stem}.{proto}{ext}")
            with open(copy, "w") as f:
                f.write(re.sub(r'proto="[^"]*"', f'proto="{proto}"', text,
                               count=1))
            out.append(copy)
    return out


def gpu(*folders):
    files = sorted(os.path.join(f, n) for f in folders for n in os.listdir(f)
                   if n.endswith(".xml"))
    probe = run("run", files[0], "--backend", "cuda-virtual")
    if probe.returncode == 2 or "no CUDA GPU is available" in probe.stderr:
        print("no GPU: skipping (" + (probe.stderr.strip().splitlines() or
                                     ["?"])[-1] + ")")
        return
    with tempfile.TemporaryDirectory() as tmp:
        gpu_runs(with_protocols(files, tmp))


def gpu_runs(files):
    ran = 0
    for xml in files:
        text = open(xml).read()
        legacy = "-legacy" in os.path.basename(xml)
        dialect = ["--dialect", "msccl-legacy"] if legacy else []
        calls = [[]]
        if 'inplace="1"' in text:
            calls.append(["--inplace"])
        for extra in calls:
            for dtype in ("float32", "float16", "bfloat16", "int8", "float64"):
                for size in ([], ["--bytes", str(9 << 20)]):
                    backend = "cuda" if dtype == "float64" else "cuda-virtual"
                    proc = run("run", xml, "--backend", backend,
                               "--dtype", dtype, "--watchdog", "20", *dialect,
                               *extra, *size)
                    if proc.returncode != 0:
                        sys.exit(f"FAIL: {xml} {dtype} {' '.join(extra + size)}"
                                 f" on the GPU:\n{proc.stdout}{proc.stderr}")
                    ran += 1
    print(f"gpu: {ran} runs of {len(files)} files (each file under Simple, LL "
          f"and LL128) on one GPU, all correct")
    # A process per rank through NCCL, where there is a GPU per rank.
    ran, short = 0, 0
    for xml in files:
        if "-legacy" in os.path.basename(xml):
            continue
        proc = run("run", xml, "--backend", "nccl", "--watchdog", "20")
        if proc.returncode != 0 and "needs a GPU per rank" in proc.stderr:
            short += 1
            continue
        if proc.returncode != 0:
            sys.exit(f"FAIL: {xml} with a process per rank (NCCL):\n"
                     f"{proc.stdout}{proc.stderr}")
        ran += 1
    print(f"gpu: {ran} files ran with a process per rank through NCCL, "
          f"{short} skipped (fewer GPUs than ranks)")


RING4 = """topology ring4 {
  ranks 4
  link 0 <-> 1 alpha 1 us beta 10 us/MB
  link 1 <-> 2 alpha 1 us beta 10 us/MB
  link 2 <-> 3 alpha 1 us beta 10 us/MB
  link 3 <-> 0 alpha 1 us beta 10 us/MB
}
"""


def protocol_auto():
    """`protocol auto`: the program is written for the protocol with the
    least geometric-mean simulated time over the sizes the report lists,
    the report and the XML agree, the output is deterministic, and the
    program (LL's and LL128's flagged lines on the CPU executor) computes
    its collective in several data types."""
    import json
    import math
    chosen = set()
    with tempfile.TemporaryDirectory() as tmp:
        for coll, size, want in (("allgather", "1 KiB", "LL"),
                                 ("allreduce", "4 KiB", None),
                                 ("allgather", "64 MiB", "Simple"),
                                 ("alltoall", "16 KiB .. 1 MiB", None)):
            src = os.path.join(tmp, "auto.sketch")
            with open(src, "w") as f:
                f.write(RING4 + f"sketch s on ring4 {{\n  collective {coll}\n"
                        f"  size {size}\n  protocol auto\n}}\n")
            xml, rep = os.path.join(tmp, "a.xml"), os.path.join(tmp, "a.json")
            run(src, "-o", xml, "--report", rep, expect=0)
            report = json.load(open(rep))
            choice = report["protocol_choice"]
            if not choice or set(choice["times_us"]) != {"Simple", "LL",
                                                         "LL128"}:
                sys.exit(f"FAIL: {coll} {size}: no protocol choice: {report}")
            times = choice["times_us"]
            score = {p: sum(map(math.log, t)) / len(t)
                     for p, t in times.items()}
            best = min(score, key=score.get)
            programs = report["programs"]
            # The overall winner keeps every size where it is within 2% of
            # the fastest; elsewhere the fastest gets its own program.
            sizes = choice["sizes"]
            split = any(times[best][i] > 1.02 * min(t[i] for t in times.values())
                        for i in range(len(sizes)))
            if split != (len(programs) > 1):
                sys.exit(f"FAIL: {coll} {size}: {len(programs)} programs for "
                         f"{choice}")
            if len(programs) == 1:
                proto = attributes(xml)["proto"]
                if proto != report["protocol"] or \
                        score[proto] > score[best] + 1e-9:
                    sys.exit(f"FAIL: {coll} {size}: wrote {proto}, report "
                             f"says {report['protocol']}, fastest is {best}: "
                             f"{choice}")
                if want and proto != want:
                    sys.exit(f"FAIL: {coll} {size}: chose {proto}, not {want}")
            else:
                check_parts(programs, coll, size)
                for i, b in enumerate(sizes):
                    part = [p for p in programs
                            if p["min_bytes"] <= b <= p["max_bytes"]]
                    fastest = min(t[i] for t in times.values())
                    if len(part) != 1 or \
                            times[part[0]["protocol"]][i] > 1.02 * fastest:
                        sys.exit(f"FAIL: {coll} {size}: {b} B served by "
                                 f"{part}, not the fastest: {choice}")
            files = [p["file"] for p in programs]
            chosen.update(p["protocol"] for p in programs)
            first = [open(f).read() for f in files]
            run(src, "-o", xml, expect=0)
            if [open(f).read() for f in files] != first:
                sys.exit(f"FAIL: {coll} {size}: output differs between runs")
            for f in files:
                for dtype in ("int8", "float16", "float64"):
                    run("run", f, "--backend", "cpu", "--bytes", "96KiB",
                        "--dtype", dtype, expect=0)
        # Without `protocol auto` nothing is compared.
        with open(src, "w") as f:
            f.write(RING4 + "sketch s on ring4 {\n  collective allgather\n"
                    "  size 1 KiB\n  protocol LL128\n}\n")
        run(src, "-o", xml, "--report", rep, expect=0)
        report = json.load(open(rep))
        if report["protocol_choice"] is not None or \
                attributes(xml)["proto"] != "LL128":
            sys.exit(f"FAIL: a named protocol was changed: {report}")
    print(f"protocol-auto: chose {', '.join(sorted(chosen))} by simulation")


def check_parts(programs, coll, size):
    """The programs of a compile that split its size range: each file says
    its protocol and its part, and the parts tile the range."""
    lo, _, hi = size.partition(" .. ")
    for i, p in enumerate(programs):
        a = attributes(p["file"])
        if a["proto"] != p["protocol"] or \
                int(a["minBytes"]) != p["min_bytes"] or \
                int(a["maxBytes"]) != p["max_bytes"]:
            sys.exit(f"FAIL: {coll} {size}: {p['file']} has {a}, the report "
                     f"says {p}")
        if i and p["min_bytes"] != programs[i - 1]["max_bytes"] + 1:
            sys.exit(f"FAIL: {coll} {size}: parts do not tile: {programs}")
        run("check", p["file"], expect=0)
    units = {"KiB": 1 << 10, "MiB": 1 << 20}
    bytes_of = lambda t: int(t.split()[0]) * units[t.split()[1]]
    if programs[0]["min_bytes"] != bytes_of(lo) or \
            programs[-1]["max_bytes"] != bytes_of(hi):
        sys.exit(f"FAIL: {coll} {size}: parts miss the range: {programs}")


def phases():
    """`phases`: every collective, in both orders of the two phases,
    compiles to a verified program that computes its collective on the CPU
    executor in several data types, deterministically; so does a phased
    NDv2 x2 allgather. The stages run once per phase (reductions through
    their duals; an allreduce's spreading in phases too)."""
    cases = [("allgather", ""), ("alltoall", ""), ("broadcast", " root 0:0"),
             ("gather", " root 1:1"), ("scatter", " root 0:1"),
             ("reducescatter", ""), ("reduce", " root 1:0"),
             ("allreduce", "")]
    orders = ["within nodes, across nodes", "across nodes, within nodes"]
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "ph.sketch")
        names = []
        with open(src, "w") as f:
            f.write('import "topologies/ndv2"\n' + MYBOX)
            for coll, root in cases:
                for i, order in enumerate(orders):
                    name = f"{coll}_{i}"
                    names.append(name)
                    f.write(f"sketch {name} on mybox(nodes: 2) {{\n"
                            f"  collective {coll}"
                            f"{root}\n  chunks 2\n  size 64 KiB\n"
                            f"  relay direct\n  phases {order}\n}}\n")
            f.write("sketch ndv2_ag on ndv2(nodes: 2) {\n  collective "
                    "allgather\n  size 64 KiB\n  relay direct\n  phases "
                    "across nodes, within nodes\n  symmetry rotate nodes by "
                    "1\n}\n")
            names.append("ndv2_ag")
        for name in names:
            xml = os.path.join(tmp, name + ".xml")
            summary = run(src, "--sketch", name, "-o", xml, "--summary",
                          expect=0).stderr
            stages = ["phase 1 routing", "phase 2 scheduling"]
            if name.startswith("allreduce"):
                stages.append("spread phase 2 routing")
            for stage in stages:
                if stage not in summary:
                    sys.exit(f"FAIL: {name}: no '{stage}' line:\n{summary}")
            first = open(xml).read()
            run(src, "--sketch", name, "-o", xml, expect=0)
            if open(xml).read() != first:
                sys.exit(f"FAIL: {name}: output differs between runs")
            run("check", xml, expect=0)
            for dtype in ("int8", "float16", "float64"):
                run("run", xml, "--backend", "cpu", "--dtype", dtype,
                    expect=0)
    print(f"phases: {len(names)} phased programs verified and run")


def protocol_ranges():
    """`protocol LL below 256 KiB, LL128 below 1 MiB, Simple`: one verified
    program per part, named after its protocol, with exactly its part as
    minBytes/maxBytes in both dialects; deterministic; every program
    computes its collective (allgather and allreduce, several data types);
    stdout refuses several programs."""
    import json
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "p.sketch")
        with open(src, "w") as f:
            f.write(RING4)
            for coll in ("allgather", "allreduce"):
                f.write(f"sketch {coll} on ring4 {{\n  collective {coll}\n"
                        "  size 16 KiB .. 4 MiB\n  protocol LL below 256 KiB,"
                        " LL128 below 1 MiB, Simple\n}\n")
        parts = [("LL", 16384, 262143), ("LL128", 262144, 1048575),
                 ("Simple", 1048576, 4194304)]
        for coll in ("allgather", "allreduce"):
            out, rep = os.path.join(tmp, coll + ".xml"), os.path.join(tmp, "r")
            run(src, "--sketch", coll, "-o", out, "--report", rep, expect=0)
            if os.path.exists(out):
                sys.exit(f"FAIL: {coll}: {out} written beside its parts")
            programs = json.load(open(rep))["programs"]
            want = [{"file": os.path.join(tmp, f"{coll}.{p}.xml"),
                     "protocol": p, "min_bytes": lo, "max_bytes": hi}
                    for p, lo, hi in parts]
            if programs != want:
                sys.exit(f"FAIL: {coll}: programs {programs}, not {want}")
            check_parts(programs, coll, "16 KiB .. 4 MiB")
            first = [open(p["file"]).read() for p in programs]
            run(src, "--sketch", coll, "-o", out, expect=0)
            if [open(p["file"]).read() for p in programs] != first:
                sys.exit(f"FAIL: {coll}: output differs between runs")
            for p in programs:
                for dtype in ("int8", "float16", "float64"):
                    run("run", p["file"], "--backend", "cpu", "--bytes",
                        "96KiB", "--dtype", dtype, expect=0)
            # The legacy runtime's maxBytes is exclusive.
            leg = os.path.join(tmp, "legacy", coll + ".xml")
            os.makedirs(os.path.dirname(leg), exist_ok=True)
            run(src, "--sketch", coll, "-o", leg, "--dialect=msccl-legacy",
                expect=0)
            for p, lo, hi in parts:
                a = attributes(os.path.join(tmp, "legacy", f"{coll}.{p}.xml"))
                if (int(a["minBytes"]), int(a["maxBytes"])) != (lo, hi + 1):
                    sys.exit(f"FAIL: legacy {coll} {p}: {a}")
        # Several programs cannot share stdout; nothing is written.
        before = sorted(os.listdir(tmp))
        proc = run(src, "--sketch", "allgather", expect=1)
        if "name an output file with -o" not in proc.stderr or proc.stdout \
                or sorted(os.listdir(tmp)) != before:
            sys.exit(f"FAIL: stdout with several programs: {proc.stderr}")
    print("protocol-ranges: one verified program per protocol and part")


def main():
    global TACCLC
    TACCLC = sys.argv[1]
    cmd, rest = sys.argv[2], sys.argv[3:]
    {"stdlib": lambda: stdlib(rest[0]),
     "roundtrip": lambda: roundtrip(rest[0]),
     "delete-steps": lambda: delete_steps(rest[0]),
     "atomic-output": atomic_output,
     "exit-codes": exit_codes,
     "regressions": lambda: regressions(rest[0]),
     "handwritten": lambda: handwritten(rest[0]),
     "sim": lambda: sim(rest[0]),
     "baseline": baseline,
     "provenance": lambda: provenance(rest[0]),
     "bounds": bounds,
     "search-path": lambda: search_path(rest[0]),
     "bench": lambda: bench(*rest[:4]),
     "gpu": lambda: gpu(*rest),
     "fmt": lambda: fmt(rest[0]),
     "fmt-fuzz": lambda: fmt_fuzz(rest[0]),
     "profile": lambda: profile(rest[0]),
     "algo-dir": lambda: algo_dir(rest[0], rest[1]),
     "help": help_texts,
     "slice-overlap": lambda: slice_overlap(rest[0]),
     "pace-nics": lambda: pace_nics(rest[0]),
     "fifo-order": lambda: fifo_order(rest[0]),
     "spread-overlap": lambda: spread_overlap(rest[0]),
     "protocol-auto": protocol_auto,
     "protocol-ranges": protocol_ranges,
     "phases": phases}[cmd]()


if __name__ == "__main__":
    main()
