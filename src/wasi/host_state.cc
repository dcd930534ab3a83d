// HostState: construction, shared helpers, and the process-level calls (args, environ, clocks,
// random, exit).
#include "wasi/host_state.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <stdexcept>

#include "wasi/abi.h"
#include "wasi/random_page.h"
#include "wasm/host_call.h"

namespace sandbox::wasi {
namespace {

// random_get fills guest memory through a host buffer of this size.
constexpr std::uint32_t kRandomChunkBytes = 4096;

std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

std::vector<std::string> environ_strings(const std::map<std::string, std::string>& env) {
  std::vector<std::string> out;
  out.reserve(env.size());
  for (const auto& [key, value] : env) out.push_back(key + "=" + value);
  return out;
}

FdEntry console(FdEntry::Kind kind, std::uint64_t rights) {
  FdEntry e;
  e.kind = kind;
  e.rights_base = rights;
  return e;
}

FdEntry preopen(std::string name, Mount mount, std::shared_ptr<WorkspaceNode> node) {
  FdEntry e;
  e.kind = FdEntry::Kind::kDirectory;
  e.mount = mount;
  e.node = std::move(node);
  e.preopen_name = std::move(name);
  e.rights_base = kRightsDirectory;
  e.rights_inheriting = kRightsAll;
  return e;
}

}  // namespace

HostState::HostState(WasiOptions opts)
    : options(std::move(opts)),
      output(options.output_limit_bytes, options.output_limit_chunks),
      environ(environ_strings(options.env)) {
  if (!options.stdlib) options.stdlib = StdlibTree::empty();
  dev_root_ = std::make_shared<WorkspaceNode>(WorkspaceNode::Type::kDirectory);
  dev_root_->put("null", std::make_shared<WorkspaceNode>(WorkspaceNode::Type::kFile));

  fds.add_fixed(console(FdEntry::Kind::kStdin, kRightFdRead | kRightFdSeek | kRightFdTell |
                                                   kRightFdFilestatGet | kRightFdFdstatSetFlags |
                                                   kRightPollFdReadwrite));
  const std::uint64_t out_rights =
      kRightFdWrite | kRightFdFilestatGet | kRightFdFdstatSetFlags | kRightPollFdReadwrite;
  fds.add_fixed(console(FdEntry::Kind::kStdout, out_rights));
  fds.add_fixed(console(FdEntry::Kind::kStderr, out_rights));
  fds.add_fixed(preopen("/stdlib", Mount::kStdlib, options.stdlib->root()));
  fds.add_fixed(preopen("/dev", Mount::kDev, dev_root_));
  if (options.workspace != nullptr) {
    fds.add_fixed(
        preopen(std::string(kWorkspaceRoot), Mount::kWorkspace, options.workspace->root()));
  }
  fds.seal();

  if (options.random_seed) {
    random_state_ = *options.random_seed;
    inode_key_ = splitmix64(random_state_);
  } else {
    // Inode numbers are derived from node addresses; the key keeps host addresses private.
    if (!os_random(reinterpret_cast<std::uint8_t*>(&inode_key_), sizeof inode_key_)) {
      inode_key_ =
          static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
    }
  }
}

void HostState::remount_workspace(Workspace* workspace) {
  if (workspace == nullptr || options.workspace == nullptr) {
    throw std::logic_error("remount_workspace: the host and the call both need a workspace");
  }
  if (fds.has_open_guest_fds()) {
    throw std::logic_error("remount_workspace: the guest holds open descriptors");
  }
  options.workspace = workspace;
  // The workspace is the last fixed slot (see the constructor).
  fds.replace_fixed(fds.fd_base() - 1,
                    preopen(std::string(kWorkspaceRoot), Mount::kWorkspace, workspace->root()));
  environ = environ_strings(options.env);
}

void HostState::request_trap(std::uint32_t code, std::string why) {
  if (pending_trap == 0) pending_trap = code;
  if (!why.empty()) host_error = std::move(why);
}

bool HostState::workspace_disabled() const {
  return options.workspace != nullptr && options.workspace->disabled();
}

std::int64_t HostState::now_ms() const {
  if (options.workspace != nullptr) return options.workspace->now_ms();
  return options.clock != nullptr ? options.clock->now_ms() : SystemClock().now_ms();
}

std::uint64_t HostState::inode(const void* node) const {
  if (options.sequential_inodes) {
    // Addresses differ between processes (ASLR), first sightings do not. A node freed and
    // another allocated at its address share a number, as they do with the hash.
    return inode_numbers_.try_emplace(node, inode_numbers_.size() + 2).first->second;
  }
  std::uint64_t state = reinterpret_cast<std::uintptr_t>(node) ^ inode_key_;
  const std::uint64_t ino = splitmix64(state);
  return ino == 0 ? 1 : ino;
}

std::uint32_t HostState::write_sizes(const std::vector<std::string>& strings,
                                     std::uint32_t count_out, std::uint32_t size_out) {
  std::uint64_t total = 0;
  for (const auto& s : strings) total += s.size() + 1;
  if (!memory.contains(count_out, 4) || !memory.contains(size_out, 4)) return kEFault;
  if (total > 0xffffffffu) return kEOverflow;
  memory.store_u32(count_out, static_cast<std::uint32_t>(strings.size()));
  memory.store_u32(size_out, static_cast<std::uint32_t>(total));
  return kSuccess;
}

std::uint32_t HostState::write_strings(const std::vector<std::string>& strings, std::uint32_t ptrs,
                                       std::uint32_t buf) {
  std::uint64_t total = 0;
  for (const auto& s : strings) total += s.size() + 1;
  if (!memory.contains(ptrs, 4ull * strings.size()) || !memory.contains(buf, total)) {
    return kEFault;
  }
  std::uint32_t at = buf;
  for (std::size_t i = 0; i < strings.size(); ++i) {
    const auto& s = strings[i];
    memory.store_u32(ptrs + static_cast<std::uint32_t>(4 * i), at);
    memory.write(at, {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()});
    memory.store_u8(at + static_cast<std::uint32_t>(s.size()), 0);
    at += static_cast<std::uint32_t>(s.size() + 1);
  }
  return kSuccess;
}

std::uint32_t HostState::args_get(std::uint32_t argv, std::uint32_t buf) {
  return write_strings(options.args, argv, buf);
}
std::uint32_t HostState::args_sizes_get(std::uint32_t count_out, std::uint32_t size_out) {
  return write_sizes(options.args, count_out, size_out);
}
std::uint32_t HostState::environ_get(std::uint32_t env, std::uint32_t buf) {
  return write_strings(environ, env, buf);
}
std::uint32_t HostState::environ_sizes_get(std::uint32_t count_out, std::uint32_t size_out) {
  return write_sizes(environ, count_out, size_out);
}

std::uint32_t HostState::clock_res_get(std::uint32_t id, std::uint32_t out) {
  std::uint64_t resolution;
  if (id == kClockRealtime) {
    resolution = 1'000'000;
  } else if (id == kClockMonotonic) {
    resolution = 5'000;
  } else {
    return kENosys;
  }
  return memory.store_u64(out, resolution) ? kSuccess : kEFault;
}

std::uint32_t HostState::clock_time_get(std::uint32_t id, std::uint64_t /*precision*/,
                                        std::uint32_t out) {
  if (!memory.contains(out, 8)) return kEFault;
  std::uint64_t ns = 0;
  if (id == kClockRealtime) {
    const std::int64_t ms =
        options.clock != nullptr ? options.clock->now_ms() : SystemClock().now_ms();
    ns = static_cast<std::uint64_t>(ms) * 1'000'000ull;
  } else if (id == kClockMonotonic) {
    ns = options.monotonic_ns
             ? options.monotonic_ns()
             : static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                              std::chrono::steady_clock::now().time_since_epoch())
                                              .count());
  }
  // Other clocks (process/thread CPU time) read as 0, as upstream.
  memory.store_u64(out, ns);
  return kSuccess;
}

std::uint32_t HostState::random_get(std::uint32_t buf, std::uint32_t len) {
  if (!memory.contains(buf, len)) return kEFault;
  // The bytes go through a host buffer: guest pages may be write-protected for dirty tracking
  // (src/wasm/write_tracking.h), and getrandom(2) into such a page fails with EFAULT instead
  // of faulting, so only a plain memcpy may write guest memory.
  std::array<std::uint8_t, kRandomChunkBytes> chunk;
  std::uint32_t done = 0;
  while (done < len) {
    const std::uint32_t n = std::min<std::uint32_t>(len - done, kRandomChunkBytes);
    if (options.random_seed) {
      for (std::uint32_t i = 0; i < n; i += 8) {
        const std::uint64_t word = splitmix64(random_state_);
        for (std::uint32_t k = 0; k < 8 && i + k < n; ++k) {
          chunk[i + k] = static_cast<std::uint8_t>(word >> (8 * k));
        }
      }
    } else if (!os_random(chunk.data(), n)) {
      return kEIo;
    }
    memory.write(buf + done, {chunk.data(), n});
    done += n;
  }
  return kSuccess;
}

void HostState::proc_exit(std::uint32_t code) {
  exit_code = code;
  sandbox_wasm_set_exit_code(code);
  request_trap(SANDBOX_TRAP_EXIT);
}

std::uint32_t HostState::proc_raise(std::uint32_t signal) {
  request_trap(SANDBOX_TRAP_HOST_ERROR, "proc_raise(" + std::to_string(signal) + ")");
  return kSuccess;
}

}  // namespace sandbox::wasi
