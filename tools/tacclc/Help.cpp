//===- tools/tacclc/Help.cpp - What --help says before the options --------===//
//
// The text llvm::cl prints as OVERVIEW: `tacclc --help` gives the overview of
// every command; `tacclc SUB --help` gives only SUB's own paragraph (what it
// does, its defaults, its exit statuses), followed by its options. The
// paragraphs are kept here, apart from the options (Subcommands.cpp), so
// that each reads as one text.
//
//===----------------------------------------------------------------------===//
#include "tools/tacclc/Subcommands.h"

#include "llvm/ADT/STLExtras.h"

using namespace tacclc;

namespace {
/// One subcommand's paragraph.
struct Overview {
  const char *Name;
  const char *Text;
};

constexpr const char *ToolOverview =
    "tacclc: compile communication sketches to TACCL-EF (MSCCL XML)\n\n"
    "  tacclc FILE.sketch -o OUT.xml   compile, verify, write\n"
    "  tacclc check FILE.xml           validate and prove correct\n"
    "  tacclc run FILE.xml --backend cpu [--bytes N]   execute\n"
    "  tacclc sim FILE.xml [--topology T] [--sizes 1KiB:1GiB]   predict "
    "(default: the machine the file records)\n"
    "  tacclc baseline ring|tree|direct|hierarchical --topology T "
    "--collective C -o F\n"
    "  tacclc bounds --topology T --collective C --size S   bounds\n"
    "  tacclc bounds FILE.xml          bounds for what the file records\n"
    "  tacclc fmt [-i | --check] FILE.sketch...   canonical layout\n"
    "  tacclc import-taccl SKETCH.json [--topology PROFILE.json] -o "
    "F.sketch   TACCL's JSON\n"
    "  tacclc tune --topology T --collective C[,C...] -o DIR   the best "
    "verified algorithm per size, no sketch\n"
    "  tacclc lsp                      language server (stdio)\n\n"
    "Sizes (sim --sizes, bounds --size, baseline --size, run --bytes, "
    "--max-memory) are whole numbers of bytes with an optional unit, "
    "as in sketches: KB, MB, GB, TB are powers of 10 and KiB, MiB, "
    "GiB, TiB powers of 2; a lone K, M, G or T is binary, as in "
    "nccl-tests. Case does not matter on the command line: 64MB is "
    "64,000,000 B, 64MiB and 64M are 67,108,864 B. A list is LO:HI "
    "(LO doubling up to HI) or sizes separated by commas.\n\n"
    "Exit status: 0 success, 1 error in the input (a compile past its "
    "time limit or memory budget included), 2 usage or internal error "
    "or out of memory.\n";

constexpr Overview Overviews[] = {
    {"check",
     "tacclc check FILE.xml: validate a TACCL-EF (MSCCL XML) file against\n"
     "every rule the MSCCL runtimes enforce, then prove it by symbolic\n"
     "execution: no deadlock (a connection holds --fifo-capacity\n"
     "messages), no unmatched message, no race, and every rank ends with\n"
     "what the collective defines. Each problem names the rank,\n"
     "threadblock and step. Exit status: 0 proved, 1 a problem in the\n"
     "file, 2 a usage error.\n"},
    {"run",
     "tacclc run FILE.xml: execute a TACCL-EF file on real data (the CPU\n"
     "reference executor unless --backend says otherwise) and compare\n"
     "every output element bit for bit with a reference computed from the\n"
     "collective's definition; a hang names the blocked rank, threadblock\n"
     "and step. Exit status: 0 every element right, 1 wrong elements, a\n"
     "hang or a bad file, 2 a usage error or a backend this build lacks.\n"},
    {"sim",
     "tacclc sim FILE.xml... [--topology MACHINE]: predict, without a\n"
     "GPU, how long each TACCL-EF file takes on a modelled machine (by\n"
     "default the one the file records), at every\n"
     "size of --sizes (default 1KiB:1GiB, powers of two), with the in-house\n"
     "engine unless --engine names another. Prints a table per file of\n"
     "time, algbw, busbw, the lower bound and the efficiency (--json: the\n"
     "same as JSON; --plot and --timeline: SVG charts). Exit status: 0\n"
     "success, 1 an error in a file or the machine, 2 a usage error.\n"},
    {"baseline",
     "tacclc baseline ALGO --topology MACHINE: write NCCL's own algorithm\n"
     "for a machine as a verified TACCL-EF file, to compare a synthesised\n"
     "one with: ring (a ring per NIC of a node unless --rings says\n"
     "otherwise), tree (allreduce's double binary tree), hierarchical or\n"
     "direct, for the --collective (default allgather). Prints the\n"
     "schedule's predicted time at --size (default 1 MiB) on standard\n"
     "error. Exit status: 0 success, 1 an error in the machine or one that\n"
     "cannot carry the algorithm, 2 a usage error.\n"},
    {"bounds",
     "tacclc bounds --topology MACHINE --collective C --size S: print\n"
     "lower bounds on the time of the collective at each size (a list or\n"
     "LO:HI range as for sim --sizes): the cut bound by max-flow, the\n"
     "per-rank injection and ejection bound, the latency bound, and their\n"
     "maximum (--json: as JSON). `tacclc bounds FILE.xml` takes the\n"
     "machine, collective, sizes and root the file records. Exit status:\n"
     "0 success, 1 an error in the machine or the file, 2 a usage error.\n"},
    {"fmt",
     "tacclc fmt FILE.sketch...: print each sketch file in the canonical\n"
     "layout, comments kept; -i rewrites the files not in it (atomically),\n"
     "--check only names them. '-' reads standard input. Exit status: 0\n"
     "success, 1 a file that cannot be read or parsed (or, with --check,\n"
     "one not in the layout), 2 a usage error or a formatter fault (the\n"
     "file is then left alone).\n"},
    {"import-taccl",
     "tacclc import-taccl SKETCH.json: write a TACCL communication sketch\n"
     "(JSON, with its topology profile given by --topology) as a .sketch\n"
     "file on the matching standard-library machine, checked by tacclc's\n"
     "front end before it is written (docs/import-taccl.md). Exit status:\n"
     "0 written, 1 an error in a JSON file, 2 a usage error.\n"},
    {"tune",
     "tacclc tune --topology MACHINE --collective C[,C...] -o DIR: write\n"
     "the sketches worth trying on the machine, compile and simulate them\n"
     "(and the sketches of --sketches files, and NCCL's own algorithms)\n"
     "over the size sweep, -j at a time with a cache, and write DIR: one\n"
     "verified TACCL-EF file per range of sizes where a synthesised\n"
     "program beats NCCL, ranges that tile the sweep, report.md,\n"
     "report.json and an SVG per collective (docs/tune.md). --jobs FILE\n"
     "lists the jobs for another scheduler; --merge DIR takes their\n"
     "results. Exit status: 0 written, 1 a bad machine, sketch or output\n"
     "folder, 2 a usage error.\n"},
    {"lsp",
     "tacclc lsp: serve the Language Server Protocol over standard input\n"
     "and output, for editors (editors/vscode): diagnostics as you type,\n"
     "hover, go to definition, completion, quick fixes, document symbols\n"
     "and formatting. Imports\n"
     "are searched in the importing file's folder, the -I folders,\n"
     "$TACCLC_PATH and the standard library.\n"},
};
} // namespace

llvm::StringRef tacclc::helpOverview(int Argc, const char *const *Argv) {
  if (Argc > 1)
    for (const Overview &O : Overviews)
      if (llvm::StringRef(Argv[1]) == O.Name)
        return O.Text;
  return ToolOverview;
}
