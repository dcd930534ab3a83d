// Fuzz target: the request bodies of sandboxd's sandbox routes (docs/sandbox-api.md#routes),
// through SandboxService::handle (what SandboxdHandler calls for /sandboxes/{id}/...), so the
// files API (decode_files_request and the ops), env (parse_env_patch), context creation and
// execute decoders run as they do for a client. Bindings: CALC (stateless) and FUZZ, a session
// engine (fuzz_engine.h) with contexts and snapshots, over an in-memory SQLite store.
//
// Input: records separated by 0xff (fuzz_input.h); each record's first byte picks the route on
// sandbox "fuzz", the rest is the body:
//   x  POST /execute     c  POST /contexts    e  POST /env    f  POST /files
//   d  DELETE /contexts/<body>    g  GET /    l  GET /contexts
//   i  GET / and DELETE / of the sandbox whose id is the body
//   D  the body through each request decoder and the ContextRecord row decoder directly
//      (src/protocol): a refusal must be an ApiError of a 4xx kind (docs/errors.md), never
//      another exception; and through the client's answer decoders (sandbox_responses.h),
//      whose only refusal is ApiError kInternal
// Every input ends with DELETE / so inputs do not depend on each other.
#include <cstddef>
#include <cstdint>
#include <memory>

#include <boost/json/parse.hpp>

#include <sandbox/clock.h>
#include <sandbox/runtime.h>

#include "calc_engine.h"
#include "fuzz_assert.h"
#include "fuzz_check.h"
#include "fuzz_engine.h"
#include "fuzz_input.h"
#include "interpreter/over_store.h"
#include "protocol/context_record.h"
#include "protocol/context_request.h"
#include "protocol/env_patch.h"
#include "protocol/execute_request.h"
#include "protocol/files_request.h"
#include "protocol/sandbox_execute_request.h"
#include "protocol/sandbox_responses.h"
#include "sandbox/local_binding.h"
#include "sandbox/sandbox_service.h"
#include "storage/sqlite/sqlite_stores.h"

namespace {

using namespace sandbox;

constexpr int kMaxRecords = 12;

struct World {
  World() {
    const RuntimeOptions options{.clock = &clock, .idle_ttl_ms = 0, .background_expiry = false};
    bindings.add(make_local_binding(
        "CALC",
        define_interpreter_runtime(engines::make_calc_engine(), storage.interpreters(), options)));
    bindings.add(
        make_local_binding("FUZZ", define_interpreter_runtime(fuzz::make_fuzz_session_engine(),
                                                              storage.interpreters(), options)));
    service = std::make_unique<SandboxService>(storage.sandboxes(), clock, bindings);
  }

  HttpResponse call(const std::string& id, const std::string& method, const std::string& path,
                    std::string_view body) {
    HttpResponse response = service->handle(id, method, path, std::string(body));
    fuzz::check_response(response, method + " /sandboxes/" + id + path);
    return response;
  }

  ManualClock clock;
  SqliteStorage storage{":memory:"};
  BindingSet bindings;
  std::unique_ptr<SandboxService> service;
};

// Runs `decode`; a refusal must be a request error (kBadRequest, kRequestTooLarge).
template <typename F>
void decode_only(F&& decode) {
  try {
    decode();
  } catch (const ApiError& e) {
    FUZZ_CHECK(e.status() >= 400 && e.status() < 500);
  }
}

// Runs `decode` on the body when it is a JSON object; a refusal must be ApiError kInternal.
template <typename F>
void decode_answer(F&& decode, std::string_view body) {
  boost::system::error_code ec;
  const boost::json::value v = boost::json::parse(body, ec);
  if (ec || !v.is_object()) return;
  try {
    decode(v.get_object());
  } catch (const ApiError& e) {
    FUZZ_CHECK(e.kind() == ErrorKind::kInternal);
  }
}

World& world() {
  static World* w = new World();  // never destroyed: libFuzzer may exit from any point
  return *w;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  World& w = world();
  const std::string id = "fuzz";
  fuzz::FuzzInput in(data, size);
  for (int n = 0; n < kMaxRecords && !in.empty(); ++n) {
    const std::string_view record = in.record();
    if (record.empty()) continue;
    const std::string_view body = record.substr(1);
    switch (record[0]) {
      case 'x':
        w.call(id, "POST", "/execute", body);
        break;
      case 'c':
        w.call(id, "POST", "/contexts", body);
        break;
      case 'e':
        w.call(id, "POST", "/env", body);
        break;
      case 'f':
        w.call(id, "POST", "/files", body);
        break;
      case 'd':
        w.call(id, "DELETE", "/contexts/" + std::string(body), "");
        break;
      case 'g':
        w.call(id, "GET", "/", "");
        break;
      case 'l':
        w.call(id, "GET", "/contexts", "");
        break;
      case 'D':
        decode_only([&] { (void)decode_sandbox_execute_request(body); });
        decode_only([&] { (void)decode_context_request(body); });
        decode_only([&] { (void)decode_env_request(body); });
        decode_only([&] { (void)decode_files_request(body); });
        // A stored registry row never throws, whatever it holds.
        decode_only([&] { (void)ContextRecord::from_json(parse_json_object(body)); });
        // The client's decoders of sandboxd answers (protocol/sandbox_responses.h) refuse with
        // ApiError kInternal "Invalid sandbox response: ..." only.
        decode_answer(
            [&](const boost::json::object& o) {
              (void)decode_sandbox_info(o);
              (void)decode_list_files_result(o);
              (void)decode_read_file_result(o);
              (void)decode_execution_context_info(o);
              (void)decode_language_list(o);
              (void)decode_interpreter_info(o);
            },
            body);
        break;
      case 'i': {
        const std::string other(body);
        w.call(other, "GET", "/", "");
        w.call(other, "DELETE", "/", "");
        break;
      }
      default:
        break;
    }
    w.clock.advance(1'000);
  }
  w.call(id, "DELETE", "/", "");
  return 0;
}
