//===- format/Plan.h - TACCL-EF plan model ----------------------*- C++ -*-===//
//
// One TACCL-EF / MSCCL XML algorithm, as the loader reads it and as the
// compiler's code generation builds it (ir/Program.h names these structs):
// an Algo holds one Gpu per rank, each Gpu its threadblocks (Tb), each Tb its
// ordered Steps. The structs mirror the XML attributes one to one; the
// loader (Loader.h) fills them and code generation numbers them, so that in
// every plan Gpus[R].Id == R and Tbs[T].Id == T; PlanWriter.h prints them.
// Small predicates describe what each step type reads, writes, sends and
// receives (the op table of the MSCCL executor). The enums and their spellings
// come from format/Vocabulary.def.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_FORMAT_PLAN_H
#define TACCLC_FORMAT_PLAN_H

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tacclrt {

/// The `proto` attribute: which NCCL protocol the algorithm runs on
/// (format/Vocabulary.def).
enum class Protocol {
#define TACCLRT_PROTOCOL(E, Name, Slice) E,
#include "format/Vocabulary.def"
};

/// The `coll` attribute: which collective the algorithm implements.
enum class CollKind {
#define TACCLRT_COLLECTIVE(E, Name) E,
#include "format/Vocabulary.def"
};

/// A buffer named by `srcbuf`/`dstbuf`: 'i' (sendbuff), 'o' (recvbuff) or
/// 's' (runtime scratch).
enum class BufferKind {
#define TACCLRT_BUFFER(E, Name, Letter) E,
#include "format/Vocabulary.def"
};

/// The `type` attribute of a step (format/Vocabulary.def says what each
/// type does).
enum class StepType {
#define TACCLRT_STEP(E, Name, Sends, Receives, ReadsSrc, WritesDst, Reduces) E,
#include "format/Vocabulary.def"
};

/// One `<step>` element.
struct Step {
  /// The `s` attribute (must equal the position in the threadblock).
  int S = 0;
  /// The `type` attribute.
  StepType Type = StepType::Nop;
  /// The `srcbuf` attribute.
  BufferKind SrcBuf = BufferKind::Input;
  /// The `srcoff` attribute, in chunks.
  int SrcOff = -1;
  /// The `dstbuf` attribute.
  BufferKind DstBuf = BufferKind::Output;
  /// The `dstoff` attribute, in chunks.
  int DstOff = -1;
  /// The `cnt` attribute: number of consecutive chunks.
  int Cnt = 0;
  /// The `depid` attribute: threadblock waited for, or -1.
  int DepId = -1;
  /// The `deps` attribute: step of DepId waited for, or -1.
  int Deps = -1;
  /// The `hasdep` attribute: publish the threadblock flag after this step.
  bool HasDep = false;
  /// 1-based XML line of the element, 0 when built by hand.
  unsigned Line = 0;
  /// 1-based XML column of the element, 0 when built by hand.
  unsigned Col = 0;
};

/// One `<tb>` element (one CUDA thread block).
struct Tb {
  /// The `id` attribute.
  int Id = 0;
  /// The `send` attribute: peer rank, or -1.
  int Send = -1;
  /// The `recv` attribute: peer rank, or -1.
  int Recv = -1;
  /// The `chan` attribute.
  int Chan = 0;
  /// The steps in execution order.
  std::vector<Step> Steps;
  /// 1-based XML line of the element, 0 when built by hand.
  unsigned Line = 0;
  /// 1-based XML column of the element, 0 when built by hand.
  unsigned Col = 0;
};

/// One `<gpu>` element (one rank).
struct Gpu {
  /// The `id` attribute: the rank.
  int Id = 0;
  /// The `i_chunks` attribute.
  int IChunks = 0;
  /// The `o_chunks` attribute.
  int OChunks = 0;
  /// The `s_chunks` attribute.
  int SChunks = 0;
  /// The threadblocks, sorted by id after loading.
  std::vector<Tb> Tbs;
  /// 1-based XML line of the element, 0 when built by hand.
  unsigned Line = 0;
  /// 1-based XML column of the element, 0 when built by hand.
  unsigned Col = 0;
};

/// Where a program came from: attributes of `<algo>` that tacclc writes and
/// reads back and that no MSCCL runtime reads (they ignore attributes they
/// do not know). Each is empty when absent.
struct Provenance {
  /// The `tacclc-version` attribute: the version of tacclc that wrote it.
  std::string Compiler;
  /// The `machine` attribute: the machine the program was built for, as
  /// `tacclc sim --topology` names it (`ndv2(nodes: 2)`, or
  /// `FILE.sketch:NAME(args)` with FILE relative to the program's folder).
  std::string Machine;
  /// The `sketch` attribute: the sketch it was compiled from, as
  /// `FILE.sketch:NAME` (FILE as in Machine).
  std::string Sketch;
  /// The `sizes` attribute: the sizes it was built for, as nccl-tests
  /// counts them, in the syntax of `tacclc sim --sizes` (`1 MB`, or
  /// `1 KiB:64 KiB` for a range).
  std::string Sizes;

  /// True when no attribute is set.
  bool empty() const {
    return Compiler.empty() && Machine.empty() && Sketch.empty() &&
           Sizes.empty();
  }
};

/// The `<algo>` root element.
struct Algo {
  /// The `name` attribute (empty when absent).
  std::string Name;
  /// The `proto` attribute.
  Protocol Proto = Protocol::Simple;
  /// The `nchannels` attribute.
  int NChannels = 1;
  /// The `nchunksperloop` attribute.
  int NChunksPerLoop = 1;
  /// The `ngpus` attribute.
  int NGpus = 1;
  /// The `coll` attribute.
  CollKind Coll = CollKind::Custom;
  /// The `inplace` attribute: serves in-place calls.
  bool InPlace = false;
  /// The `outofplace` attribute: serves out-of-place calls.
  bool OutOfPlace = false;
  /// The `minBytes` attribute (total bytes).
  std::uint64_t MinBytes = 0;
  /// The `maxBytes` attribute (total bytes; meaning depends on the dialect).
  std::uint64_t MaxBytes = 0;
  /// The `root` attribute tacclc writes for rooted collectives (no MSCCL
  /// runtime reads it); -1 when absent.
  int Root = -1;
  /// The provenance attributes tacclc writes (no MSCCL runtime reads them).
  Provenance Origin;
  /// The ranks, sorted by id after loading.
  std::vector<Gpu> Gpus;
  /// 1-based XML line of the element, 0 when built by hand.
  unsigned Line = 0;
  /// 1-based XML column of the element, 0 when built by hand.
  unsigned Col = 0;
};

/// "Simple", "LL" or "LL128".
std::string_view nameOf(Protocol P);
/// The slice of every chunk the runtime moves per loop iteration, in bytes,
/// with default buffers: Simple 2 MiB, LL 32 KiB, LL128 576000 B.
std::uint64_t protocolSliceBytes(Protocol P);
/// The protocol named \p Name as nameOf() writes it ("Simple", "LL",
/// "LL128"), or nothing.
std::optional<Protocol> parseProtocol(std::string_view Name);

/// A threadblock's published flag encodes (iteration, step) as
/// iteration * FlagScale + step (the runtimes' convention).
inline constexpr std::int64_t FlagScale = std::int64_t(1) << 20;
/// The collective's name as the current executor spells it ("allgather",
/// "reducescatter", ...; "custom" for Custom).
std::string_view nameOf(CollKind C);
/// "input", "output" or "scratch".
std::string_view nameOf(BufferKind B);
/// The XML letter of a buffer: 'i', 'o' or 's'.
char toLetter(BufferKind B);
/// The XML spelling of a step type ("s", "rrcs", "nop", ...).
std::string_view nameOf(StepType T);
/// The step type spelled \p Name in XML, or nothing.
std::optional<StepType> parseStepType(std::string_view Name);
/// The buffer whose XML letter is \p Letter, or nothing.
std::optional<BufferKind> parseBufferLetter(char Letter);

/// True for the types that send to the tb's send peer (s, rcs, rrs, rrcs).
bool sendsMessage(StepType T);
/// True for the types that receive from the recv peer (r, rcs, rrs, rrc,
/// rrcs).
bool receivesMessage(StepType T);
/// True for the types that read the local src chunks (s, rrs, rrc, rrcs, cpy,
/// re).
bool readsSrc(StepType T);
/// True for the types that write the local dst chunks (r, rcs, rrc, rrcs,
/// cpy, re).
bool writesDst(StepType T);
/// True for the types that apply the reduction operator (rrs, rrc, rrcs, re).
bool reduces(StepType T);

} // namespace tacclrt

#endif // TACCLC_FORMAT_PLAN_H
