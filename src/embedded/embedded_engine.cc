// make_embedded_engine: the Engine around an embedded interpreter (stateless run + sessions),
// both started from the engine's post-initialisation image.
#include <memory>
#include <stdexcept>

#include <sandbox/embedded.h>

#include "embedded/abi_driver.h"
#include "embedded/engine_state.h"
#include "embedded/guest_abi.h"
#include "embedded/session.h"

namespace sandbox {
namespace {

using embedded::EngineState;
using embedded::Guest;
using embedded::PooledGuest;

// One stateless execution on an instance in the image's state. Traps and internal errors throw
// (the kit reports them with empty logs); the guest's own errors are in the outcome. The
// instance is kept for a later run when it can be reset to the image; a caller that defers work
// (ExecutionRequest::defer) is handed that reset, to do once the outcome has left.
EngineOutcome run_once(const std::shared_ptr<EngineState>& owner, const ExecutionRequest& request) {
  EngineState& state = *owner;
  const auto image = state.image();
  std::unique_ptr<PooledGuest> stateless = state.take_guest(*image);
  Guest& guest = stateless->guest;
  guest.wasi().set_env(request.env_vars);
  guest.reset_fuel();
  state.driver->after_copy(guest);
  GuestReply reply;
  {
    // Scoped to the guest call: the instance goes back to the pool below, and must not keep
    // (or, once given back, be reached through) this call's observer.
    const embedded::OutputObserverScope observe(guest.wasi(), request.on_output);
    reply = state.driver->execute(
        guest, DriverRequest{request.code, kWorkspaceRoot, request.env_vars, /*reseed=*/true});
  }
  if (!guest.extension_empty()) {
    throw std::logic_error("The driver left host-side handles after a call");
  }
  EngineOutcome out;
  out.logs = guest.wasi().logs();
  out.results = std::move(reply.results);
  out.error = std::move(reply.error);
  out.usage = guest.usage();
  guest.wasi().set_env({});
  if (request.defer) {
    // The reset only prepares the instance for a later run: the caller does it once the
    // outcome has left (ExecutionRequest::defer).
    auto held = std::make_shared<std::unique_ptr<PooledGuest>>(std::move(stateless));
    request.defer([owner, held, image] {
      try {
        if (*held) owner->give_back(std::move(*held), *image);
      } catch (const std::exception&) {
        // A reset that failed leaves the instance dropped, as a refused one is.
      }
    });
  } else {
    state.give_back(std::move(stateless), *image);
  }
  embedded::check_result_limit(out.results);
  if (state.language.post_process) state.language.post_process(out);
  return out;
}

}  // namespace

Engine make_embedded_engine(const wasm::Module& module, EmbeddedLanguage language) {
  if (language.language.empty() || language.engine_name.empty()) {
    throw std::invalid_argument("An embedded engine needs a language and an engine name");
  }
  std::shared_ptr<const EmbeddedDriver> driver = language.driver;
  if (driver) {
    if (language.after_init || !language.fingerprint.empty()) {
      throw std::invalid_argument(
          "after_init and fingerprint belong to the built-in ABI, not to an engine with a driver");
    }
  } else {
    driver =
        std::make_shared<embedded::AbiDriver>(module, language.after_init, language.fingerprint);
  }
  auto state = std::make_shared<EngineState>(module, std::move(language), std::move(driver));

  Engine engine;
  engine.language = state->language.language;
  engine.engine_name = state->language.engine_name;
  engine.build = state->build;
  engine.limits = state->language.limits;
  if (engine.limits.memory_bytes == 0) {
    engine.limits.memory_bytes = std::uint64_t{state->module.max_pages()} * kWasmPageBytes;
  }
  engine.run = [state](const ExecutionRequest& request) { return run_once(state, request); };
  engine.sessions = Sessions{
      .boot =
          [state](const SessionOptions& options) {
            return embedded::EmbeddedSession::boot(state, options);
          },
      .restore =
          [state](const SessionOptions& options, const SnapshotSource& source) {
            return embedded::EmbeddedSession::restore(state, options, source);
          },
      .base = [state] { return state->snapshot_base(); },
  };
  return engine;
}

}  // namespace sandbox
