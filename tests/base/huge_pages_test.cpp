#include "models/base/huge_pages.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <vector>

namespace ntpsim {
namespace {

using HugeVector = std::vector<int64_t, HugePageAllocator<int64_t>>;

uintptr_t address(const void* p) { return reinterpret_cast<uintptr_t>(p); }

TEST(HugePageAllocator, LargeArraysStartOnA2MiBBoundary) {
  // 3 MiB: a whole huge page and part of a second.
  HugeVector v(size_t{3} << 17);
  EXPECT_EQ(address(v.data()) % HugePageAllocator<int64_t>::kHugePage, 0u);
  // Zero-initialised by the vector, and every element writable.
  EXPECT_EQ(std::accumulate(v.begin(), v.end(), int64_t{0}), 0);
  std::iota(v.begin(), v.end(), int64_t{0});
  EXPECT_EQ(v.back(), static_cast<int64_t>(v.size()) - 1);
}

TEST(HugePageAllocator, SmallArraysAreOrdinaryAndBothKindsCopyAndGrow) {
  HugeVector small(100);
  std::iota(small.begin(), small.end(), int64_t{5});
  HugeVector copy = small;
  EXPECT_EQ(copy, small);
  // Growing from ordinary to huge-page storage and back keeps every element.
  copy.resize(size_t{1} << 19);
  EXPECT_EQ(address(copy.data()) % HugePageAllocator<int64_t>::kHugePage, 0u);
  for (size_t i = 0; i < small.size(); ++i) ASSERT_EQ(copy[i], small[i]);
  EXPECT_EQ(copy[small.size()], 0);
  copy.resize(small.size());
  copy.shrink_to_fit();
  EXPECT_EQ(copy, small);
}

TEST(HugePageAllocator, RefusesSizesThatOverflow) {
  HugePageAllocator<int64_t> a;
  EXPECT_THROW((void)a.allocate(SIZE_MAX / 2), std::bad_array_new_length);
}

}  // namespace
}  // namespace ntpsim
