// Fuzz target: the WASI preview1 host (include/sandbox/wasi.h; src/wasi/fd_calls.cc,
// path_calls.cc, host_state.cc) called as a guest would, with arbitrary (fd, pointer, length,
// flags) arguments over a one-page linear memory whose bytes come from the input. The host is
// built as in tests/wasi (no Wasm instance; the trap primitives below longjmp back here), with
// a small /stdlib tree and a /workspace mounted.
//
// Input: a prefix copied into memory (length byte * 16), then calls: an op byte, then its
// arguments. A pointer or length argument is a u16 (inside or just past the page) unless its
// flag byte has the high bit set, then a raw u32. Op 0 writes a length-prefixed string into
// memory at a u16 offset (so paths can be placed where pointers point).
//
// Checked beyond "no crash": every errno is a WASI errno (< 77); the workspace stays within its
// limits.
#include <csetjmp>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <sandbox/clock.h>
#include <sandbox/wasi.h>
#include <sandbox/workspace.h>

#include "fuzz_input.h"
#include "wasi/imports.h"

namespace {

using namespace sandbox;
using Ctx = Z_wasi_snapshot_preview1_instance_t;

constexpr int kMaxCalls = 48;
constexpr std::uint32_t kMemoryBytes = 65'536;
constexpr std::uint32_t kMaxWasiErrno = 76;  // ENOTCAPABLE, the last preview1 errno
constexpr std::uint64_t kOutputLimitBytes = 4'096;
constexpr std::size_t kOutputLimitChunks = 32;

thread_local sigjmp_buf* trap_target = nullptr;
thread_local std::uint32_t exit_code = 0;

[[noreturn]] void fail(const char* what, std::uint32_t value) {
  std::fprintf(stderr, "fuzz_wasi: %s (%u)\n", what, value);
  std::abort();
}

std::shared_ptr<const StdlibTree> stdlib() {
  static const auto tree = [] {
    auto root = std::make_shared<WorkspaceNode>(WorkspaceNode::Type::kDirectory);
    auto lib = std::make_shared<WorkspaceNode>(WorkspaceNode::Type::kDirectory);
    auto file = std::make_shared<WorkspaceNode>(WorkspaceNode::Type::kFile);
    file->data = {'p', 'r', 'i', 'n', 't', '(', '1', ')', '\n'};
    lib->put("os.py", file);
    root->put("lib", lib);
    return std::make_shared<const StdlibTree>(root);
  }();
  return tree;
}

class Args {
 public:
  explicit Args(fuzz::FuzzInput& in) : in_(in) {}
  std::uint32_t fd() {
    const std::uint8_t b = in_.u8();
    return (b & 0x80) ? in_.u32() : b % 12;
  }
  std::uint32_t ptr() {
    const std::uint8_t b = in_.u8();
    if (b & 0x80) return in_.u32();
    return (std::uint32_t{b} << 8 | in_.u8()) + (b & 0x40 ? kMemoryBytes - 0x4000 : 0);
  }
  std::uint32_t len() {
    const std::uint8_t b = in_.u8();
    if (b & 0x80) return in_.u32();
    return b & 0x40 ? (static_cast<std::uint32_t>(b & 0x3f) << 8 | in_.u8()) : b;
  }
  std::uint32_t u32() { return in_.u32(); }
  std::uint64_t u64() { return in_.u64(); }
  std::uint32_t small() { return in_.u8(); }

 private:
  fuzz::FuzzInput& in_;
};

// One import call; returns its errno (or 0 for those that return nothing).
std::uint32_t call(int op, Ctx* c, Args& a) {
  switch (op) {
    case 1: {
      auto p = a.ptr();
      return Z_wasi_snapshot_preview1Z_args_get(c, p, a.ptr());
    }
    case 2: {
      auto p = a.ptr();
      return Z_wasi_snapshot_preview1Z_args_sizes_get(c, p, a.ptr());
    }
    case 3: {
      auto p = a.ptr();
      return Z_wasi_snapshot_preview1Z_environ_get(c, p, a.ptr());
    }
    case 4: {
      auto p = a.ptr();
      return Z_wasi_snapshot_preview1Z_environ_sizes_get(c, p, a.ptr());
    }
    case 5: {
      auto id = a.small();
      return Z_wasi_snapshot_preview1Z_clock_res_get(c, id, a.ptr());
    }
    case 6: {
      auto id = a.small();
      auto precision = a.u64();
      return Z_wasi_snapshot_preview1Z_clock_time_get(c, id, precision, a.ptr());
    }
    case 7: {
      auto p = a.ptr();
      return Z_wasi_snapshot_preview1Z_random_get(c, p, a.len());
    }
    case 8: {
      auto fd = a.fd();
      auto off = a.u64();
      auto len = a.u64();
      return Z_wasi_snapshot_preview1Z_fd_advise(c, fd, off, len, a.small());
    }
    case 9:
      return Z_wasi_snapshot_preview1Z_fd_close(c, a.fd());
    case 10:
      return Z_wasi_snapshot_preview1Z_fd_datasync(c, a.fd());
    case 11:
      return Z_wasi_snapshot_preview1Z_fd_sync(c, a.fd());
    case 12: {
      auto fd = a.fd();
      return Z_wasi_snapshot_preview1Z_fd_fdstat_get(c, fd, a.ptr());
    }
    case 13: {
      auto fd = a.fd();
      return Z_wasi_snapshot_preview1Z_fd_fdstat_set_flags(c, fd, a.small());
    }
    case 14: {
      auto fd = a.fd();
      auto base = a.u64();
      return Z_wasi_snapshot_preview1Z_fd_fdstat_set_rights(c, fd, base, a.u64());
    }
    case 15: {
      auto fd = a.fd();
      return Z_wasi_snapshot_preview1Z_fd_filestat_get(c, fd, a.ptr());
    }
    case 16: {
      auto fd = a.fd();
      auto iov = a.ptr();
      auto n = a.len();
      auto offset = a.u64();
      return Z_wasi_snapshot_preview1Z_fd_pread(c, fd, iov, n, offset, a.ptr());
    }
    case 17: {
      auto fd = a.fd();
      return Z_wasi_snapshot_preview1Z_fd_prestat_get(c, fd, a.ptr());
    }
    case 18: {
      auto fd = a.fd();
      auto p = a.ptr();
      return Z_wasi_snapshot_preview1Z_fd_prestat_dir_name(c, fd, p, a.len());
    }
    case 19: {
      auto fd = a.fd();
      auto iov = a.ptr();
      auto n = a.len();
      return Z_wasi_snapshot_preview1Z_fd_read(c, fd, iov, n, a.ptr());
    }
    case 20: {
      auto fd = a.fd();
      auto buf = a.ptr();
      auto len = a.len();
      auto cookie = a.u64();
      return Z_wasi_snapshot_preview1Z_fd_readdir(c, fd, buf, len, cookie, a.ptr());
    }
    case 21: {
      auto fd = a.fd();
      return Z_wasi_snapshot_preview1Z_fd_renumber(c, fd, a.fd());
    }
    case 22: {
      auto fd = a.fd();
      auto offset = a.u64();
      auto whence = a.small();
      return Z_wasi_snapshot_preview1Z_fd_seek(c, fd, offset, whence, a.ptr());
    }
    case 23: {
      auto fd = a.fd();
      return Z_wasi_snapshot_preview1Z_fd_tell(c, fd, a.ptr());
    }
    case 24: {
      auto fd = a.fd();
      auto iov = a.ptr();
      auto n = a.len();
      return Z_wasi_snapshot_preview1Z_fd_write(c, fd, iov, n, a.ptr());
    }
    case 25: {
      auto fd = a.fd();
      auto p = a.ptr();
      return Z_wasi_snapshot_preview1Z_path_create_directory(c, fd, p, a.len());
    }
    case 26: {
      auto fd = a.fd();
      auto flags = a.small();
      auto p = a.ptr();
      auto len = a.len();
      return Z_wasi_snapshot_preview1Z_path_filestat_get(c, fd, flags, p, len, a.ptr());
    }
    case 27: {
      auto fd = a.fd();
      auto dirflags = a.small();
      auto p = a.ptr();
      auto len = a.len();
      auto oflags = a.small();
      auto base = a.u64();
      auto inheriting = a.u64();
      auto fdflags = a.small();
      return Z_wasi_snapshot_preview1Z_path_open(c, fd, dirflags, p, len, oflags, base, inheriting,
                                                 fdflags, a.ptr());
    }
    case 28: {
      auto fd = a.fd();
      auto p = a.ptr();
      auto len = a.len();
      auto buf = a.ptr();
      auto buf_len = a.len();
      return Z_wasi_snapshot_preview1Z_path_readlink(c, fd, p, len, buf, buf_len, a.ptr());
    }
    case 29: {
      auto fd = a.fd();
      auto p = a.ptr();
      return Z_wasi_snapshot_preview1Z_path_remove_directory(c, fd, p, a.len());
    }
    case 30: {
      auto fd1 = a.fd();
      auto p1 = a.ptr();
      auto l1 = a.len();
      auto fd2 = a.fd();
      auto p2 = a.ptr();
      return Z_wasi_snapshot_preview1Z_path_rename(c, fd1, p1, l1, fd2, p2, a.len());
    }
    case 31: {
      auto fd = a.fd();
      auto p = a.ptr();
      return Z_wasi_snapshot_preview1Z_path_unlink_file(c, fd, p, a.len());
    }
    case 32:
      Z_wasi_snapshot_preview1Z_proc_exit(c, a.small());
      return 0;
    case 33:
      return Z_wasi_snapshot_preview1Z_sched_yield(c);
    case 34: {
      auto fd = a.fd();
      auto off = a.u64();
      return Z_wasi_snapshot_preview1Z_fd_allocate(c, fd, off, a.u64());
    }
    case 35: {
      auto fd = a.fd();
      return Z_wasi_snapshot_preview1Z_fd_filestat_set_size(c, fd, a.u64());
    }
    case 36: {
      auto fd = a.fd();
      auto at = a.u64();
      auto mt = a.u64();
      return Z_wasi_snapshot_preview1Z_fd_filestat_set_times(c, fd, at, mt, a.small());
    }
    case 37: {
      auto fd = a.fd();
      auto iov = a.ptr();
      auto n = a.len();
      auto offset = a.u64();
      return Z_wasi_snapshot_preview1Z_fd_pwrite(c, fd, iov, n, offset, a.ptr());
    }
    case 38: {
      auto fd = a.fd();
      auto flags = a.small();
      auto p = a.ptr();
      auto len = a.len();
      auto at = a.u64();
      auto mt = a.u64();
      return Z_wasi_snapshot_preview1Z_path_filestat_set_times(c, fd, flags, p, len, at, mt,
                                                               a.small());
    }
    case 39: {
      auto fd1 = a.fd();
      auto flags = a.small();
      auto p1 = a.ptr();
      auto l1 = a.len();
      auto fd2 = a.fd();
      auto p2 = a.ptr();
      return Z_wasi_snapshot_preview1Z_path_link(c, fd1, flags, p1, l1, fd2, p2, a.len());
    }
    case 40: {
      auto p1 = a.ptr();
      auto l1 = a.len();
      auto fd = a.fd();
      auto p2 = a.ptr();
      return Z_wasi_snapshot_preview1Z_path_symlink(c, p1, l1, fd, p2, a.len());
    }
    case 41: {
      auto in = a.ptr();
      auto out = a.ptr();
      auto n = a.len();
      return Z_wasi_snapshot_preview1Z_poll_oneoff(c, in, out, n, a.ptr());
    }
    case 42:
      return Z_wasi_snapshot_preview1Z_proc_raise(c, a.small());
    case 43: {
      auto fd = a.fd();
      auto flags = a.small();
      return Z_wasi_snapshot_preview1Z_sock_accept(c, fd, flags, a.ptr());
    }
    case 44: {
      auto fd = a.fd();
      auto iov = a.ptr();
      auto n = a.len();
      auto flags = a.small();
      auto out = a.ptr();
      return Z_wasi_snapshot_preview1Z_sock_recv(c, fd, iov, n, flags, out, a.ptr());
    }
    case 45: {
      auto fd = a.fd();
      auto iov = a.ptr();
      auto n = a.len();
      auto flags = a.small();
      return Z_wasi_snapshot_preview1Z_sock_send(c, fd, iov, n, flags, a.ptr());
    }
    case 46: {
      auto fd = a.fd();
      return Z_wasi_snapshot_preview1Z_sock_shutdown(c, fd, a.small());
    }
    default:
      return 0;
  }
}

constexpr int kOps = 47;

struct CallArgs {
  int op;
  Ctx* ctx;
  Args* args;
  std::uint32_t result;
};

void run_call(CallArgs* c) { c->result = call(c->op, c->ctx, *c->args); }

// Runs one call; false when the import trapped (proc_exit, the output limit, a host error).
bool guarded_call(CallArgs& c) {
  sigjmp_buf buf;
  trap_target = &buf;
  if (sigsetjmp(buf, 0) != 0) {
    trap_target = nullptr;
    return false;
  }
  run_call(&c);
  trap_target = nullptr;
  return true;
}

}  // namespace

// Stand-ins for the trap primitives of sandbox_wasm (src/wasm/host_call.h), as in tests/wasi.
extern "C" {
void sandbox_wasm_trap(uint32_t) {
  if (!trap_target) fail("trap outside a call", 0);
  siglongjmp(*trap_target, 1);
}
void sandbox_wasm_trap_with_message(uint32_t code, const char*) { sandbox_wasm_trap(code); }
void sandbox_wasm_set_exit_code(uint32_t code) { exit_code = code; }
uint32_t sandbox_wasm_exit_code(void) { return exit_code; }
void sandbox_wasm_host_enter(void) {}
void sandbox_wasm_host_leave(void) {}
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static std::vector<std::uint8_t> bytes(kMemoryBytes);
  fuzz::FuzzInput in(data, size);
  std::fill(bytes.begin(), bytes.end(), 0);
  const std::string_view prefix = in.short_string();
  std::memcpy(bytes.data(), prefix.data(), prefix.size());
  for (std::size_t i = prefix.size(); i + prefix.size() <= 4096 && !prefix.empty();
       i += prefix.size()) {
    std::memcpy(bytes.data() + i, prefix.data(), prefix.size());  // repeated: iovec arrays
  }
  wasm_rt_memory_t memory{bytes.data(), 1, 1, kMemoryBytes};

  ManualClock clock;
  Workspace workspace(clock);
  workspace.mkdir("dir", false);
  workspace.write("dir/file.txt", "hello");
  WasiHost host(WasiOptions{.stdlib = stdlib(),
                            .workspace = &workspace,
                            .args = {"sandbox", "-c", "x"},
                            .env = {{"HOME", "/workspace"}, {"LANG", "C.UTF-8"}},
                            .clock = &clock,
                            .monotonic_ns = [] { return std::uint64_t{1'000'000}; },
                            .random_seed = 1,
                            .output_limit_bytes = kOutputLimitBytes,
                            .output_limit_chunks = kOutputLimitChunks});
  host.attach_memory(&memory);
  auto* ctx = static_cast<Ctx*>(host.import_context());

  Args args(in);
  for (int n = 0; n < kMaxCalls && !in.empty(); ++n) {
    const int op = in.u8() % kOps;
    if (op == 0) {
      const std::uint32_t at = (std::uint32_t{in.u8()} << 8) | in.u8();
      const std::string_view s = in.short_string();
      const std::size_t len = std::min<std::size_t>(s.size(), kMemoryBytes - at);
      std::memcpy(bytes.data() + at, s.data(), len);
      continue;
    }
    CallArgs c{op, ctx, &args, 0};
    if (!guarded_call(c)) break;  // a trapped instance is never called again
    if (c.result > kMaxWasiErrno) fail("not a WASI errno", c.result);
  }
  const WorkspaceStats stats = workspace.stats();
  if (stats.entries > kMaxWorkspaceEntries || stats.bytes > kMaxTotalBytes) {
    fail("workspace over its limits", static_cast<std::uint32_t>(stats.entries));
  }
  (void)host.logs();
  return 0;
}
