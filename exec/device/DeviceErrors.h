//===- exec/device/DeviceErrors.h - A failed kernel's report ----*- C++ -*-===//
//
// The words the interpreter kernel (Interpreter.cuh) writes when a block
// gives up, shared with host code that is not compiled by nvcc (the NCCL
// backend's parent process): the error kind, and what the block waited for.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_EXEC_DEVICE_DEVICEERRORS_H
#define TACCLC_EXEC_DEVICE_DEVICEERRORS_H

namespace tacclrt::cuda {

/// What a failed block reports (Error[0] != 0 stops every block).
enum DeviceError : int { NoError = 0, Timeout = 1 };
/// What a block waited for when it timed out (Error[4]).
enum WaitKind : int {
  WaitDependency = 1,
  WaitMessage = 2,
  WaitRoom = 3,
  /// An LL or LL128 line whose flag never showed the expected step.
  WaitLine = 4
};

/// What the device watchdog waited for, in words.
inline const char *waitName(int Kind) {
  return Kind == WaitDependency ? "a dependency"
         : Kind == WaitMessage  ? "a message"
         : Kind == WaitLine     ? "a message's flagged line (LL/LL128)"
                                : "room to send";
}

} // namespace tacclrt::cuda

#endif // TACCLC_EXEC_DEVICE_DEVICEERRORS_H
