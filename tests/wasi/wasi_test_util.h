// A hand-made guest for calling the WASI imports directly: a linear memory in a host buffer, a
// bump allocator for guest-side buffers, and a trap catcher.
#pragma once

#include <csetjmp>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <sandbox/wasi.h>

#include "wasi/abi.h"
#include "wasi/imports.h"
#include "wasi_zip_util.h"

namespace sandbox::testing_wasi {

using Ctx = Z_wasi_snapshot_preview1_instance_t;

// Runs `f`; returns the trap code if an import trapped inside it.
std::optional<std::uint32_t> catch_trap(void (*f)(void*), void* arg);

template <typename F>
std::optional<std::uint32_t> trap_of(F&& f) {
  return catch_trap([](void* p) { (*static_cast<F*>(p))(); }, &f);
}

class FakeGuest {
 public:
  static constexpr std::uint32_t kPages = 128;
  static constexpr std::uint32_t kSize = kPages * 65'536;

  explicit FakeGuest(WasiOptions options)
      : bytes_(kSize, 0), memory_{bytes_.data(), kPages, kPages, kSize}, host_(std::move(options)) {
    host_.attach_memory(&memory_);
  }

  WasiHost& host() { return host_; }
  Ctx* ctx() { return static_cast<Ctx*>(host_.import_context()); }
  wasm_rt_memory_t& memory() { return memory_; }

  std::uint32_t alloc(std::uint32_t n) {
    const std::uint32_t at = next_;
    next_ += (n + 7) & ~7u;
    return at;
  }
  std::uint32_t put(std::string_view s) {
    const std::uint32_t at = alloc(static_cast<std::uint32_t>(s.size()) + 1);
    std::memcpy(bytes_.data() + at, s.data(), s.size());
    return at;
  }
  std::uint32_t u32(std::uint32_t at) const {
    std::uint32_t v;
    std::memcpy(&v, bytes_.data() + at, 4);
    return v;
  }
  std::uint64_t u64(std::uint32_t at) const {
    std::uint64_t v;
    std::memcpy(&v, bytes_.data() + at, 8);
    return v;
  }
  std::uint8_t u8(std::uint32_t at) const { return bytes_[at]; }
  std::string str(std::uint32_t at, std::uint32_t len) const {
    return std::string(reinterpret_cast<const char*>(bytes_.data()) + at, len);
  }
  // An iovec array of one buffer per piece.
  std::uint32_t iovecs(const std::vector<std::string>& pieces) {
    const std::uint32_t arr = alloc(8 * static_cast<std::uint32_t>(pieces.size()));
    for (std::size_t i = 0; i < pieces.size(); ++i) {
      const std::uint32_t p = put(pieces[i]);
      const auto len = static_cast<std::uint32_t>(pieces[i].size());
      std::memcpy(bytes_.data() + arr + 8 * i, &p, 4);
      std::memcpy(bytes_.data() + arr + 8 * i + 4, &len, 4);
    }
    return arr;
  }

  // path_open; returns {errno, fd}.
  std::pair<std::uint32_t, std::uint32_t> open(std::uint32_t dirfd, std::string_view path,
                                               std::uint32_t oflags = 0, bool write = false,
                                               std::uint32_t fdflags = 0) {
    const std::uint32_t p = put(path);
    const std::uint32_t out = alloc(4);
    std::uint64_t rights = wasi::kRightsAll & ~wasi::kRightFdWrite;
    if (write) rights |= wasi::kRightFdWrite;
    const std::uint32_t err = Z_wasi_snapshot_preview1Z_path_open(
        ctx(), dirfd, 0, p, static_cast<std::uint32_t>(path.size()), oflags, rights,
        wasi::kRightsAll, fdflags, out);
    return {err, err == 0 ? u32(out) : 0xffffffffu};
  }
  // fd_write of `pieces`; returns {errno, bytes written}.
  std::pair<std::uint32_t, std::uint32_t> write(std::uint32_t fd,
                                                const std::vector<std::string>& pieces) {
    const std::uint32_t iov = iovecs(pieces);
    const std::uint32_t out = alloc(4);
    const std::uint32_t err = Z_wasi_snapshot_preview1Z_fd_write(
        ctx(), fd, iov, static_cast<std::uint32_t>(pieces.size()), out);
    return {err, err == 0 ? u32(out) : 0};
  }
  // fd_read into one buffer of `max` bytes; returns {errno, bytes}.
  std::pair<std::uint32_t, std::string> read(std::uint32_t fd, std::uint32_t max = 4096) {
    const std::uint32_t buf = alloc(max);
    const std::uint32_t iov = alloc(8);
    std::memcpy(bytes_.data() + iov, &buf, 4);
    std::memcpy(bytes_.data() + iov + 4, &max, 4);
    const std::uint32_t out = alloc(4);
    const std::uint32_t err = Z_wasi_snapshot_preview1Z_fd_read(ctx(), fd, iov, 1, out);
    return {err, err == 0 ? str(buf, u32(out)) : std::string()};
  }
  std::uint32_t mkdir(std::uint32_t dirfd, std::string_view path) {
    const std::uint32_t p = put(path);
    return Z_wasi_snapshot_preview1Z_path_create_directory(ctx(), dirfd, p,
                                                           static_cast<std::uint32_t>(path.size()));
  }
  std::uint32_t unlink(std::uint32_t dirfd, std::string_view path) {
    const std::uint32_t p = put(path);
    return Z_wasi_snapshot_preview1Z_path_unlink_file(ctx(), dirfd, p,
                                                      static_cast<std::uint32_t>(path.size()));
  }
  std::uint32_t rmdir(std::uint32_t dirfd, std::string_view path) {
    const std::uint32_t p = put(path);
    return Z_wasi_snapshot_preview1Z_path_remove_directory(ctx(), dirfd, p,
                                                           static_cast<std::uint32_t>(path.size()));
  }
  std::uint32_t rename(std::uint32_t fd1, std::string_view from, std::uint32_t fd2,
                       std::string_view to) {
    const std::uint32_t a = put(from);
    const std::uint32_t b = put(to);
    return Z_wasi_snapshot_preview1Z_path_rename(ctx(), fd1, a,
                                                 static_cast<std::uint32_t>(from.size()), fd2, b,
                                                 static_cast<std::uint32_t>(to.size()));
  }
  // path_filestat_get; returns {errno, filestat offset}.
  std::pair<std::uint32_t, std::uint32_t> stat(std::uint32_t dirfd, std::string_view path) {
    const std::uint32_t p = put(path);
    const std::uint32_t out = alloc(64);
    const std::uint32_t err = Z_wasi_snapshot_preview1Z_path_filestat_get(
        ctx(), dirfd, 0, p, static_cast<std::uint32_t>(path.size()), out);
    return {err, out};
  }
  // fd_readdir from cookie 0 with a large buffer; returns {errno, names}.
  std::pair<std::uint32_t, std::vector<std::string>> readdir(std::uint32_t fd) {
    const std::uint32_t buf = alloc(65'536);
    const std::uint32_t used = alloc(4);
    const std::uint32_t err = Z_wasi_snapshot_preview1Z_fd_readdir(ctx(), fd, buf, 65'536, 0, used);
    std::vector<std::string> names;
    if (err != 0) return {err, names};
    std::uint32_t at = 0;
    while (at + 24 <= u32(used)) {
      const std::uint32_t namlen = u32(buf + at + 16);
      names.push_back(str(buf + at + 24, namlen));
      at += 24 + namlen;
    }
    return {err, names};
  }

 private:
  std::vector<std::uint8_t> bytes_;
  wasm_rt_memory_t memory_;
  WasiHost host_;
  std::uint32_t next_ = 1024;
};

}  // namespace sandbox::testing_wasi
