//===- solver/SolutionCodec.cpp - A Solution as bytes ---------------------===//
//
// Fixed-width fields in host byte order (both ends are the same binary):
// status, time-limit flag, objective, bound, message length and bytes,
// value count and values. Decoding checks every length against what is
// left, so a truncated or garbled result is rejected, never read past.
//
//===----------------------------------------------------------------------===//
#include "solver/SolutionCodec.h"

#include <cstdint>
#include <cstring>

using namespace tacclc::solver;

std::string tacclc::solver::encodeSolution(const Solution &S) {
  std::string Out;
  auto Put = [&](const void *P, size_t N) {
    Out.append(static_cast<const char *>(P), N);
  };
  int32_t Status = static_cast<int32_t>(S.Status);
  uint8_t TimeLimit = S.HitTimeLimit;
  uint64_t MsgLen = S.Message.size(), NumValues = S.Values.size();
  Put(&Status, sizeof(Status));
  Put(&TimeLimit, sizeof(TimeLimit));
  Put(&S.Objective, sizeof(double));
  Put(&S.BestBound, sizeof(double));
  Put(&MsgLen, sizeof(MsgLen));
  Out += S.Message;
  Put(&NumValues, sizeof(NumValues));
  Put(S.Values.data(), NumValues * sizeof(double));
  return Out;
}

std::optional<Solution> tacclc::solver::decodeSolution(const std::string &In) {
  size_t Pos = 0;
  auto Get = [&](void *P, size_t N) {
    if (Pos + N > In.size())
      return false;
    std::memcpy(P, In.data() + Pos, N);
    Pos += N;
    return true;
  };
  Solution S;
  int32_t Status;
  uint8_t TimeLimit;
  uint64_t MsgLen, NumValues;
  if (!Get(&Status, sizeof(Status)) || !Get(&TimeLimit, sizeof(TimeLimit)) ||
      TimeLimit > 1 || !Get(&S.Objective, sizeof(double)) ||
      !Get(&S.BestBound, sizeof(double)) || !Get(&MsgLen, sizeof(MsgLen)) ||
      MsgLen > In.size() - Pos)
    return std::nullopt;
  S.Message = In.substr(Pos, MsgLen);
  Pos += MsgLen;
  if (!Get(&NumValues, sizeof(NumValues)) ||
      NumValues > (In.size() - Pos) / sizeof(double))
    return std::nullopt;
  S.Values.resize(NumValues);
  if (!Get(S.Values.data(), NumValues * sizeof(double)) || Pos != In.size())
    return std::nullopt;
  S.Status = static_cast<SolveStatus>(Status);
  S.HitTimeLimit = TimeLimit == 1;
  return S;
}
