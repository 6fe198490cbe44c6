#include "gigaseg/core/image.hpp"

#if defined(__linux__)
#include <sys/mman.h>
#endif

#include <cstdint>

namespace gigaseg::detail {

void advise_huge_pages(void const* data, std::size_t bytes) noexcept {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  constexpr std::uintptr_t huge = std::uintptr_t(2) << 20;
  if (bytes < 2 * huge) return;
  auto const begin = (reinterpret_cast<std::uintptr_t>(data) + huge - 1) & ~(huge - 1);
  auto const end = (reinterpret_cast<std::uintptr_t>(data) + bytes) & ~(huge - 1);
  if (end > begin) (void)::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
#else
  (void)data, (void)bytes;
#endif
}

}  // namespace gigaseg::detail
