//===- tests/unit/runtime/AlgoRegistryTest.cpp - libtaccl-nccl's selection ===//
//
// AlgoRegistry against files written from the hand-written fixtures with
// attributes changed: the MSCCL executor's match rule (collective, ranks,
// in-place or not, the byte range with maxBytes 0 as unlimited, the count's
// divisibility, avg refused), sorted path order, the root of rooted
// collectives, and load failures kept with their reasons (also for entries
// that are not regular files or are too large to load).
//
//===----------------------------------------------------------------------===//
#include "shim/AlgoRegistry.h"
#include "format/Loader.h"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

using namespace tacclrt;
using namespace tacclrt::shim;
namespace fs = std::filesystem;

namespace {

std::string fixture(const std::string &Name) {
  std::ifstream In(std::string(TACCLRT_XML_DIR) + "/" + Name);
  std::stringstream S;
  S << In.rdbuf();
  return S.str();
}

/// \p Text with attribute \p Attr of its <algo> tag set to \p Value.
std::string with(std::string Text, const std::string &Attr,
                 const std::string &Value) {
  size_t Tag = Text.find("<algo ");
  REQUIRE(Tag != std::string::npos);
  size_t End = Text.find('>', Tag);
  size_t At = Text.find(" " + Attr + "=\"", Tag);
  if (At != std::string::npos && At < End) {
    size_t V = At + Attr.size() + 3;
    Text.replace(V, Text.find('"', V) - V, Value);
  } else {
    Text.insert(End, " " + Attr + "=\"" + Value + "\"");
  }
  return Text;
}

struct Dir {
  fs::path Path = fs::temp_directory_path() /
                  ("algo-registry-" + std::to_string(::getpid()));
  Dir() { fs::create_directories(Path); }
  ~Dir() { fs::remove_all(Path); }
  void write(const std::string &Name, const std::string &Text) {
    std::ofstream(Path / Name) << Text;
  }
};

CallShape allgather(std::uint64_t Count, bool InPlace = false) {
  CallShape C;
  C.Coll = CollKind::AllGather;
  C.NRanks = 4;
  C.Count = Count;
  C.InPlace = InPlace;
  C.Type = DataType::Float32;
  return C;
}

} // namespace

TEST_CASE("the first file in path order whose range holds the call") {
  Dir D;
  std::string Ag = fixture("allgather-ring4-exec.xml");
  Ag = with(with(Ag, "inplace", "0"), "outofplace", "1");
  D.write("b-small.xml", with(with(Ag, "minBytes", "0"), "maxBytes", "4096"));
  D.write("a-large.xml", with(with(Ag, "minBytes", "4096"), "maxBytes", "0"));
  D.write("c-any.xml", with(with(Ag, "minBytes", "0"), "maxBytes", "0"));
  D.write("notes.txt", "not an algorithm");
  AlgoRegistry R;
  R.loadDirectory(D.Path.string());
  R.finish();
  REQUIRE(R.failures().empty());
  REQUIRE(R.algorithms().size() == 3);
  auto Pick = [&](const CallShape &C) {
    const LoadedAlgo *L = R.select(C);
    return L ? fs::path(L->Path).filename().string() : std::string("-");
  };
  CHECK(Pick(allgather(64)) == "b-small.xml");      // 1 KiB
  CHECK(Pick(allgather(256)) == "a-large.xml");     // 4 KiB: both; a first
  CHECK(Pick(allgather(1 << 20)) == "a-large.xml"); // maxBytes 0: no limit
  CHECK(Pick(allgather(64, true)) == "-");          // no file serves in place
  // nchunksperloop is 8: a total count of 8 divides, 12 does not.
  CHECK(Pick(allgather(2)) == "b-small.xml");
  CHECK(Pick(allgather(3)) == "-");
  CallShape Two = allgather(64);
  Two.NRanks = 2;
  CHECK(Pick(Two) == "-");
  CallShape Zero = allgather(0);
  CHECK(Pick(Zero) == "-");
  CallShape Fp8 = allgather(64);
  Fp8.Type.reset();
  CHECK(Pick(Fp8) == "-");
}

TEST_CASE("reductions need a built-in operator; rooted calls their root") {
  Dir D;
  D.write("ar.xml", fixture("allreduce-ring4-exec.xml"));
  D.write("bc.xml", with(fixture("broadcast-chain4-exec.xml"), "root", "2"));
  AlgoRegistry R;
  R.loadDirectory(D.Path.string());
  R.finish();
  REQUIRE(R.algorithms().size() == 2);
  CallShape Ar;
  Ar.Coll = CollKind::AllReduce;
  Ar.NRanks = 4;
  Ar.Count = 1024;
  Ar.Type = DataType::BFloat16;
  Ar.InPlace = R.algorithms()[0].A.InPlace;
  CHECK(R.select(Ar) == nullptr); // no operator: avg or PreMulSum
  Ar.Op = ReduceOp::Max;
  CHECK(R.select(Ar) != nullptr);
  CallShape Bc;
  Bc.Coll = CollKind::Broadcast;
  Bc.NRanks = 4;
  Bc.Count = 1024;
  Bc.Type = DataType::Int8;
  Bc.InPlace = R.algorithms()[1].A.InPlace;
  Bc.Root = 0;
  CHECK(R.select(Bc) == nullptr);
  Bc.Root = 2;
  CHECK(R.select(Bc) != nullptr);
}

TEST_CASE("files that do not load are kept with their reasons") {
  Dir D;
  D.write("broken.xml", "<algo name=\"x\"");
  AlgoRegistry R;
  R.loadDirectory(D.Path.string());
  R.loadDirectory((D.Path / "missing").string());
  R.finish();
  CHECK(R.algorithms().empty());
  REQUIRE(R.failures().size() == 2);
  CHECK(R.failures()[0].Path.find("broken.xml") != std::string::npos);
  CHECK(!R.failures()[0].Why.empty());
  CHECK(R.failures()[1].Why.find("cannot read the directory") !=
        std::string::npos);
}

TEST_CASE("entries that are not regular files or are too large are failures") {
  Dir D;
  D.write("good.xml", fixture("allreduce-ring4-exec.xml"));
  // A FIFO nobody writes to: loading must neither block nor skip it.
  REQUIRE(::mkfifo((D.Path / "fifo.xml").c_str(), 0600) == 0);
  fs::create_directory(D.Path / "folder.xml");
  // Over the loader's size cap (sparse, so nothing is stored or read).
  std::ofstream(D.Path / "big.xml").close();
  fs::resize_file(D.Path / "big.xml", MaxPlanFileBytes + 1);
  AlgoRegistry R;
  R.loadDirectory(D.Path.string());
  R.finish();
  CHECK(R.algorithms().size() == 1);
  REQUIRE(R.failures().size() == 3);
  auto Why = [&](const std::string &Name) {
    for (const LoadFailure &F : R.failures())
      if (fs::path(F.Path).filename() == Name)
        return F.Why;
    return std::string("(no failure)");
  };
  CHECK(Why("fifo.xml").find("is a FIFO (named pipe)") != std::string::npos);
  CHECK(Why("folder.xml").find("is a directory") != std::string::npos);
  CHECK(Why("big.xml").find("limited to 536,870,912 bytes") !=
        std::string::npos);
}
