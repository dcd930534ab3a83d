// WasiHost: the public face of HostState.
#include <sandbox/wasi.h>

#include "wasi/host_state.h"

namespace sandbox {

WasiHost::WasiHost(WasiOptions options)
    : state_(std::make_unique<wasi::HostState>(std::move(options))) {}

WasiHost::~WasiHost() = default;

void* WasiHost::import_context() { return state_.get(); }

void WasiHost::attach_memory(wasm_rt_memory_t* memory) {
  state_->memory = wasi::GuestMemory(memory);
}

void WasiHost::capture(OutputStream stream, std::string_view bytes) {
  if (!state_->output.append(stream, bytes)) throw ExecutionLimitError("Output limit exceeded");
}

Logs WasiHost::logs() const { return state_->output.logs(); }

void WasiHost::reset_logs() { state_->output.reset(); }

bool WasiHost::output_limit_exceeded() const { return state_->output.exceeded(); }

void WasiHost::set_output_observer(OutputObserver observer) {
  state_->output.set_observer(std::move(observer));
}

void WasiHost::set_env(const std::map<std::string, std::string>& env) {
  std::vector<std::string> strings;
  strings.reserve(env.size());
  for (const auto& [key, value] : env) strings.push_back(key + "=" + value);
  state_->environ = std::move(strings);
}

std::uint32_t WasiHost::fd_base() const { return state_->fds.fd_base(); }

bool WasiHost::has_open_guest_fds() const { return state_->fds.has_open_guest_fds(); }

void WasiHost::restore_fixed_fds() { state_->fds.restore_fixed(); }

void WasiHost::remount_workspace(Workspace* workspace) { state_->remount_workspace(workspace); }

std::optional<std::uint32_t> WasiHost::exit_code() const { return state_->exit_code; }

std::string WasiHost::host_error() const { return state_->host_error; }

}  // namespace sandbox
