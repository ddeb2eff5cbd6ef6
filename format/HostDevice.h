//===- format/HostDevice.h - Code shared by host and kernel -----*- C++ -*-===//
//
// TACCLRT_HD marks a function that the CUDA interpreter calls on the GPU and
// host code (the CPU executor, the tests that run the kernel's contract on
// the host) calls on the CPU: __host__ __device__ under nvcc, nothing under
// a host compiler. One definition then serves both, so the two can never
// disagree on a layout.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_FORMAT_HOSTDEVICE_H
#define TACCLC_FORMAT_HOSTDEVICE_H

#if defined(__CUDACC__)
#define TACCLRT_HD __host__ __device__
#else
#define TACCLRT_HD
#endif

#endif // TACCLC_FORMAT_HOSTDEVICE_H
