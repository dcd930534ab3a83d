// FaultInjector: a seam for crash-safety tests. A backend consults it before every statement
// that writes (INSERT, UPDATE, DELETE, and the COMMIT of a transaction); the hook may throw to
// make that statement fail, or end the process to simulate a crash at that point. Production
// code passes none.
#pragma once

#include <string_view>

namespace sandbox {

class FaultInjector {
 public:
  virtual ~FaultInjector() = default;
  // Called with the statement's SQL text just before it runs. Throwing aborts the operation
  // (its transaction rolls back); returning lets the statement run.
  virtual void before_write(std::string_view sql) = 0;
};

}  // namespace sandbox
