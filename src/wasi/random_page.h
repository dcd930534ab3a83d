// Random bytes for guests (WASI random_get), from the kernel's CSPRNG (getrandom(2)) a page at a
// time.
//
// A Python run reseeds its `random` module from 2,496 bytes, which wasi-libc asks for 256 at a
// time: ten getrandom calls per stateless `1+1`, each a system call (about 2 µs on a virtual
// machine, and a seccomp check in a worker process). Taking the kernel's bytes a page at a time
// makes that about one call in two runs. Nothing changes for the guest: every byte still comes
// from getrandom and is handed out once.
//
// The page belongs to the calling thread and is mapped with MADV_WIPEONFORK, so a process forked
// from this one (the zygote's workers) starts with it empty instead of handing out the bytes its
// parent holds. A byte is zeroed in the page as it is handed out. Requests larger than
// kRandomDirectBytes, and every request where the page cannot be made, go to getrandom directly.
//
// Thread-safety: each thread has its own page.
#pragma once

#include <cstddef>
#include <cstdint>

namespace sandbox::wasi {

// Requests above this go straight to getrandom: a page would serve few of them.
inline constexpr std::size_t kRandomDirectBytes = 1024;

// Fills `out` with `n` bytes from the kernel's CSPRNG; false when getrandom fails (errno set).
bool os_random(std::uint8_t* out, std::size_t n);

}  // namespace sandbox::wasi
