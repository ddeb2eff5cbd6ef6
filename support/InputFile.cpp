//===- support/InputFile.cpp - Bounded reading of source files ------------===//
//
// The kind of a path is checked with stat before it is opened (so that a
// device is never opened, whatever opening it would do) and again with fstat
// on the descriptor (so that the file read is the file checked). Reading is
// one bounded loop for files, pipes and standard input alike: at most
// MaxBytes + 1 bytes are ever read, whatever the size claimed.
//
//===----------------------------------------------------------------------===//
#include "support/InputFile.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <mutex>
#include <set>
#include <sys/stat.h>
#include <tuple>
#include <unistd.h>
#include <utility>

using namespace tacclc;

namespace {

/// A file's identity: device, inode and modification time (in ns; so that
/// a file created later with the inode of a deleted input is not taken for
/// it).
using FileKey = std::tuple<uint64_t, uint64_t, int64_t>;

FileKey keyOf(const struct stat &St) {
  return {uint64_t(St.st_dev), uint64_t(St.st_ino),
          int64_t(St.st_mtim.tv_sec) * 1000000000 + St.st_mtim.tv_nsec};
}

/// Identities of the files read as input.
struct InputRegistry {
  std::mutex Lock;
  std::set<FileKey> Files;
};

InputRegistry &registry() {
  static InputRegistry R;
  return R;
}

/// Records the file \p St describes as an input, if it is a regular file.
void remember(const struct stat &St) {
  if (!S_ISREG(St.st_mode))
    return;
  InputRegistry &R = registry();
  std::lock_guard<std::mutex> G(R.Lock);
  R.Files.insert(keyOf(St));
}

/// Why a file of mode \p Mode cannot be read as source text, or empty.
std::string refusal(mode_t Mode) {
  if (S_ISDIR(Mode))
    return "it is a directory";
  if (S_ISCHR(Mode))
    return "it is a character device, not a file";
  if (S_ISBLK(Mode))
    return "it is a block device, not a file";
  if (S_ISSOCK(Mode))
    return "it is a socket, not a file";
  return "";
}

std::string tooLarge(uint64_t MaxBytes) {
  return fmt::format("it is larger than {}, the limit for a source file",
                     describeBytes(MaxBytes));
}

/// Reads \p Fd to its end into \p Text, failing past \p MaxBytes.
bool readBounded(int Fd, uint64_t MaxBytes, std::string &Text,
                 std::string &Error) {
  char Chunk[65536];
  for (;;) {
    ssize_t N = ::read(Fd, Chunk, sizeof(Chunk));
    if (N < 0 && errno == EINTR)
      continue;
    if (N < 0) {
      Error = describeErrno(errno);
      return false;
    }
    if (N == 0)
      return true;
    if (Text.size() + uint64_t(N) > MaxBytes) {
      Error = tooLarge(MaxBytes);
      return false;
    }
    Text.append(Chunk, size_t(N));
  }
}

} // namespace

std::string tacclc::describeErrno(int Errno) {
  std::string S = std::strerror(Errno);
  if (!S.empty() && S[0] >= 'A' && S[0] <= 'Z' &&
      !(S.size() > 1 && S[1] >= 'A' && S[1] <= 'Z'))
    S[0] = char(S[0] - 'A' + 'a');
  return S;
}

std::string tacclc::describeBytes(uint64_t Bytes) {
  if (Bytes >= (uint64_t(1) << 30) && Bytes % (uint64_t(1) << 30) == 0)
    return fmt::format("{} GiB", Bytes >> 30);
  if (Bytes >= (uint64_t(1) << 20) && Bytes % (uint64_t(1) << 20) == 0)
    return fmt::format("{} MiB", Bytes >> 20);
  if (Bytes >= 1024 && Bytes % 1024 == 0)
    return fmt::format("{} KiB", Bytes >> 10);
  return fmt::format("{} bytes", Bytes);
}

void tacclc::noteInputFile(llvm::StringRef Path) {
  struct stat St;
  if (::stat(Path.str().c_str(), &St) == 0)
    remember(St);
}

bool tacclc::wasReadAsInput(const struct stat &St) {
  InputRegistry &R = registry();
  std::lock_guard<std::mutex> G(R.Lock);
  return R.Files.count(keyOf(St)) != 0;
}

std::unique_ptr<llvm::MemoryBuffer>
tacclc::readSourceFile(llvm::StringRef Path, std::string &Error,
                       uint64_t MaxBytes, llvm::StringRef Name) {
  const bool Stdin = Path == "-";
  std::string Id = Name.empty() ? (Stdin ? "<stdin>" : Path.str()) : Name.str();
  int Fd = 0;
  if (!Stdin) {
    struct stat Before;
    if (::stat(Path.str().c_str(), &Before) != 0) {
      Error = describeErrno(errno);
      return nullptr;
    }
    if (Error = refusal(Before.st_mode); !Error.empty())
      return nullptr;
    do
      Fd = ::open(Path.str().c_str(), O_RDONLY | O_CLOEXEC);
    while (Fd < 0 && errno == EINTR);
    if (Fd < 0) {
      Error = describeErrno(errno);
      return nullptr;
    }
  }
  struct stat St;
  if (::fstat(Fd, &St) != 0) {
    Error = describeErrno(errno);
  } else if (!Stdin) {
    Error = refusal(St.st_mode);
    if (Error.empty() && S_ISREG(St.st_mode) && uint64_t(St.st_size) > MaxBytes)
      Error = tooLarge(MaxBytes);
  }
  std::string Text;
  if (Error.empty())
    readBounded(Fd, MaxBytes, Text, Error);
  if (!Stdin)
    ::close(Fd);
  if (!Error.empty())
    return nullptr;
  remember(St);
  return llvm::MemoryBuffer::getMemBufferCopy(Text, Id);
}
