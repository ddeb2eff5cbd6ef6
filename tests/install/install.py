#!/usr/bin/env python3
"""The installed tree: `cmake --install`, then the installed binaries.

Usage: install.py BUILD_DIR SUBCOMMAND
  tree      `cmake --install BUILD_DIR --prefix TMP` lays out the binaries,
            the standard library, the docs, the VS Code extension's files and
            (in CUDA builds) libtaccl-nccl.so, (with SimGrid) the SimGrid
            engines' module; with TACCLC_STDLIB unset, the
            installed tacclc (also called through a symbolic link) reports
            the installed standard library and compiles, from a folder
            outside the source tree, a sketch that imports a machine only
            the installed copy has, then proves the result and times it
            with the installed SimGrid module
  override  TACCLC_STDLIB replaces the installed standard library: reported
            as such, its machines import, the installed copy's no longer do;
            one that is not a folder is reported so
Exits 0 on success; prints what failed otherwise.
"""
import os
import re
import subprocess
import sys
import tempfile

BUILD = None


def fail(why):
    sys.exit(f"FAIL: {why}")


def env_without_stdlib(**extra):
    env = {k: v for k, v in os.environ.items()
           if k not in ("TACCLC_STDLIB", "TACCLC_PATH")}
    env.update(extra)
    return env


def run(args, env, cwd, expect):
    proc = subprocess.run(args, capture_output=True, text=True, env=env,
                          cwd=cwd, timeout=120)
    if proc.returncode != expect:
        fail(f"{' '.join(args)} exited {proc.returncode}, expected {expect}"
             f"\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}")
    return proc


def install(prefix):
    run(["cmake", "--install", BUILD, "--prefix", prefix], os.environ,
        BUILD, 0)


def cuda_build():
    with open(os.path.join(BUILD, "CMakeCache.txt")) as f:
        return re.search(r"^NCCL_LIBRARY:FILEPATH=.*\S", f.read(),
                         re.M) is not None and os.path.exists(
                             os.path.join(BUILD, "lib", "libtaccl-nccl.so"))


def machine(name):
    """A one-node machine of four GPUs in a ring, called `name`."""
    return (f"machine {name}(nodes: int = 1) {{\n  gpus per node = 4\n"
            "  class nv { alpha = 0.7 us; beta = 46 us/MB }\n"
            "  link nv 0:0 -> 0:1, 0:1 -> 0:2, 0:2 -> 0:3, 0:3 -> 0:0\n}\n")


def sketch(module, name):
    return (f'import "{module}"\n\nsketch s on {name} {{\n'
            "  collective allgather\n  size 1 MB\n}\n")


def compile_and_check(tacclc, work, text, env):
    src = os.path.join(work, "s.sketch")
    with open(src, "w") as f:
        f.write(text)
    out = os.path.join(work, "s.xml")
    run([tacclc, src, "-o", out], env, work, 0)
    run([tacclc, "check", out], env, work, 0)


def simgrid_build():
    return os.path.exists(os.path.join(BUILD, "lib", "tacclc",
                                       "tacclc-simgrid.so"))


def simgrid_from_install(tacclc, prefix, env, work):
    """The installed tacclc names the installed SimGrid module and times a
    plan with it."""
    module = os.path.realpath(os.path.join(prefix, "lib", "tacclc",
                                           "tacclc-simgrid.so"))
    said = version(tacclc, env, work)
    want = f"SimGrid engines: {module} (beside the binary)"
    if want not in said:
        fail(f"{tacclc} --version does not say '{want}':\n{said}")
    dgx1 = os.path.join(prefix, "share", "tacclc", "stdlib", "topologies",
                        "dgx1.sketch")  # the machine s.xml was compiled for
    run([tacclc, "sim", os.path.join(work, "s.xml"), "--topology", dgx1,
         "--engine", "simgrid", "--sizes", "1MB"], env, work, 0)


def version(tacclc, env, work):
    return run([tacclc, "--version"], env, work, 0).stdout


def tree():
    with tempfile.TemporaryDirectory() as tmp:
        prefix = os.path.join(tmp, "prefix")
        install(prefix)
        expected = ["bin/tacclc", "bin/taccl-bench", "bin/taccl-profile",
                    "share/tacclc/stdlib/topologies/dgx1.sketch",
                    "share/tacclc/stdlib/examples/ring4-allgather.sketch",
                    "share/doc/tacclc/README.md",
                    "share/doc/tacclc/docs/nccl-shim.md",
                    "share/tacclc/editors/vscode/package.json",
                    "share/tacclc/editors/vscode/syntaxes/"
                    "sketch.tmLanguage.json"]
        if cuda_build():
            expected.append("lib/libtaccl-nccl.so")
        if simgrid_build():
            expected.append("lib/tacclc/tacclc-simgrid.so")
        for rel in expected:
            if not os.path.isfile(os.path.join(prefix, rel)):
                fail(f"cmake --install did not write {rel}")
        if os.path.exists(os.path.join(prefix, "share/tacclc/editors/"
                                       "vscode/node_modules")):
            fail("node_modules was installed")
        stdlib = os.path.join(prefix, "share", "tacclc", "stdlib")
        # A machine only the installed copy has: found only through it.
        with open(os.path.join(stdlib, "topologies", "installed_only.sketch"),
                  "w") as f:
            f.write(machine("installed_only"))
        work = os.path.join(tmp, "work")
        os.mkdir(work)
        env = env_without_stdlib()
        link = os.path.join(tmp, "tacclc-link")
        os.symlink(os.path.join(prefix, "bin", "tacclc"), link)
        for tacclc in (os.path.join(prefix, "bin", "tacclc"), link):
            said = version(tacclc, env, work)
            want = (f"standard library: {os.path.realpath(stdlib)} "
                    "(installed beside the binary)")
            if want not in said:
                fail(f"{tacclc} --version does not say '{want}':\n{said}")
            compile_and_check(
                tacclc, work,
                sketch("topologies/installed_only", "installed_only"), env)
            compile_and_check(tacclc, work,
                              sketch("topologies/dgx1", "dgx1"), env)
            if simgrid_build():
                simgrid_from_install(tacclc, prefix, env, work)
    print("install: tree laid out; the installed tacclc uses the installed "
          "standard library")


def override():
    with tempfile.TemporaryDirectory() as tmp:
        prefix = os.path.join(tmp, "prefix")
        install(prefix)
        tacclc = os.path.join(prefix, "bin", "tacclc")
        with open(os.path.join(prefix, "share", "tacclc", "stdlib",
                               "topologies", "installed_only.sketch"),
                  "w") as f:
            f.write(machine("installed_only"))
        own = os.path.join(tmp, "own")
        os.makedirs(os.path.join(own, "topologies"))
        with open(os.path.join(own, "topologies", "mine.sketch"), "w") as f:
            f.write(machine("mine"))
        work = os.path.join(tmp, "work")
        os.mkdir(work)
        env = env_without_stdlib(TACCLC_STDLIB=own)
        said = version(tacclc, env, work)
        want = f"standard library: {own} (from TACCLC_STDLIB)"
        if want not in said:
            fail(f"--version does not say '{want}':\n{said}")
        compile_and_check(tacclc, work, sketch("topologies/mine", "mine"), env)
        with open(os.path.join(work, "s.sketch"), "w") as f:
            f.write(sketch("topologies/installed_only", "installed_only"))
        proc = run([tacclc, "s.sketch", "-o", "t.xml"], env, work, 1)
        if "the standard library" not in proc.stderr:
            fail(f"the import error does not name the standard library:\n"
                 f"{proc.stderr}")
        env = env_without_stdlib(TACCLC_STDLIB=os.path.join(tmp, "none"))
        said = version(tacclc, env, work)
        if "(from TACCLC_STDLIB; not a directory)" not in said:
            fail(f"a missing TACCLC_STDLIB is not reported:\n{said}")
        # Set but empty: as unset.
        env = env_without_stdlib(TACCLC_STDLIB="")
        if "(installed beside the binary)" not in version(tacclc, env, work):
            fail("an empty TACCLC_STDLIB is not ignored")
    print("install: TACCLC_STDLIB replaces the installed standard library")


def main():
    global BUILD
    if len(sys.argv) != 3 or sys.argv[2] not in ("tree", "override"):
        sys.exit(__doc__)
    BUILD = os.path.abspath(sys.argv[1])
    {"tree": tree, "override": override}[sys.argv[2]]()


if __name__ == "__main__":
    main()
