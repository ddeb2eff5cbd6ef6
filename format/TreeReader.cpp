//===- format/TreeReader.cpp - pugixml tree to Plan -----------------------===//
//
// ElementReader reads the attributes of one element with precise locations;
// TreeReader walks <algo>, <gpu>, <tb> and <step> and fills the Plan
// structs, tagging each issue with the rank, threadblock and step it is in.
// Every element costs time linear in its attributes and children (duplicate
// attributes are found with a bit set and a hash set, not by comparing
// pairs), and input text quoted in a message is shortened by excerpt().
//
//===----------------------------------------------------------------------===//
#include "format/TreeReader.h"

#include "format/Poll.h"

#include <fmt/format.h>

#include <algorithm>
#include <cassert>
#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <initializer_list>
#include <string>
#include <unordered_set>
#include <utility>

namespace tacclrt {

namespace {

/// Element and parse state shared by the attribute readers.
struct LoadContext {
  const char *Base;
  const LineTable &Lines;
  IssueSink &Sink;
  const LoadOptions &Opts;
  bool AttrErrors = false;

  Where at(const char *Ptr, const Where &Ctx) const {
    Where W = Lines.at(static_cast<std::size_t>(Ptr - Base));
    W.Rank = Ctx.Rank;
    W.Tb = Ctx.Tb;
    W.Step = Ctx.Step;
    return W;
  }
  /// The position of the '<' that opens \p N.
  Where at(pugi::xml_node N, const Where &Ctx) const {
    std::size_t Off = static_cast<std::size_t>(N.name() - Base);
    Where W = Lines.at(Off == 0 ? 0 : Off - 1);
    W.Rank = Ctx.Rank;
    W.Tb = Ctx.Tb;
    W.Step = Ctx.Step;
    return W;
  }
  void attrError(const Where &W, IssueText Msg) {
    AttrErrors = true;
    Sink.report(W, std::move(Msg));
  }
};

/// Reads the attributes of one element with precise locations.
class ElementReader {
public:
  /// Reads the attributes of \p N, whose known attributes are \p Known
  /// (at most 32): reports duplicates and warns about unknown attributes,
  /// in one pass over them (linear in their number).
  ElementReader(LoadContext &C, pugi::xml_node N, Where Ctx,
                std::initializer_list<std::string_view> Known)
      : C(C), N(N), Ctx(Ctx) {
    assert(Known.size() <= 32 && "one bit per known attribute");
    std::uint32_t Seen = 0;
    std::unordered_set<std::string_view> Unknown;
    for (pugi::xml_attribute A = N.first_attribute(); A;
         A = A.next_attribute()) {
      std::string_view Name = A.name();
      auto It = std::find(Known.begin(), Known.end(), Name);
      bool Duplicate;
      if (It != Known.end()) {
        std::uint32_t Bit = std::uint32_t(1) << (It - Known.begin());
        Duplicate = (Seen & Bit) != 0;
        Seen |= Bit;
      } else {
        Duplicate = !Unknown.insert(Name).second;
        if (!Duplicate)
          C.Sink.report<MsgId::UnknownAttribute>(C.at(A.name(), Ctx),
                                                 excerpt(Name), N.name());
      }
      if (Duplicate)
        C.attrError(C.at(A.name(), Ctx), message<MsgId::DuplicateAttribute>(
                                             excerpt(Name), N.name()));
    }
  }

  /// Updates the rank/tb/step context (e.g. once the id is known).
  void setContext(const Where &W) { Ctx = W; }
  /// Location of the element itself.
  Where where() const { return C.at(N, Ctx); }

  /// The raw value of \p Name; reports a missing required attribute.
  std::optional<std::string_view> text(const char *Name, bool Required) {
    pugi::xml_attribute A = N.attribute(Name);
    if (!A) {
      if (Required)
        C.attrError(where(), message<MsgId::MissingAttribute>(Name, N.name()));
      return std::nullopt;
    }
    return std::string_view(A.value());
  }

  /// The value of \p Name parsed like strtol(value, &end, 0), with trailing
  /// characters and values outside [Min, Max] rejected.
  std::optional<long long> integer(const char *Name, bool Required,
                                   long long Min = INT_MIN,
                                   long long Max = INT_MAX) {
    pugi::xml_attribute A = N.attribute(Name);
    std::optional<std::string_view> V = text(Name, Required);
    if (!V)
      return std::nullopt;
    std::string S(*V);
    errno = 0;
    char *End = nullptr;
    long long R = std::strtoll(S.c_str(), &End, 0);
    std::string Why;
    if (End == S.c_str())
      Why = "is not an integer";
    else if (*End != '\0')
      Why = "has trailing characters after the integer";
    else if (errno == ERANGE || R < Min || R > Max)
      Why = "is out of range";
    if (!Why.empty()) {
      C.attrError(C.at(A.name(), Ctx),
                  message<MsgId::BadInteger>(Name, N.name(), Why, excerpt(S)));
      return std::nullopt;
    }
    return R;
  }

  /// An integer attribute that must be 0 or 1.
  std::optional<bool> flag(const char *Name, bool Required) {
    std::optional<long long> V = integer(Name, Required, LLONG_MIN, LLONG_MAX);
    if (!V)
      return std::nullopt;
    if (*V != 0 && *V != 1) {
      C.attrError(C.at(N.attribute(Name).name(), Ctx),
                  message<MsgId::BadFlag>(Name, N.name(), *V));
      return std::nullopt;
    }
    return *V == 1;
  }

  /// Reports an invalid value of attribute \p Name.
  void badValue(const char *Name, IssueText Msg) {
    pugi::xml_attribute A = N.attribute(Name);
    C.attrError(A ? C.at(A.name(), Ctx) : where(), std::move(Msg));
  }

private:
  LoadContext &C;
  pugi::xml_node N;
  Where Ctx;
};

/// The MSCCL lexer keeps at most this many children per element.
constexpr std::size_t MaxChildren = 1024;

/// Builds an Algo from the pugixml tree.
class TreeReader {
public:
  explicit TreeReader(LoadContext &C) : C(C) {}

  std::optional<Algo> read(const pugi::xml_document &Doc) {
    pugi::xml_node Root;
    for (pugi::xml_node N : Doc.children()) {
      if (N.type() != pugi::node_element)
        continue;
      if (std::string_view(N.name()) != "algo") {
        C.Sink.report<MsgId::UnexpectedTopLevel>(C.at(N, Where()),
                                                 excerpt(N.name()));
        continue;
      }
      if (Root) {
        C.Sink.report<MsgId::SeveralAlgos>(C.at(N, Where()));
        continue;
      }
      Root = N;
    }
    if (!Root) {
      C.Sink.report<MsgId::NoAlgo>(Where());
      return std::nullopt;
    }
    return readAlgo(Root);
  }

private:
  LoadContext &C;

  void checkChildCount(pugi::xml_node N, const Where &Ctx) {
    std::size_t Count = 0;
    for (pugi::xml_node Child : N.children())
      Count += Child.type() == pugi::node_element;
    if (Count > MaxChildren)
      C.Sink.report<MsgId::TooManyChildren>(C.at(N, Ctx), N.name(), Count,
                                            MaxChildren);
  }

  /// Reports children other than \p Expected; returns whether \p Child is one.
  bool isExpectedChild(pugi::xml_node Child, std::string_view Expected,
                       const Where &Ctx) {
    if (Child.type() != pugi::node_element)
      return false;
    std::string_view Name = Child.name();
    if (Name == Expected)
      return true;
    if (Name == "copy")
      C.Sink.report<MsgId::CopyIgnored>(C.at(Child, Ctx));
    else
      C.Sink.report<MsgId::UnknownElement>(C.at(Child, Ctx), excerpt(Name));
    return false;
  }

  std::optional<Algo> readAlgo(pugi::xml_node N) {
    bool Legacy = C.Opts.D == Dialect::Legacy;
    Algo A;
    ElementReader R(C, N, Where(),
                    {"name", "proto", "nchannels", "nchunksperloop", "ngpus",
                     "coll", "inplace", "outofplace", "minBytes", "maxBytes",
                     "nthreads", "redop", "maxcount", "nthreadblocks", "root",
                     "tacclc-version", "machine", "sketch", "sizes"});
    Where W = R.where();
    A.Line = W.Line;
    A.Col = W.Col;
    if (auto V = R.text("name", Legacy)) {
      A.Name = std::string(*V);
      if (Legacy && A.Name.size() > 63)
        R.badValue("name", message<MsgId::NameTooLong>(A.Name.size()));
    }
    if (auto V = R.text("proto", true)) {
      if (auto P = parseProtocol(*V))
        A.Proto = *P;
      else
        R.badValue("proto", message<MsgId::UnknownProto>(excerpt(*V)));
    }
    if (auto V = R.integer("nchannels", true))
      A.NChannels = static_cast<int>(*V);
    if (auto V = R.integer("nchunksperloop", true))
      A.NChunksPerLoop = static_cast<int>(*V);
    if (auto V = R.integer("ngpus", true))
      A.NGpus = static_cast<int>(*V);
    if (auto V = R.text("coll", true))
      readColl(R, *V, A);
    if (auto V = R.flag("inplace", true))
      A.InPlace = *V;
    if (Legacy) {
      A.OutOfPlace = !A.InPlace;
    } else if (auto V = R.flag("outofplace", true)) {
      A.OutOfPlace = *V;
    }
    if (auto V = R.integer("minBytes", !Legacy, 0, LLONG_MAX))
      A.MinBytes = static_cast<std::uint64_t>(*V);
    A.MaxBytes = Legacy ? (std::uint64_t(1) << 27) : 0;
    if (auto V = R.integer("maxBytes", !Legacy, 0, LLONG_MAX))
      A.MaxBytes = static_cast<std::uint64_t>(*V);
    if (auto V = R.integer("root", false, 0, INT_MAX))
      A.Root = static_cast<int>(*V);
    readOrigin(R, A.Origin);
    if (Legacy)
      if (auto V = R.integer("nthreads", false))
        if (*V <= 0 || *V % 32 != 0)
          R.badValue("nthreads", message<MsgId::BadThreadCount>(*V));
    checkChildCount(N, Where());
    for (pugi::xml_node Child : N.children())
      if (isExpectedChild(Child, "gpu", Where()))
        A.Gpus.push_back(readGpu(Child));
    return A;
  }

  /// The provenance attributes (format/Plan.h): tacclc's own, which the
  /// runtimes ignore; any text is accepted.
  void readOrigin(ElementReader &R, Provenance &O) {
    const std::pair<const char *, std::string *> Attrs[] = {
        {"tacclc-version", &O.Compiler},
        {"machine", &O.Machine},
        {"sketch", &O.Sketch},
        {"sizes", &O.Sizes}};
    for (const auto &[Name, Field] : Attrs)
      if (auto V = R.text(Name, false))
        *Field = std::string(*V);
  }

  void readColl(ElementReader &R, std::string_view V, Algo &A) {
    Dialect D = C.Opts.D;
    if (auto K = parseCollName(V, D)) {
      A.Coll = *K;
      return;
    }
    Dialect Other =
        D == Dialect::Executor ? Dialect::Legacy : Dialect::Executor;
    if (auto K = parseCollName(V, Other)) {
      std::string_view Mine = collName(*K, D);
      if (!Mine.empty())
        R.badValue("coll",
                   message<MsgId::OtherDialectColl>(
                       V, D == Dialect::Executor ? "legacy" : "executor",
                       D == Dialect::Executor ? "executor" : "legacy", Mine));
      else
        R.badValue("coll",
                   message<MsgId::CollNotInDialect>(
                       V, D == Dialect::Executor ? "executor" : "legacy"));
      return;
    }
    R.badValue("coll", message<MsgId::UnknownColl>(excerpt(V)));
  }

  Gpu readGpu(pugi::xml_node N) {
    Gpu G;
    ElementReader R(C, N, Where(), {"id", "i_chunks", "o_chunks", "s_chunks"});
    Where W = R.where();
    G.Line = W.Line;
    G.Col = W.Col;
    if (auto V = R.integer("id", true))
      G.Id = static_cast<int>(*V);
    Where Ctx;
    Ctx.Rank = G.Id;
    R.setContext(Ctx);
    if (auto V = R.integer("i_chunks", true))
      G.IChunks = static_cast<int>(*V);
    if (auto V = R.integer("o_chunks", true))
      G.OChunks = static_cast<int>(*V);
    if (auto V = R.integer("s_chunks", true))
      G.SChunks = static_cast<int>(*V);
    checkChildCount(N, Ctx);
    for (pugi::xml_node Child : N.children())
      if (isExpectedChild(Child, "tb", Ctx)) {
        poll(); // a caller under a time limit may stop here
        G.Tbs.push_back(readTb(Child, G.Id));
      }
    return G;
  }

  Tb readTb(pugi::xml_node N, int Rank) {
    Tb T;
    Where Ctx;
    Ctx.Rank = Rank;
    ElementReader R(C, N, Ctx, {"id", "send", "recv", "chan"});
    Where W = R.where();
    T.Line = W.Line;
    T.Col = W.Col;
    if (auto V = R.integer("id", true))
      T.Id = static_cast<int>(*V);
    Ctx.Tb = T.Id;
    R.setContext(Ctx);
    if (auto V = R.integer("send", true))
      T.Send = static_cast<int>(*V);
    if (auto V = R.integer("recv", true))
      T.Recv = static_cast<int>(*V);
    if (auto V = R.integer("chan", true))
      T.Chan = static_cast<int>(*V);
    checkChildCount(N, Ctx);
    for (pugi::xml_node Child : N.children())
      if (isExpectedChild(Child, "step", Ctx))
        T.Steps.push_back(
            readStep(Child, Rank, T.Id, static_cast<int>(T.Steps.size())));
    return T;
  }

  void readBuffer(ElementReader &R, const char *Name, BufferKind &Out) {
    auto V = R.text(Name, true);
    if (!V)
      return;
    std::optional<BufferKind> B;
    if (V->size() == 1)
      B = parseBufferLetter((*V)[0]);
    if (B)
      Out = *B;
    else
      R.badValue(Name, message<MsgId::BadBufferName>(Name, excerpt(*V)));
  }

  Step readStep(pugi::xml_node N, int Rank, int TbId, int Pos) {
    Step S;
    Where Ctx;
    Ctx.Rank = Rank;
    Ctx.Tb = TbId;
    Ctx.Step = Pos;
    ElementReader R(C, N, Ctx,
                    {"s", "type", "srcbuf", "srcoff", "dstbuf", "dstoff", "cnt",
                     "depid", "deps", "hasdep"});
    Where W = R.where();
    S.Line = W.Line;
    S.Col = W.Col;
    if (auto V = R.integer("s", true))
      S.S = static_cast<int>(*V);
    if (auto V = R.text("type", true))
      readType(R, *V, S);
    readBuffer(R, "srcbuf", S.SrcBuf);
    if (auto V = R.integer("srcoff", true))
      S.SrcOff = static_cast<int>(*V);
    readBuffer(R, "dstbuf", S.DstBuf);
    if (auto V = R.integer("dstoff", true))
      S.DstOff = static_cast<int>(*V);
    if (auto V = R.integer("cnt", true))
      S.Cnt = static_cast<int>(*V);
    if (auto V = R.integer("depid", true))
      S.DepId = static_cast<int>(*V);
    if (auto V = R.integer("deps", true))
      S.Deps = static_cast<int>(*V);
    if (auto V = R.flag("hasdep", true))
      S.HasDep = *V;
    return S;
  }

  void readType(ElementReader &R, std::string_view V, Step &S) {
    if (std::optional<StepType> T = parseStepType(V)) {
      S.Type = *T;
      return;
    }
    if (V == "ra")
      R.badValue("type", message<MsgId::RecvReduceAllUnsupported>());
    else
      R.badValue("type", message<MsgId::UnknownStepType>(excerpt(V)));
  }
};

} // namespace

std::optional<Algo> readPlanTree(const pugi::xml_document &Doc,
                                 const char *Base, const LineTable &Lines,
                                 const LoadOptions &Opts, IssueSink &Sink,
                                 bool &AttrErrors) {
  LoadContext C{Base, Lines, Sink, Opts};
  std::optional<Algo> A = TreeReader(C).read(Doc);
  AttrErrors = C.AttrErrors;
  return A;
}

} // namespace tacclrt
