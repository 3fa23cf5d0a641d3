#include "tridiagonal_checks.hpp"

using namespace bouss;
using namespace bouss::test;

template <class R>
class Tridiagonal : public ::testing::Test {};
TYPED_TEST_SUITE(Tridiagonal, Precisions);

TYPED_TEST(Tridiagonal, ThomasMatchesDenseLU) {
  for (int n : tridiagonal_lengths()) check_tridiagonal_against_dense<TypeParam>(Backend::cpu(), n, TridiagonalMethod::thomas);
}
TYPED_TEST(Tridiagonal, PcrMatchesDenseLU) {
  for (int n : tridiagonal_lengths()) check_tridiagonal_against_dense<TypeParam>(Backend::cpu(), n, TridiagonalMethod::pcr);
}
TYPED_TEST(Tridiagonal, AutomaticMatchesDenseLU) {
  for (int n : tridiagonal_lengths())
    check_tridiagonal_against_dense<TypeParam>(Backend::cpu(), n, TridiagonalMethod::automatic);
}
