"""bench/benchlib.py: helpers the bench scripts share.

Running tacclc with its wall time and peak memory, timing a program with
`tacclc sim`, finding which engine can referee, size labels and the first
error line of a failed compile. Python 3 standard library only; the scripts
import it from their own folder.
"""
import json
import os
import subprocess
import tempfile
import time


def label(n):
    """A size as nccl-tests prints it: 4 KiB, 1 MiB, 2 GiB."""
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= scale:
            return f"{n // scale} {unit}"
    return f"{n} B"


def run_peak(argv, timeout):
    """Runs argv, killed after timeout seconds: (exit status or None when
    killed, stderr, seconds, peak MiB of the process and the children it
    waited for, or None when killed)."""
    start = time.monotonic()
    with tempfile.TemporaryFile("w+") as errf:
        proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=errf)
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() - start > timeout:
                proc.kill()
                os.wait4(proc.pid, 0)
                return None, "timed out", time.monotonic() - start, None
            time.sleep(0.02)
        errf.seek(0)
        err = errf.read()
    return (os.waitstatus_to_exitcode(status), err,
            time.monotonic() - start, usage.ru_maxrss / 1024)


def sim(exe, xml, machine, size, engine):
    """The program's time in us at one size by `tacclc sim`, or None."""
    p = subprocess.run([exe, "sim", xml, "--topology", machine, "--sizes",
                        str(size), "--json", "--engine", engine],
                       capture_output=True, text=True)
    if p.returncode != 0:
        return None
    return json.loads(p.stdout)[0]["results"][0]["time_us"]


def referee_engine(exe, tmp):
    """simgrid where this tacclc was built with it, else inhouse."""
    xml = os.path.join(tmp, "r.xml")
    subprocess.run([exe, "baseline", "ring", "--topology", "dgx1", "-o", xml],
                   capture_output=True)
    return "simgrid" if sim(exe, xml, "dgx1", 1024, "simgrid") else "inhouse"


def last_error(err, fallback):
    """The text of the first `error:` line of err, else fallback."""
    lines = [l for l in err.splitlines() if "error:" in l]
    return lines[0].split("error: ", 1)[1] if lines else fallback
