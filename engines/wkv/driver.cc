// wkv's wasmify driver (driver.h). The module's API functions: w_0_0 (wkv_close), w_0_1
// (wkv_eval), w_0_2 (wkv_new), w_0_3 (wkv_raw, the tests' malformed answers).
#include "driver.h"

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace wkv {
namespace {

// One `str` of the answer: a u32le length and that many bytes.
std::string take_string(std::string_view& in) {
  if (in.size() < 4) throw std::runtime_error("Malformed wkv answer: truncated length");
  std::uint32_t len = 0;
  for (int i = 3; i >= 0; --i) len = (len << 8) | static_cast<std::uint8_t>(in[i]);
  in.remove_prefix(4);
  if (len > in.size()) throw std::runtime_error("Malformed wkv answer: truncated string");
  std::string s(in.substr(0, len));
  in.remove_prefix(len);
  return s;
}

// wkv_eval's answer (field 1): u8 status (0 ok, 1 error), then the value or the error, then
// stdout and stderr.
sandbox::WasmifyEval read_eval(const sandbox::wasmify::Response& response) {
  const std::optional<std::string_view> record = response.bytes(1);
  if (!record || record->empty()) throw std::runtime_error("Malformed wkv answer: no record");
  std::string_view in = record->substr(1);
  sandbox::WasmifyEval eval;
  switch ((*record)[0]) {
    case 0:
      eval.value = take_string(in);
      break;
    case 1:
      eval.ok = false;
      eval.error = take_string(in);
      break;
    default:
      throw std::runtime_error("Malformed wkv answer: unknown status");
  }
  eval.stdout_text = take_string(in);
  eval.stderr_text = take_string(in);
  if (!in.empty()) throw std::runtime_error("Malformed wkv answer: trailing bytes");
  return eval;
}

// `x` and the lowercase hex of `bytes`: one word of the helper's arguments.
std::string hex_word(std::string_view bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "x";
  out.reserve(1 + 2 * bytes.size());
  for (const char c : bytes) {
    const auto b = static_cast<std::uint8_t>(c);
    out.push_back(kHex[b >> 4]);
    out.push_back(kHex[b & 15]);
  }
  return out;
}

// The boot script's helper `run` with the code, the cwd and the environment (NAME=VALUE, each
// NUL-terminated); its value is the JSON envelope, the default read_execute.
std::string phrase_execute(const sandbox::DriverRequest& request) {
  std::string env;
  for (const auto& [name, value] : request.env) {
    env += name;
    env += '=';
    env += value;
    env.push_back('\0');
  }
  return "run " + hex_word(request.code) + " " + hex_word(request.cwd) + " " + hex_word(env);
}

}  // namespace

sandbox::WasmifyDriver make_driver() {
  return sandbox::WasmifyDriver{
      .init_method = "w_0_2",  // wkv_new(stdlib_dir)
      .eval_method = "w_0_1",  // wkv_eval(h, src)
      .read_eval = read_eval,
      .phrase_execute = phrase_execute,
      .boot_script = "helper",
      .after_copy_script = "reseed",
      .fingerprint = "wkv driver 1",
  };
}

}  // namespace wkv
