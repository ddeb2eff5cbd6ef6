//===- format/Poll.h - A hook in long runs ----------------------*- C++ -*-===//
//
// Checking and simulating a plan take time that grows with the plan. A
// program that must bound its own run time (the compiler, under its time
// limit) installs a poll hook: the checker and the simulator call it
// between rounds of their work, and the hook may throw to abandon that
// work (the exception passes through the runtime's code, which holds only
// owned memory, unchanged). The runtime itself never throws from here.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_FORMAT_POLL_H
#define TACCLC_FORMAT_POLL_H

namespace tacclrt {

/// A function called between rounds of long work; may throw.
using PollHook = void (*)();

/// Installs \p Hook for the whole process (nullptr: none) and returns the
/// one it replaces.
PollHook setPollHook(PollHook Hook);

/// Calls the installed hook, if any.
void poll();

} // namespace tacclrt

#endif // TACCLC_FORMAT_POLL_H
