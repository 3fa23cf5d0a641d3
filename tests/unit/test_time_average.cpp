// The time averages' arithmetic on the CPU (the gpu suite runs the same on CUDA).
#include <gtest/gtest.h>

#include "time_average_checks.hpp"

TEST(TimeAverage, TrapezoidalMeansAndCovariancesOfFieldsSampledAsARunSamplesThem) {
  bouss::test::check_time_averages(bouss::Backend::cpu());
}
