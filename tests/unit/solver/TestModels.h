//===- tests/unit/solver/TestModels.h - MILPs the solver tests share -*- C++
//-*-===//
//
// Small MILPs with pseudo-random data from a fixed linear congruential
// generator, so that every run and every test sees the same instance.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_TESTS_UNIT_SOLVER_TESTMODELS_H
#define TACCLC_TESTS_UNIT_SOLVER_TESTMODELS_H

#include "solver/Model.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tacclc::solver::test {

/// A fixed linear congruential generator: next(Mod) is in [0, Mod).
class Lcg {
public:
  explicit Lcg(uint32_t Seed) : State(Seed) {}
  uint32_t next(uint32_t Mod) {
    State = State * 1103515245u + 12345u;
    return (State >> 16) % Mod;
  }

private:
  uint32_t State;
};

/// A 0/1 multi-knapsack, max sum p_i x_i subject to \p Rows capacity rows.
inline Model knapsack(unsigned Items = 60, unsigned Rows = 30) {
  Lcg Rand(12345);
  Model M;
  M.setSense(Sense::Maximize);
  for (unsigned I = 0; I < Items; ++I)
    M.addBinary("x" + std::to_string(I), 10 + Rand.next(90));
  for (unsigned R = 0; R < Rows; ++R) {
    std::vector<Term> Terms;
    for (unsigned I = 0; I < Items; ++I)
      Terms.push_back({VarId{I}, double(5 + Rand.next(95))});
    M.addLessEqual("cap" + std::to_string(R), Terms, 1000);
  }
  return M;
}

} // namespace tacclc::solver::test

#endif // TACCLC_TESTS_UNIT_SOLVER_TESTMODELS_H
