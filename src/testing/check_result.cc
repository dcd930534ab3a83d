#include <sandbox/testing/check_result.h>

namespace sandbox::testing {

std::ostream& operator<<(std::ostream& os, const CheckResult& result) {
  os << result.name;
  for (const auto& failure : result.failures) os << "\n  " << failure;
  return os;
}

}  // namespace sandbox::testing
