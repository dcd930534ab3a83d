#include "embedded/session.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "base/base64.h"
#include "embedded/guest_abi.h"

namespace sandbox::embedded {
namespace {

constexpr std::string_view kGlobalsKey = "globals";

}  // namespace

WasiOptions session_wasi_options(const EngineConfig& config, const SessionOptions& options) {
  if (options.workspace == nullptr) {
    throw std::invalid_argument("SessionOptions::workspace is required");
  }
  return WasiOptions{.stdlib = config.language.stdlib, .workspace = options.workspace};
}

EmbeddedSession::EmbeddedSession(std::shared_ptr<const EngineConfig> config,
                                 std::unique_ptr<GuestInstance> guest,
                                 const SessionOptions& options)
    : config_(std::move(config)),
      workspace_(options.workspace),
      on_cwd_change_(options.on_cwd_change),
      guest_(std::move(guest)),
      cwd_(options.cwd.empty() ? std::string(kWorkspaceRoot) : options.cwd) {
  guest_->set_cwd(cwd_);
  // From here on, snapshot() can say which pages a step wrote (best effort: without tracking
  // the server hashes the whole memory).
  guest_->instance().track_writes();
}

std::unique_ptr<SessionInstance> EmbeddedSession::boot(std::shared_ptr<const EngineConfig> config,
                                                       const SessionOptions& options) {
  auto guest = std::make_unique<GuestInstance>(config, session_wasi_options(*config, options));
  guest->set_cwd(options.cwd);
  guest->reset_fuel();
  guest->initialize();
  if (config->language.after_init) config->language.after_init(*guest);
  return std::make_unique<EmbeddedSession>(std::move(config), std::move(guest), options);
}

std::unique_ptr<SessionInstance> EmbeddedSession::restore(
    std::shared_ptr<const EngineConfig> config, const SessionOptions& options,
    const SnapshotSource& source) {
  auto guest = std::make_unique<GuestInstance>(config, session_wasi_options(*config, options));
  wasm::Instance& instance = guest->instance();
  instance.prepare_restore(source.memory_pages);
  const auto memory = instance.memory();
  const std::uint32_t initial_pages = instance.module().initial_pages();
  if (source.read_page) {
    for (std::uint32_t page = 0; page < source.memory_pages; ++page) {
      const auto bytes = source.read_page(page);
      if (!bytes) {
        // All zero when the snapshot was taken. Only pages of the initial memory can hold
        // anything now (data segments, written at instantiation): clear those.
        if (page < initial_pages) {
          std::uint8_t* p = memory.data() + std::size_t{page} * kWasmPageBytes;
          if (std::any_of(p, p + kWasmPageBytes, [](std::uint8_t b) { return b != 0; })) {
            std::memset(p, 0, kWasmPageBytes);
          }
        }
        continue;
      }
      if (bytes->size() != kWasmPageBytes) {
        throw std::runtime_error("Snapshot page " + std::to_string(page) + " has " +
                                 std::to_string(bytes->size()) + " bytes");
      }
      std::memcpy(memory.data() + std::size_t{page} * kWasmPageBytes, bytes->data(),
                  kWasmPageBytes);
    }
  }
  if (const auto* globals = source.extra.if_contains(kGlobalsKey)) {
    if (!globals->is_string()) throw std::runtime_error("Snapshot globals are not a string");
    const auto bytes = base64_decode(globals->get_string());
    if (!bytes) throw std::runtime_error("Snapshot globals are not base64");
    instance.load_globals(*bytes);
  }
  guest->set_cwd(options.cwd);
  guest->reset_fuel();
  guest->after_restore();
  return std::make_unique<EmbeddedSession>(std::move(config), std::move(guest), options);
}

void EmbeddedSession::update_cwd(const std::string& reported) {
  if (reported.empty()) return;
  std::string next(kWorkspaceRoot);
  try {
    const NormalizedPath path = normalize_workspace_path(reported, cwd_);
    if (workspace_->stat(path.absolute, cwd_).type == WorkspaceNode::Type::kDirectory) {
      next = path.absolute;
    }
  } catch (const WorkspaceError&) {
    // Outside /workspace, missing, or the File API is disabled: back to the root.
  }
  if (next != cwd_) {
    cwd_ = std::move(next);
    guest_->set_cwd(cwd_);
    if (on_cwd_change_) on_cwd_change_(cwd_);
  }
}

SessionOutcome EmbeddedSession::execute(const ExecutionRequest& request) {
  if (state_ != State::kIdle) throw std::logic_error("execute() on an invalid session");
  SessionOutcome out;
  try {
    guest_->reset_fuel();
    guest_->wasi().reset_logs();
    GuestReply reply = guest_->eval_request(encode_request(request.code, cwd_, request.env_vars));
    update_cwd(reply.cwd);
    check_result_limit(reply.results);
    out.logs = guest_->wasi().logs();
    out.results = std::move(reply.results);
    out.error = std::move(reply.error);
    out.usage = guest_->usage();
    if (config_->language.post_process) config_->language.post_process(out);
  } catch (const std::exception& e) {
    state_ = State::kInvalid;
    out = SessionOutcome{};
    out.logs = guest_->wasi().logs();
    out.error = engine_error_outcome(e).error;
    out.usage = guest_->usage();
  } catch (...) {
    state_ = State::kInvalid;
    out = SessionOutcome{};
    out.logs = guest_->wasi().logs();
    out.error = ExecutionError{"EngineError", "Unknown engine failure", {}, std::nullopt};
    out.usage = guest_->usage();
  }
  out.cwd = cwd_;
  return out;
}

bool EmbeddedSession::can_snapshot() const {
  return state_ == State::kIdle && guest_ && !guest_->wasi().has_open_guest_fds() &&
         guest_->instance().state() == wasm::InstanceState::kReady;
}

SessionSnapshot EmbeddedSession::snapshot() {
  if (!can_snapshot()) throw std::logic_error("snapshot() requires can_snapshot()");
  SessionSnapshot snap;
  snap.handle = 0;
  snap.extra[kGlobalsKey] = base64_encode(guest_->instance().save_globals());
  snap.memory = guest_->instance().memory();
  snap.dirty_pages = guest_->instance().take_dirty_pages();
  return snap;
}

void EmbeddedSession::close() {
  state_ = State::kInvalid;
  guest_.reset();
}

}  // namespace sandbox::embedded
