// A session engine without Wasm, for testing the InterpreterServer: its "linear memory" is a
// byte vector (so snapshots, chunks and restores are real), its state is a counter stored at a
// fixed address of that memory, and its language is one command per call:
//
//   incr | get            -> the counter as the result (incr adds one first)
//   write PATH TEXT       -> writes a /workspace file
//   fail [PATH]           -> (writes PATH first, if given, then) a guest error
//   limit                 -> adds one, then an ExecutionLimitError outcome (instance stays valid)
//   trap                  -> adds one, then marks the instance invalid and reports a trap
//   throw                 -> execute() throws (a host bug)
//   open | close          -> holds / releases a "guest fd" (can_snapshot() is false meanwhile)
//   grow PAGES            -> grows memory to PAGES pages and fills the new pages
//   cd DIR                -> changes the working directory (reported through on_cwd_change)
#pragma once

#include <atomic>
#include <cstring>
#include <set>
#include <sstream>

#include <sandbox/engine.h>

namespace sandbox::test {

struct FakeEngineStats {
  bool track_dirty = false;  // report dirty pages from snapshot()
  std::atomic<int> boots{0};
  std::atomic<int> restores{0};
  std::atomic<int> closes{0};
  std::atomic<int> calls_expected{0};  // expect_call() hints, on every instance
  // Hints heard by an instance that had not run a call since (execute, snapshot or close): hints
  // that a call followed.
  std::atomic<int> hints_followed{0};
};

class FakeInstance final : public SessionInstance {
 public:
  static constexpr std::size_t kCounterOffset = 5 * kWasmPageBytes + 12;

  FakeInstance(const SessionOptions& options, FakeEngineStats& stats, std::uint32_t pages)
      : options_(options),
        stats_(stats),
        memory_(std::size_t{pages} * kWasmPageBytes),
        cwd_(options.cwd) {
    // Some non-zero "static data" in page 0 and page 17 (another chunk).
    std::memcpy(memory_.data() + 100, "fake engine", 11);
    memory_[17 * kWasmPageBytes + 1] = 7;
  }

  std::string cwd() const override { return cwd_; }
  bool invalid() const override { return invalid_; }
  bool can_snapshot() const override { return !invalid_ && !closed_ && !open_fd_; }
  void expect_call() override {
    ++stats_.calls_expected;
    hinted_ = true;
  }
  void close() override {
    called();
    closed_ = true;
    ++stats_.closes;
  }
  SessionSnapshot snapshot() override {
    called();
    SessionSnapshot snap{42, boost::json::object{{"fake", true}}, memory_, std::nullopt};
    if (stats_.track_dirty) {
      snap.dirty_pages = std::vector<std::uint32_t>(dirty_.begin(), dirty_.end());
      dirty_.clear();
    }
    return snap;
  }

  std::vector<std::uint8_t>& memory() { return memory_; }

  SessionOutcome execute(const ExecutionRequest& request) override {
    called();
    std::istringstream in(request.code);
    std::string cmd;
    in >> cmd;
    SessionOutcome out;
    out.cwd = cwd_;
    out.usage = Usage{1, 100, memory_.size()};
    auto error = [&](std::string name, std::string message) {
      out.error = ExecutionError{std::move(name), std::move(message), {}, std::nullopt};
    };
    if (cmd == "incr" || cmd == "get") {
      if (cmd == "incr") set_counter(counter() + 1);
      out.results.push_back(ResultEntry::of_text(std::to_string(counter())));
    } else if (cmd == "write") {
      std::string path, text;
      in >> path;
      std::getline(in >> std::ws, text);
      options_.workspace->write(path, text, Encoding::kUtf8, cwd_);
    } else if (cmd == "fail") {
      std::string path;
      if (in >> path) options_.workspace->write(path, "partial", Encoding::kUtf8, cwd_);
      error("GuestError", "failed on purpose");
    } else if (cmd == "limit") {
      set_counter(counter() + 1);
      error(kExecutionLimitErrorName, "Execution fuel exhausted");
    } else if (cmd == "trap") {
      set_counter(counter() + 1);
      invalid_ = true;
      error(kExecutionLimitErrorName, "Execution time limit exceeded");
    } else if (cmd == "throw") {
      throw std::runtime_error("host bug");
    } else if (cmd == "open") {
      open_fd_ = true;
    } else if (cmd == "close") {
      open_fd_ = false;
    } else if (cmd == "grow") {
      std::size_t pages = 0;
      in >> pages;
      const std::size_t old = memory_.size();
      memory_.resize(pages * kWasmPageBytes);
      for (std::size_t i = old; i < memory_.size(); i += 4096) memory_[i] = 1;
      for (std::size_t p = old / kWasmPageBytes; p < pages; ++p)
        dirty_.insert(static_cast<std::uint32_t>(p));
    } else if (cmd == "cd") {
      std::string dir;
      in >> dir;
      cwd_ = normalize_workspace_path(dir, cwd_).absolute;
      if (options_.on_cwd_change) options_.on_cwd_change(cwd_);
      out.cwd = cwd_;
    } else {
      error("SyntaxError", "unknown command '" + cmd + "'");
    }
    return out;
  }

 private:
  void called() {
    if (hinted_) ++stats_.hints_followed;
    hinted_ = false;
  }
  std::uint64_t counter() const {
    std::uint64_t v;
    std::memcpy(&v, memory_.data() + kCounterOffset, sizeof v);
    return v;
  }
  void set_counter(std::uint64_t v) {
    std::memcpy(memory_.data() + kCounterOffset, &v, sizeof v);
    dirty_.insert(kCounterOffset / kWasmPageBytes);
  }

  SessionOptions options_;
  FakeEngineStats& stats_;
  std::vector<std::uint8_t> memory_;
  std::string cwd_;
  bool invalid_ = false;
  bool closed_ = false;
  bool open_fd_ = false;
  bool hinted_ = false;  // expect_call() came after the last call
  std::set<std::uint32_t> dirty_;
};

// The engine around FakeInstance; `stats` must outlive it.
inline Engine make_fake_session_engine(FakeEngineStats& stats, std::string build = "fake-1") {
  Engine e;
  e.language = "fake";
  e.engine_name = "fake 1.0";
  e.build = std::move(build);
  e.limits = {100, 1 << 20, 65536, 98304};
  e.run = [](const ExecutionRequest& r) {
    EngineOutcome o;
    if (r.code == "fail") {
      o.error = ExecutionError{"GuestError", "failed on purpose", {}, std::nullopt};
    } else {
      o.results.push_back(ResultEntry::of_text("1"));
    }
    return o;
  };
  e.sessions = Sessions{
      [&stats](const SessionOptions& options) -> std::unique_ptr<SessionInstance> {
        ++stats.boots;
        return std::make_unique<FakeInstance>(options, stats, 24);
      },
      [&stats](const SessionOptions& options,
               const SnapshotSource& source) -> std::unique_ptr<SessionInstance> {
        ++stats.restores;
        if (source.handle != 42) throw std::runtime_error("wrong handle");
        auto instance = std::make_unique<FakeInstance>(options, stats, source.memory_pages);
        auto& memory = instance->memory();
        std::fill(memory.begin(), memory.end(), 0);
        for (std::uint32_t p = 0; p < source.memory_pages; ++p) {
          if (auto page = source.read_page(p)) {
            std::memcpy(memory.data() + std::size_t{p} * kWasmPageBytes, page->data(),
                        page->size());
          }
        }
        return instance;
      }};
  return e;
}

}  // namespace sandbox::test
