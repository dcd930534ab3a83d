#include "perl_engine.h"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>

#include <sys/random.h>

#include <sandbox/embedded.h>

#include "perl_driver_pl.h"
#include "perl_guest.h"

namespace sandbox::engines {
namespace {

// zeroperl_eval's context argument.
constexpr std::uint32_t kScalarContext = 1;
// Longest error text read from zeroperl_last_error().
constexpr std::uint32_t kMaxErrorBytes = 64 * 1024;

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

// A seed for Perl's srand from the operating system's CSPRNG (the source WASI random_get draws
// from). Perl's own srand() seeds from the clock, which WASI gives in milliseconds, and from
// addresses that are the same in every copy of an image: copies first used within one
// millisecond drew the same numbers.
std::uint32_t fresh_seed() {
  std::uint32_t seed = 0;
  auto* bytes = reinterpret_cast<unsigned char*>(&seed);
  std::size_t got = 0;
  while (got < sizeof seed) {
    const ssize_t n = getrandom(bytes + got, sizeof seed - got, 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error("getrandom failed: cannot seed Perl's random numbers");
    }
    got += static_cast<std::size_t>(n);
  }
  return seed;
}

class PerlDriver final : public EmbeddedDriver {
 public:
  explicit PerlDriver(const wasm::Module& module)
      : initialize_(module.function<void()>("_initialize")),
        malloc_(module.function<std::uint32_t(std::uint32_t)>("malloc")),
        free_(module.function<void(std::uint32_t)>("free")),
        init_(module.function<std::uint32_t()>("zeroperl_init")),
        eval_(module.function<std::uint32_t(std::uint32_t, std::uint32_t, std::uint32_t,
                                            std::uint32_t)>("zeroperl_eval")),
        flush_(module.function<std::uint32_t()>("zeroperl_flush")),
        last_error_(module.function<std::uint32_t()>("zeroperl_last_error")),
        get_var_(module.function<std::uint32_t(std::uint32_t)>("zeroperl_get_var")),
        to_string_(
            module.function<std::uint32_t(std::uint32_t, std::uint32_t)>("zeroperl_to_string")),
        value_free_(module.function<void(std::uint32_t)>("zeroperl_value_free")) {}

  void boot(EmbeddedGuest& guest) const override {
    guest.call(initialize_);
    const std::uint32_t rc = guest.call(init_);
    if (rc != 0) {
      throw std::runtime_error("zeroperl_init failed (" + std::to_string(rc) +
                               "): " + last_error(guest));
    }
    eval(guest, std::string_view(kPerlDriver, kPerlDriver_size));
    // One request while booting: the first one pays for lazy initialisation (JSON::PP compiles
    // its encoder on first use, about a million units of fuel), which then lands in the image.
    const std::map<std::string, std::string> no_env;
    const GuestReply warm = execute(guest, DriverRequest{"1", kWorkspaceRoot, no_env, false});
    if (warm.error)
      throw std::runtime_error("The Perl driver's warm-up failed: " + warm.error->message);
  }

  GuestReply execute(EmbeddedGuest& guest, const DriverRequest& request) const override {
    std::string env;
    for (const auto& [name, value] : request.env) {
      if (!env.empty()) env += '\0';
      env += name + "=" + value;
    }
    // RESEED: a fresh seed for srand on the first call of a copy, "" otherwise.
    const std::string reseed = request.reseed ? std::to_string(fresh_seed()) : "";
    const std::string call = "SandboxDriver::execute('" + hex(request.code) + "', '" +
                             hex(request.cwd) + "', '" + hex(env) + "', '" + reseed + "');";
    try {
      eval(guest, call);
    } catch (const GuestTrap& e) {
      // Perl reports a failed allocation on stderr and exits.
      if (e.trap().kind == wasm::TrapKind::kExit && out_of_memory(guest)) {
        throw GuestTrap(e.trap(), "Out of memory: Perl reached its " +
                                      std::to_string(kPerlMemoryBytes >> 20) + " MiB memory limit");
      }
      throw;
    }
    const std::string reply = read_reply(guest);
    if (reply.empty()) throw std::runtime_error("The Perl driver returned no reply");
    GuestReply parsed = parse_guest_reply(0, reply);
    parsed.status = parsed.error ? 1 : 0;
    return parsed;
  }

  std::optional<std::string> describe_trap(const wasm::Trap& trap) const override {
    if (trap.kind == wasm::TrapKind::kExit) {
      return "Perl exited with code " + std::to_string(trap.exit_code);
    }
    if (trap.kind == wasm::TrapKind::kUnsupportedImport) {
      return "Host functions are not available to Perl (" + trap.message + ")";
    }
    return std::nullopt;
  }

  std::string fingerprint() const override {
    return "zeroperl driver\n" + std::string(kPerlDriver, kPerlDriver_size);
  }

 private:
  // Copies `text` into guest memory as a C string; the caller frees it.
  std::uint32_t put(EmbeddedGuest& guest, std::string_view text) const {
    const auto size = static_cast<std::uint32_t>(text.size() + 1);
    const std::uint32_t ptr = guest.call(malloc_, size);
    if (ptr == 0)
      throw std::runtime_error("Perl could not allocate a " + std::to_string(size) +
                               "-byte request");
    auto bytes = guest.bytes(ptr, size);
    std::copy(text.begin(), text.end(), bytes.begin());
    bytes[text.size()] = 0;
    return ptr;
  }

  static bool out_of_memory(EmbeddedGuest& guest) {
    for (const auto& line : guest.wasi().logs().stderr_lines) {
      if (line.starts_with("Out of memory")) return true;
    }
    return false;
  }

  std::string last_error(EmbeddedGuest& guest) const {
    const std::uint32_t ptr = guest.call(last_error_);
    return ptr == 0 ? std::string("unknown error") : guest.read_c_string(ptr, kMaxErrorBytes);
  }

  // Evaluates driver code (never user code directly): a failure here is a host problem.
  void eval(EmbeddedGuest& guest, std::string_view code) const {
    const std::uint32_t ptr = put(guest, code);
    const std::uint32_t rc = guest.call(eval_, ptr, kScalarContext, 0u, 0u);
    guest.call(flush_);
    guest.call(free_, ptr);
    if (rc != 0) throw std::runtime_error("The Perl driver failed: " + last_error(guest));
  }

  std::string read_reply(EmbeddedGuest& guest) const {
    const std::uint32_t name = put(guest, "SandboxDriver::reply");
    const std::uint32_t value = guest.call(get_var_, name);
    guest.call(free_, name);
    if (value == 0) throw std::runtime_error("The Perl driver's reply variable is missing");
    const std::uint32_t len_ptr = guest.call(malloc_, 4u);
    if (len_ptr == 0) throw std::runtime_error("Perl could not allocate 4 bytes");
    const std::uint32_t str = guest.call(to_string_, value, len_ptr);
    const std::uint32_t len = guest.read_u32(len_ptr);
    if (len > kMaxGuestReplyBytes) throw ExecutionLimitError("Result limit exceeded");
    std::string reply = str == 0 ? std::string() : guest.read_string(str, len);
    guest.call(free_, len_ptr);
    guest.call(value_free_, value);
    return reply;
  }

  wasm::Function<void()> initialize_;
  wasm::Function<std::uint32_t(std::uint32_t)> malloc_;
  wasm::Function<void(std::uint32_t)> free_;
  wasm::Function<std::uint32_t()> init_;
  wasm::Function<std::uint32_t(std::uint32_t, std::uint32_t, std::uint32_t, std::uint32_t)> eval_;
  wasm::Function<std::uint32_t()> flush_;
  wasm::Function<std::uint32_t()> last_error_;
  wasm::Function<std::uint32_t(std::uint32_t)> get_var_;
  wasm::Function<std::uint32_t(std::uint32_t, std::uint32_t)> to_string_;
  wasm::Function<void(std::uint32_t)> value_free_;
};

}  // namespace

Engine make_perl_engine() {
  static const wasm::Module module(*sandbox_wasm_module_perl_guest());
  return make_embedded_engine(module, EmbeddedLanguage{
                                          .language = "perl",
                                          .engine_name = "Perl 5.42.0 / zeroperl 1.0.10",
                                          .limits = wasm_engine_limits(kPerlFuel, kPerlMemoryBytes),
                                          .pooled_memories = 4,
                                          .driver = std::make_shared<PerlDriver>(module),
                                      });
}

}  // namespace sandbox::engines
