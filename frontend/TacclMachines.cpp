//===- frontend/TacclMachines.cpp - TACCL topologies as machines ----------===//
//
// The table of machines an import can name, the guess of a machine from a
// file or profile name, and a topology profile read into a copy of the
// standard library's machine. TACCL's profile format (its INPUT_GUIDE.md
// and taccl/topologies/generic.py, MIT licensed): `alpha` and
// `node_betas_list` are the intra-node link kinds' costs, `remote_alpha`
// and `remote_beta` the NIC's; every beta was multiplied by the data size
// the profile is for, every cost may have been scaled so that TACCL's
// integer rounding keeps them apart, and `node_invbws_list` and
// `remote_invbw` repeat alpha + beta. TACCL fixes the GPU and NIC counts of
// its DGX2 and NDv2 nodes whatever the profile says, as the machines here
// do.
//
//===----------------------------------------------------------------------===//
#include "frontend/TacclMachines.h"

#include "frontend/Frontend.h"
#include "frontend/Keywords.h"
#include "support/InputFile.h"
#include "support/Sizes.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <cmath>

using namespace tacclc;
namespace json = llvm::json;

namespace {

constexpr const char *Nvswitch[] = {"nvswitch"};
constexpr const char *Nvlinks[] = {"nvlink2", "nvlink1"};
constexpr const char *Nvlink[] = {"nvlink"};

const TacclMachine Machines[] = {
    {"dgx2", "topologies/dgx2", 16, 8, Nvswitch, "ib", "nvs"},
    {"ndv2", "topologies/ndv2", 8, 1, Nvlinks, "ib", nullptr},
    {"dgx1", "topologies/dgx1", 8, 4, Nvlink, "ib", nullptr},
    {"a100", "topologies/a100", 8, 8, Nvswitch, "ib", "nvs"},
    {"h100", "topologies/h100", 8, 8, Nvswitch, "ib", "nvs"},
};

/// The words of a name: runs of letters and digits.
std::vector<std::string> wordsOf(llvm::StringRef Name) {
  std::vector<std::string> Words(1);
  for (char C : Name) {
    if (llvm::isAlnum(C))
      Words.back() += llvm::toLower(C);
    else if (!Words.back().empty())
      Words.emplace_back();
  }
  if (Words.back().empty())
    Words.pop_back();
  return Words;
}

/// The size a word of a profile's name gives (`1MB`, `32KB`), if any.
std::optional<uint64_t> sizeInName(llvm::StringRef Name) {
  for (const std::string &W : wordsOf(Name)) {
    llvm::StringRef Word(W);
    if (!Word.endswith("b") || !llvm::isDigit(Word.front()))
      continue;
    if (std::optional<uint64_t> Bytes = parseByteSize(Word.upper()))
      return Bytes;
  }
  return std::nullopt;
}

/// The class statement of \p Name with alpha \p AlphaUs and beta
/// \p BetaUsPerMB.
std::string classText(llvm::StringRef Name, double AlphaUs,
                      double BetaUsPerMB) {
  return fmt::format("class {} {{ alpha = {} us; beta = {} us/MB }}",
                     Name.str(), decimalNumber(AlphaUs),
                     decimalNumber(BetaUsPerMB));
}

/// One link kind of a profile: where its costs are and what they are.
struct ProfileCost {
  const char *Class;
  double Alpha;
  double Beta;
  double Invbw;
  JsonPath InvbwPath;
};

/// Warns when a profile's alpha + beta (\p Invbw) disagrees with its
/// alpha and beta by more than TACCL's truncation to integers.
void checkInvbw(JsonReader &R, const ProfileCost &C) {
  if (std::fabs(C.Invbw - (C.Alpha + C.Beta)) < 1)
    return;
  R.warning(C.InvbwPath,
            fmt::format("{} is not alpha + beta = {}; the costs come from "
                        "alpha and beta",
                        decimalNumber(C.Invbw),
                        decimalNumber(C.Alpha + C.Beta)));
}

/// The numbers of the list \p Key of profile \p O, one per intra-node
/// class of \p M; nothing after errors.
std::optional<std::vector<double>> nodeList(const TacclMachine &M,
                                            JsonReader &R,
                                            const json::Object &O,
                                            llvm::StringRef Key) {
  JsonPath Path = JsonPath().field(Key);
  const json::Value *V = R.required(O, JsonPath(), Key);
  const json::Array *A = V ? R.array(*V, Path) : nullptr;
  if (!A)
    return std::nullopt;
  if (A->size() != M.NodeClasses.size()) {
    R.error(Path, fmt::format("machine {} has {} intra-node link class(es) "
                              "({}), so this list needs {} value(s), not {}",
                              M.Name, M.NodeClasses.size(),
                              llvm::join(std::vector<llvm::StringRef>(
                                             M.NodeClasses.begin(),
                                             M.NodeClasses.end()),
                                         ", "),
                              M.NodeClasses.size(), A->size()));
    return std::nullopt;
  }
  std::vector<double> Values;
  for (size_t I = 0; I < A->size(); ++I)
    if (std::optional<double> D = R.number((*A)[I], Path.index(I), 0, true))
      Values.push_back(*D);
  if (Values.size() != A->size())
    return std::nullopt;
  return Values;
}

/// Reads the costs of profile \p O, one per link class of \p M (the NIC's
/// last); nothing after errors.
std::optional<std::vector<ProfileCost>>
readCosts(const TacclMachine &M, JsonReader &R, const json::Object &O) {
  JsonPath Root;
  auto Num = [&](llvm::StringRef Key, bool Positive) -> std::optional<double> {
    const json::Value *V = R.required(O, Root, Key);
    return V ? R.number(*V, Root.field(Key), 0, Positive) : std::nullopt;
  };
  std::optional<double> Alpha = Num("alpha", false);
  std::optional<std::vector<double>> Betas =
      nodeList(M, R, O, "node_betas_list");
  std::optional<std::vector<double>> Invbws =
      nodeList(M, R, O, "node_invbws_list");
  std::optional<double> RemoteAlpha = Num("remote_alpha", false);
  std::optional<double> RemoteBeta = Num("remote_beta", true);
  std::optional<double> RemoteInvbw = Num("remote_invbw", true);
  if (!Alpha || !Betas || !Invbws || !RemoteAlpha || !RemoteBeta ||
      !RemoteInvbw)
    return std::nullopt;
  std::vector<ProfileCost> Costs;
  for (size_t I = 0; I < Betas->size(); ++I)
    Costs.push_back({M.NodeClasses[I], *Alpha, (*Betas)[I], (*Invbws)[I],
                     Root.field("node_invbws_list").index(I)});
  Costs.push_back({M.NicClass, *RemoteAlpha, *RemoteBeta, *RemoteInvbw,
                   Root.field("remote_invbw")});
  return Costs;
}

/// Warns about the profile's counts that differ from the machine's: TACCL
/// itself overrides them for its DGX2 and NDv2 nodes.
void checkCounts(const TacclMachine &M, JsonReader &R, const json::Object &O) {
  JsonPath Root;
  if (const json::Value *V = R.required(O, Root, "gpus_per_node"))
    if (std::optional<int64_t> G =
            R.integer(*V, Root.field("gpus_per_node"), 1, 1 << 20);
        G && *G != M.Gpus)
      R.warning(Root.field("gpus_per_node"),
                fmt::format("machine {} has {} GPUs per node; the profile's "
                            "count is not used",
                            M.Name, M.Gpus));
  if (const json::Value *V = O.get("nics_per_node"))
    if (std::optional<int64_t> N =
            R.integer(*V, Root.field("nics_per_node"), 0, 1 << 20);
        N && *N != M.Nics)
      R.warning(Root.field("nics_per_node"),
                fmt::format("machine {} has {} NIC(s) per node; the "
                            "profile's count is not used",
                            M.Name, M.Nics));
  for (llvm::StringRef Key : {"links", "betas", "invbws"})
    if (O.get(Key))
      R.warning(Root.field(Key),
                fmt::format("ignored: the links of machine {} are fixed "
                            "(TACCL reads this key for its custom topology "
                            "only)",
                            M.Name));
  R.warnUnknownKeys(O, Root,
                    {"name", "gpus_per_node", "nics_per_node", "alpha",
                     "node_betas_list", "node_invbws_list", "remote_alpha",
                     "remote_beta", "remote_invbw", "links", "betas",
                     "invbws"});
}

/// The standard library's declaration of \p M, renamed \p NewName, with
/// the class statements named in \p Classes replaced by their texts.
std::optional<std::string> stdlibDeclaration(
    const TacclMachine &M, llvm::StringRef StdlibDir, llvm::StringRef NewName,
    const std::vector<std::pair<std::string, std::string>> &Classes,
    DiagnosticEngine &Diags) {
  llvm::SmallString<256> Path(StdlibDir);
  llvm::sys::path::append(Path, std::string(M.Module) + ".sketch");
  std::string Why;
  std::unique_ptr<llvm::MemoryBuffer> Buf = readSourceFile(Path, Why);
  if (!Buf) {
    Diags.report(DiagId::CannotOpenFile, llvm::SMLoc(), Path.str(), Why);
    return std::nullopt;
  }
  llvm::SourceMgr &SM = Diags.getSourceMgr();
  unsigned Id = SM.AddNewSourceBuffer(std::move(Buf), llvm::SMLoc());
  std::unique_ptr<ast::Module> Mod = parseSketch(SM, Id, Diags);
  const ast::MachineDecl *Decl = nullptr;
  for (size_t I = 0; Mod && I < Mod->Decls.size(); ++I)
    if (const auto *Md = llvm::dyn_cast<ast::MachineDecl>(Mod->Decls[I].get());
        Md && Md->Name == M.Name)
      Decl = Md;
  if (!Decl) {
    Diags.report(DiagId::TacclStdlibMachine, llvm::SMLoc(), M.Name, Path.str());
    return std::nullopt;
  }
  // Replacements as (start, end, text), applied from the last.
  std::vector<std::tuple<const char *, const char *, std::string>> Edits;
  auto Edit = [&](llvm::SMRange R, std::string Text) {
    Edits.emplace_back(R.Start.getPointer(), R.End.getPointer(),
                       std::move(Text));
  };
  Edit(Decl->NameRange, NewName.str());
  for (const auto &Item : Decl->Items)
    if (const auto *C = llvm::dyn_cast<ast::ClassStmt>(Item.get()))
      for (const auto &[Name, Text] : Classes)
        if (C->Name == Name)
          Edit(C->getRange(), Text);
  if (Edits.size() != Classes.size() + 1) {
    Diags.report(DiagId::TacclStdlibMachine, llvm::SMLoc(), M.Name, Path.str());
    return std::nullopt;
  }
  std::sort(Edits.begin(), Edits.end(), [](const auto &A, const auto &B) {
    return std::get<0>(A) > std::get<0>(B);
  });
  const char *Start = Decl->getRange().Start.getPointer();
  std::string Text(Start, Decl->getRange().End.getPointer());
  for (const auto &[From, To, Replacement] : Edits)
    Text.replace(From - Start, To - From, Replacement);
  return Text;
}

} // namespace

llvm::ArrayRef<TacclMachine> tacclc::tacclMachines() { return Machines; }

const TacclMachine *tacclc::findTacclMachine(llvm::StringRef Name) {
  for (const TacclMachine &M : Machines)
    if (Name.equals_insensitive(M.Name))
      return &M;
  return nullptr;
}

const TacclMachine *tacclc::machineInName(llvm::StringRef Name) {
  const TacclMachine *Found = nullptr;
  for (const std::string &Word : wordsOf(Name))
    if (const TacclMachine *M = findTacclMachine(Word)) {
      if (Found && Found != M)
        return nullptr;
      Found = M;
    }
  return Found;
}

std::string tacclc::tacclMachineNames() {
  std::vector<llvm::StringRef> Names;
  for (const TacclMachine &M : Machines)
    Names.push_back(M.Name);
  return llvm::join(Names, ", ");
}

std::optional<ProfileMachine> tacclc::profileMachine(const TacclMachine &M,
                                                     JsonReader &R,
                                                     const ProfileUnits &Units,
                                                     llvm::StringRef StdlibDir,
                                                     DiagnosticEngine &Diags) {
  JsonPath Root;
  const json::Object *O = R.object(R.document().root(), Root);
  if (!O)
    return std::nullopt;
  const json::Value *NameV = R.required(*O, Root, "name");
  std::optional<std::string> Name =
      NameV ? R.string(*NameV, Root.field("name")) : std::nullopt;
  checkCounts(M, R, *O);
  std::optional<std::vector<ProfileCost>> Costs = readCosts(M, R, *O);
  if (!Name || !Costs)
    return std::nullopt;
  ProfileMachine P;
  P.Name = sketchIdentifier(*Name);
  std::string SizeFrom = "--profile-size";
  if (Units.Bytes) {
    P.Bytes = *Units.Bytes;
  } else if (std::optional<uint64_t> B = sizeInName(*Name)) {
    P.Bytes = *B;
    SizeFrom = "the profile's name";
  } else {
    R.error(Root.field("name"),
            "the name gives no data size (such as 1MB), so it is unknown "
            "what size the betas were multiplied by; give --profile-size");
    return std::nullopt;
  }
  std::vector<std::pair<std::string, std::string>> Classes;
  for (const ProfileCost &C : *Costs) {
    checkInvbw(R, C);
    Classes.emplace_back(C.Class,
                         classText(C.Class, C.Alpha / Units.Scale,
                                   C.Beta / Units.Scale / (P.Bytes / 1e6)));
  }
  std::optional<std::string> Decl =
      stdlibDeclaration(M, StdlibDir, P.Name, Classes, Diags);
  if (!Decl)
    return std::nullopt;
  P.Definition = *Decl;
  // \x1f: a space the header comment's lines are not broken at.
  std::string Size = formatByteSize(P.Bytes);
  std::replace(Size.begin(), Size.end(), ' ', '\x1f');
  P.Notes.push_back(fmt::format(
      "Machine: the standard library's {} (\"{}\") with the costs of "
      "profile '{}', its betas for {} (from {}), {}; its invbws (alpha + "
      "beta) are not used.",
      M.Name, M.Module, *Name, Size, SizeFrom,
      Units.Scale == 1
          ? std::string("its costs in microseconds")
          : fmt::format("its costs divided by {} (--profile-scale)",
                        decimalNumber(Units.Scale))));
  return P;
}

std::string tacclc::sketchIdentifier(llvm::StringRef Text) {
  std::string S;
  for (char C : Text)
    S += llvm::isAlnum(C) || C == '_' ? C : '_';
  if (S.empty() || llvm::isDigit(S.front()))
    S.insert(S.begin(), '_');
  if (isSketchKeyword(S))
    S += '_';
  return S;
}
