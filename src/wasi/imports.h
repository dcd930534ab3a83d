/* Prototypes of the `wasi_snapshot_preview1` imports defined by sandbox_wasi, exactly as
 * wasm2c 1.0.32 declares them in generated headers (pointers are u32 guest offsets). Included
 * by the definitions (imports.cc) and by tests that call the imports directly. */
#ifndef SANDBOX_WASI_IMPORTS_H_
#define SANDBOX_WASI_IMPORTS_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct Z_wasi_snapshot_preview1_instance_t;

uint32_t Z_wasi_snapshot_preview1Z_args_get(struct Z_wasi_snapshot_preview1_instance_t*, uint32_t,
                                            uint32_t);
uint32_t Z_wasi_snapshot_preview1Z_args_sizes_get(struct Z_wasi_snapshot_preview1_instance_t*,
                                                  uint32_t, uint32_t);
uint32_t Z_wasi_snapshot_preview1Z_environ_get(struct Z_wasi_snapshot_preview1_instance_t*,
                                               uint32_t, uint32_t);
uint32_t Z_wasi_snapshot_preview1Z_environ_sizes_get(struct Z_wasi_snapshot_preview1_instance_t*,
                                                     uint32_t, uint32_t);
uint32_t Z_wasi_snapshot_preview1Z_clock_res_get(struct Z_wasi_snapshot_preview1_instance_t*,
                                                 uint32_t, uint32_t);
uint32_t Z_wasi_snapshot_preview1Z_clock_time_get(struct Z_wasi_snapshot_preview1_instance_t*,
                                                  uint32_t, uint64_t, uint32_t);
uint32_t Z_wasi_snapshot_preview1Z_random_get(struct Z_wasi_snapshot_preview1_instance_t*, uint32_t,
                                              uint32_t);
uint32_t Z_wasi_snapshot_preview1Z_proc_raise(struct Z_wasi_snapshot_preview1_instance_t*,
                                              uint32_t);
uint32_t Z_wasi_snapshot_preview1Z_fd_advise(struct Z_wasi_snapshot_preview1_instance_t*, uint32_t,
                                             uint64_t, uint64_t, uint32_t);
uint32_t Z_wasi_snapshot_preview1Z_fd_close(struct Z_wasi_snapshot_preview1_instance_t*, uint32_t);
uint32_t Z_wasi_snapshot_preview1Z_fd_datasync(struct Z_wasi_snapshot_preview1_instance_t*,
                                               uint32_t);
uint32_t Z_wasi_snapshot_preview1Z_fd_sync(struct Z_wasi_snapshot_preview1_instance_t*, uint32_t);
uint32_t Z_wasi_snapshot_preview1Z_fd_fdstat_get(struct Z_wasi_snapshot_preview1_instance_t*,
                                                 uint32_t, uint32_t);
uint32_t Z_wasi_snapshot_preview1Z_fd_fdstat_set_flags(struct Z_wasi_snapshot_preview1_instance_t*,
                                                       uint32_t, uint32_t);
uint32_t Z_wasi_snapshot_preview1Z_fd_fdstat_set_rights(struct Z_wasi_snapshot_preview1_instance_t*,
                                                        uint32_t, uint64_t, uint64_t);
uint32_t Z_wasi_snapshot_preview1Z_fd_filestat_get(struct Z_wasi_snapshot_preview1_instance_t*,
                                                   uint32_t, uint32_t);
uint32_t Z_wasi_snapshot_preview1Z_fd_pread(struct Z_wasi_snapshot_preview1_instance_t*, uint32_t,
                                            uint32_t, uint32_t, uint64_t, uint32_t);
uint32_t Z_wasi_snapshot_preview1Z_fd_prestat_get(struct Z_wasi_snapshot_preview1_instance_t*,
                                                  uint32_t, uint32_t);
uint32_t Z_wasi_snapshot_preview1Z_fd_prestat_dir_name(struct Z_wasi_snapshot_preview1_instance_t*,
                                                       uint32_t, uint32_t, uint32_t);
uint32_t Z_wasi_snapshot_preview1Z_fd_read(struct Z_wasi_snapshot_preview1_instance_t*, uint32_t,
                                           uint32_t, uint32_t, uint32_t);
uint32_t Z_wasi_snapshot_preview1Z_fd_readdir(struct Z_wasi_snapshot_preview1_instance_t*, uint32_t,
                                              uint32_t, uint32_t, uint64_t, uint32_t);
uint32_t Z_wasi_snapshot_preview1Z_fd_renumber(struct Z_wasi_snapshot_preview1_instance_t*,
                                               uint32_t, uint32_t);
uint32_t Z_wasi_snapshot_preview1Z_fd_seek(struct Z_wasi_snapshot_preview1_instance_t*, uint32_t,
                                           uint64_t, uint32_t, uint32_t);
uint32_t Z_wasi_snapshot_preview1Z_fd_tell(struct Z_wasi_snapshot_preview1_instance_t*, uint32_t,
                                           uint32_t);
uint32_t Z_wasi_snapshot_preview1Z_fd_write(struct Z_wasi_snapshot_preview1_instance_t*, uint32_t,
                                            uint32_t, uint32_t, uint32_t);
uint32_t Z_wasi_snapshot_preview1Z_path_create_directory(
    struct Z_wasi_snapshot_preview1_instance_t*, uint32_t, uint32_t, uint32_t);
uint32_t Z_wasi_snapshot_preview1Z_path_filestat_get(struct Z_wasi_snapshot_preview1_instance_t*,
                                                     uint32_t, uint32_t, uint32_t, uint32_t,
                                                     uint32_t);
uint32_t Z_wasi_snapshot_preview1Z_path_open(struct Z_wasi_snapshot_preview1_instance_t*, uint32_t,
                                             uint32_t, uint32_t, uint32_t, uint32_t, uint64_t,
                                             uint64_t, uint32_t, uint32_t);
uint32_t Z_wasi_snapshot_preview1Z_path_readlink(struct Z_wasi_snapshot_preview1_instance_t*,
                                                 uint32_t, uint32_t, uint32_t, uint32_t, uint32_t,
                                                 uint32_t);
uint32_t Z_wasi_snapshot_preview1Z_path_remove_directory(
    struct Z_wasi_snapshot_preview1_instance_t*, uint32_t, uint32_t, uint32_t);
uint32_t Z_wasi_snapshot_preview1Z_path_rename(struct Z_wasi_snapshot_preview1_instance_t*,
                                               uint32_t, uint32_t, uint32_t, uint32_t, uint32_t,
                                               uint32_t);
uint32_t Z_wasi_snapshot_preview1Z_path_unlink_file(struct Z_wasi_snapshot_preview1_instance_t*,
                                                    uint32_t, uint32_t, uint32_t);
void Z_wasi_snapshot_preview1Z_proc_exit(struct Z_wasi_snapshot_preview1_instance_t*, uint32_t);
uint32_t Z_wasi_snapshot_preview1Z_sched_yield(struct Z_wasi_snapshot_preview1_instance_t*);
uint32_t Z_wasi_snapshot_preview1Z_fd_allocate(struct Z_wasi_snapshot_preview1_instance_t*,
                                               uint32_t, uint64_t, uint64_t);
uint32_t Z_wasi_snapshot_preview1Z_fd_filestat_set_size(struct Z_wasi_snapshot_preview1_instance_t*,
                                                        uint32_t, uint64_t);
uint32_t Z_wasi_snapshot_preview1Z_fd_filestat_set_times(
    struct Z_wasi_snapshot_preview1_instance_t*, uint32_t, uint64_t, uint64_t, uint32_t);
uint32_t Z_wasi_snapshot_preview1Z_fd_pwrite(struct Z_wasi_snapshot_preview1_instance_t*, uint32_t,
                                             uint32_t, uint32_t, uint64_t, uint32_t);
uint32_t Z_wasi_snapshot_preview1Z_path_filestat_set_times(
    struct Z_wasi_snapshot_preview1_instance_t*, uint32_t, uint32_t, uint32_t, uint32_t, uint64_t,
    uint64_t, uint32_t);
uint32_t Z_wasi_snapshot_preview1Z_path_link(struct Z_wasi_snapshot_preview1_instance_t*, uint32_t,
                                             uint32_t, uint32_t, uint32_t, uint32_t, uint32_t,
                                             uint32_t);
uint32_t Z_wasi_snapshot_preview1Z_path_symlink(struct Z_wasi_snapshot_preview1_instance_t*,
                                                uint32_t, uint32_t, uint32_t, uint32_t, uint32_t);
uint32_t Z_wasi_snapshot_preview1Z_poll_oneoff(struct Z_wasi_snapshot_preview1_instance_t*,
                                               uint32_t, uint32_t, uint32_t, uint32_t);
uint32_t Z_wasi_snapshot_preview1Z_sock_accept(struct Z_wasi_snapshot_preview1_instance_t*,
                                               uint32_t, uint32_t, uint32_t);
uint32_t Z_wasi_snapshot_preview1Z_sock_recv(struct Z_wasi_snapshot_preview1_instance_t*, uint32_t,
                                             uint32_t, uint32_t, uint32_t, uint32_t, uint32_t);
uint32_t Z_wasi_snapshot_preview1Z_sock_send(struct Z_wasi_snapshot_preview1_instance_t*, uint32_t,
                                             uint32_t, uint32_t, uint32_t, uint32_t);
uint32_t Z_wasi_snapshot_preview1Z_sock_shutdown(struct Z_wasi_snapshot_preview1_instance_t*,
                                                 uint32_t, uint32_t);

#ifdef __cplusplus
}
#endif

#endif /* SANDBOX_WASI_IMPORTS_H_ */
