// A small session engine for the request fuzz targets: durable code contexts with real
// snapshots (two pages of "linear memory" holding a counter) and workspace writes, in bounded
// time and memory whatever the code says. The commands (one per call):
//
//   write PATH TEXT   writes a /workspace file (a workspace error is a guest error)
//   cd DIR            changes the working directory (reported through on_cwd_change)
//   fail              a guest error
//   trap              marks the instance invalid (as a trapped Wasm instance)
//   anything else     adds one to the counter and returns it
#pragma once

#include <cstring>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>

#include <sandbox/engine.h>

namespace sandbox::fuzz {

class FuzzInstance final : public SessionInstance {
 public:
  static constexpr std::uint32_t kPages = 2;
  static constexpr std::size_t kCounterOffset = kWasmPageBytes + 8;
  static constexpr std::uint64_t kHandle = 7;

  explicit FuzzInstance(const SessionOptions& options)
      : options_(options), memory_(std::size_t{kPages} * kWasmPageBytes), cwd_(options.cwd) {}

  std::string cwd() const override { return cwd_; }
  bool invalid() const override { return invalid_; }
  bool can_snapshot() const override { return !invalid_ && !closed_; }
  void close() override { closed_ = true; }
  SessionSnapshot snapshot() override {
    return SessionSnapshot{kHandle, boost::json::object{{"fuzz", true}}, memory_, std::nullopt};
  }
  std::vector<std::uint8_t>& memory() { return memory_; }

  SessionOutcome execute(const ExecutionRequest& request) override {
    std::istringstream in(request.code);
    std::string cmd;
    in >> cmd;
    SessionOutcome out;
    auto error = [&](std::string name, std::string message) {
      out.error = ExecutionError{std::move(name), std::move(message), {}, std::nullopt};
    };
    try {
      if (cmd == "write") {
        std::string path, text;
        in >> path;
        std::getline(in >> std::ws, text);
        options_.workspace->write(path, text, Encoding::kUtf8, cwd_);
      } else if (cmd == "cd") {
        std::string dir;
        in >> dir;
        cwd_ = normalize_workspace_path(dir, cwd_).absolute;
        if (options_.on_cwd_change) options_.on_cwd_change(cwd_);
      } else if (cmd == "fail") {
        error("GuestError", "failed on purpose");
      } else if (cmd == "trap") {
        invalid_ = true;
        error(kExecutionLimitErrorName, "Execution time limit exceeded");
      } else {
        std::uint64_t counter;
        std::memcpy(&counter, memory_.data() + kCounterOffset, sizeof counter);
        ++counter;
        std::memcpy(memory_.data() + kCounterOffset, &counter, sizeof counter);
        out.results.push_back(ResultEntry::of_text(std::to_string(counter)));
      }
    } catch (const WorkspaceError& e) {
      error("OSError", e.what());
    }
    out.cwd = cwd_;
    out.usage = Usage{1, 1, memory_.size()};
    return out;
  }

 private:
  SessionOptions options_;
  std::vector<std::uint8_t> memory_;
  std::string cwd_;
  bool invalid_ = false;
  bool closed_ = false;
};

inline Engine make_fuzz_session_engine() {
  Engine e;
  e.language = "fuzz";
  e.engine_name = "fuzz 1.0";
  e.build = "fuzz-1";
  e.limits = {100, 1 << 20, 65536, 98304};
  e.run = [](const ExecutionRequest& r) {
    EngineOutcome o;
    o.results.push_back(ResultEntry::of_text(std::to_string(r.code.size())));
    return o;
  };
  e.sessions = Sessions{
      [](const SessionOptions& options) -> std::unique_ptr<SessionInstance> {
        return std::make_unique<FuzzInstance>(options);
      },
      [](const SessionOptions& options,
         const SnapshotSource& source) -> std::unique_ptr<SessionInstance> {
        if (source.handle != FuzzInstance::kHandle || source.memory_pages != FuzzInstance::kPages) {
          throw std::runtime_error("not a snapshot of the fuzz engine");
        }
        auto instance = std::make_unique<FuzzInstance>(options);
        for (std::uint32_t p = 0; p < source.memory_pages; ++p) {
          if (auto page = source.read_page(p)) {
            std::memcpy(instance->memory().data() + std::size_t{p} * kWasmPageBytes, page->data(),
                        std::min<std::size_t>(page->size(), kWasmPageBytes));
          }
        }
        return instance;
      }};
  return e;
}

}  // namespace sandbox::fuzz
