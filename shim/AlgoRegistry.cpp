//===- shim/AlgoRegistry.cpp - Which algorithm serves a call --------------===//
//
// AlgoRegistry (AlgoRegistry.h): directory listing with the C++ library,
// loading with loadPlanFile in the executor's dialect (its bounded reading
// of regular files only; warnings are kept, errors make a failure whose
// reason is the first error), and the MSCCL executor's match rule.
//
//===----------------------------------------------------------------------===//
#include "shim/AlgoRegistry.h"

#include "format/Collective.h"
#include "format/Loader.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

using namespace tacclrt;
using namespace tacclrt::shim;

void AlgoRegistry::loadDirectory(const std::string &Dir) {
  namespace fs = std::filesystem;
  std::error_code Ec;
  fs::directory_iterator It(Dir, Ec);
  if (Ec) {
    Failures.push_back({Dir, "cannot read the directory: " + Ec.message()});
    return;
  }
  std::vector<std::string> Files;
  // Every entry named *.xml goes to the loader, which reads only regular
  // files of bounded size: a FIFO, a device or a directory by that name is
  // a failure with its reason, never read and never silently skipped.
  for (const fs::directory_entry &E : It)
    if (E.path().extension() == ".xml")
      Files.push_back(E.path().string());
  std::sort(Files.begin(), Files.end());
  for (const std::string &Path : Files) {
    LoadOptions LO;
    LO.D = Dialect::Executor;
    Report Rep;
    std::optional<Algo> A = loadPlanFile(Path, LO, Rep);
    if (!A || Rep.hasErrors()) {
      std::string Why = "does not load";
      for (const Issue &I : Rep)
        if (I.Sev == Issue::Error) {
          Why = format(I);
          break;
        }
      Failures.push_back({Path, Why});
      continue;
    }
    Algos.push_back({Path, std::move(*A)});
  }
}

void AlgoRegistry::finish() {
  std::stable_sort(
      Algos.begin(), Algos.end(),
      [](const LoadedAlgo &X, const LoadedAlgo &Y) { return X.Path < Y.Path; });
}

std::uint64_t AlgoRegistry::callBytes(const CallShape &C,
                                      std::uint64_t TypeSize) {
  return C.Count * sizeMultiplier(C.Coll, C.NRanks) * TypeSize;
}

const LoadedAlgo *AlgoRegistry::select(const CallShape &C) const {
  if (C.Count == 0 || !C.Type || (isReduction(C.Coll) && !C.Op))
    return nullptr;
  const std::uint64_t Total = C.Count * sizeMultiplier(C.Coll, C.NRanks);
  const std::uint64_t Bytes = callBytes(C, sizeOf(*C.Type));
  for (const LoadedAlgo &L : Algos) {
    const Algo &A = L.A;
    if (A.Coll != C.Coll || unsigned(A.NGpus) != C.NRanks ||
        !(C.InPlace ? A.InPlace : A.OutOfPlace) ||
        Total % std::uint64_t(std::max(A.NChunksPerLoop, 1)) != 0 ||
        Bytes < A.MinBytes || (A.MaxBytes != 0 && Bytes > A.MaxBytes))
      continue;
    if (isRooted(C.Coll) && std::max(A.Root, 0) != C.Root)
      continue;
    return &L;
  }
  return nullptr;
}
