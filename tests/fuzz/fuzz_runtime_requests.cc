// Fuzz target: the request bodies of a runtime server (docs/protocol.md#runtime-routes,
// docs/protocol.md#resync-handshake), through
// the same entry point the HTTP server calls (InterpreterRuntime::handle), so every decoder runs
// exactly as it does for a client: parse_execute_request (POST /execute),
// parse_http_execute_args (POST /interpreters/:key/execute), the context creation body, and the
// stored context row (parse_context_row). The engine is a small session engine
// (fuzz_engine.h) over an in-memory SQLite store.
//
// Input: records separated by 0xff (fuzz_input.h); each record's first byte picks the route,
// the rest is the body:
//   x  POST /execute                     c  POST /interpreters/fuzz/contexts
//   i  POST /interpreters/fuzz/execute   d  DELETE /interpreters/fuzz/contexts/<body>
//   k  POST /interpreters/<body>/contexts {"id":"a"}   (the key in the path)
//   r  parse_context_row of the body (what storage hands back)
//   D  the body through parse_execute_request and parse_http_execute_args directly: a refusal
//      must be an ApiError of a 4xx kind (docs/errors.md), never another exception
// Every input ends with DELETE /interpreters/fuzz/ so inputs do not depend on each other.
#include <cstddef>
#include <cstdint>
#include <memory>

#include <sandbox/clock.h>
#include <sandbox/runtime.h>

#include "fuzz_assert.h"
#include "fuzz_check.h"
#include "fuzz_engine.h"
#include "fuzz_input.h"
#include "interpreter/over_store.h"
#include "protocol/context_row.h"
#include "protocol/execute_request.h"
#include "protocol/interpreter_execute_request.h"
#include "storage/sqlite/sqlite_stores.h"

namespace {

using namespace sandbox;

// At most this many requests per input (keeps one input's cost bounded).
constexpr int kMaxRecords = 12;

struct World {
  ManualClock clock;
  SqliteStorage storage{":memory:"};
  std::unique_ptr<InterpreterRuntime> runtime = define_interpreter_runtime(
      fuzz::make_fuzz_session_engine(), storage.interpreters(),
      RuntimeOptions{.clock = &clock, .idle_ttl_ms = 0, .background_expiry = false});

  HttpResponse call(std::string method, std::string target, std::string_view body) {
    HttpRequest request{std::move(method),
                        std::move(target),
                        {{"content-type", "application/json"}},
                        std::string(body)};
    const std::string what = request.method + " " + request.target;
    HttpResponse response = runtime->handle(std::move(request));
    fuzz::check_response(response, what);
    return response;
  }
};

World& world() {
  static World* w = new World();  // never destroyed: libFuzzer may exit from any point
  return *w;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  World& w = world();
  fuzz::FuzzInput in(data, size);
  for (int n = 0; n < kMaxRecords && !in.empty(); ++n) {
    const std::string_view record = in.record();
    if (record.empty()) continue;
    const std::string_view body = record.substr(1);
    switch (record[0]) {
      case 'x':
        w.call("POST", "/execute", body);
        break;
      case 'c':
        w.call("POST", "/interpreters/fuzz/contexts", body);
        break;
      case 'i':
        w.call("POST", "/interpreters/fuzz/execute", body);
        break;
      case 'd':
        w.call("DELETE", "/interpreters/fuzz/contexts/" + std::string(body), "");
        break;
      case 'k': {
        const std::string key(body);
        w.call("POST", "/interpreters/" + key + "/contexts", R"({"id":"a"})");
        w.call("DELETE", "/interpreters/" + key + "/", "");
        break;
      }
      case 'D':
        for (const auto& decode :
             {+[](std::string_view b) { (void)parse_execute_request(b, "lua"); },
              +[](std::string_view b) { (void)parse_http_execute_args(b); }}) {
          try {
            decode(body);
          } catch (const ApiError& e) {
            FUZZ_CHECK(e.status() >= 400 && e.status() < 500);
          }
        }
        break;
      case 'r':
        try {
          (void)parse_context_row(parse_json_object(body));
        } catch (const std::exception&) {
          // A malformed row is refused with an exception; anything else would be the finding.
        }
        break;
      default:
        break;
    }
  }
  w.call("DELETE", "/interpreters/fuzz/", "");
  return 0;
}
