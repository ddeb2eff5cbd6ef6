//===- shim/NcclAbi.h - NCCL's C interface, for the shim --------*- C++ -*-===//
//
// The types and values of NCCL's C API (2.28) that libtaccl-nccl exports and
// forwards: result codes, data types, reduction operators, the unique id,
// and the opaque handles (communicator, configuration, window, stream). They
// are written out here so that the shim and its tests build without CUDA or
// NCCL installed; builds with CUDA define TACCL_USE_REAL_NCCL_H and take the
// real nccl.h instead. Pointers to configurations and streams pass through
// untouched.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_SHIM_NCCLABI_H
#define TACCLC_SHIM_NCCLABI_H

#include <cstddef>

#ifdef TACCL_USE_REAL_NCCL_H
#include <nccl.h>
#endif

extern "C" {
// NCCL's device API (nccl_device/core.h) in the host functions the shim
// forwards: handles passed by pointer, and a team returned by value.
struct ncclDevComm;
struct ncclDevCommRequirements;
struct TacclNcclTeam {
  int nRanks, rank, stride;
};
}

#ifndef TACCL_USE_REAL_NCCL_H
extern "C" {

typedef struct ncclComm *ncclComm_t;
typedef struct ncclWindow_vidmem *ncclWindow_t;
typedef struct CUstream_st *cudaStream_t;
/// Passed by pointer only (their layouts are NCCL's).
typedef struct ncclConfig_v22800 ncclConfig_t;
typedef struct ncclSimInfo_v22200 ncclSimInfo_t;

typedef struct {
  char internal[128];
} ncclUniqueId;

typedef enum {
  ncclSuccess = 0,
  ncclUnhandledCudaError = 1,
  ncclSystemError = 2,
  ncclInternalError = 3,
  ncclInvalidArgument = 4,
  ncclInvalidUsage = 5,
  ncclRemoteError = 6,
  ncclInProgress = 7,
  ncclNumResults = 8
} ncclResult_t;

typedef enum {
  ncclInt8 = 0,
  ncclUint8 = 1,
  ncclInt32 = 2,
  ncclUint32 = 3,
  ncclInt64 = 4,
  ncclUint64 = 5,
  ncclFloat16 = 6,
  ncclFloat32 = 7,
  ncclFloat64 = 8,
  ncclBfloat16 = 9,
  ncclFloat8e4m3 = 10,
  ncclFloat8e5m2 = 11
} ncclDataType_t;

/// Built-in operators; values from 5 up are PreMulSum operators NCCL made.
typedef enum {
  ncclSum = 0,
  ncclProd = 1,
  ncclMax = 2,
  ncclMin = 3,
  ncclAvg = 4,
  ncclMaxRedOp = 0x7fffffff
} ncclRedOp_t;

typedef enum {
  ncclScalarDevice = 0,
  ncclScalarHostImmediate = 1
} ncclScalarResidence_t;

// The functions (what libtaccl-nccl exports).
#define NCCL_FN(Name, Params, Args) ncclResult_t Name Params;
#include "shim/NcclFunctions.def"
const char *ncclGetErrorString(ncclResult_t result);
const char *ncclGetLastError(ncclComm_t comm);

} // extern "C"
#endif

#endif // TACCLC_SHIM_NCCLABI_H
