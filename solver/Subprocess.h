//===- solver/Subprocess.h - Run work in a child process --------*- C++ -*-===//
//
// Third-party solvers can crash (CBC 2.10 segfaults in
// CglPreProcess::postProcess when its time limit expires during
// preprocessing) or overrun their limits. runInChild runs a piece of work in
// a forked child, passes its result back as bytes through a pipe, and turns
// a crash, a non-zero exit or a hard timeout into an error message instead of
// taking the compiler down.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_SOLVER_SUBPROCESS_H
#define TACCLC_SOLVER_SUBPROCESS_H

#include <functional>
#include <optional>
#include <string>

namespace tacclc::solver {

/// Runs \p Work in a child process and returns the bytes it produced, or
/// nothing with \p Error set when the child crashed, failed, or ran longer
/// than \p HardTimeoutSeconds (then it is killed; <= 0 means no timeout).
std::optional<std::string> runInChild(const std::function<std::string()> &Work,
                                      double HardTimeoutSeconds,
                                      std::string &Error);

} // namespace tacclc::solver

#endif // TACCLC_SOLVER_SUBPROCESS_H
