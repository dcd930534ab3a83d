// The post-initialisation image of an embedded interpreter: the linear memory and mutable
// globals right after EmbeddedDriver::boot, kept once per engine and copied into every new
// instance instead of running the interpreter's start-up again.
//
// Only the pages that differ from a freshly instantiated memory are copied: a fresh instance's
// memory is deterministic (data segments, zero elsewhere), so copying the differing non-zero
// pages (as runs of consecutive pages) and clearing the pages that instantiation fills but the
// image has all zero (`cleared`) reproduces the image exactly. Pages the interpreter's start-up
// left as the data segments wrote them (most of an embedded standard library) cost nothing.
//
// Copy-on-write (ImageMapping::kCopyOnWrite, the default; docs/guest-abi.md#copy-on-write-mapping):
// the image's pages are written once into a sealed memfd, and each instance maps it
// MAP_PRIVATE over the start of its memory (src/wasm/memory_image.h) instead of copying: tens of
// MiB cost a few tens of microseconds of page-table work, an instance pays only for the 4 KiB
// pages it writes, and idle instances share every page they did not write. `page_bytes` then
// point into a read-only shared view of the memfd (no second copy in the heap). Where
// memfd_create, sealing or a mapping fails, the image is copied as described above, chosen at
// run time per image (and per instance when one mapping fails); kImageMappingEnv forces the
// copying path so both are tested.
//
// Resetting a used instance: reset_to_image() brings an instance that ran back to the image, so
// a stateless run can reuse the instance of an earlier one. A mapped instance gets the image's
// bytes back on just the 4 KiB pages it wrote (its private copies, found in /proc/self/pagemap;
// where that cannot be read they are dropped with MADV_DONTNEED, and the next run faults them
// in again). A copied one is rewritten page
// by page: on virtual machines the first writes to memory fresh from the kernel cost about a
// millisecond per MiB (far more than page faults alone), so rewriting a resident memory is
// several times cheaper than filling a new one; write tracking would cost a signal round trip
// per written page instead. For that the image also knows every page's bytes (`page_bytes`). A
// reset is refused (false) whenever the instance may hold state the image does not describe: it
// trapped, its memory grew, it holds open files or extension handles, or it hit the output
// limit. Fixed descriptors the run closed (stdout, a preopen) are reopened: the image's C
// library expects them. (The modules used with it have no reference types: their tables cannot
// change.)
//
// Thread-safety: an Image is immutable once captured and shared by any number of threads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <sandbox/clock.h>

#include "embedded/guest.h"

namespace sandbox::embedded {

struct ImageStats {
  std::uint32_t pages = 0;          // 64 KiB Wasm pages
  std::uint32_t copied_pages = 0;   // pages copied into every new instance (they differ from
                                    // what instantiation writes, and are not all zero)
  std::uint32_t cleared_pages = 0;  // pages instantiation fills but the image has all zero
  double boot_ms = 0;               // EmbeddedDriver::boot when the image was made
  std::uint64_t boot_fuel = 0;
};

// How instances get an image (see above).
enum class ImageMapping : std::uint8_t {
  kCopyOnWrite,  // a sealed memfd mapped into each instance; copied where that fails
  kCopy,         // copied into each instance
};

// When this environment variable is "copy", default_image_mapping() is kCopy: the whole suite
// can run on the copying path.
inline constexpr const char* kImageMappingEnv = "SANDBOX_IMAGE_MAPPING";
ImageMapping default_image_mapping();

struct Image {
  Image() = default;
  Image(const Image&) = delete;  // page_bytes points into the image's own buffers
  Image& operator=(const Image&) = delete;
  ~Image();

  // True when instances map `memfd` (and `data`/`base` are empty).
  bool copy_on_write() const { return memfd >= 0; }

  struct Run {
    std::uint32_t first_page = 0;
    std::uint32_t pages = 0;
    std::size_t offset = 0;  // into `data`
  };
  std::uint32_t pages = 0;
  std::vector<Run> runs;           // pages that differ from instantiation and are not zero
  std::vector<std::uint8_t> data;  // their bytes
  std::vector<std::uint32_t> cleared;
  std::vector<std::uint8_t> base;  // non-zero pages the image shares with instantiation
  // Per page: into data or base, or into `view` when copy-on-write; null = all zero.
  std::vector<const std::uint8_t*> page_bytes;
  std::vector<std::uint8_t> globals;  // wasm::Instance::save_globals()
  std::uint64_t handle = 0;           // EmbeddedGuest::handle() after boot
  ImageStats stats;
  int memfd = -1;                // the sealed image file, or -1
  std::uint8_t* view = nullptr;  // memfd mapped shared and read-only (pages * 64 KiB)
};

// Boots a new guest made with `config` (EmbeddedDriver::boot under `boot_fuel`) and captures its
// image. The guest's WASI layout is the one every later instance gets (`stdlib`, /dev, and an
// empty, enabled /workspace; no environment), because the interpreter's C library records the
// preopens during boot. Throws what boot throws, and std::runtime_error when boot leaves the
// instance unusable or host-side state behind.
//
// The boot runs under a fixed environment (kImageClockMs for the realtime clock, a monotonic
// clock that advances 1 µs per reading, random_get from kImageRandomSeed, inode numbers in order
// of first use instead of from host addresses), so every process of
// a build captures the same image and a snapshot stored as a delta from it
// (docs/snapshot-format.md#delta-encoding) restores in the next process. What the guest uses
// at run time is not affected: every copy of the image runs after_copy (re-seeding) and reads
// the real clocks; only what the interpreter keeps from its boot (a string-hash seed, a start
// time) is the same in every process of the build.
inline constexpr std::int64_t kImageClockMs = 1'767'225'600'000;  // 2026-01-01T00:00:00Z
inline constexpr std::uint64_t kImageRandomSeed = 0x5eed'1a6e'0b00'7eedULL;
//
// With kCopyOnWrite the image is placed in a sealed memfd; when that fails it is kept for
// copying (copy_on_write() is then false).
std::shared_ptr<const Image> capture_image(const GuestConfig& config,
                                           const std::shared_ptr<const StdlibTree>& stdlib,
                                           std::uint64_t boot_fuel,
                                           ImageMapping mapping = default_image_mapping());

// True when `a` and `b` hold the same pages, byte for byte, and the same handle.
bool same_pages(const Image& a, const Image& b);

// The fingerprint of an image's pages: sha256 hex over the page count and every page's sha256
// (zero pages included), so equal fingerprints mean equal memory.
std::string image_fingerprint(const Image& image);

// Copies (or maps) `image` into `guest`, whose instance must be fresh (kFresh); it becomes ready
// to call. With `track_writes`, write tracking starts afterwards (sessions report dirty pages
// with it). Throws std::runtime_error when a failed mapping left the memory unusable (the
// guest must be discarded).
void apply_image(const Image& image, Guest& guest, bool track_writes);

// The memory part of apply_image(): puts the image's pages into [0, image.pages) of `instance`,
// whose memory must hold at least that many pages, be untracked, and be as instantiation (with
// or without the data segments) and prepare_restore() left it. Globals are not touched. Throws
// like apply_image().
void place_image(const Image& image, wasm::Instance& instance);

// True when `instance`'s memory maps `image` (copy-on-write) rather than holding a copy.
bool maps_image(const Image& image, const wasm::Instance& instance);

// Brings a guest made by apply_image() and then used back to `image` (see above). Returns false,
// leaving the guest as it was, when that is not possible; the guest must then be discarded.
bool reset_to_image(const Image& image, Guest& guest);

}  // namespace sandbox::embedded
