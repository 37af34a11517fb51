// An allocator for large arrays read at random places (a large cluster's per-GPU state): storage
// of 2 MiB or more is aligned to 2 MiB and, on Linux, marked for transparent huge pages before
// its first touch, so that the kernel backs it with 2 MiB pages where it can. A random access
// into an array of several MiB then needs one TLB entry per 2 MiB rather than per 4 KiB (a 1M-GPU
// cluster's 8 MiB GPU array spans 2,048 small pages, as many as a core's second-level TLB holds).
// Only where and how the memory is placed changes: the contents, and every result, are the same.
// Smaller arrays, other systems and kernels with huge pages off get ordinary memory.
// Thread safety: stateless; any thread.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <new>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace ntpsim {

template <typename T>
struct HugePageAllocator {
  using value_type = T;
  static constexpr size_t kHugePage = size_t{2} << 20;

  HugePageAllocator() = default;
  template <typename U>
  HugePageAllocator(const HugePageAllocator<U>&) noexcept {}  // NOLINT: rebinding, as std's

  T* allocate(size_t n) {
    // Room for the rounding up to whole huge pages below, so that it cannot wrap around.
    if (n > (static_cast<size_t>(-1) - kHugePage) / sizeof(T)) throw std::bad_array_new_length();
    const size_t bytes = n * sizeof(T);
    if (bytes < kHugePage) return static_cast<T*>(::operator new(bytes));
    // aligned_alloc needs a multiple of the alignment.
    const size_t rounded = (bytes + kHugePage - 1) / kHugePage * kHugePage;
    void* p = std::aligned_alloc(kHugePage, rounded);
    if (p == nullptr) throw std::bad_alloc();
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    ::madvise(p, rounded, MADV_HUGEPAGE);  // a hint: refused, the memory stays as it is
#endif
    return static_cast<T*>(p);
  }
  void deallocate(T* p, size_t n) noexcept {
    if (n * sizeof(T) < kHugePage) {
      ::operator delete(p);
    } else {
      std::free(p);
    }
  }
  template <typename U>
  bool operator==(const HugePageAllocator<U>&) const noexcept {
    return true;
  }
};

}  // namespace ntpsim
