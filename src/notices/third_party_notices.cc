#include "notices/third_party_notices.h"

#include <cstddef>

extern "C" {
extern const char sandbox_third_party_notices_start[], sandbox_third_party_notices_end[];
}

namespace sandbox {

std::string_view third_party_notices() {
  return {sandbox_third_party_notices_start,
          static_cast<std::size_t>(sandbox_third_party_notices_end -
                                   sandbox_third_party_notices_start)};
}

}  // namespace sandbox
