#include "output.h"

#include <boost/json/serialize.hpp>

#include "error_format.h"

namespace sandbox::cli {

void print_result(const ExecutionResult& r, std::ostream& out, std::ostream& err) {
  for (const auto& line : r.outcome.logs.stdout_lines) out << line << "\n";
  out.flush();
  for (const auto& line : r.outcome.logs.stderr_lines) err << line << "\n";
  for (const auto& entry : r.outcome.results) {
    if (entry.json) {
      out << boost::json::serialize(*entry.json) << "\n";
    } else if (entry.text) {
      out << *entry.text << "\n";
    }
  }
  out.flush();
  if (r.outcome.error) {
    err << format_guest_error(r.language, *r.outcome.error);
  }
  err.flush();
}

int report_failure(const SandboxError& e, std::ostream& err) {
  err << "sandbox: " << e.what();
  if (e.http_status() != 0) {
    err << " (" << error_code_name(e.code()) << ", HTTP " << e.http_status() << ")";
  }
  err << "\n";
  err.flush();
  return kRequestFailed;
}

}  // namespace sandbox::cli
