//===- tests/unit/support/FilesTest.cpp - InputFile and OutputFile tests --===//
//
// Bounded reading (sizes, devices, folders, the inputs remembered) and the
// all-or-none writer (replacing, keeping the mode, links, inputs refused,
// failures naming the path, nothing left behind), in a temporary folder.
//
//===----------------------------------------------------------------------===//
#include "support/InputFile.h"
#include "support/OutputFile.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

using namespace tacclc;
namespace fs = std::filesystem;

namespace {
/// A fresh folder, removed with everything in it.
struct TempDir {
  fs::path Path;
  TempDir() {
    std::string Model = (fs::temp_directory_path() / "tacclc-files-XXXXXX");
    Path = ::mkdtemp(Model.data());
  }
  ~TempDir() { fs::remove_all(Path); }
  std::string operator/(const std::string &Name) const {
    return (Path / Name).string();
  }
  /// Names in the folder, sorted.
  std::vector<std::string> list() const {
    std::vector<std::string> Names;
    for (const auto &E : fs::directory_iterator(Path))
      Names.push_back(E.path().filename().string());
    std::sort(Names.begin(), Names.end());
    return Names;
  }
};

void put(const std::string &Path, const std::string &Text) {
  std::ofstream(Path, std::ios::binary) << Text;
}

std::string get(const std::string &Path) {
  std::ifstream In(Path, std::ios::binary);
  std::stringstream S;
  S << In.rdbuf();
  return S.str();
}
} // namespace

TEST_CASE("readSourceFile reads files up to the limit and refuses the rest") {
  TempDir D;
  put(D / "a.sketch", "abc");
  std::string Why;
  auto Buf = readSourceFile(D / "a.sketch", Why, 3);
  REQUIRE(Buf);
  CHECK(Buf->getBuffer() == "abc");
  CHECK(Buf->getBufferIdentifier() == D / "a.sketch");
  CHECK(!readSourceFile(D / "a.sketch", Why, 2));
  CHECK(Why == "it is larger than 2 bytes, the limit for a source file");
  CHECK(!readSourceFile(D.Path.string(), Why));
  CHECK(Why == "it is a directory");
  CHECK(!readSourceFile("/dev/zero", Why));
  CHECK(Why == "it is a character device, not a file");
  CHECK(!readSourceFile(D / "missing", Why));
  CHECK(Why == "no such file or directory");
}

TEST_CASE("describeBytes names round binary sizes") {
  CHECK(describeBytes(4 << 20) == "4 MiB");
  CHECK(describeBytes(uint64_t(2) << 30) == "2 GiB");
  CHECK(describeBytes(3 << 10) == "3 KiB");
  CHECK(describeBytes(1000) == "1000 bytes");
}

TEST_CASE("outputs replace files atomically, keeping their mode") {
  TempDir D;
  put(D / "out.xml", "old");
  ::chmod((D / "out.xml").c_str(), 0640);
  OutputError Err;
  REQUIRE(writeOutputFiles({{D / "out.xml", "new"}, {D / "r.json", "{}"}},
                           OutputOptions(), Err));
  CHECK(get(D / "out.xml") == "new");
  CHECK(get(D / "r.json") == "{}");
  struct stat St;
  REQUIRE(::stat((D / "out.xml").c_str(), &St) == 0);
  CHECK((St.st_mode & 07777) == 0640);
  CHECK(D.list() == std::vector<std::string>{"out.xml", "r.json"});
}

TEST_CASE("one output that cannot be written means none is written") {
  TempDir D;
  put(D / "out.xml", "old");
  OutputError Err;
  CHECK(!writeOutputFiles(
      {{D / "out.xml", "new"}, {D / "no/such/dir/r.json", "{}"}},
      OutputOptions(), Err));
  CHECK(Err.Path == D / "no/such/dir/r.json");
  CHECK(Err.Reason == "no such directory '" + D / "no/such/dir" + "'");
  CHECK(get(D / "out.xml") == "old");
  CHECK(D.list() == std::vector<std::string>{"out.xml"});
  CHECK(!checkOutputPaths({D / "x", D / "x"}, OutputOptions(), Err));
  CHECK(Err.Reason == "it is named as two outputs");
  CHECK(!checkOutputPaths({D.Path.string()}, OutputOptions(), Err));
  CHECK(Err.Reason == "it is a directory");
}

TEST_CASE("inputs are never replaced unless allowed") {
  TempDir D;
  put(D / "in.sketch", "text");
  std::string Why;
  REQUIRE(readSourceFile(D / "in.sketch", Why));
  OutputError Err;
  CHECK(!writeOutputFiles({{D / "./in.sketch", "xml"}}, OutputOptions(), Err));
  CHECK(Err.Reason == "it is one of this command's inputs");
  CHECK(get(D / "in.sketch") == "text");
  OutputOptions Fmt;
  Fmt.MayReplaceInputs = true;
  CHECK(writeOutputFiles({{D / "in.sketch", "formatted"}}, Fmt, Err));
  CHECK(get(D / "in.sketch") == "formatted");
}

TEST_CASE("a symbolic link is followed and stays a link") {
  TempDir D;
  put(D / "target", "old");
  fs::create_symlink("target", D / "link");
  fs::create_symlink("new-file", D / "dangling");
  OutputError Err;
  REQUIRE(writeOutputFiles({{D / "link", "a"}, {D / "dangling", "b"}},
                           OutputOptions(), Err));
  CHECK(fs::is_symlink(D / "link"));
  CHECK(get(D / "target") == "a");
  CHECK(fs::is_symlink(D / "dangling"));
  CHECK(get(D / "new-file") == "b");
}

TEST_CASE("stale temporaries of dead runs are removed by the next write") {
  TempDir D;
  // A pid that cannot be alive: above the kernel's maximum.
  std::string Stale = temporaryPathFor(D / "out.xml", 99999999);
  CHECK(Stale == D / ".out.xml.99999999.tacclc-tmp");
  put(Stale, "half");
  put(D / ".other.xml.99999999.tacclc-tmp", "someone else's");
  OutputError Err;
  REQUIRE(writeOutputFiles({{D / "out.xml", "x"}}, OutputOptions(), Err));
  CHECK(D.list() == std::vector<std::string>{".other.xml.99999999.tacclc-tmp",
                                             "out.xml"});
}
