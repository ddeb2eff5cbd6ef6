//===- frontend/SketchItems.cpp - What a sketch asks for ------------------===//
//
// Checks the single-valued items of a sketch once its logical topology is
// known: the collective (with `root` for broadcast, scatter, gather and
// reduce), `chunks` (a number, or `auto`: as many as make a chunk one
// slice of the runtime's pipeline at the largest size), `size` (one size, or a
// range `LO .. HI` whose design point is the geometric mean rounded up to whole
// chunks, with a warning where an end just misses a power of two), `instances`,
// `contiguous` link classes, `sender first`, and the switch policies. It
// also resolves per-size cost profiles at the chunk size.
//
//===----------------------------------------------------------------------===//
#include "frontend/SemaInternal.h"
#include "support/Suggest.h"

#include "support/Sizes.h"

#include "format/Plan.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Casting.h"
#include "llvm/Support/MathExtras.h"

#include <fmt/format.h>

#include <cmath>

using namespace tacclc;
using namespace tacclc::ast;

namespace {
constexpr unsigned MaxChunksPerRank = 64;
constexpr unsigned MaxInstances = 32;
/// Chunks of one collective in all: alltoall on 1024 ranks with one chunk.
constexpr uint64_t MaxChunks = uint64_t(1) << 20;

template <typename T>
const T *findItem(const std::vector<const Node *> &Items) {
  for (const Node *I : Items)
    if (const auto *X = llvm::dyn_cast<T>(I))
      return X;
  return nullptr;
}

const Node *findKind(const std::vector<const Node *> &Items, Node::Kind K) {
  for (const Node *I : Items)
    if (I->getKind() == K)
      return I;
  return nullptr;
}

/// \p N with commas between groups of three digits: 1,073,741,824.
std::string groupDigits(uint64_t N) {
  std::string Digits = std::to_string(N), Out;
  for (size_t I = 0; I < Digits.size(); ++I) {
    if (I && (Digits.size() - I) % 3 == 0)
      Out += ',';
    Out += Digits[I];
  }
  return Out;
}

/// Warns when an end of the range [\p Lo, \p Hi] leaves out a power of two
/// within 10% of it: `1 MB .. 1 GB` ends 7% below 1 GiB, so nccl-tests'
/// 1 GiB calls find no program. 10% covers every decimal unit against its
/// binary namesake (KB 2.4%, MB 4.9%, GB 7.4%, TB 10%).
void warnBinarySizeOutside(const SizeItem &Size, uint64_t Lo, uint64_t Hi,
                           DiagnosticEngine &Diags) {
  auto Warn = [&](const Quantity &End, const char *Where, uint64_t Bytes,
                  uint64_t Pow2) {
    std::string Spelled = formatByteSize(Pow2);
    Diags.report(DiagId::SizeRangeMissesBinarySize, End.Range, Where,
                 groupDigits(Bytes), Spelled, groupDigits(Pow2), Spelled);
  };
  // The power of two just above Hi (Hi <= 10^15 < 2^50: no overflow).
  uint64_t Above = llvm::NextPowerOf2(Hi);
  if (Above * 10 <= Hi * 11)
    Warn(*Size.Hi, "ends", Hi, Above);
  // The power of two just below Lo.
  uint64_t Below = llvm::PowerOf2Floor(Lo - 1);
  if (Lo > 1 && Below * 11 >= Lo * 10)
    Warn(Size.Size, "starts", Lo, Below);
}

/// Chooses the byte count synthesis optimises for; false after a diagnostic.
bool checkSize(const SizeItem *Size, uint64_t Parts, ir::Sketch &Out,
               DiagnosticEngine &Diags) {
  uint64_t Bytes = 1000000; // documented default: 1 MB
  if (Size) {
    auto Lo = checkSizeBytes(Size->Size, "size", Diags);
    if (!Lo)
      return false;
    Bytes = *Lo;
    if (Size->Hi) {
      auto Hi = checkSizeBytes(*Size->Hi, "size", Diags);
      if (!Hi)
        return false;
      if (*Hi < *Lo) {
        Diags.report(DiagId::EmptySizeRange, Size->getRange(),
                     Size->Size.Spelling + " " + Size->Size.Unit,
                     Size->Hi->Spelling + " " + Size->Hi->Unit);
        return false;
      }
      warnBinarySizeOutside(*Size, *Lo, *Hi, Diags);
      Out.MinBytes = *Lo;
      Out.MaxBytes = *Hi;
      Bytes = uint64_t(std::sqrt(double(*Lo) * double(*Hi)));
      Bytes = std::max(Bytes, *Lo);
      // The design point may round; it must still split into whole chunks.
      if (Bytes % Parts)
        Bytes += Parts - Bytes % Parts;
      return Out.SizeBytes = Bytes, true;
    }
  }
  // Every chunk must be a whole number of bytes. The default size rounds up
  // to the next multiple; a size the user wrote must divide.
  if (Bytes % Parts != 0) {
    if (Size) {
      Diags.report(DiagId::SizeNotDivisible, Size->Size.Range,
                   Size->Size.Spelling + " " + Size->Size.Unit, Parts, Parts);
      return false;
    }
    Bytes += Parts - Bytes % Parts;
  }
  Out.SizeBytes = Bytes;
  return true;
}

/// The collective and its root; false after a diagnostic.
bool checkCollective(const CollectiveItem &Coll, unsigned PerRank,
                     llvm::StringRef MachineName, ir::Sketch &Out,
                     DiagnosticEngine &Diags) {
  auto Kind = ir::parseCollectiveName(Coll.Name);
  if (!Kind) {
    std::vector<llvm::StringRef> Names = ir::collectiveNames();
    std::string Close = closestName(Coll.Name, Names);
    if (Close.empty())
      Diags.report(DiagId::UnknownCollective, Coll.NameRange, Coll.Name,
                   llvm::join(Names, ", "));
    else
      Diags.fixIt(Diags.report(DiagId::UnknownCollectiveSuggest, Coll.NameRange,
                               Coll.Name, Close),
                  Coll.NameRange, Close);
    return false;
  }
  ir::RankId Root(0);
  if (ir::isRooted(*Kind)) {
    if (!Coll.Root) {
      Diags.report(DiagId::RootRequired, Coll.getRange(), Coll.Name, Coll.Name);
      return false;
    }
    Scope S;
    S.define("nodes", Out.Topo.getNumNodes(), {});
    S.define("gpus", Out.Topo.getGpusPerNode(), {});
    S.define("ranks", Out.Topo.getNumRanks(), {});
    auto R = evalAddress(*Coll.Root, S, Out.Topo, MachineName, Diags);
    if (!R)
      return false;
    Root = ir::RankId(*R);
  } else if (Coll.Root) {
    Diags.report(DiagId::RootNotAllowed, Coll.Root->Range, Coll.Name);
    return false;
  }
  // alltoall has a chunk per ordered pair of ranks and per `chunks`: on 1024
  // ranks with 64 chunks that is 67M chunks, more memory than exists. Every
  // other collective has at most ranks x chunks (65536).
  const uint64_t R = Out.Topo.getNumRanks();
  uint64_t NumChunks =
      uint64_t(PerRank) * (*Kind == ir::CollectiveKind::AllToAll ? R * R : R);
  if (NumChunks > MaxChunks) {
    Diags.report(
        DiagId::OutOfRange, Coll.getRange(),
        fmt::format("the number of chunks of {} on {} ranks", Coll.Name, R),
        fmt::format("at most {}", MaxChunks), NumChunks);
    return false;
  }
  Out.Coll = ir::Collective::make(*Kind, Out.Topo.getNumRanks(), PerRank, Root);
  Out.CollectiveLoc = Coll.getRange();
  return true;
}

/// The protocol the sketch's largest size runs under: the last of a
/// `protocol` list, or Simple (the default, and what `auto` picks for large
/// calls). A misspelt name is reported by checkProtocol().
tacclrt::Protocol largestSizeProtocol(const std::vector<const Node *> &Items) {
  const auto *P = findItem<ProtocolItem>(Items);
  if (!P)
    return tacclrt::Protocol::Simple;
  return tacclrt::parseProtocol(P->Choices.back().Name)
      .value_or(tacclrt::Protocol::Simple);
}

/// `chunks auto`: the fewest chunks per part, a power of two up to
/// MaxChunksPerRank, that make a chunk of the largest size at most one
/// slice of its protocol. The runtime moves a call slice by slice, each
/// slice a pass over every threadblock's steps, so a chunk of several
/// slices waits for the previous slice's last step on every connection,
/// and sends through one NIC can be paced only within a slice. A single
/// size must still split into whole-byte chunks, and the collective must
/// keep to MaxChunks.
unsigned autoChunks(const std::vector<const Node *> &Items,
                    const ir::Sketch &Out) {
  const uint64_t Parts = Out.Coll.getSizeParts();
  const uint64_t Largest = std::max(Out.SizeBytes, Out.MaxBytes);
  const uint64_t Slice =
      tacclrt::protocolSliceBytes(largestSizeProtocol(Items));
  unsigned K = 1;
  while (K < MaxChunksPerRank && Largest > Parts * K * Slice &&
         uint64_t(Out.Coll.getNumChunks()) * K * 2 <= MaxChunks &&
         (Out.MaxBytes || Out.SizeBytes % (Parts * K * 2) == 0))
    K *= 2;
  return K;
}

/// `contiguous CLASS, ...`.
bool checkContiguous(const LinksItem &Item, ir::Sketch &Out,
                     llvm::StringRef MachineName, DiagnosticEngine &Diags) {
  auto Classes = Out.Topo.classes();
  Out.ContiguousClasses.assign(Classes.size(), false);
  bool Ok = true;
  for (const auto &Name : Item.Classes) {
    size_t C = 0;
    while (C < Classes.size() && Classes[C].Name != Name.Text)
      ++C;
    if (C == Classes.size()) {
      Diags.report(DiagId::UnknownClass, Name.Range, MachineName.str(),
                   Name.Text);
      Ok = false;
      continue;
    }
    Out.ContiguousClasses[C] = true;
  }
  return Ok;
}
} // namespace

bool tacclc::checkSketchItems(const std::vector<const Node *> &Items,
                              llvm::SMRange Loc, llvm::StringRef Name,
                              llvm::StringRef MachineName,
                              const RelayRules &Rules, ir::Sketch &Out,
                              DiagnosticEngine &Diags) {
  const auto *Coll = findItem<CollectiveItem>(Items);
  if (!Coll) {
    Diags.report(DiagId::MissingItem, Loc, "sketch", Name.str(), "collective");
    return false;
  }
  unsigned PerRank = 1;
  bool ChunksOk = true, AutoChunks = false;
  const auto *Chunks = findItem<ChunksItem>(Items);
  if (Chunks && !Chunks->Word.empty()) {
    AutoChunks = Chunks->Word == "auto";
    if (!AutoChunks) {
      Diags.report(DiagId::UnknownChunks, Chunks->WordRange, Chunks->Word);
      ChunksOk = false;
    }
  } else if (Chunks) {
    const IntLit &K = Chunks->Count;
    if (K.Overflow || K.Value < 1 || K.Value > MaxChunksPerRank) {
      Diags.report(DiagId::OutOfRange, K.Range, "chunks",
                   fmt::format("between 1 and {}", MaxChunksPerRank),
                   K.Spelling);
      ChunksOk = false;
    } else {
      PerRank = static_cast<unsigned>(K.Value);
    }
  }
  if (!checkCollective(*Coll, PerRank, MachineName, Out, Diags))
    return false;
  // With bad chunks, the size is still checked (for its own errors).
  if (!checkSize(findItem<SizeItem>(Items), Out.Coll.getSizeParts(), Out,
                 Diags) ||
      !ChunksOk)
    return false;
  // `chunks auto` is settled once the size is known (at one chunk per part
  // the checks above cover every count it can choose).
  if (AutoChunks) {
    PerRank = autoChunks(Items, Out);
    if (PerRank > 1 &&
        (!checkCollective(*Coll, PerRank, MachineName, Out, Diags) ||
         !checkSize(findItem<SizeItem>(Items), Out.Coll.getSizeParts(), Out,
                    Diags)))
      return false;
  }
  if (const auto *In = findItem<InstancesItem>(Items)) {
    const IntLit &K = In->Count;
    if (K.Overflow || K.Value < 1 || K.Value > MaxInstances) {
      Diags.report(DiagId::OutOfRange, K.Range, "instances",
                   fmt::format("between 1 and {}", MaxInstances), K.Spelling);
      return false;
    }
    Out.Instances = unsigned(K.Value);
  }
  if (const Node *C = findKind(Items, Node::K_ContiguousItem))
    if (!checkContiguous(*llvm::cast<LinksItem>(C), Out, MachineName, Diags))
      return false;
  Out.IdenticalResults = findKind(Items, Node::K_IdenticalItem) != nullptr;
  if (const Node *F = findKind(Items, Node::K_SenderFirstItem)) {
    if (Out.Carries.empty()) {
      Diags.report(DiagId::SenderFirstNeedsSenders, F->getRange());
      return false;
    }
    Out.SenderFirst = true;
  }
  // Chunks that must leave their node need a sender that carries them.
  if (!Out.Carries.empty()) {
    const unsigned G = Out.Topo.getGpusPerNode();
    for (const ir::Chunk &C : Out.Coll.chunks()) {
      unsigned Src = C.Source.index() % G;
      bool Leaves = false;
      for (ir::RankId R : C.Post)
        Leaves |= Out.Topo.nodeOf(R) != Out.Topo.nodeOf(C.Source);
      bool Carried = false;
      for (unsigned S = 0; S < G; ++S)
        Carried |= Out.Carries[S][Src];
      if (Leaves && !Carried) {
        Diags.report(DiagId::NotCarried, Rules.FirstSender->getRange(), Src);
        return false;
      }
    }
  }
  Out.Topo.applyCostsAt(Out.chunkBytes());
  return true;
}

bool tacclc::applyPolicies(const std::vector<const PolicyItem *> &Items,
                           ir::Topology &T, llvm::StringRef MachineName,
                           DiagnosticEngine &Diags) {
  std::vector<const PolicyItem *> Given(T.switches().size(), nullptr);
  bool Ok = true;
  for (const PolicyItem *P : Items) {
    size_t Sw = 0;
    while (Sw < T.switches().size() && T.switches()[Sw].Name != P->Switch)
      ++Sw;
    if (Sw == T.switches().size()) {
      std::vector<llvm::StringRef> Names;
      for (const ir::Switch &S : T.switches())
        Names.push_back(S.Name);
      std::string Close = closestName(P->Switch, Names);
      if (Close.empty())
        Diags.report(DiagId::UnknownSwitch, P->SwitchRange, MachineName.str(),
                     P->Switch);
      else
        Diags.fixIt(Diags.report(DiagId::UnknownSwitchSuggest, P->SwitchRange,
                                 MachineName.str(), P->Switch, Close),
                    P->SwitchRange, Close);
      Ok = false;
      continue;
    }
    ir::SwitchPolicy Policy;
    if (P->Value == "uc-min")
      Policy = ir::SwitchPolicy::UcMin;
    else if (P->Value == "uc-max")
      Policy = ir::SwitchPolicy::UcMax;
    else if (P->Value == "free")
      Policy = ir::SwitchPolicy::Free;
    else {
      Diags.report(DiagId::UnknownPolicy, P->ValueRange, P->Value);
      Ok = false;
      continue;
    }
    // Items come most derived first: a base sketch's policy for the same
    // switch is overridden (Sema rejected repeats within one sketch).
    if (Given[Sw])
      continue;
    Given[Sw] = P;
    T.switchAt(Sw).Policy = Policy;
  }
  return Ok;
}
