//===- format/PlanFile.cpp - Bounded reading of plan files ----------------===//
//
// readPlanText() opens the file without blocking (a FIFO would otherwise
// wait for a writer), asks fstat() about the descriptor it got, refuses
// everything but a regular file of at most MaxPlanFileBytes bytes, and then
// reads until end of file, stopping with an error as soon as more than the
// cap has arrived (a file that grows, or one whose size fstat() does not
// know, such as some files of /proc).
//
//===----------------------------------------------------------------------===//
#include "format/PlanFile.h"

#include "format/IssueSink.h"
#include "format/Loader.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace tacclrt {

namespace {

/// Closes a file descriptor when it goes out of scope.
class FdCloser {
public:
  explicit FdCloser(int Fd) : Fd(Fd) {}
  FdCloser(const FdCloser &) = delete;
  FdCloser &operator=(const FdCloser &) = delete;
  ~FdCloser() {
    if (Fd >= 0)
      ::close(Fd);
  }

private:
  int Fd;
};

/// What a file of mode \p Mode is, for messages; null for a regular file.
const char *irregularKind(mode_t Mode) {
  if (S_ISREG(Mode))
    return nullptr;
  if (S_ISDIR(Mode))
    return "is a directory, not a TACCL-EF file";
  if (S_ISCHR(Mode))
    return "is a character device, not a regular file: only regular files "
           "are read";
  if (S_ISBLK(Mode))
    return "is a block device, not a regular file: only regular files are "
           "read";
  if (S_ISFIFO(Mode))
    return "is a FIFO (named pipe), not a regular file: only regular files "
           "are read";
  if (S_ISSOCK(Mode))
    return "is a socket, not a regular file: only regular files are read";
  return "is not a regular file: only regular files are read";
}

} // namespace

std::string tooLargeMessage(std::uint64_t Bytes, bool MoreThan) {
  return fmt::format("the input has {}{} bytes; TACCL-EF files are limited to "
                     "{} bytes ({} MiB)",
                     MoreThan ? "more than " : "", withSeparators(Bytes),
                     withSeparators(MaxPlanFileBytes), MaxPlanFileBytes >> 20);
}

std::optional<std::string> readPlanText(const std::string &Path,
                                        std::string &Text) {
  int Fd;
  do
    Fd = ::open(Path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  while (Fd < 0 && errno == EINTR);
  if (Fd < 0)
    return std::string("cannot open the file (missing or unreadable)");
  FdCloser Closer(Fd);
  struct stat St;
  if (::fstat(Fd, &St) != 0)
    return std::string("cannot read the file");
  if (const char *Kind = irregularKind(St.st_mode))
    return std::string(Kind);
  if (St.st_size < 0 || static_cast<std::uint64_t>(St.st_size) >
                            static_cast<std::uint64_t>(MaxPlanFileBytes))
    return tooLargeMessage(static_cast<std::uint64_t>(St.st_size));

  // Read until end of file, but never more than the cap plus one byte (to
  // notice a file that grew past it).
  Text.clear();
  Text.resize(static_cast<std::size_t>(St.st_size) + 1);
  std::size_t Got = 0;
  while (true) {
    if (Got == Text.size()) {
      if (Got > MaxPlanFileBytes)
        return tooLargeMessage(MaxPlanFileBytes, true);
      Text.resize(std::min(Text.size() * 2 + 4096, MaxPlanFileBytes + 1));
    }
    ssize_t N = ::read(Fd, Text.data() + Got, Text.size() - Got);
    if (N < 0 && errno == EINTR)
      continue;
    if (N < 0)
      return std::string("cannot read the file");
    if (N == 0)
      break;
    Got += static_cast<std::size_t>(N);
  }
  Text.resize(Got);
  return std::nullopt;
}

} // namespace tacclrt
