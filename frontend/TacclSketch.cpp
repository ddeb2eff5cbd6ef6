//===- frontend/TacclSketch.cpp - TACCL's sketch keys as sketch items -----===//
//
// readTacclSketch() reads TACCL's sketch keys as TACCL's own parser does
// (taccl/cli/common.py::parse_and_get_topo, MIT licensed): `nnodes`,
// `intranode_sketch`, `internode_sketch` (required with several nodes),
// `symmetry_offsets` and `hyperparameters.input_chunkup` are required;
// `gpus_to_sender_rev_map` and `enforce_ordering` are optional. Each becomes
// a sketch item (docs/import-taccl.md has the table), in a fixed order and
// with maps sorted by GPU, so that the same file gives the same items.
//
//===----------------------------------------------------------------------===//
#include "frontend/TacclSketch.h"

#include "llvm/ADT/StringExtras.h"

#include <map>

using namespace tacclc;
namespace json = llvm::json;

namespace {

/// `[0, 1, 2]`.
std::string gpuList(llvm::ArrayRef<int64_t> Gpus) {
  std::vector<std::string> S;
  for (int64_t G : Gpus)
    S.push_back(std::to_string(G));
  return "[" + llvm::join(S, ", ") + "]";
}

/// Reads TACCL's sketch keys into sketch items.
class SketchReader {
public:
  SketchReader(JsonReader &R, const TacclMachine &M, TacclSketch &S)
      : R(R), M(M), Nodes(S.Nodes), Chunks(S.Chunks), Items(S.Items) {}

  /// Reads the whole sketch; false when it cannot go on.
  bool read();

private:
  void intranode(const json::Object &Root);
  void switches(const json::Object &Intra, const JsonPath &Path);
  void internode(const json::Object &Root);
  /// Adds the relay item; the links it gives each local GPU, or nothing
  /// after errors.
  std::optional<std::map<int64_t, std::vector<int64_t>>>
  relays(const json::Value &Conn, const JsonPath &Path);
  /// Adds the sender items; each sender must have links (when known).
  void senders(const json::Value &Map, const JsonPath &Path,
               const std::map<int64_t, std::vector<int64_t>> *Links);
  void symmetry(const json::Object &Root);
  std::optional<std::map<int64_t, std::vector<int64_t>>>
  gpuMap(const json::Value &V, const JsonPath &Path);
  std::optional<std::vector<int64_t>> gpus(const json::Value &V,
                                           const JsonPath &Path);
  const json::Value *get(const json::Object &O, const JsonPath &Path,
                         llvm::StringRef Key) {
    return R.required(O, Path, Key);
  }
  int64_t ranks() const { return Nodes * M.Gpus; }

  JsonReader &R;
  const TacclMachine &M;
  int64_t &Nodes;
  int64_t &Chunks;
  std::vector<std::string> &Items;
};

bool SketchReader::read() {
  JsonPath Root;
  const json::Object *O = R.object(R.document().root(), Root);
  if (!O)
    return false;
  R.warnUnknownKeys(*O, Root,
                    {"nnodes", "intranode_sketch", "internode_sketch",
                     "symmetry_offsets", "hyperparameters"});
  const json::Value *N = get(*O, Root, "nnodes");
  std::optional<int64_t> Count =
      N ? R.integer(*N, Root.field("nnodes"), 1, 1024 / M.Gpus) : std::nullopt;
  if (!Count)
    return false;
  Nodes = *Count;
  intranode(*O);
  internode(*O);
  symmetry(*O);
  JsonPath Hyper = Root.field("hyperparameters");
  if (const json::Value *H = get(*O, Root, "hyperparameters"))
    if (const json::Object *HO = R.object(*H, Hyper)) {
      R.warnUnknownKeys(*HO, Hyper, {"input_chunkup"});
      if (const json::Value *C = get(*HO, Hyper, "input_chunkup"))
        Chunks =
            R.integer(*C, Hyper.field("input_chunkup"), 1, 64).value_or(Chunks);
    }
  return true;
}

void SketchReader::intranode(const json::Object &Root) {
  JsonPath Path = JsonPath().field("intranode_sketch");
  const json::Value *V = get(Root, JsonPath(), "intranode_sketch");
  const json::Object *O = V ? R.object(*V, Path) : nullptr;
  if (!O)
    return;
  R.warnUnknownKeys(*O, Path,
                    {"strategy", "switches", "switch_hyperedge_strategy"});
  const json::Value *S = get(*O, Path, "strategy");
  std::optional<std::string> Strategy =
      S ? R.string(*S, Path.field("strategy")) : std::nullopt;
  if (!Strategy)
    return;
  if (*Strategy == "switch")
    return switches(*O, Path);
  if (*Strategy != "none" && *Strategy != "maxmin" && *Strategy != "minmax")
    return R.error(Path.field("strategy"),
                   fmt::format("expected \"switch\", \"none\", \"maxmin\" or "
                               "\"minmax\", not \"{}\"",
                               *Strategy));
  if (*Strategy != "none")
    R.warning(Path.field("strategy"),
              fmt::format("\"{}\" has no equivalent and is ignored: it only "
                          "changes TACCL's routing objective; tacclc "
                          "minimises the time",
                          *Strategy));
  for (llvm::StringRef Key : {"switches", "switch_hyperedge_strategy"})
    if (O->get(Key))
      R.warning(Path.field(Key), "ignored: the strategy is not \"switch\"");
  if (M.Switch)
    R.warning(Path.field("strategy"),
              fmt::format("machine {} joins its GPUs by switch {}, which the "
                          "sketch keeps (with no policy); TACCL would route "
                          "over point-to-point links",
                          M.Name, M.Switch));
}

void SketchReader::switches(const json::Object &Intra, const JsonPath &Path) {
  JsonPath SwPath = Path.field("switches");
  JsonPath PolPath = Path.field("switch_hyperedge_strategy");
  const json::Value *Sw = get(Intra, Path, "switches");
  const json::Value *Pol = get(Intra, Path, "switch_hyperedge_strategy");
  const json::Array *Groups = Sw ? R.array(*Sw, SwPath) : nullptr;
  const json::Array *Policies = Pol ? R.array(*Pol, PolPath) : nullptr;
  if (!Groups || !Policies)
    return;
  if (!M.Switch)
    return R.error(SwPath, fmt::format("machine {} has no switch; use "
                                       "strategy \"none\"",
                                       M.Name));
  if (Groups->size() != 1)
    return R.error(SwPath,
                   fmt::format("machine {} has one switch, {}, joining all "
                               "{} GPUs of a node; expected that one group, "
                               "not {}",
                               M.Name, M.Switch, M.Gpus, Groups->size()));
  if (Policies->size() != Groups->size())
    return R.error(PolPath, fmt::format("expected one strategy per switch "
                                        "group ({}), not {}",
                                        Groups->size(), Policies->size()));
  std::optional<std::vector<int64_t>> Members =
      gpus((*Groups)[0], SwPath.index(0));
  if (!Members)
    return;
  if (Members->size() != M.Gpus)
    return R.error(SwPath.index(0),
                   fmt::format("switch {} of machine {} joins all {} GPUs of "
                               "a node; a switch of {} GPUs has no "
                               "equivalent",
                               M.Switch, M.Name, M.Gpus, Members->size()));
  std::optional<std::string> Policy =
      R.string((*Policies)[0], PolPath.index(0));
  if (!Policy)
    return;
  if (*Policy != "uc-min" && *Policy != "uc-max" && *Policy != "free") {
    R.warning(PolPath.index(0),
              fmt::format("\"{}\" is read as \"free\": TACCL sets no "
                          "objective for it; tacclc's free minimises the time",
                          *Policy));
    *Policy = "free";
  }
  Items.push_back(fmt::format("policy {} {}", M.Switch, *Policy));
}

void SketchReader::internode(const json::Object &Root) {
  JsonPath Path = JsonPath().field("internode_sketch");
  if (Nodes == 1) {
    if (Root.get("internode_sketch"))
      R.warning(Path, "ignored: the sketch has a single node");
    return;
  }
  const json::Value *V = get(Root, JsonPath(), "internode_sketch");
  const json::Object *O = V ? R.object(*V, Path) : nullptr;
  if (!O)
    return;
  R.warnUnknownKeys(*O, Path,
                    {"strategy", "internode_conn", "gpus_to_sender_rev_map",
                     "enforce_ordering"});
  if (const json::Value *S = get(*O, Path, "strategy"))
    if (std::optional<std::string> Strategy =
            R.string(*S, Path.field("strategy"));
        Strategy && *Strategy != "relay")
      R.error(Path.field("strategy"),
              "expected \"relay\", not \"" + *Strategy + "\"");
  // The senders are checked against the links only when these were read.
  std::optional<std::map<int64_t, std::vector<int64_t>>> Links;
  if (const json::Value *Conn = get(*O, Path, "internode_conn"))
    Links = relays(*Conn, Path.field("internode_conn"));
  const json::Value *Map = O->get("gpus_to_sender_rev_map");
  if (Map)
    senders(*Map, Path.field("gpus_to_sender_rev_map"),
            Links ? &*Links : nullptr);
  JsonPath OrderPath = Path.field("enforce_ordering");
  if (const json::Value *Order = O->get("enforce_ordering"))
    if (R.boolean(*Order, OrderPath).value_or(false)) {
      if (Map)
        Items.push_back("sender first");
      else
        R.warning(OrderPath, "ignored: it orders the chunks of each sender's "
                             "gpus_to_sender_rev_map, and there is none");
    }
}

std::optional<std::map<int64_t, std::vector<int64_t>>>
SketchReader::relays(const json::Value &Conn, const JsonPath &Path) {
  if (llvm::Optional<llvm::StringRef> Name = Conn.getAsString()) {
    if (*Name != "direct-map" && *Name != "fully-connected") {
      R.error(Path, fmt::format("expected \"direct-map\", \"fully-connected\" "
                                "or a map of GPUs, not \"{}\"",
                                Name->str()));
      return std::nullopt;
    }
    Items.push_back(*Name == "direct-map" ? "relay direct" : "relay all");
    std::map<int64_t, std::vector<int64_t>> Links;
    for (int64_t G = 0; G < M.Gpus; ++G)
      Links[G].push_back(G); // only whether a GPU has links matters
    return Links;
  }
  std::optional<std::map<int64_t, std::vector<int64_t>>> Map =
      gpuMap(Conn, Path);
  if (!Map)
    return std::nullopt;
  std::vector<std::string> Pairs;
  size_t Width = Map->empty() ? 0 : Map->begin()->second.size();
  for (const auto &[Src, Dsts] : *Map) {
    for (int64_t Dst : Dsts)
      Pairs.push_back(fmt::format("{} -> {}", Src, Dst));
    if (Dsts.size() != Width)
      R.warning(Path.field(std::to_string(Src)),
                "TACCL requires every sender to have as many destinations; "
                "tacclc does not");
  }
  if (!Pairs.empty())
    Items.push_back("relay each " + llvm::join(Pairs, ", "));
  return Map;
}

void SketchReader::senders(
    const json::Value &Map, const JsonPath &Path,
    const std::map<int64_t, std::vector<int64_t>> *Links) {
  std::optional<std::map<int64_t, std::vector<int64_t>>> Carried =
      gpuMap(Map, Path);
  if (!Carried)
    return;
  auto HasLinks = [&](int64_t Gpu) {
    auto It = Links->find(Gpu);
    return It != Links->end() && !It->second.empty();
  };
  for (const auto &[Sender, Gpus] : *Carried) {
    if (Links && !HasLinks(Sender))
      R.error(Path.field(std::to_string(Sender)),
              fmt::format("GPU {} sends to no other node in internode_conn",
                          Sender));
    Items.push_back(fmt::format("sender {} carries {}", Sender, gpuList(Gpus)));
  }
}

void SketchReader::symmetry(const json::Object &Root) {
  JsonPath Path = JsonPath().field("symmetry_offsets");
  const json::Value *V = get(Root, JsonPath(), "symmetry_offsets");
  const json::Array *A = V ? R.array(*V, Path) : nullptr;
  if (!A)
    return;
  std::vector<std::string> Forms;
  for (size_t I = 0; I < A->size(); ++I) {
    JsonPath P = Path.index(I);
    const json::Array *Pair = R.array((*A)[I], P);
    if (!Pair)
      continue;
    if (Pair->size() != 2) {
      R.error(P, fmt::format("expected [offset, group size], not {} "
                             "number(s)",
                             Pair->size()));
      continue;
    }
    std::optional<int64_t> Size = R.integer((*Pair)[1], P.index(1), 1, ranks());
    std::optional<int64_t> Offset =
        R.integer((*Pair)[0], P.index(0), -ranks(), ranks());
    if (!Size || !Offset)
      continue;
    if (ranks() % *Size != 0) {
      R.error(P.index(1), fmt::format("the group size must divide the {} "
                                      "ranks; {} does not",
                                      ranks(), *Size));
      continue;
    }
    if (*Size == M.Gpus)
      Forms.push_back(fmt::format("rotate gpus by {}", *Offset));
    else if (*Size == ranks() && *Offset % M.Gpus == 0)
      Forms.push_back(fmt::format("rotate nodes by {}", *Offset / M.Gpus));
    else if (*Size == ranks())
      Forms.push_back(fmt::format("rotate ranks by {}", *Offset));
    else
      Forms.push_back(
          fmt::format("rotate ranks by {} within {}", *Offset, *Size));
  }
  if (!Forms.empty())
    Items.push_back("symmetry " + llvm::join(Forms, ", "));
}

std::optional<std::map<int64_t, std::vector<int64_t>>>
SketchReader::gpuMap(const json::Value &V, const JsonPath &Path) {
  const json::Object *O = R.object(V, Path);
  if (!O)
    return std::nullopt;
  std::map<int64_t, std::vector<int64_t>> Map;
  bool Ok = true;
  for (const auto &KV : *O) {
    llvm::StringRef Key = KV.first;
    JsonPath P = Path.field(Key);
    // A GPU number as written canonically ("1", not "01" or "+1"), so that
    // no two keys name one GPU.
    int64_t Gpu = -1;
    if (Key.size() > 9 || Key.getAsInteger(10, Gpu) || Gpu < 0 ||
        Gpu >= M.Gpus || Key != std::to_string(Gpu)) {
      R.error(
          P,
          fmt::format("the key is not a GPU of a node (0 to {})", M.Gpus - 1),
          /*AtKey=*/true);
      Ok = false;
      continue;
    }
    std::optional<std::vector<int64_t>> List = gpus(KV.second, P);
    Ok &= List.has_value();
    if (List)
      Map[Gpu] = *List;
  }
  if (!Ok)
    return std::nullopt;
  return Map;
}

std::optional<std::vector<int64_t>> SketchReader::gpus(const json::Value &V,
                                                       const JsonPath &Path) {
  const json::Array *A = R.array(V, Path);
  if (!A)
    return std::nullopt;
  std::vector<int64_t> List;
  for (size_t I = 0; I < A->size(); ++I) {
    std::optional<int64_t> G = R.integer((*A)[I], Path.index(I), 0, M.Gpus - 1);
    if (!G)
      return std::nullopt;
    if (llvm::is_contained(List, *G)) {
      R.error(Path.index(I), fmt::format("GPU {} is listed twice", *G));
      return std::nullopt;
    }
    List.push_back(*G);
  }
  return List;
}

} // namespace

std::optional<TacclSketch> tacclc::readTacclSketch(JsonReader &R,
                                                   const TacclMachine &M) {
  TacclSketch S;
  SketchReader Reader(R, M, S);
  if (!Reader.read())
    return std::nullopt;
  return S;
}
