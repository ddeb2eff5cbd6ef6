#!/usr/bin/env python3
"""Mutation suite for the TACCL-EF checker (`tacclc check`).

Compiles a few sketches to valid XML, derives deterministic mutants of each
kind (KINDS) by editing attributes or lines in place (the rest of the file
stays byte-identical), and runs `tacclc check` on each. Mutants check accepts
(and every --run-every'th other) also get `tacclc run --backend cpu` and the
happens-before analysis races(): one CPU run can pass a racy plan by luck.
  killed      check exits 1 with errors; wrong-diag (also counted as killed):
              none of its errors says what the mutation broke (EXPECT)
  equivalent  check accepts, the run is right and nothing races
  survived    check accepts, but the run fails or the plan races
  internal    check or run exits 2, crashes, hangs or fails silently
Prints a table per kind and the kill rate = killed / (generated -
equivalent); --json writes every mutant. Exits 1 if any mutant survives or
causes an internal error.
"""
import argparse
import concurrent.futures
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SKETCHES = [("examples/ring4-allgather.sketch", None),
            ("examples/bidir-ring4-allgather.sketch", None),
            ("examples/mesh8-allgather.sketch", None),
            ("sketches/ndv2-sk1-allgather.sketch", "ndv2_sk1"),
            ("sketches/dgx1-reductions.sketch", "dgx1_allreduce"),
            ("sketches/dgx1-reductions.sketch", "dgx1_reduce")]
SENDS = {"s", "rcs", "rrs", "rrcs"}
RECVS = {"r", "rcs", "rrs", "rrc", "rrcs"}
READS = {"s", "rrs", "rrc", "rrcs", "cpy", "re"}
WRITES = {"r", "rcs", "rrc", "rrcs", "cpy", "re"}
COLLS = ["allgather", "alltoall", "allreduce", "reducescatter", "broadcast",
         "reduce", "gather", "scatter", "alltoallv", "send", "recv"]
DATA = ("srcbuf", "srcoff", "dstbuf", "dstoff", "cnt")
# What check's errors must mention for each kind (one error line matching).
FLOW = (r"deadlock|never received|never written|uninitialised|holds .*"
        r"expected|chunks? from rank|out of bounds|counts .* twice|"
        r"race on rank|sendbuff is read-only|which is not the root")
EXPECT = {"drop-step": FLOW, "swap-steps": FLOW, "break-fifo": FLOW,
          "overlap-writes": FLOW, "wrong-buffer": FLOW,
          "remove-dependency": FLOW + r"|hasdep=0",
          "offset-out-of-range": r"out of bounds|buffer of this call has",
          "wrong-coll": r"[io]_chunks|out of bounds|buffer of this call|"
                        r"expected|cannot be verified|uninitialised|"
                        r"not the root|is not a multiple of ngpus",
          "wrong-count": FLOW + r"|carries \d+",
          "wrong-peer": FLOW + r"|share one NCCL connection"}
ATTR = re.compile(r'\s([A-Za-z_]+)="([^"]*)"')


def attrs(line):
    return dict(ATTR.findall(line))


def put(line, **values):
    """Rewrites attribute values in place, leaving the rest of the line."""
    for key, val in values.items():
        line, n = re.subn(r'(\s%s=")[^"]*"' % key,
                          lambda m: f'{m.group(1)}{val}"', line, count=1)
        assert n == 1, (key, line)
    return line


def parse(lines):
    """[{a: attrs, line, tbs: [{a, line, steps: [{a, line}]}]}] per gpu."""
    gpus = []
    for i, text in enumerate(lines):
        node, tag = {"a": attrs(text), "line": i}, text.lstrip()[:4]
        if tag == "<gpu":
            gpus.append(dict(node, tbs=[]))
        elif tag == "<tb ":
            gpus[-1]["tbs"].append(dict(node, steps=[]))
        elif tag == "<ste":
            gpus[-1]["tbs"][-1]["steps"].append(node)
    return gpus


def steps_of(gpus):
    for g in gpus:
        for t in g["tbs"]:
            for p, s in enumerate(t["steps"]):
                yield g, t, p, s


def where(g, t, p=None):
    tail = "" if p is None else f" step {p}"
    return f"rank {g['a']['id']} tb {t['a']['id']}{tail}"


def size(g, buf):
    return int(g["a"].get(buf + "_chunks", 0))


def sides(a):  # ("src", False) if the step reads src, ("dst", True) if
    return [(x, w) for x, w, kinds in (("src", 0, READS), ("dst", 1, WRITES))
            if a["type"] in kinds]  # it writes dst


def waiters(g, tid, pos):
    return [s for t in g["tbs"] for s in t["steps"]
            if s["a"]["depid"] == tid and s["a"]["deps"] == str(pos)]


# Each generator yields (description, {line index: new text, or None to
# delete the line}) for every mutant of its kind, in a fixed order.
def gen_drop_step(lines, gpus):
    for g, t, p, s in steps_of(gpus):
        edits = {s["line"]: None}
        for q, later in enumerate(t["steps"][p + 1:], p):
            edits[later["line"]] = put(lines[later["line"]], s=q)
        for _, _, _, w in steps_of([g]):
            d = int(w["a"]["deps"])
            if w["a"]["depid"] == t["a"]["id"] and d >= p:
                text = edits.get(w["line"], lines[w["line"]])
                edits[w["line"]] = (put(text, depid=-1, deps=-1) if d == p
                                    else put(text, deps=d - 1))
        yield (f"{where(g, t, p)}: delete `{lines[s['line']].strip()}`; later "
               "steps and the dependencies on them are renumbered", edits)


def gen_swap_steps(lines, gpus):
    for g in gpus:
        for t in g["tbs"]:
            st = [dict(s["a"], s=None) for s in t["steps"]]
            for p in range(len(st)):
                for q in range(p + 1, len(st)):
                    sends = st[p]["type"] == st[q]["type"] == "s"
                    if (q != p + 1 and not sends) or st[p] == st[q]:
                        continue
                    a, b = t["steps"][p]["line"], t["steps"][q]["line"]
                    edits = {a: put(lines[b], s=p), b: put(lines[a], s=q)}
                    for old, new in ((p, q), (q, p)):  # deps follow the ops
                        for w in waiters(g, t["a"]["id"], old):
                            edits[w["line"]] = put(
                                edits.get(w["line"], lines[w["line"]]),
                                deps=new)
                    yield (f"{where(g, t)}: exchange steps {p} and {q} ("
                           f"{st[p]['type']} <-> {st[q]['type']}; their "
                           "dependencies move with them)", edits)


def gen_remove_dependency(lines, gpus):
    for g, t, p, s in steps_of(gpus):
        a, text = s["a"], lines[s["line"]]
        if a["depid"] != "-1":
            yield (f"{where(g, t, p)}: depid={a['depid']} deps={a['deps']} "
                   "-> -1 -1", {s["line"]: put(text, depid=-1, deps=-1)})
        users = waiters(g, t["a"]["id"], p)
        if a["hasdep"] == "1" and users:
            yield (f"{where(g, t, p)}: hasdep=1 -> 0 ({len(users)} steps "
                   "still wait for it)", {s["line"]: put(text, hasdep=0)})
            edits = {u["line"]: put(lines[u["line"]], depid=-1, deps=-1)
                     for u in users}
            edits[s["line"]] = put(text, hasdep=0)
            yield (f"{where(g, t, p)}: hasdep=1 -> 0, and depid/deps -> -1 "
                   f"on the {len(users)} steps that wait for it", edits)


def gen_overlap_writes(lines, gpus):
    for g in gpus:
        writes = [(t, p, s) for t in g["tbs"] for p, s in enumerate(t["steps"])
                  if s["a"]["type"] in WRITES]
        for t, p, s in writes:
            for _, _, o in writes:
                a, b = s["a"], o["a"]
                to = {k: b[k] for k in ("dstbuf", "dstoff")}
                if (a["dstbuf"], a["dstoff"]) != tuple(to.values()) \
                        and a["cnt"] == b["cnt"]:
                    yield (f"{where(g, t, p)}: {a['type']} writes "
                           f"{b['dstbuf']}[{b['dstoff']}] (another write's "
                           f"target) instead of {a['dstbuf']}[{a['dstoff']}]",
                           {s["line"]: put(lines[s["line"]], **to)})


def gen_offset_out_of_range(lines, gpus):
    for g, t, p, s in steps_of(gpus):
        a, text = s["a"], lines[s["line"]]
        for i, (x, _) in enumerate(sides(a)):
            buf, off, n = a[x + "buf"], a[x + "off"], size(g, a[x + "buf"])
            yield (f"{where(g, t, p)}: {x}off={off} -> {n} ({buf}_chunks={n})",
                   {s["line"]: put(text, **{x + "off": n})})
            if i == 0:
                cnt = n - int(off) + 1
                yield (f"{where(g, t, p)}: cnt={a['cnt']} -> {cnt} ({x}off="
                       f"{off} + cnt passes {buf}_chunks={n})",
                       {s["line"]: put(text, cnt=cnt)})


def gen_break_fifo(lines, gpus):
    for g in gpus:
        for t in g["tbs"]:
            for group, peer in ((SENDS, "send"), (RECVS, "recv")):
                ops = [(p, s["line"], {k: s["a"][k] for k in DATA})
                       for p, s in enumerate(t["steps"])
                       if s["a"]["type"] in group]
                for i, (p, la, da) in enumerate(ops):
                    for q, lb, db in (o for o in ops[i + 1:] if o[2] != da):
                        yield (f"{where(g, t)} ({peer}={t['a'][peer]} chan="
                               f"{t['a']['chan']}): steps {p} and {q} exchange"
                               f" {'/'.join(DATA)} ({'/'.join(da.values())}"
                               f" <-> {'/'.join(db.values())}); deps stay",
                               {la: put(lines[la], **db),
                                lb: put(lines[lb], **da)})


def gen_wrong_coll(lines, gpus):
    n, old = int(attrs(lines[0])["nchunksperloop"]), attrs(lines[0])["coll"]
    k = n // len(gpus)  # i_chunks/o_chunks as the validator wants them:
    rules = {"allgather": (k, n), "reducescatter": (n, k)}
    for coll in (c for c in COLLS if c != old):
        yield f"coll={old} -> {coll}", {0: put(lines[0], coll=coll)}
        i, o = rules.get(coll, (n, n))
        if coll in COLLS[:6] and any((size(g, "i"), size(g, "o")) != (i, o)
                                     for g in gpus):
            edits = {g["line"]: put(lines[g["line"]], i_chunks=i, o_chunks=o)
                     for g in gpus}
            edits[0] = put(lines[0], coll=coll)
            yield (f"coll={old} -> {coll}, and every gpu's i_chunks/o_chunks "
                   f"-> {i}/{o} to match it", edits)


def gen_wrong_count(lines, gpus):
    for g, t, p, s in steps_of(gpus):
        a, cnt = s["a"], int(s["a"]["cnt"])
        room = [size(g, a[x + "buf"]) - int(a[x + "off"]) for x, _ in sides(a)]
        for new in (cnt + 1, cnt - 1):  # past the end: offset-out-of-range
            if room and 1 <= new <= min(room):
                yield (f"{where(g, t, p)}: cnt={cnt} -> {new}",
                       {s["line"]: put(lines[s["line"]], cnt=new)})


def gen_wrong_peer(lines, gpus):
    for g in gpus:
        for t in g["tbs"]:
            for peer in ("send", "recv"):
                old = t["a"][peer]
                for r in range(len(gpus) if old != "-1" else 0):
                    if str(r) not in (g["a"]["id"], old):
                        yield (f"{where(g, t)}: {peer}={old} -> {r}",
                               {t["line"]: put(lines[t["line"]], **{peer: r})})


def gen_wrong_buffer(lines, gpus):
    flip = {"i": "o", "o": "i"}
    for g, t, p, s in steps_of(gpus):
        a = s["a"]
        for x, _ in sides(a):
            if a[x + "buf"] in flip:
                new = flip[a[x + "buf"]]
                yield (f"{where(g, t, p)}: {a['type']} {x}buf={a[x + 'buf']} "
                       f"-> {new} ({x}off={a[x + 'off']} kept)",
                       {s["line"]: put(lines[s["line"]], **{x + "buf": new})})


KINDS = ["drop-step", "swap-steps", "remove-dependency", "overlap-writes",
         "offset-out-of-range", "break-fifo", "wrong-coll", "wrong-count",
         "wrong-peer", "wrong-buffer"]
GENERATORS = {k: globals()["gen_" + k.replace("-", "_")] for k in KINDS}


def races(lines):
    """Pairs of accesses to one chunk of a rank, at least one a write, that
    no chain of program order, dependency flags and matched messages orders
    (buffers as in an out-of-place call); None if messages do not pair up,
    a dependency is never released or the order has a cycle."""
    nodes = list(steps_of(parse(lines)))
    index = {(g["a"]["id"], t["a"]["id"], p): n
             for n, (g, t, p, _) in enumerate(nodes)}
    succs, indeg = [[] for _ in nodes], [0] * len(nodes)
    conns = {}  # (from, to, chan) -> ([sending steps], [receiving steps])

    def edge(m, n):
        succs[m].append(n)
        indeg[n] += 1
    for n, (g, t, p, s) in enumerate(nodes):
        rank, a, chan = g["a"]["id"], s["a"], t["a"]["chan"]
        if p:
            edge(n - 1, n)
        if a["depid"] != "-1":  # released by the first later hasdep step
            dep = [x["steps"] for x in g["tbs"] if x["a"]["id"] == a["depid"]]
            ready = [j for j in range(max(0, int(a["deps"])), len(dep[0]))
                     if dep[0][j]["a"]["hasdep"] == "1"] if dep else []
            if not ready:
                return None
            edge(index[(rank, a["depid"], ready[0])], n)
        if a["type"] in SENDS:
            conns.setdefault((rank, t["a"]["send"], chan), [[], []])[0] += [n]
        if a["type"] in RECVS:
            conns.setdefault((t["a"]["recv"], rank, chan), [[], []])[1] += [n]
    for sends, recvs in conns.values():
        if len(sends) != len(recvs):
            return None
        for x, y in zip(sends, recvs):
            edge(x, y)
    before = [0] * len(nodes)  # before[n]: bitset of n's ancestors
    queue = [n for n in range(len(nodes)) if not indeg[n]]
    for n in queue:  # Kahn's topological order
        for m in succs[n]:
            before[m] |= before[n] | 1 << n
            indeg[m] -= 1
            if not indeg[m]:
                queue.append(m)
    if len(queue) < len(nodes):
        return None
    uses, found = {}, []
    for n, (g, _, _, s) in enumerate(nodes):
        for x, w in sides(s["a"]):
            off = int(s["a"][x + "off"])
            for c in range(off, off + int(s["a"]["cnt"])):
                uses.setdefault((g["a"]["id"], s["a"][x + "buf"], c),
                                []).append((n, w))
    for (rank, buf, c), acc in uses.items():
        for i, (x, wx) in enumerate(acc):
            for y, wy in acc[i + 1:]:
                if x != y and (wx or wy) and not (before[y] >> x & 1 or
                                       before[x] >> y & 1):
                    found.append(f"rank {rank} {buf}[{c}]: " + " and ".join(
                        f"tb {nodes[z][1]['a']['id']} step {nodes[z][2]}"
                        for z in (x, y)) + " are unordered")
    return found


def tacclc(tool, args, timeout):
    try:
        proc = subprocess.run([tool, *args], capture_output=True, text=True,
                              timeout=timeout)
        return proc.returncode, proc.stdout + proc.stderr
    except subprocess.TimeoutExpired:
        return "timeout", f"no answer within {timeout} s"


def said(out):
    errs = [l for l in out.splitlines() if "error:" in l]
    return errs, (errs or out.strip().splitlines()[-1:])[:3]


def evaluate(tool, m):
    """Checks (and maybe runs) one mutant; fills in its verdict."""
    m["check_rc"], out = tacclc(tool, ["check", m["path"]], 30)
    errs, m["check_said"] = said(out)
    if m["check_rc"] == 0 or m["sampled"]:
        m["run_rc"], out = tacclc(tool, ["run", m["path"], "--backend", "cpu",
                                         "--watchdog", "5", "--bytes",
                                         str(m["bytes"])], 60)
        m["run_said"] = said(out)[1]
        m["races"] = races(open(m["path"]).read().splitlines(True))
    if m["check_rc"] not in (0, 1) or m.get("run_rc", 0) not in (0, 1) \
            or (m["check_rc"] == 1 and not errs):
        m["verdict"] = "internal"
    elif m["check_rc"] == 0:
        m["verdict"] = "equivalent" if m["run_rc"] == 0 and m["races"] == [] \
            else "survived"
    else:
        m["verdict"] = "killed" if any(re.search(EXPECT[m["kind"]], e)
                                       for e in errs) else "wrong-diag"


def generate(opts, tmp):
    mutants = []
    for rel, name in SKETCHES:
        base = os.path.splitext(os.path.basename(rel))[0]
        xml = os.path.join(tmp, base + ".xml")
        rc, out = tacclc(opts.tacclc, [os.path.join(opts.stdlib, rel), "-o",
                                       xml] + ["--sketch", name] * bool(name),
                         300)
        if rc != 0:
            sys.exit(f"FAIL: compiling {rel} exited {rc}:\n{out}")
        lines = open(xml).read().splitlines(True)
        if races(lines) != []:
            sys.exit(f"FAIL: {base} races (or races() is wrong): "
                     f"{races(lines)}")
        head = attrs(lines[0])
        nbytes = int(head["nchunksperloop"]) * int(head["ngpus"]) * 4 * 16
        for kind in KINDS:
            cands = list(GENERATORS[kind](lines, parse(lines)))
            picked = range(len(cands))
            if len(cands) > opts.cap:
                rng = random.Random(f"{opts.seed}:{base}:{kind}")
                picked = sorted(rng.sample(picked, opts.cap))
            for n, i in enumerate(picked):
                path = os.path.join(tmp, f"{base}.{kind}.{n}.xml")
                new = [cands[i][1].get(k, l) or "" for k, l in
                       enumerate(lines)]
                assert new != lines, cands[i][0]  # a mutant changes something
                with open(path, "w") as f:
                    f.write("".join(new))
                mutants.append({"file": base, "kind": kind, "path": path,
                                "change": cands[i][0], "bytes": nbytes,
                                "sampled": n % opts.run_every == 0})
    return mutants


def report(mutants, opts, seconds):
    cols = ["generated", "killed", "wrong-diag", "equivalent", "survived",
            "internal"]
    rows = {k: dict.fromkeys(cols, 0) for k in KINDS + ["total"]}
    for m, key in ((m, k) for m in mutants for k in (m["kind"], "total")):
        rows[key]["generated"] += 1
        rows[key][m["verdict"]] += 1
        rows[key]["killed"] += m["verdict"] == "wrong-diag"
    for kind, r in [("kind", {c: c for c in cols})] + list(rows.items()):
        print(f"{kind:<20}" + "".join(f"{r[c]:>11}" for c in cols))
    tot = rows["total"]
    live = tot["generated"] - tot["equivalent"]
    rate = tot["killed"] / live if live else 1.0
    ran = [m for m in mutants if m["check_rc"] == 1 and "run_rc" in m]
    lucky = [m for m in ran if m["run_rc"] == 0]
    print(f"kill rate: {tot['killed']}/{live} = {100 * rate:.1f}% ("
          f"{len(mutants)} mutants of {len(SKETCHES)} plans, {seconds:.0f} s)"
          f"\ncpu runs of rejected mutants: {len(ran)}; {len(lucky)} ran "
          f"correctly, {sum(bool(m['races']) for m in lucky)} of them racy")
    for m in mutants:
        what = m["verdict"].upper()
        if m in lucky and not m["races"]:
            what = "REJECTED, BUT RUNS CORRECTLY AND DOES NOT RACE"
        elif m["verdict"] not in ("survived", "internal", "wrong-diag"):
            continue
        print(f"\n{what}: {m['file']} [{m['kind']}] {m['change']}\n"
              f"  check exit {m['check_rc']}: {m['check_said']}")
        if "run_rc" in m:
            print(f"  run exit {m['run_rc']}: {m['run_said']}")
        if m.get("races"):
            print(f"  races ({len(m['races'])}): {m['races'][:2]}")
    if opts.json:
        with open(opts.json, "w") as f:
            json.dump({"table": rows, "kill_rate": rate, "mutants": mutants},
                      f, indent=1)
    return tot["survived"] + tot["internal"] == 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tacclc", required=True)
    ap.add_argument("--stdlib", default=os.path.join(HERE, "..", "..",
                                                     "stdlib-sketches"))
    ap.add_argument("--cap", type=int, default=40, help="per kind and plan")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--run-every", type=int, default=4)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--json", metavar="FILE", help="write all results here")
    ap.add_argument("--keep", metavar="DIR", help="keep the XML files here")
    opts = ap.parse_args()
    start = time.time()
    with tempfile.TemporaryDirectory(prefix="tacclc-mutants-") as tmp:
        if opts.keep:
            os.makedirs(opts.keep, exist_ok=True)
        mutants = generate(opts, opts.keep or tmp)
        with concurrent.futures.ThreadPoolExecutor(opts.jobs) as pool:
            list(pool.map(lambda m: evaluate(opts.tacclc, m), mutants))
    if not report(mutants, opts, time.time() - start):
        sys.exit(1)


if __name__ == "__main__":
    main()
