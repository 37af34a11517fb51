#include "models/base/time.h"

#include <gtest/gtest.h>

namespace ntpsim {
namespace {

TEST(Time, ArithmeticAndOrdering) {
  const Duration h = Duration::hours(1);
  EXPECT_EQ(h.us(), 3'600'000'000LL);
  EXPECT_DOUBLE_EQ(h.seconds(), 3600.0);
  const Time t = Time::start() + h;
  EXPECT_LT(Time::start(), t);
  EXPECT_EQ((t - Time::start()).us(), h.us());
  EXPECT_EQ(Duration::from_seconds(1.4999996).us(), 1'500'000);
}

TEST(Time, NeverSaturates) {
  EXPECT_EQ(Time::never() + Duration::hours(1), Time::never());
  EXPECT_EQ(Time::at(Duration::hours(1)) + Duration::max(), Time::never());
  EXPECT_EQ(Duration::from_seconds(1e300), Duration::max());
  EXPECT_LT(Time::at(Duration::hours(1e6)), Time::never());
  // A finite sum past never saturates; one just short of it does not; never less a span stays
  // never.
  const Time late = Time::at(Duration::micros(Duration::max().us() - 5));
  EXPECT_EQ(late + Duration::micros(6), Time::never());
  EXPECT_EQ(late + Duration::micros(1'000'000'000'000'000'000), Time::never());
  EXPECT_EQ((late + Duration::micros(4)).us(), Duration::max().us() - 1);
  EXPECT_EQ(Time::never() + Duration::micros(-5), Time::never());
  EXPECT_EQ((late + Duration::micros(-5)).us(), Duration::max().us() - 10);
}

}  // namespace
}  // namespace ntpsim
