//===- shim/ShimCudaUnavailable.cpp - Builds without CUDA -----------------===//
//
// makeCudaBackend() where CUDA was not found at configure time: there is no
// CUDA backend, and the shim forwards every call (saying so once).
//
//===----------------------------------------------------------------------===//
#include "shim/ShimBackend.h"

std::unique_ptr<tacclrt::shim::ShimBackend> tacclrt::shim::makeCudaBackend() {
  return nullptr;
}
