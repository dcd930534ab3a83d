#include "wasi_test_util.h"

#include "wasi/zip_archive.h"

namespace sandbox::testing_wasi {
namespace {

thread_local sigjmp_buf* trap_target = nullptr;
thread_local std::uint32_t trap_code = 0;
thread_local std::uint32_t exit_code = 0;

void put16(std::vector<std::uint8_t>& out, std::uint32_t v) {
  out.push_back(static_cast<std::uint8_t>(v));
  out.push_back(static_cast<std::uint8_t>(v >> 8));
}
void put32(std::vector<std::uint8_t>& out, std::uint32_t v) {
  put16(out, v & 0xffff);
  put16(out, v >> 16);
}

}  // namespace

std::optional<std::uint32_t> catch_trap(void (*f)(void*), void* arg) {
  sigjmp_buf buf;
  sigjmp_buf* saved = trap_target;
  trap_target = &buf;
  if (sigsetjmp(buf, 0) != 0) {
    trap_target = saved;
    return trap_code;
  }
  f(arg);
  trap_target = saved;
  return std::nullopt;
}

std::vector<std::uint8_t> make_stored_zip(
    const std::vector<std::pair<std::string, std::string>>& entries, std::uint16_t method) {
  std::vector<std::uint8_t> out;
  std::vector<std::uint8_t> central;
  for (const auto& [name, data] : entries) {
    const std::uint32_t offset = static_cast<std::uint32_t>(out.size());
    const std::uint32_t crc = wasi::crc32(
        {reinterpret_cast<const std::uint8_t*>(data.data()), data.size()});
    const auto size = static_cast<std::uint32_t>(data.size());
    put32(out, 0x04034b50);
    put16(out, 20);
    put16(out, 0);
    put16(out, method);
    put16(out, 0);
    put16(out, 0);
    put32(out, crc);
    put32(out, size);
    put32(out, size);
    put16(out, static_cast<std::uint32_t>(name.size()));
    put16(out, 0);
    out.insert(out.end(), name.begin(), name.end());
    out.insert(out.end(), data.begin(), data.end());

    put32(central, 0x02014b50);
    put16(central, 20);
    put16(central, 20);
    put16(central, 0);
    put16(central, method);
    put16(central, 0);
    put16(central, 0);
    put32(central, crc);
    put32(central, size);
    put32(central, size);
    put16(central, static_cast<std::uint32_t>(name.size()));
    put16(central, 0);
    put16(central, 0);
    put16(central, 0);
    put16(central, 0);
    put32(central, 0);
    put32(central, offset);
    central.insert(central.end(), name.begin(), name.end());
  }
  const std::uint32_t cd_offset = static_cast<std::uint32_t>(out.size());
  out.insert(out.end(), central.begin(), central.end());
  put32(out, 0x06054b50);
  put16(out, 0);
  put16(out, 0);
  put16(out, static_cast<std::uint32_t>(entries.size()));
  put16(out, static_cast<std::uint32_t>(entries.size()));
  put32(out, static_cast<std::uint32_t>(central.size()));
  put32(out, cd_offset);
  put16(out, 0);
  return out;
}

}  // namespace sandbox::testing_wasi

// Stand-ins for the trap primitives of sandbox_wasm (src/wasm/host_call.h), so the imports can
// be exercised without a Wasm instance: a trap longjmps to the innermost catch_trap().
extern "C" {
void sandbox_wasm_trap(uint32_t code) {
  sandbox::testing_wasi::trap_code = code;
  siglongjmp(*sandbox::testing_wasi::trap_target, 1);
}
void sandbox_wasm_trap_with_message(uint32_t code, const char*) { sandbox_wasm_trap(code); }
void sandbox_wasm_set_exit_code(uint32_t code) { sandbox::testing_wasi::exit_code = code; }
uint32_t sandbox_wasm_exit_code(void) { return sandbox::testing_wasi::exit_code; }
void sandbox_wasm_host_enter(void) {}
void sandbox_wasm_host_leave(void) {}
}
