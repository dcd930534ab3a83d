// Engines over the ABI probe guest (tests/guests/wasi/abi_probe.c) and snapshot helpers.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <vector>

#include <sandbox/embedded.h>

#include "guest_abi_probe.h"

namespace sandbox::testing_embedded {

inline const wasm::Module& probe_module() {
  static const wasm::Module module(*sandbox_wasm_module_guest_abi_probe());
  return module;
}

inline constexpr std::uint64_t kProbeFuel = 20'000'000;

inline EmbeddedLanguage probe_language() {
  return EmbeddedLanguage{.language = "probe",
                          .engine_name = "ABI probe 1.0",
                          .limits = {.fuel = kProbeFuel,
                                     .memory_bytes = 32 << 20,
                                     .code_bytes = 65'536,
                                     .request_bytes = 98'304}};
}

inline Engine probe_engine(EmbeddedLanguage language = probe_language()) {
  return make_embedded_engine(probe_module(), std::move(language));
}

inline ExecutionRequest req(std::string code, std::map<std::string, std::string> env = {}) {
  return ExecutionRequest{std::move(code), std::move(env)};
}

inline std::string text_of(const EngineOutcome& o) {
  if (o.results.size() != 1 || !o.results[0].text) return "<no text result>";
  return *o.results[0].text;
}

// A stored snapshot: the non-zero pages of a session's memory, as the server keeps them.
struct StoredSnapshot {
  std::uint64_t handle = 0;
  boost::json::object extra;
  std::uint32_t pages = 0;
  std::map<std::uint32_t, std::vector<std::uint8_t>> data;

  static StoredSnapshot of(SessionInstance& session) {
    const SessionSnapshot snap = session.snapshot();
    StoredSnapshot s;
    s.handle = snap.handle;
    s.extra = snap.extra;
    s.pages = static_cast<std::uint32_t>(snap.memory.size() / kWasmPageBytes);
    for (std::uint32_t p = 0; p < s.pages; ++p) {
      const auto page = snap.memory.subspan(std::size_t{p} * kWasmPageBytes, kWasmPageBytes);
      bool zero = true;
      for (std::uint8_t b : page) {
        if (b != 0) {
          zero = false;
          break;
        }
      }
      if (!zero) s.data.emplace(p, std::vector<std::uint8_t>(page.begin(), page.end()));
    }
    return s;
  }

  SnapshotSource source() const {
    return SnapshotSource{
        .handle = handle,
        .extra = extra,
        .memory_pages = pages,
        .read_page = [this](std::uint32_t p) -> std::optional<std::span<const std::uint8_t>> {
          const auto it = data.find(p);
          if (it == data.end()) return std::nullopt;
          return std::span<const std::uint8_t>(it->second);
        }};
  }
};

}  // namespace sandbox::testing_embedded
