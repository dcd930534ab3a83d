#include "ruby_engine.h"

#include <algorithm>
#include <array>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>

#include <sandbox/embedded.h>
#include <sandbox/engine_limits.h>

#include "canonical_abi.h"
#include "ruby_driver_rb.h"
#include "ruby_guest.h"

namespace sandbox::engines {
namespace {

// ruby.wasm's own initialisation, as its JavaScript glue passes it (each argument a C string).
constexpr std::array<std::string_view, 3> kRubyArgs = {"ruby.wasm", "-EUTF-8", "-e_=0"};

// The export names are wit-bindgen signatures.
constexpr std::string_view kRubyInit = "ruby-init: func(args: list<string>) -> ()";
constexpr std::string_view kEvalProtect =
    "rb-eval-string-protect: func(str: string) -> tuple<handle<rb-abi-value>, s32>";
constexpr std::string_view kRstringPtr = "rstring-ptr: func(value: handle<rb-abi-value>) -> string";
constexpr std::string_view kClearErrinfo = "rb-clear-errinfo: func() -> ()";

// rb_protect's state for a jump out of the top level: TAG_RETURN .. TAG_REDO.
std::string_view jump_name(std::int32_t state) {
  switch (state) {
    case 1:
      return "return";
    case 2:
      return "break";
    case 3:
      return "next";
    case 4:
      return "retry";
    case 5:
      return "redo";
    default:
      return "";
  }
}

std::string hex(std::string_view bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char c : bytes) {
    out += kHex[c >> 4];
    out += kHex[c & 15];
  }
  return out;
}

class RubyDriver final : public EmbeddedDriver {
 public:
  explicit RubyDriver(const wasm::Module& module)
      : initialize_(module.function<void()>("_initialize")),
        realloc_(module.function<std::uint32_t(std::uint32_t, std::uint32_t, std::uint32_t,
                                               std::uint32_t)>("cabi_realloc")),
        init_(module.function<void(std::uint32_t, std::uint32_t)>(kRubyInit)),
        eval_(module.function<std::uint32_t(std::uint32_t, std::uint32_t)>(kEvalProtect)),
        rstring_ptr_(module.function<std::uint32_t(std::uint32_t)>(kRstringPtr)),
        post_rstring_ptr_(module.function<void(std::uint32_t)>("cabi_post_rstring-ptr")),
        drop_value_(module.function<void(std::uint32_t)>("canonical_abi_drop_rb-abi-value")),
        clear_errinfo_(module.function<void()>(kClearErrinfo)) {}

  std::unique_ptr<GuestExtension> make_extension() const override {
    return std::make_unique<RubyHandles>();
  }

  void boot(EmbeddedGuest& guest) const override {
    guest.call(initialize_);
    // ruby-init(args: list<string>): an array of (ptr, len) pairs.
    const auto count = static_cast<std::uint32_t>(kRubyArgs.size());
    const std::uint32_t list = alloc(guest, 8 * count, 4);
    for (std::uint32_t i = 0; i < count; ++i) {
      const std::string arg = std::string(kRubyArgs[i]) + '\0';
      guest.write_u32(list + 8 * i, put(guest, arg));
      guest.write_u32(list + 8 * i + 4, static_cast<std::uint32_t>(arg.size()));
    }
    guest.call(init_, list, count);
    // The prelude, under its own file name so that backtraces can leave its frames out.
    const std::string prelude(kRubyDriver, kRubyDriver_size);
    const auto [state, reply] =
        eval(guest, "eval([\"" + hex(prelude) +
                        "\"].pack('H*').force_encoding('UTF-8'), TOPLEVEL_BINDING, "
                        "'sandbox_driver.rb', 1); GC.start; 'ok'");
    if (state != 0 || reply != "ok") {
      throw std::runtime_error("The Ruby driver prelude failed (state " + std::to_string(state) +
                               ")");
    }
    // One request while booting, so that whatever the first one initialises lazily is part of
    // the image.
    const std::map<std::string, std::string> no_env;
    const GuestReply warm = execute(guest, DriverRequest{"1", kWorkspaceRoot, no_env, false});
    if (warm.error)
      throw std::runtime_error("The Ruby driver's warm-up failed: " + warm.error->message);
  }

  GuestReply execute(EmbeddedGuest& guest, const DriverRequest& request) const override {
    std::string env;
    for (const auto& [name, value] : request.env) {
      if (!env.empty()) env += '\0';
      env += name + "=" + value;
    }
    const std::string call = "SandboxDriver.execute(\"" + hex(request.code) + "\", \"" +
                             hex(request.cwd) + "\", \"" + hex(env) + "\", " +
                             (request.reseed ? "true" : "false") + ")";
    const auto [state, reply] = eval(guest, call);
    if (state != 0) {
      // A jump out of the top-level eval is a VM tag unwind, not an exception (as in upstream's
      // Ruby engine): rb_protect caught it and the interpreter is consistent, so the context stays
      // usable.
      const std::string_view jump = jump_name(state);
      if (jump.empty()) {
        // An exception escaped the driver itself (the program broke what it relies on, e.g.
        // redefined JSON.generate): the context cannot be trusted any more.
        throw std::runtime_error("The Ruby driver failed (rb_protect state " +
                                 std::to_string(state) + ")");
      }
      GuestReply r;
      r.status = 1;
      r.error =
          ExecutionError{"LocalJumpError", "unexpected " + std::string(jump), {}, std::nullopt};
      return r;
    }
    GuestReply parsed = parse_guest_reply(0, reply);
    parsed.status = parsed.error ? 1 : 0;
    return parsed;
  }

  std::optional<std::string> describe_trap(const wasm::Trap& trap) const override {
    if (trap.kind == wasm::TrapKind::kUnsupportedImport &&
        trap.message.find("rb-js-abi-host") != std::string::npos) {
      // "unsupported import rb-js-abi-host.global-this: func() -> ..." -> "global-this".
      std::string name = trap.message.substr(trap.message.find("rb-js-abi-host.") + 15);
      name = name.substr(0, name.find(':'));
      return "JavaScript host access is disabled (rb-js-abi-host." + name + ")";
    }
    if (trap.kind == wasm::TrapKind::kExit) {
      return "Ruby exited with code " + std::to_string(trap.exit_code);
    }
    return std::nullopt;
  }

  std::string fingerprint() const override {
    return "ruby.wasm driver\n" + std::string(kRubyDriver, kRubyDriver_size);
  }

 private:
  static RubyHandles& handles(EmbeddedGuest& guest) {
    return *static_cast<RubyHandles*>(guest.extension());
  }

  std::uint32_t alloc(EmbeddedGuest& guest, std::uint32_t size, std::uint32_t align) const {
    const std::uint32_t ptr = guest.call(realloc_, 0u, 0u, align, std::max<std::uint32_t>(size, 1));
    if (ptr == 0) {
      throw std::runtime_error("Ruby could not allocate " + std::to_string(size) + " bytes");
    }
    return ptr;
  }

  // Copies `bytes` into guest memory; ownership passes to the callee it is given to.
  std::uint32_t put(EmbeddedGuest& guest, std::string_view bytes) const {
    const auto size = static_cast<std::uint32_t>(bytes.size());
    const std::uint32_t ptr = alloc(guest, size, 1);
    std::copy(bytes.begin(), bytes.end(), guest.bytes(ptr, size).begin());
    return ptr;
  }

  // rb_eval_string_protect(code): the rb_protect state and, when it is 0, the String value the
  // code returned. Every handle the guest hands out is removed again before this returns.
  std::pair<std::int32_t, std::string> eval(EmbeddedGuest& guest, std::string_view code) const {
    const std::uint32_t ptr = put(guest, code);
    const std::uint32_t ret = guest.call(eval_, ptr, static_cast<std::uint32_t>(code.size()));
    const std::uint32_t handle = guest.read_u32(ret);
    const auto state = static_cast<std::int32_t>(guest.read_u32(ret + 4));
    const std::optional<std::uint32_t> rep = handles(guest).remove(handle);
    if (!rep) throw std::runtime_error("Ruby returned an unknown value handle");
    if (state != 0) {
      guest.call(drop_value_, *rep);
      guest.call(clear_errinfo_);
      return {state, {}};
    }
    const std::optional<std::uint32_t> arg = handles(guest).insert(*rep);
    if (!arg) throw std::logic_error("The Ruby handle table is full");
    const std::uint32_t str = guest.call(rstring_ptr_, *arg);
    handles(guest).remove(*arg);
    const std::uint32_t len = guest.read_u32(str + 4);
    if (len > kMaxGuestReplyBytes) throw ExecutionLimitError("Result limit exceeded");
    std::string value = guest.read_string(guest.read_u32(str), len);
    guest.call(post_rstring_ptr_, str);
    guest.call(drop_value_, *rep);
    return {0, std::move(value)};
  }

  wasm::Function<void()> initialize_;
  wasm::Function<std::uint32_t(std::uint32_t, std::uint32_t, std::uint32_t, std::uint32_t)>
      realloc_;
  wasm::Function<void(std::uint32_t, std::uint32_t)> init_;
  wasm::Function<std::uint32_t(std::uint32_t, std::uint32_t)> eval_;
  wasm::Function<std::uint32_t(std::uint32_t)> rstring_ptr_;
  wasm::Function<void(std::uint32_t)> post_rstring_ptr_;
  wasm::Function<void(std::uint32_t)> drop_value_;
  wasm::Function<void()> clear_errinfo_;
};

}  // namespace

Engine make_ruby_engine() {
  static const wasm::Module module(*sandbox_wasm_module_ruby_guest());
  return make_embedded_engine(module, EmbeddedLanguage{
                                          .language = "ruby",
                                          .engine_name = "CRuby 4.0.0 / ruby.wasm 2.10.1",
                                          .limits = wasm_engine_limits(kRubyFuel, kRubyMemoryBytes),
                                          .pooled_memories = 4,
                                          .driver = std::make_shared<RubyDriver>(module),
                                      });
}

}  // namespace sandbox::engines
