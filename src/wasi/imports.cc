// The `wasi_snapshot_preview1` imports as wasm2c 1.0.32 calls them: global C functions
// `Z_wasi_snapshot_preview1Z_<name>(ctx, ...)` whose context pointer is the HostState that
// WasiHost::import_context() hands out.
//
// The generated code brackets every provided import with sandbox_wasm_host_enter/leave, so a
// deadline interrupt never unwinds through these functions. Each shim catches every exception
// (none may cross the generated C code) and raises a requested trap only after the call
// returned, when no C++ object of the call is alive (CONTRIBUTING.md, code style rule 8).
#include "wasi/imports.h"

#include <cstdint>
#include <exception>
#include <new>

#include "wasi/abi.h"
#include "wasi/host_state.h"
#include "wasm/host_call.h"

namespace {

using Ctx = Z_wasi_snapshot_preview1_instance_t;
using sandbox::wasi::HostState;
using u32 = std::uint32_t;
using u64 = std::uint64_t;

HostState& state_of(Ctx* ctx) { return *reinterpret_cast<HostState*>(ctx); }

template <typename Call>
u32 run(Ctx* ctx, const Call& call) noexcept {
  HostState& state = state_of(ctx);
  u32 result = sandbox::wasi::kEIo;
  try {
    result = call(state);
  } catch (const std::bad_alloc&) {
    state.request_trap(SANDBOX_TRAP_HOST_ERROR, "WASI host out of memory");
  } catch (const std::exception& e) {
    state.request_trap(SANDBOX_TRAP_HOST_ERROR, e.what());
  } catch (...) {
    state.request_trap(SANDBOX_TRAP_HOST_ERROR, "WASI host failure");
  }
  return result;
}

// Raises the trap a call requested. Nothing with a destructor is alive here.
u32 finish(Ctx* ctx, u32 result) {
  HostState& state = state_of(ctx);
  if (state.pending_trap != 0) {
    const u32 code = state.pending_trap;
    state.pending_trap = 0;
    if (code == SANDBOX_TRAP_HOST_ERROR && !state.host_error.empty()) {
      sandbox_wasm_trap_with_message(code, state.host_error.c_str());  // copies the message
    }
    sandbox_wasm_trap(code);
  }
  return result;
}

}  // namespace

extern "C" {

u32 Z_wasi_snapshot_preview1Z_args_get(Ctx* ctx, u32 a, u32 b) {
  return finish(ctx, run(ctx, [&](HostState& s) { return s.args_get(a, b); }));
}

u32 Z_wasi_snapshot_preview1Z_args_sizes_get(Ctx* ctx, u32 a, u32 b) {
  return finish(ctx, run(ctx, [&](HostState& s) { return s.args_sizes_get(a, b); }));
}

u32 Z_wasi_snapshot_preview1Z_environ_get(Ctx* ctx, u32 a, u32 b) {
  return finish(ctx, run(ctx, [&](HostState& s) { return s.environ_get(a, b); }));
}

u32 Z_wasi_snapshot_preview1Z_environ_sizes_get(Ctx* ctx, u32 a, u32 b) {
  return finish(ctx, run(ctx, [&](HostState& s) { return s.environ_sizes_get(a, b); }));
}

u32 Z_wasi_snapshot_preview1Z_clock_res_get(Ctx* ctx, u32 id, u32 out) {
  return finish(ctx, run(ctx, [&](HostState& s) { return s.clock_res_get(id, out); }));
}

u32 Z_wasi_snapshot_preview1Z_clock_time_get(Ctx* ctx, u32 id, u64 precision, u32 out) {
  return finish(ctx, run(ctx, [&](HostState& s) { return s.clock_time_get(id, precision, out); }));
}

u32 Z_wasi_snapshot_preview1Z_random_get(Ctx* ctx, u32 buf, u32 len) {
  return finish(ctx, run(ctx, [&](HostState& s) { return s.random_get(buf, len); }));
}

u32 Z_wasi_snapshot_preview1Z_proc_raise(Ctx* ctx, u32 sig) {
  return finish(ctx, run(ctx, [&](HostState& s) { return s.proc_raise(sig); }));
}

u32 Z_wasi_snapshot_preview1Z_fd_advise(Ctx* ctx, u32 fd, u64, u64, u32) {
  return finish(ctx, run(ctx, [&](HostState& s) { return s.fd_advise(fd); }));
}

u32 Z_wasi_snapshot_preview1Z_fd_close(Ctx* ctx, u32 fd) {
  return finish(ctx, run(ctx, [&](HostState& s) { return s.fd_close(fd); }));
}

u32 Z_wasi_snapshot_preview1Z_fd_datasync(Ctx* ctx, u32 fd) {
  return finish(ctx, run(ctx, [&](HostState& s) { return s.fd_sync(fd); }));
}

u32 Z_wasi_snapshot_preview1Z_fd_sync(Ctx* ctx, u32 fd) {
  return finish(ctx, run(ctx, [&](HostState& s) { return s.fd_sync(fd); }));
}

u32 Z_wasi_snapshot_preview1Z_fd_fdstat_get(Ctx* ctx, u32 fd, u32 out) {
  return finish(ctx, run(ctx, [&](HostState& s) { return s.fd_fdstat_get(fd, out); }));
}

u32 Z_wasi_snapshot_preview1Z_fd_fdstat_set_flags(Ctx* ctx, u32 fd, u32 flags) {
  return finish(ctx, run(ctx, [&](HostState& s) { return s.fd_fdstat_set_flags(fd, flags); }));
}

u32 Z_wasi_snapshot_preview1Z_fd_fdstat_set_rights(Ctx* ctx, u32 fd, u64 base, u64 inheriting) {
  return finish(
      ctx, run(ctx, [&](HostState& s) { return s.fd_fdstat_set_rights(fd, base, inheriting); }));
}

u32 Z_wasi_snapshot_preview1Z_fd_filestat_get(Ctx* ctx, u32 fd, u32 out) {
  return finish(ctx, run(ctx, [&](HostState& s) { return s.fd_filestat_get(fd, out); }));
}

u32 Z_wasi_snapshot_preview1Z_fd_pread(Ctx* ctx, u32 fd, u32 iovs, u32 n, u64 offset, u32 out) {
  return finish(ctx, run(ctx, [&](HostState& s) { return s.fd_pread(fd, iovs, n, offset, out); }));
}

u32 Z_wasi_snapshot_preview1Z_fd_prestat_get(Ctx* ctx, u32 fd, u32 out) {
  return finish(ctx, run(ctx, [&](HostState& s) { return s.fd_prestat_get(fd, out); }));
}

u32 Z_wasi_snapshot_preview1Z_fd_prestat_dir_name(Ctx* ctx, u32 fd, u32 buf, u32 len) {
  return finish(ctx, run(ctx, [&](HostState& s) { return s.fd_prestat_dir_name(fd, buf, len); }));
}

u32 Z_wasi_snapshot_preview1Z_fd_read(Ctx* ctx, u32 fd, u32 iovs, u32 n, u32 out) {
  return finish(ctx, run(ctx, [&](HostState& s) { return s.fd_read(fd, iovs, n, out); }));
}

u32 Z_wasi_snapshot_preview1Z_fd_readdir(Ctx* ctx, u32 fd, u32 buf, u32 len, u64 cookie, u32 out) {
  return finish(ctx,
                run(ctx, [&](HostState& s) { return s.fd_readdir(fd, buf, len, cookie, out); }));
}

u32 Z_wasi_snapshot_preview1Z_fd_renumber(Ctx* ctx, u32 fd, u32 to) {
  return finish(ctx, run(ctx, [&](HostState& s) { return s.fd_renumber(fd, to); }));
}

u32 Z_wasi_snapshot_preview1Z_fd_seek(Ctx* ctx, u32 fd, u64 offset, u32 whence, u32 out) {
  return finish(ctx, run(ctx, [&](HostState& s) { return s.fd_seek(fd, offset, whence, out); }));
}

u32 Z_wasi_snapshot_preview1Z_fd_tell(Ctx* ctx, u32 fd, u32 out) {
  return finish(ctx, run(ctx, [&](HostState& s) { return s.fd_tell(fd, out); }));
}

u32 Z_wasi_snapshot_preview1Z_fd_write(Ctx* ctx, u32 fd, u32 iovs, u32 n, u32 out) {
  return finish(ctx, run(ctx, [&](HostState& s) { return s.fd_write(fd, iovs, n, out); }));
}

u32 Z_wasi_snapshot_preview1Z_path_create_directory(Ctx* ctx, u32 fd, u32 path, u32 len) {
  return finish(ctx,
                run(ctx, [&](HostState& s) { return s.path_create_directory(fd, path, len); }));
}

u32 Z_wasi_snapshot_preview1Z_path_filestat_get(Ctx* ctx, u32 fd, u32 flags, u32 path, u32 len,
                                                u32 out) {
  return finish(
      ctx, run(ctx, [&](HostState& s) { return s.path_filestat_get(fd, flags, path, len, out); }));
}

u32 Z_wasi_snapshot_preview1Z_path_open(Ctx* ctx, u32 fd, u32 dirflags, u32 path, u32 len,
                                        u32 oflags, u64 base, u64 inheriting, u32 fdflags,
                                        u32 out) {
  return finish(ctx, run(ctx, [&](HostState& s) {
                  return s.path_open(fd, dirflags, path, len, oflags, base, inheriting, fdflags,
                                     out);
                }));
}

u32 Z_wasi_snapshot_preview1Z_path_readlink(Ctx* ctx, u32 fd, u32 path, u32 len, u32 buf,
                                            u32 buf_len, u32 out) {
  return finish(ctx, run(ctx, [&](HostState& s) {
                  return s.path_readlink(fd, path, len, buf, buf_len, out);
                }));
}

u32 Z_wasi_snapshot_preview1Z_path_remove_directory(Ctx* ctx, u32 fd, u32 path, u32 len) {
  return finish(ctx,
                run(ctx, [&](HostState& s) { return s.path_remove_directory(fd, path, len); }));
}

u32 Z_wasi_snapshot_preview1Z_path_rename(Ctx* ctx, u32 fd, u32 old_path, u32 old_len, u32 new_fd,
                                          u32 new_path, u32 new_len) {
  return finish(ctx, run(ctx, [&](HostState& s) {
                  return s.path_rename(fd, old_path, old_len, new_fd, new_path, new_len);
                }));
}

u32 Z_wasi_snapshot_preview1Z_path_unlink_file(Ctx* ctx, u32 fd, u32 path, u32 len) {
  return finish(ctx, run(ctx, [&](HostState& s) { return s.path_unlink_file(fd, path, len); }));
}

void Z_wasi_snapshot_preview1Z_proc_exit(Ctx* ctx, u32 code) {
  finish(ctx, run(ctx, [&](HostState& s) {
           s.proc_exit(code);
           return u32{0};
         }));
  sandbox_wasm_trap(SANDBOX_TRAP_EXIT);  // proc_exit always requested it; never return
}

u32 Z_wasi_snapshot_preview1Z_sched_yield(Ctx*) { return sandbox::wasi::kSuccess; }

// Denied capabilities (docs/guest-abi.md#denied-capabilities): links, symlinks, timestamps, sizes,
// pwrite, sockets, polling. Always EPERM, whatever the arguments.

u32 Z_wasi_snapshot_preview1Z_fd_allocate(Ctx*, u32, u64, u64) { return sandbox::wasi::kEPerm; }

u32 Z_wasi_snapshot_preview1Z_fd_filestat_set_size(Ctx*, u32, u64) { return sandbox::wasi::kEPerm; }

u32 Z_wasi_snapshot_preview1Z_fd_filestat_set_times(Ctx*, u32, u64, u64, u32) {
  return sandbox::wasi::kEPerm;
}

u32 Z_wasi_snapshot_preview1Z_fd_pwrite(Ctx*, u32, u32, u32, u64, u32) {
  return sandbox::wasi::kEPerm;
}

u32 Z_wasi_snapshot_preview1Z_path_filestat_set_times(Ctx*, u32, u32, u32, u32, u64, u64, u32) {
  return sandbox::wasi::kEPerm;
}

u32 Z_wasi_snapshot_preview1Z_path_link(Ctx*, u32, u32, u32, u32, u32, u32, u32) {
  return sandbox::wasi::kEPerm;
}

u32 Z_wasi_snapshot_preview1Z_path_symlink(Ctx*, u32, u32, u32, u32, u32) {
  return sandbox::wasi::kEPerm;
}

u32 Z_wasi_snapshot_preview1Z_poll_oneoff(Ctx*, u32, u32, u32, u32) {
  return sandbox::wasi::kEPerm;
}

u32 Z_wasi_snapshot_preview1Z_sock_accept(Ctx*, u32, u32, u32) { return sandbox::wasi::kEPerm; }

u32 Z_wasi_snapshot_preview1Z_sock_recv(Ctx*, u32, u32, u32, u32, u32, u32) {
  return sandbox::wasi::kEPerm;
}

u32 Z_wasi_snapshot_preview1Z_sock_send(Ctx*, u32, u32, u32, u32, u32) {
  return sandbox::wasi::kEPerm;
}

u32 Z_wasi_snapshot_preview1Z_sock_shutdown(Ctx*, u32, u32) { return sandbox::wasi::kEPerm; }

}  // extern "C"
