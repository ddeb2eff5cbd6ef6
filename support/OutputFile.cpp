//===- support/OutputFile.cpp - Safe, all-or-none output files ------------===//
//
// Writing happens in three phases so that a failure never leaves a partial
// set of outputs:
//   1. resolve: every output is classified (standard output, written
//      through, or replaced) and checked (folder, permissions, not an input);
//   2. prepare: the text of every replaced file is written to an unnamed
//      temporary file (O_TMPFILE) in the target's folder, with the target's
//      mode and owner; a failure here (a full disk) drops every temporary and
//      nothing is visible;
//   3. commit: each temporary is linked under the name temporaryPathFor gives
//      (registered for removal on signals) and renamed over its target; then
//      devices, pipes and standard output are written.
// Where O_TMPFILE is not supported the temporary is created under its name at
// once. Where the owner of a file cannot be kept (it belongs to another user),
// the file is rewritten in place instead, as editors do. The tests set
// TACCLC_TEST_WRITE_PAUSE_MS to hold a run between phases 3's naming and
// renaming, to signal it there.
//
//===----------------------------------------------------------------------===//
#include "support/OutputFile.h"

#include "support/InputFile.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/raw_ostream.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

using namespace tacclc;

namespace {

enum class Way { Stdout, Through, Replace };

/// One output once resolved.
struct Target {
  Way How = Way::Replace;
  std::string Final; ///< The file to replace, or the path to open.
  bool Exists = false;
  struct stat St {};
};

/// A replaced file's temporary.
struct Prepared {
  int Fd = -1;
  std::string TempName; ///< Set once the temporary has a name.
  bool InPlace = false; ///< The owner cannot be kept: rewrite the file.
};

/// An output as messages name it.
std::string displayName(const std::string &Path) {
  return Path.empty() || Path == "-" ? "<stdout>" : Path;
}

std::string parentOf(llvm::StringRef Path) {
  llvm::StringRef P = llvm::sys::path::parent_path(Path);
  return P.empty() ? "." : P.str();
}

bool writeAll(int Fd, llvm::StringRef Text, std::string &Reason) {
  size_t Done = 0;
  while (Done < Text.size()) {
    ssize_t N = ::write(Fd, Text.data() + Done, Text.size() - Done);
    if (N < 0 && errno == EINTR)
      continue;
    if (N <= 0) {
      Reason = describeErrno(N < 0 ? errno : EIO);
      return false;
    }
    Done += size_t(N);
  }
  return true;
}

/// Checks the folder a new or replaced file goes into.
bool checkFolder(const std::string &Dir, std::string &Reason) {
  struct stat St;
  if (::stat(Dir.c_str(), &St) != 0) {
    Reason = errno == ENOENT ? fmt::format("no such directory '{}'", Dir)
                             : fmt::format("cannot use the directory '{}': {}",
                                           Dir, describeErrno(errno));
    return false;
  }
  if (!S_ISDIR(St.st_mode)) {
    Reason = fmt::format("'{}' is not a directory", Dir);
    return false;
  }
  if (::access(Dir.c_str(), W_OK | X_OK) != 0) {
    Reason = fmt::format("cannot create files in '{}': {}", Dir,
                         describeErrno(errno));
    return false;
  }
  return true;
}

/// Follows the symbolic links from \p Given to the name of the file to
/// replace (which a dangling link names); writes through a process's
/// descriptor links (/dev/stdout, /proc/self/fd/N).
bool followLinks(const std::string &Given, Target &T, std::string &Reason) {
  std::string P = Given;
  for (unsigned Hops = 0;; ++Hops) {
    if (Hops == 40) {
      Reason = "too many levels of symbolic links";
      return false;
    }
    struct stat L;
    if (::lstat(P.c_str(), &L) != 0) {
      if (errno == ENOENT)
        break; // a new file
      Reason = describeErrno(errno);
      return false;
    }
    if (!S_ISLNK(L.st_mode))
      break;
    if (llvm::StringRef(P).startswith("/proc/")) {
      T.How = Way::Through;
      T.Final = Given;
      return true;
    }
    std::vector<char> Buf(4096);
    ssize_t N = ::readlink(P.c_str(), Buf.data(), Buf.size());
    if (N <= 0 || size_t(N) >= Buf.size()) {
      Reason = N < 0 ? describeErrno(errno) : "unreadable symbolic link";
      return false;
    }
    std::string Link(Buf.data(), size_t(N));
    if (llvm::sys::path::is_absolute(Link))
      P = Link;
    else
      P = parentOf(P) + "/" + Link;
  }
  T.Final = P;
  return true;
}

bool resolve(const std::string &Given, const OutputOptions &Opts, Target &T,
             std::string &Reason) {
  if (Given.empty() || Given == "-") {
    T.How = Way::Stdout;
    return true;
  }
  // stat follows every link: St describes the file finally named, and
  // ENOENT means a new file (or a dangling link naming one).
  struct stat St;
  if (::stat(Given.c_str(), &St) == 0) {
    T.Exists = true;
    T.St = St;
    if (S_ISDIR(St.st_mode)) {
      Reason = "it is a directory";
      return false;
    }
    if (S_ISSOCK(St.st_mode)) {
      Reason = "it is a socket";
      return false;
    }
    if (!S_ISREG(St.st_mode)) { // a device or a pipe: written through
      T.How = Way::Through;
      T.Final = Given;
      if (::access(Given.c_str(), W_OK) != 0) {
        Reason = describeErrno(errno);
        return false;
      }
      return true;
    }
  } else if (errno != ENOENT) {
    Reason = describeErrno(errno);
    return false;
  }
  if (!followLinks(Given, T, Reason))
    return false;
  if (T.Exists && !Opts.MayReplaceInputs && wasReadAsInput(T.St)) {
    Reason = "it is one of this command's inputs";
    return false;
  }
  if (T.How == Way::Through)
    return true;
  if (!checkFolder(parentOf(T.Final), Reason))
    return false;
  if (T.Exists && ::access(T.Final.c_str(), W_OK) != 0) {
    Reason = describeErrno(errno);
    return false;
  }
  return true;
}

/// Removes `.NAME.PID.tacclc-tmp` files beside \p Final that no run holds
/// any more (one killed while it wrote). A run holds an exclusive flock on
/// its temporaries from their creation, released however it ends; so a
/// temporary whose lock can be taken is stale, even when the pid in its name
/// is that of a live process in another pid namespace.
void removeStaleTemporaries(const std::string &Final) {
  std::string Dir = parentOf(Final);
  std::string Prefix = "." + llvm::sys::path::filename(Final).str() + ".";
  const llvm::StringRef Suffix = ".tacclc-tmp";
  DIR *D = ::opendir(Dir.c_str());
  if (!D)
    return;
  while (dirent *E = ::readdir(D)) {
    llvm::StringRef Name(E->d_name);
    if (!Name.consume_front(Prefix) || !Name.consume_back(Suffix))
      continue;
    long Pid = 0;
    if (Name.getAsInteger(10, Pid) || Pid <= 0 || Pid == long(::getpid()))
      continue;
    std::string Path = Dir + "/" + E->d_name;
    int Fd = ::open(Path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (Fd < 0)
      continue;
    if (::flock(Fd, LOCK_EX | LOCK_NB) == 0)
      ::unlink(Path.c_str());
    ::close(Fd);
  }
  ::closedir(D);
}

/// The name this run gives its temporary for \p T, registered for removal
/// on signals and cleared of a file a run with the same pid left.
std::string claimTemporaryName(const Target &T) {
  std::string Name = temporaryPathFor(T.Final, long(::getpid()));
  llvm::sys::RemoveFileOnSignal(Name);
  ::unlink(Name.c_str());
  return Name;
}

bool prepare(const Target &T, llvm::StringRef Text, Prepared &P,
             std::string &Reason) {
  removeStaleTemporaries(T.Final);
  // A new file gets 0666 less the umask, applied by the kernel; a replaced
  // one its old mode, below.
  const mode_t Mode = T.Exists ? 0600 : 0666;
  P.Fd =
      ::open(parentOf(T.Final).c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, Mode);
  if (P.Fd < 0) { // no O_TMPFILE here: named at once
    P.TempName = claimTemporaryName(T);
    P.Fd = ::open(P.TempName.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC,
                  Mode);
  }
  if (P.Fd < 0 || ::flock(P.Fd, LOCK_EX) != 0) {
    Reason = describeErrno(errno);
    return false;
  }
  if (!writeAll(P.Fd, Text, Reason))
    return false;
  if (T.Exists && ::fchmod(P.Fd, T.St.st_mode & 07777) != 0) {
    Reason = describeErrno(errno);
    return false;
  }
  if (T.Exists && (T.St.st_uid != ::geteuid() || T.St.st_gid != ::getegid()) &&
      ::fchown(P.Fd, T.St.st_uid, T.St.st_gid) != 0)
    P.InPlace = true;
  return true;
}

/// Gives an unnamed temporary its name beside the target.
bool nameTemporary(const Target &T, Prepared &P, std::string &Reason) {
  if (!P.TempName.empty())
    return true;
  P.TempName = claimTemporaryName(T);
  std::string Self = fmt::format("/proc/self/fd/{}", P.Fd);
  if (::linkat(AT_FDCWD, Self.c_str(), AT_FDCWD, P.TempName.c_str(),
               AT_SYMLINK_FOLLOW) == 0 ||
      ::linkat(P.Fd, "", AT_FDCWD, P.TempName.c_str(), AT_EMPTY_PATH) == 0)
    return true;
  Reason = describeErrno(errno);
  llvm::sys::DontRemoveFileOnSignal(P.TempName);
  P.TempName.clear();
  return false;
}

/// Opens \p Path for writing through (a device, a pipe, a descriptor link,
/// or a file whose owner cannot be kept) and writes \p Text.
bool writeThrough(const std::string &Path, int Flags, llvm::StringRef Text,
                  std::string &Reason) {
  int Fd;
  do
    Fd = ::open(Path.c_str(), O_WRONLY | O_CLOEXEC | Flags);
  while (Fd < 0 && errno == EINTR);
  if (Fd < 0) {
    Reason = describeErrno(errno);
    return false;
  }
  bool Ok = writeAll(Fd, Text, Reason);
  if (::close(Fd) != 0 && Ok) {
    Reason = describeErrno(errno);
    Ok = false;
  }
  return Ok;
}

/// Drops every temporary (named ones are unlinked).
void discard(std::vector<Prepared> &Ps) {
  for (Prepared &P : Ps) {
    if (!P.TempName.empty()) {
      ::unlink(P.TempName.c_str());
      llvm::sys::DontRemoveFileOnSignal(P.TempName);
      P.TempName.clear();
    }
    if (P.Fd >= 0)
      ::close(P.Fd);
    P.Fd = -1;
  }
}

/// Waits TACCLC_TEST_WRITE_PAUSE_MS milliseconds when that variable is set:
/// the tests use it to signal a run while its temporaries have names.
void pauseForTests() {
  const char *Ms = std::getenv("TACCLC_TEST_WRITE_PAUSE_MS");
  unsigned Wait = 0;
  if (Ms && !llvm::StringRef(Ms).getAsInteger(10, Wait) && Wait > 0)
    ::usleep(std::min(Wait, 60000u) * 1000u);
}

/// Resolves every output of \p Paths into \p Ts.
bool resolveAll(llvm::ArrayRef<std::string> Paths, const OutputOptions &Opts,
                std::vector<Target> &Ts, OutputError &Err) {
  Ts.assign(Paths.size(), Target());
  for (size_t I = 0; I < Paths.size(); ++I) {
    Err.Path = displayName(Paths[I]);
    if (!resolve(Paths[I], Opts, Ts[I], Err.Reason))
      return false;
    for (size_t J = 0; J < I; ++J)
      if (Ts[I].How == Way::Replace && Ts[J].How == Way::Replace &&
          Ts[I].Final == Ts[J].Final) {
        Err.Reason = "it is named as two outputs";
        return false;
      }
  }
  return true;
}

} // namespace

std::string tacclc::temporaryPathFor(llvm::StringRef Target, long Pid) {
  llvm::SmallString<256> Path(llvm::sys::path::parent_path(Target));
  llvm::sys::path::append(Path, "." + llvm::sys::path::filename(Target) + "." +
                                    std::to_string(Pid) + ".tacclc-tmp");
  return Path.str().str();
}

bool tacclc::checkOutputPaths(llvm::ArrayRef<std::string> Paths,
                              const OutputOptions &Opts, OutputError &Err) {
  std::vector<Target> Ts;
  return resolveAll(Paths, Opts, Ts, Err);
}

bool tacclc::writeOutputFiles(llvm::ArrayRef<OutputFile> Files,
                              const OutputOptions &Opts, OutputError &Err) {
  std::vector<std::string> Paths;
  for (const OutputFile &F : Files)
    Paths.push_back(F.Path);
  std::vector<Target> Ts;
  if (!resolveAll(Paths, Opts, Ts, Err))
    return false;
  std::vector<Prepared> Ps(Files.size());
  auto Fail = [&](size_t I) {
    Err.Path = displayName(Files[I].Path);
    discard(Ps);
    return false;
  };
  for (size_t I = 0; I < Files.size(); ++I)
    if (Ts[I].How == Way::Replace &&
        !prepare(Ts[I], Files[I].Text, Ps[I], Err.Reason))
      return Fail(I);
  for (size_t I = 0; I < Files.size(); ++I)
    if (Ts[I].How == Way::Replace && !Ps[I].InPlace &&
        !nameTemporary(Ts[I], Ps[I], Err.Reason))
      return Fail(I);
  pauseForTests();
  for (size_t I = 0; I < Files.size(); ++I) {
    Prepared &P = Ps[I];
    if (Ts[I].How != Way::Replace || P.InPlace)
      continue;
    if (::rename(P.TempName.c_str(), Ts[I].Final.c_str()) != 0) {
      Err.Reason = describeErrno(errno);
      return Fail(I);
    }
    llvm::sys::DontRemoveFileOnSignal(P.TempName);
    P.TempName.clear();
  }
  discard(Ps); // closes the descriptors; every temporary has been renamed
  for (size_t I = 0; I < Files.size(); ++I) {
    Err.Path = displayName(Files[I].Path);
    const Target &T = Ts[I];
    if (T.How == Way::Stdout) {
      llvm::outs().flush(); // what the command printed before comes first
      if (!writeAll(STDOUT_FILENO, Files[I].Text, Err.Reason))
        return false;
    } else if (T.How == Way::Through || Ps[I].InPlace) {
      int Flags = T.How == Way::Through && T.Exists && S_ISREG(T.St.st_mode)
                      ? O_APPEND
                  : Ps[I].InPlace ? O_TRUNC
                                  : 0;
      if (!writeThrough(T.Final, Flags, Files[I].Text, Err.Reason))
        return false;
    }
  }
  return true;
}
