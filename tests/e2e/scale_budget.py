#!/usr/bin/env python3
"""tests/e2e/scale_budget.py TACCLC: a 256-GPU compile within counted budgets.

An allgather of 1 GiB on DGX-H100 x32 (256 GPUs) with the sketch a user
writes for a rail machine (GPU g of a node sends to GPU g of every other
node, carries only its own chunks, the compiler finds the symmetry). The
budgets are counts, not times, so that the test says the same on any
machine and catches a stage that turns super-linear:
  - the symmetry reduces routing to one orbit of chunks, and the routing
    model to a few thousand variables (three quarters of a million
    without the reduction);
  - the in-house simulation of the program processes a bounded number of
    events, and of messages in flight summed over them;
  - the compiler's peak resident memory stays within a budget;
  - the program passes `tacclc check`.
bench/scale measures the same sketch from 128 to 1,024 GPUs.
"""
import json
import os
import subprocess
import sys
import tempfile

TACCLC = sys.argv[1]
SKETCH = """import "topologies/h100"

sketch s on h100(nodes: 32) {
  collective allgather
  size 1 GiB
  for g in 0..gpus {
    sender g carries [g]
  }
  relay direct
  protocol Simple
  symmetry auto
}
"""
# Measured when the test was written: 3,002 variables, 451 events and
# 3.29 million messages in flight summed over them, 186 MiB (the same
# sketch on 512 GPUs: 1,040 events, 7.6 million, 492 MiB). The budgets
# leave room for changes that keep the growth.
MAX_ROUTING_VARIABLES = 4000
MAX_SIMULATION_EVENTS = 1000
MAX_FLOW_UPDATES = 5_000_000
MAX_PEAK_MIB = 320

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


with tempfile.TemporaryDirectory() as tmp:
    src, xml, rep = (os.path.join(tmp, n)
                     for n in ("s.sketch", "s.xml", "report.json"))
    with open(src, "w") as f:
        f.write(SKETCH)
    p = subprocess.run([TACCLC, src, "-o", xml, "--report", rep,
                        "--no-referee"], capture_output=True, text=True,
                       timeout=1200)
    if p.returncode != 0:
        sys.exit(f"FAIL: the compile exited {p.returncode}: {p.stderr}")
    with open(rep) as f:
        r = json.load(f)
    routing = next(s for s in r["stages"] if s["name"] == "routing")
    check("1 of 256 chunks routed" in routing["detail"],
          f"one orbit of chunks routed: {routing['detail']}")
    check(routing["variables"] <= MAX_ROUTING_VARIABLES,
          f"routing model of {routing['variables']} variables "
          f"(budget {MAX_ROUTING_VARIABLES})")
    events = r.get("simulation_events")
    check(events is not None and 0 < events <= MAX_SIMULATION_EVENTS,
          f"{events} simulation events (budget {MAX_SIMULATION_EVENTS})")
    updates = r.get("simulation_flow_updates")
    check(updates is not None and 0 < updates <= MAX_FLOW_UPDATES,
          f"{updates} messages in flight summed over the events (budget "
          f"{MAX_FLOW_UPDATES})")
    peak = r["peak_bytes"] / (1 << 20)
    check(0 < peak <= MAX_PEAK_MIB,
          f"peak memory {peak:.0f} MiB (budget {MAX_PEAK_MIB} MiB)")
    c = subprocess.run([TACCLC, "check", xml], capture_output=True,
                       text=True, timeout=600)
    check(c.returncode == 0, f"tacclc check: {c.stdout}{c.stderr}")
    print(f"256 GPUs: routing {routing['variables']} variables, {events} "
          f"simulation events, {updates} flow updates, peak {peak:.0f} MiB, "
          f"{r['total_seconds']:.1f} s")
if failures:
    sys.exit(f"{len(failures)} budget(s) exceeded")
