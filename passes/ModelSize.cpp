//===- passes/ModelSize.cpp - A MILP's size before it is built ------------===//
//
// Bytes per entry, fitted to peak memory measured with bench/limits on
// models of 3*10^4 to 10^6 variables and up to 6*10^6 nonzeros (ring
// allgathers, DGX-H100 alltoalls):
//  * solver::Model: a variable is its record, its name and the name index,
//    a row its record, name, terms vector and name-set entry (about 160
//    bytes each); a nonzero is one Term (16 bytes);
//  * the solver child: CBC's CoinModel (names and a linked triple per
//    nonzero), CLP's column and row copies, the clone CbcMain1 searches,
//    the preprocessed copy and the LP factorisation; measured 1.3-1.5 KB
//    per row or column on ring models that CBC solves to optimality, less
//    on denser ones. The search tree comes on top and is not estimated:
//    the child's own memory limit (solver/Subprocess.h) catches it, and
//    the stage then keeps its warm start.
//
//===----------------------------------------------------------------------===//
#include "passes/ModelSize.h"

#include <fmt/format.h>

using namespace tacclc;

namespace {
constexpr uint64_t ModelBytesPerVariable = 170, ModelBytesPerRow = 170,
                   ModelBytesPerNonzero = 16;
constexpr uint64_t SolverBytesPerVariable = 1000, SolverBytesPerRow = 1000,
                   SolverBytesPerNonzero = 100;
} // namespace

std::string ModelSize::buildingPhase() const {
  return fmt::format("building the model ({} variables, {} rows, {} "
                     "nonzeros)",
                     Variables, Rows, Nonzeros);
}

uint64_t ModelSize::modelBytes() const {
  return Variables * ModelBytesPerVariable + Rows * ModelBytesPerRow +
         Nonzeros * ModelBytesPerNonzero;
}

uint64_t ModelSize::solverBytes() const {
  return Variables * SolverBytesPerVariable + Rows * SolverBytesPerRow +
         Nonzeros * SolverBytesPerNonzero;
}

bool tacclc::fitsMemory(const ModelSize &Size, const MemoryBudget &Budget,
                        DiagId Id, llvm::StringRef Stage,
                        llvm::StringRef Advice, llvm::SMRange Loc,
                        DiagnosticEngine &Diags) {
  uint64_t Left = Budget.available();
  if (Size.totalBytes() <= Left)
    return true;
  Diags.report(Id, Loc, Stage.str(), formatBytes(Size.totalBytes()),
               Size.Variables, Size.Rows, Size.Nonzeros, formatBytes(Left),
               formatBytes(Budget.Bytes), Budget.Source, Advice.str());
  return false;
}

std::string tacclc::shrinkAdvice(const ir::Sketch &S, bool Symmetric,
                                 const MemoryBudget &Budget) {
  std::vector<std::string> Ways;
  if (!Symmetric)
    Ways.push_back(S.Topo.getNumNodes() > 1
                       ? "add a symmetry ('symmetry rotate nodes by 1')"
                       : "add a symmetry ('symmetry rotate gpus by 1')");
  if (S.Coll.getChunksPerRank() > 1)
    Ways.push_back("use fewer chunks");
  if (S.Topo.getNumNodes() > 1 && S.Carries.empty())
    Ways.push_back("limit what crosses between nodes ('sender G carries "
                   "[...]')");
  llvm::StringRef Source = Budget.Source;
  Ways.push_back(Source.contains("ulimit -v")   ? "raise ulimit -v"
                 : Source.contains("ulimit -d") ? "raise ulimit -d"
                                                : "raise --max-memory if the "
                                                  "machine has the memory");
  std::string Out;
  for (size_t I = 0; I < Ways.size(); ++I)
    Out += (I == 0 ? "" : I + 1 == Ways.size() ? ", or " : ", ") + Ways[I];
  return Out;
}
