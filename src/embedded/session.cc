#include "embedded/session.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <stdexcept>

#include "base/base64.h"
#include "base/populate_write.h"
#include "embedded/guest_abi.h"
#include "embedded/image.h"
#include "snapshot/block_runs.h"
#include "snapshot/snapshot_error.h"
#include "wasm/write_tracking.h"

namespace sandbox::embedded {
namespace {

constexpr std::string_view kGlobalsKey = "globals";

void require_workspace(const SessionOptions& options) {
  if (options.workspace == nullptr) {
    throw std::invalid_argument("SessionOptions::workspace is required");
  }
}

// Makes a new copy (of the image or of a snapshot) ready for its first execute: the driver's
// after_copy under the language's budget, outside any execute's usage.
void prepare_copy(const EngineState& state, Guest& guest) {
  guest.reset_fuel();
  state.driver->after_copy(guest);
  guest.wasi().reset_logs();
}

// The pages of the delta when `source` is a delta from the image this engine's sessions boot
// from (the SnapshotBase is made from that image), so restore can start from the image; null
// otherwise.
const std::vector<std::uint32_t>* delta_from_image(EngineState& state,
                                                   const SnapshotSource& source) {
  if (!source.base_delta_pages || !source.read_page) return nullptr;
  const auto base = state.snapshot_base();
  const bool ours = base != nullptr && base->fingerprint == source.base_fingerprint &&
                    source.memory_pages >= base->pages;
  return ours ? &*source.base_delta_pages : nullptr;
}

// The host's page size: the unit of copy-on-write.
constexpr std::size_t kBlockBytes = 4096;

// Writes a restored page over the image's page `in_image` (null: the memory there is zero)
// already in place, touching only the 4 KiB blocks that differ: a mapped image page stays shared
// where the context did not change it, which saves both its copy and its resident memory. Each
// run of several differing blocks is made private in one system call first (the kernel then
// breaks copy-on-write for the run at once instead of taking a write fault per block: 2.5 ms
// against 1 ms for 39 whole pages on a 2-core virtual machine); that is best effort, as a kernel
// without MADV_POPULATE_WRITE (before 5.14) takes the faults instead.
//
// Appends the 4 KiB pages it writes (counted from the memory's start) to `written`.
void write_page_over_image(std::span<std::uint8_t> memory, std::uint32_t page,
                           std::span<const std::uint8_t> bytes, const std::uint8_t* in_image,
                           std::vector<std::uint32_t>& written) {
  static const std::array<std::uint8_t, kBlockBytes> kZero{};
  std::uint8_t* p = memory.data() + std::size_t{page} * kWasmPageBytes;
  const auto differs = [&](std::size_t block) {
    const std::size_t at = block * kBlockBytes;
    return std::memcmp(bytes.data() + at, in_image ? in_image + at : kZero.data(), kBlockBytes) !=
           0;
  };
  constexpr std::size_t kBlocks = kWasmPageBytes / kBlockBytes;
  std::size_t block = 0;
  while (block < kBlocks) {
    if (!differs(block)) {
      ++block;
      continue;
    }
    std::size_t end = block + 1;
    while (end < kBlocks && differs(end)) ++end;
    const std::size_t at = block * kBlockBytes;
    const std::size_t n = (end - block) * kBlockBytes;
    if (end - block > 1) populate_write(p + at, n);
    std::memcpy(p + at, bytes.data() + at, n);
    for (std::size_t b = block; b < end; ++b) {
      written.push_back(static_cast<std::uint32_t>(page * kBlocks + b));
    }
    block = end;
  }
}

// Writes a delta given in 4 KiB blocks (SnapshotSource::base_delta_blocks) over the image already
// in place. Whoever gave the blocks compared them with the image (a worker's server did, as it
// read the snapshot), so nothing is compared again; each run of adjacent blocks is made private
// at once, as in write_page_over_image. Appends the blocks (4 KiB pages) to `written`.
void write_delta_blocks(std::span<std::uint8_t> memory, const SnapshotBlocks& delta,
                        std::vector<std::uint32_t>& written) {
  static_assert(kSnapshotBlockBytes == kBlockBytes && kHashBlockBytes == kBlockBytes);
  const std::span<const std::uint32_t> blocks = delta.blocks;
  if (delta.bytes.size() != blocks.size() * kBlockBytes) {
    throw SnapshotError("Snapshot has " + std::to_string(blocks.size()) + " blocks but " +
                        std::to_string(delta.bytes.size()) + " bytes for them");
  }
  const std::size_t in_memory = memory.size() / kBlockBytes;
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    if (blocks[i] >= in_memory || (i > 0 && blocks[i] <= blocks[i - 1])) {
      throw SnapshotError("Snapshot block " + std::to_string(blocks[i]) +
                          " is out of order or past the memory");
    }
  }
  const std::uint8_t* from = delta.bytes.data();
  for_each_block_run(memory, blocks, [&](std::span<std::uint8_t> run) {
    if (run.size() > kBlockBytes) populate_write(run.data(), run.size());
    std::memcpy(run.data(), from, run.size());
    from += run.size();
  });
  written.insert(written.end(), blocks.begin(), blocks.end());
}

// Writes one restored page: its bytes, or zero when the snapshot had it all zero. Appends its
// 4 KiB pages to `written`.
void write_page(std::span<std::uint8_t> memory, std::uint32_t page,
                const std::optional<std::span<const std::uint8_t>>& bytes,
                std::vector<std::uint32_t>& written) {
  std::uint8_t* p = memory.data() + std::size_t{page} * kWasmPageBytes;
  constexpr std::uint32_t kBlocks = kWasmPageBytes / kBlockBytes;
  for (std::uint32_t b = 0; b < kBlocks; ++b) written.push_back(page * kBlocks + b);
  if (!bytes) {
    std::memset(p, 0, kWasmPageBytes);
    return;
  }
  if (bytes->size() != kWasmPageBytes) {
    throw SnapshotError("Snapshot page " + std::to_string(page) + " has " +
                        std::to_string(bytes->size()) + " bytes");
  }
  std::memcpy(p, bytes->data(), kWasmPageBytes);
}

}  // namespace

EmbeddedSession::EmbeddedSession(std::shared_ptr<EngineState> state,
                                 std::unique_ptr<PooledGuest> guest, const SessionOptions& options)
    : engine_(std::move(state)),
      workspace_(options.workspace),
      on_cwd_change_(options.on_cwd_change),
      pooled_(std::move(guest)),
      guest_(&pooled_->guest),
      cwd_(options.cwd.empty() ? std::string(kWorkspaceRoot) : options.cwd) {}

EmbeddedSession::~EmbeddedSession() { release_guest(state_ == State::kIdle); }

std::unique_ptr<SessionInstance> EmbeddedSession::boot(std::shared_ptr<EngineState> state,
                                                       const SessionOptions& options) {
  require_workspace(options);
  const auto image = state->image();
  // An idle guest (an earlier run's or session's, reset to the image) or a new one.
  std::unique_ptr<PooledGuest> pooled = state->take_guest(*image);
  pooled->guest.wasi().remount_workspace(options.workspace);
  // Best effort: without tracking, snapshots hash every page.
  (void)pooled->guest.instance().track_writes();
  prepare_copy(*state, pooled->guest);
  return std::make_unique<EmbeddedSession>(std::move(state), std::move(pooled), options);
}

std::unique_ptr<SessionInstance> EmbeddedSession::restore(std::shared_ptr<EngineState> state,
                                                          const SessionOptions& options,
                                                          const SnapshotSource& source) {
  require_workspace(options);
  const auto* delta_pages = delta_from_image(*state, source);
  std::shared_ptr<const Image> image;
  std::unique_ptr<PooledGuest> pooled;
  if (delta_pages != nullptr) {
    // A delta from this engine's image: start from a guest in the image's state, an idle one
    // when there is one (its pages already mapped, and those that earlier runs wrote already
    // private: docs/snapshot-format.md#restoring-into-an-idle-instance), and write only the
    // pages the delta lists.
    image = state->image();
    pooled = state->take_guest(*image);
    pooled->guest.instance().grow_memory_to(source.memory_pages);  // throws beyond the cap
  } else {
    // With pages to read, the restore below writes every page: the data segments need no copy.
    pooled = std::make_unique<PooledGuest>(
        source.read_page ? state->placed_config() : state->run_config(), state->language.stdlib,
        state->clock);
    pooled->guest.instance().prepare_restore(source.memory_pages);  // throws beyond the cap
  }
  pooled->guest.wasi().remount_workspace(options.workspace);
  Guest* guest = &pooled->guest;
  wasm::Instance& instance = guest->instance();
  const auto memory = instance.memory();
  std::vector<std::uint32_t> written;  // the 4 KiB pages the restore writes, ascending
  if (delta_pages != nullptr && source.next_delta_blocks) {
    // The pieces as they arrive, the instance ready for them.
    while (const std::optional<SnapshotBlocks> piece = source.next_delta_blocks()) {
      if (!piece->blocks.empty() && !written.empty() && piece->blocks.front() <= written.back()) {
        throw SnapshotError("Snapshot block " + std::to_string(piece->blocks.front()) +
                            " is out of order");
      }
      write_delta_blocks(memory, *piece, written);
    }
  } else if (delta_pages != nullptr && source.base_delta_blocks) {
    write_delta_blocks(memory, *source.base_delta_blocks, written);
  } else if (delta_pages != nullptr) {
    for (const std::uint32_t page : *delta_pages) {
      if (page >= source.memory_pages) continue;
      const auto bytes = source.read_page(page);
      const std::uint8_t* in_image = page < image->pages ? image->page_bytes[page] : nullptr;
      if (!bytes) {
        // All zero in the snapshot: only an image page there needs clearing.
        if (in_image != nullptr) write_page(memory, page, bytes, written);
        continue;
      }
      if (bytes->size() != kWasmPageBytes) {
        throw SnapshotError("Snapshot page " + std::to_string(page) + " has " +
                            std::to_string(bytes->size()) + " bytes");
      }
      write_page_over_image(memory, page, *bytes, in_image, written);
    }
  } else if (source.read_page) {
    // Instantiated without its data segments, the memory is all zero: only the pages the
    // snapshot holds are written.
    for (std::uint32_t page = 0; page < source.memory_pages; ++page) {
      if (const auto bytes = source.read_page(page)) write_page(memory, page, bytes, written);
    }
  }
  const auto* globals = source.extra.if_contains(kGlobalsKey);
  if (globals == nullptr || !globals->is_string()) {
    throw SnapshotError("Snapshot has no saved globals");
  }
  const auto bytes = base64_decode(globals->get_string());
  if (!bytes) throw SnapshotError("Snapshot globals are not base64");
  instance.load_globals(*bytes);  // throws WasmError on a size mismatch
  guest->set_handle(source.handle);
  // Best effort, as after apply_image(): without tracking, snapshots hash every page. The pages
  // the restore wrote are the ones the context's steps wrote: they start as hot pages, so the
  // next steps write them without a fault each (docs/snapshot-format.md#hot-pages).
  if (instance.track_writes() && !written.empty()) {
    std::sort(written.begin(), written.end());
    written.erase(std::unique(written.begin(), written.end()), written.end());
    (void)sandbox_wasm_seed_hot_pages(instance.rt_memory(), written.data(), written.size());
  }
  prepare_copy(*state, *guest);
  return std::make_unique<EmbeddedSession>(std::move(state), std::move(pooled), options);
}

void EmbeddedSession::release_guest(bool reusable) {
  if (!pooled_) return;
  std::unique_ptr<PooledGuest> pooled = std::move(pooled_);
  guest_ = nullptr;
  // Only the instance of a session that did not fail goes back to the idle list, and
  // give_back() resets it to the image or drops it (grown memory, open files, a trap:
  // reset_to_image). Each execute's observer is gone already (OutputObserverScope).
  if (!reusable) return;
  try {
    (void)pooled->guest.instance().track_writes(wasm::WriteTracking::kNone);
    pooled->guest.wasi().remount_workspace(&pooled->scratch);
    engine_->give_back(std::move(pooled), *engine_->image());
  } catch (const std::exception&) {
    // Open descriptors or a failed reset: the guest is dropped.
  }
}

void EmbeddedSession::update_cwd(const std::string& reported) {
  if (reported.empty()) return;
  std::string next(kWorkspaceRoot);
  try {
    const NormalizedPath path = normalize_workspace_path(reported, cwd_);
    if (workspace_->stat(path.absolute, cwd_).type == WorkspaceNode::Type::kDirectory) {
      next = path.absolute;
    }
  } catch (const WorkspaceError&) {
    // Outside /workspace, missing, or the File API is disabled: back to the root.
  }
  if (next != cwd_) {
    cwd_ = std::move(next);
    if (on_cwd_change_) on_cwd_change_(cwd_);
  }
}

SessionOutcome EmbeddedSession::execute(const ExecutionRequest& request) {
  if (state_ != State::kIdle) throw std::logic_error("execute() on an invalid session");
  SessionOutcome out;
  try {
    guest_->reset_fuel();
    guest_->wasi().reset_logs();
    const OutputObserverScope observe(guest_->wasi(), request.on_output);
    const bool reseed = reseed_;
    reseed_ = false;
    GuestReply reply = engine_->driver->execute(
        *guest_, DriverRequest{request.code, cwd_, request.env_vars, reseed});
    if (!guest_->extension_empty()) {
      throw std::logic_error("The driver left host-side handles after a call");
    }
    update_cwd(reply.cwd);
    check_result_limit(reply.results);
    out.logs = guest_->wasi().logs();
    out.results = std::move(reply.results);
    out.error = std::move(reply.error);
    out.usage = guest_->usage();
    if (engine_->language.post_process) engine_->language.post_process(out);
  } catch (const std::exception& e) {
    state_ = State::kInvalid;
    out = SessionOutcome{};
    out.logs = guest_->wasi().logs();
    out.error = engine_error_outcome(e).error;
    out.usage = guest_->usage();
  } catch (...) {
    state_ = State::kInvalid;
    out = SessionOutcome{};
    out.logs = guest_->wasi().logs();
    out.error = ExecutionError{"EngineError", "Unknown engine failure", {}, std::nullopt};
    out.usage = guest_->usage();
  }
  out.cwd = cwd_;
  return out;
}

bool EmbeddedSession::can_snapshot() const {
  return state_ == State::kIdle && guest_ && guest_->host_state_empty() &&
         guest_->instance().state() == wasm::InstanceState::kReady;
}

SessionSnapshot EmbeddedSession::snapshot() {
  if (!can_snapshot()) throw std::logic_error("snapshot() requires can_snapshot()");
  SessionSnapshot snap;
  snap.handle = guest_->handle();
  snap.extra[kGlobalsKey] = base64_encode(guest_->instance().save_globals());
  snap.memory = guest_->instance().memory();
  snap.dirty_pages = guest_->instance().take_dirty_pages(snap.dirty_blocks);
  return snap;
}

void EmbeddedSession::close() {
  const bool reusable = state_ == State::kIdle;
  state_ = State::kInvalid;
  release_guest(reusable);
}

}  // namespace sandbox::embedded
