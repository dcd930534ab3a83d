// make_embedded_engine: the Engine around an embedded interpreter (stateless run + sessions).
#include <sandbox/embedded.h>

#include <stdexcept>

#include "embedded/guest.h"
#include "embedded/guest_abi.h"
#include "embedded/session.h"

namespace sandbox {
namespace {

using embedded::EngineConfig;
using embedded::GuestInstance;

// One stateless execution in a fresh instance. Traps and internal errors throw (the kit reports
// them with empty logs); the guest's own errors are in the outcome.
EngineOutcome run_once(const std::shared_ptr<const EngineConfig>& config,
                       const ExecutionRequest& request) {
  GuestInstance guest(config, WasiOptions{.stdlib = config->language.stdlib,
                                          .env = request.env_vars});
  guest.reset_fuel();
  guest.initialize();
  if (config->language.after_init) config->language.after_init(guest);
  GuestReply reply =
      guest.eval_request(embedded::encode_request(request.code, {}, request.env_vars));
  embedded::check_result_limit(reply.results);
  EngineOutcome out;
  out.logs = guest.wasi().logs();
  out.results = std::move(reply.results);
  out.error = std::move(reply.error);
  out.usage = guest.usage();
  if (config->language.post_process) config->language.post_process(out);
  return out;
}

}  // namespace

Engine make_embedded_engine(const wasm::Module& module, EmbeddedLanguage language) {
  if (language.language.empty() || language.engine_name.empty()) {
    throw std::invalid_argument("An embedded engine needs a language and an engine name");
  }
  auto config = std::make_shared<const EngineConfig>(module, std::move(language));
  const EmbeddedLanguage& lang = config->language;

  Engine engine;
  engine.language = lang.language;
  engine.engine_name = lang.engine_name;
  engine.build = lang.build.empty() ? std::string(module.wasm_sha256()) : lang.build;
  engine.limits = lang.limits;
  if (engine.limits.memory_bytes == 0) {
    engine.limits.memory_bytes = std::uint64_t{module.max_pages()} * kWasmPageBytes;
  }
  engine.run = [config](const ExecutionRequest& request) { return run_once(config, request); };
  engine.sessions = Sessions{
      .boot =
          [config](const SessionOptions& options) {
            return embedded::EmbeddedSession::boot(config, options);
          },
      .restore =
          [config](const SessionOptions& options, const SnapshotSource& source) {
            return embedded::EmbeddedSession::restore(config, options, source);
          },
  };
  return engine;
}

}  // namespace sandbox
