// Instance: lifecycle, guest calls, limits, snapshot/restore (state machine in wasm.h).
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>
#include <string>

#include <sandbox/wasm/instance.h>

#include "wasm/data_segments.h"
#include "wasm/module_descriptor.h"
#include "wasm/runtime.h"
#include "wasm/watchdog.h"
#include "wasm/write_tracking.h"
#include "wasm/write_tracking_mode.h"

namespace sandbox::wasm {

struct Instance::State {
  sandbox_wasm_fuel_context fuel{};
  sandbox_wasm_alloc_context alloc{};
  std::vector<void*> contexts;
  wasm_rt_memory_t* memory = nullptr;
  std::uint64_t fuel_budget = 0;
  std::uint32_t declared_max_pages = 0;
  std::vector<std::uint8_t> initial_refs;  // reference-typed mutable globals after instantiation
};

std::uint64_t Instance::refill_fuel(void* host) noexcept {
  auto* self = static_cast<Instance*>(host);
  try {
    return self->fuel_handler_ ? self->fuel_handler_() : 0;
  } catch (...) {
    return 0;
  }
}

namespace {

constexpr std::uint64_t kPage = SANDBOX_WASM_PAGE_SIZE;
static_assert(kImportStackReserveBytes == SANDBOX_WASM_IMPORT_STACK_RESERVE);

struct InstantiateCall {
  const sandbox_wasm_module_descriptor* descriptor;
  void* raw;
  void* const* contexts;
  static void thunk(void* p) {
    auto* c = static_cast<InstantiateCall*>(p);
    c->descriptor->instantiate(c->raw, c->contexts);
  }
};

Trap make_trap(std::uint32_t code) {
  Trap trap = trap_from_code(code);
  if (const char* message = sandbox_wasm_last_trap_message()) trap.message = message;
  if (trap.kind == TrapKind::kExit) {
    trap.exit_code = sandbox_wasm_exit_code();
    trap.message = "Guest exited with code " + std::to_string(trap.exit_code);
  }
  return trap;
}

bool is_ref(std::uint8_t type) {
  return type == SANDBOX_WASM_TYPE_FUNCREF || type == SANDBOX_WASM_TYPE_EXTERNREF;
}

enum class Which { kValues, kRefs, kAll };

// The mutable globals except fuel: numeric ones (kValues), reference-typed ones (kRefs), or both.
std::vector<std::uint8_t> mutable_globals(const sandbox_wasm_module_descriptor& d, const void* raw,
                                          Which which) {
  std::vector<std::uint8_t> out;
  const auto* base = static_cast<const std::uint8_t*>(raw);
  for (std::uint32_t i = 0; i < d.global_count; ++i) {
    const sandbox_wasm_global& g = d.globals[i];
    if (!g.is_mutable || g.is_fuel) continue;
    if (which == Which::kValues && is_ref(g.type)) continue;
    if (which == Which::kRefs && !is_ref(g.type)) continue;
    out.insert(out.end(), base + g.offset, base + g.offset + g.size);
  }
  return out;
}

std::uint32_t pages_of(std::uint64_t bytes) {
  return static_cast<std::uint32_t>(std::min<std::uint64_t>(bytes / kPage, SANDBOX_WASM_MAX_PAGES));
}

}  // namespace

std::string_view instance_state_name(InstanceState state) {
  switch (state) {
    case InstanceState::kFresh:
      return "fresh";
    case InstanceState::kReady:
      return "ready";
    case InstanceState::kRunning:
      return "running";
    case InstanceState::kInvalid:
      return "invalid";
  }
  return "?";
}

std::unique_ptr<Instance> Instance::create(const Module& module, const InstanceOptions& options) {
  return std::unique_ptr<Instance>(new Instance(module, options));
}

Instance::Instance(const Module& module, const InstanceOptions& options)
    : module_(module),
      c_(std::make_unique<State>()),
      host_data_(options.host_data),
      skipped_data_segments_(options.skip_data_segments),
      watchdog_(options.watchdog),
      pool_(options.pool) {
  const sandbox_wasm_module_descriptor& d = module_.descriptor();
  sandbox_wasm_thread_init();

  // One context per import module, in the order Z_<mod>_instantiate takes them.
  c_->contexts.assign(d.import_module_count, nullptr);
  for (std::uint32_t i = 0; i < d.import_module_count; ++i) {
    std::string_view name = d.import_modules[i];
    if (static_cast<std::int32_t>(i) == d.sandbox_import_module) {
      c_->contexts[i] = &c_->fuel;
      continue;
    }
    auto it = std::find_if(options.imports.begin(), options.imports.end(),
                           [&](const ImportContext& c) { return c.module == name; });
    if (it != options.imports.end()) {
      c_->contexts[i] = it->context;
    } else if (d.import_module_provided[i]) {
      throw WasmError("module '" + std::string(module_.name()) + "' imports from '" +
                      std::string(name) + "' but InstanceOptions::imports has no context for it");
    }
  }

  c_->declared_max_pages = std::min<std::uint32_t>(d.memory_max_pages, SANDBOX_WASM_MAX_PAGES);
  if (options.memory_limit_bytes != 0) {
    std::uint32_t cap = pages_of(options.memory_limit_bytes);
    if (d.memory_offset >= 0 && cap < d.memory_initial_pages) {
      throw WasmError("memory limit of " + std::to_string(options.memory_limit_bytes) +
                      " bytes is below the " + std::to_string(d.memory_initial_pages) +
                      " initial pages of module '" + std::string(module_.name()) + "'");
    }
    c_->alloc.cap_pages = cap;
  }
  c_->alloc.pool = pool_ ? static_cast<sandbox_wasm_pool*>(pool_->handle_) : nullptr;

  std::size_t align = std::max<std::size_t>(d.instance_align, alignof(std::max_align_t));
  std::size_t size = (d.instance_size + align - 1) / align * align;
  raw_ = std::aligned_alloc(align, size);
  if (raw_ == nullptr) throw std::bad_alloc();
  std::memset(raw_, 0, size);

  // Instantiation runs generated code (data and element segments) and can trap; it runs as host
  // code, so a deadline interrupt for an enclosing call is deferred, never delivered inside.
  InstantiateCall call{&d, raw_, c_->contexts.data()};
  sandbox_wasm_frame frame{};
  frame.instance = this;
  frame.guest = 0;
  sandbox_wasm_set_alloc_context(&c_->alloc);
  sandbox_wasm_set_skip_data_segments(options.skip_data_segments ? 1 : 0);
  sandbox_wasm_host_enter();
  std::uint32_t code = sandbox_wasm_run(&frame, &InstantiateCall::thunk, &call);
  sandbox_wasm_set_skip_data_segments(0);
  if (code != 0) {
    Trap trap = make_trap(code);
    d.free_instance(raw_);
    sandbox_wasm_set_alloc_context(nullptr);
    sandbox_wasm_host_leave();
    std::free(raw_);
    raw_ = nullptr;
    throw WasmError("instantiating module '" + std::string(module_.name()) +
                    "' trapped: " + trap.message);
  }
  sandbox_wasm_set_alloc_context(nullptr);
  sandbox_wasm_host_leave();

  auto* base = static_cast<std::uint8_t*>(raw_);
  if (d.memory_offset >= 0) {
    c_->memory = reinterpret_cast<wasm_rt_memory_t*>(base + d.memory_offset);
  }
  if (d.fuel_global >= 0) {
    c_->fuel.fuel = reinterpret_cast<std::int64_t*>(base + d.globals[d.fuel_global].offset);
    c_->fuel.refill = &Instance::refill_fuel;
    c_->fuel.host = this;
  }
  initial_globals_ = mutable_globals(d, raw_, Which::kAll);
  c_->initial_refs = mutable_globals(d, raw_, Which::kRefs);
}

Instance::~Instance() {
  if (raw_ == nullptr) return;
  sandbox_wasm_set_alloc_context(&c_->alloc);
  module_.descriptor().free_instance(raw_);
  sandbox_wasm_set_alloc_context(nullptr);
  std::free(raw_);
}

bool Instance::track_writes(WriteTracking mode) {
  return c_->memory != nullptr && track_memory_writes(c_->memory, mode);
}

WriteTracking Instance::write_tracking() const {
  return c_->memory == nullptr ? WriteTracking::kNone : memory_write_tracking(c_->memory);
}

std::optional<std::vector<std::uint32_t>> Instance::take_dirty_pages() {
  std::vector<std::uint16_t> blocks;
  return take_dirty_pages(blocks);
}

std::optional<std::vector<std::uint32_t>> Instance::take_dirty_pages(
    std::vector<std::uint16_t>& blocks) {
  blocks.clear();
  if (c_->memory == nullptr || !sandbox_wasm_is_tracked(c_->memory)) return std::nullopt;
  std::vector<std::uint32_t> pages(c_->memory->pages);
  blocks.resize(pages.size());
  const std::int64_t n = sandbox_wasm_take_dirty_blocks(c_->memory, pages.data(), blocks.data());
  if (n < 0) {
    blocks.clear();
    return std::nullopt;
  }
  pages.resize(static_cast<std::size_t>(n));
  blocks.resize(static_cast<std::size_t>(n));
  return pages;
}

Instance* Instance::current() { return static_cast<Instance*>(sandbox_wasm_current_instance()); }

Trap Instance::invoke(void (*thunk)(void*), void* arg) {
  if (state_ == InstanceState::kInvalid) {
    throw WasmError("call on an invalid instance of '" + std::string(module_.name()) +
                    "' (it trapped: " + invalidating_trap_.message + ")");
  }
  sandbox_wasm_frame frame{};
  frame.memory = c_->memory;
  frame.instance = this;
  frame.guest = 1;

  // The outermost call on this instance arms the deadline; nested calls run under it.
  Watchdog::Impl* watchdog = nullptr;
  if (depth_ == 0) {
    std::optional<std::chrono::steady_clock::time_point> deadline = deadline_;
    if (call_timeout_.count() > 0) {
      auto by_timeout = std::chrono::steady_clock::now() + call_timeout_;
      if (!deadline || by_timeout < *deadline) deadline = by_timeout;
    }
    if (deadline) {
      watchdog = (watchdog_ ? watchdog_ : &process_watchdog())->impl_.get();
      frame.deadline_serial = watchdog->arm(*deadline);
    }
  }

  state_ = InstanceState::kRunning;
  ++depth_;
  std::uint32_t code = sandbox_wasm_run(&frame, thunk, arg);
  --depth_;
  if (watchdog != nullptr) watchdog->disarm(frame.deadline_serial);

  Trap trap;
  if (code != 0) trap = make_trap(code);
  if (trap.invalidates()) {
    if (state_ != InstanceState::kInvalid) invalidating_trap_ = trap;
    state_ = InstanceState::kInvalid;
  } else if (depth_ == 0 && state_ != InstanceState::kInvalid) {
    state_ = InstanceState::kReady;
  }
  return trap;
}

// ---- fuel ----

void Instance::set_fuel(std::uint64_t budget) {
  if (c_->fuel.fuel == nullptr) {
    throw WasmError("module '" + std::string(module_.name()) + "' is not metered (FUEL OFF)");
  }
  budget = std::min<std::uint64_t>(budget, std::numeric_limits<std::int64_t>::max());
  *c_->fuel.fuel = static_cast<std::int64_t>(budget);
  c_->fuel_budget = budget;
  c_->fuel.refilled = 0;
}

std::uint64_t Instance::fuel_remaining() const {
  if (c_->fuel.fuel == nullptr) return 0;
  return *c_->fuel.fuel > 0 ? static_cast<std::uint64_t>(*c_->fuel.fuel) : 0;
}

std::uint64_t Instance::fuel_consumed() const {
  if (c_->fuel.fuel == nullptr) return 0;
  std::uint64_t total = c_->fuel_budget + c_->fuel.refilled;
  return total - std::min(total, fuel_remaining());
}

void Instance::set_fuel_exhausted_handler(std::function<std::uint64_t()> handler) {
  fuel_handler_ = std::move(handler);
}

// ---- deadlines ----

void Instance::set_call_timeout(std::chrono::nanoseconds timeout) { call_timeout_ = timeout; }

void Instance::set_deadline(std::optional<std::chrono::steady_clock::time_point> deadline) {
  deadline_ = deadline;
}

// ---- memory ----

std::span<std::uint8_t> Instance::memory() {
  if (c_->memory == nullptr) return {};
  return {c_->memory->data, c_->memory->size};
}

std::span<const std::uint8_t> Instance::memory() const {
  if (c_->memory == nullptr) return {};
  return {c_->memory->data, c_->memory->size};
}

std::uint32_t Instance::memory_pages() const { return c_->memory ? c_->memory->pages : 0; }

wasm_rt_memory_t* Instance::rt_memory() const { return c_->memory; }

void Instance::set_memory_limit(std::uint64_t bytes) {
  if (c_->memory == nullptr) return;
  std::uint32_t max = c_->declared_max_pages;
  if (bytes != 0) max = std::min(max, pages_of(bytes));
  c_->memory->max_pages = max;
}

std::uint32_t Instance::memory_limit_pages() const {
  return c_->memory ? c_->memory->max_pages : 0;
}

// ---- globals and snapshots ----

bool Instance::globals_at_initial() const {
  return mutable_globals(module_.descriptor(), raw_, Which::kAll) == initial_globals_;
}

std::vector<std::uint8_t> Instance::save_globals() const {
  return mutable_globals(module_.descriptor(), raw_, Which::kValues);
}

void Instance::load_globals(std::span<const std::uint8_t> bytes) {
  const auto& d = module_.descriptor();
  std::size_t expected = mutable_globals(d, raw_, Which::kValues).size();
  if (bytes.size() != expected) {
    throw WasmError("globals of module '" + std::string(module_.name()) + "' take " +
                    std::to_string(expected) + " bytes, got " + std::to_string(bytes.size()));
  }
  auto* base = static_cast<std::uint8_t*>(raw_);
  std::size_t at = 0;
  for (std::uint32_t i = 0; i < d.global_count; ++i) {
    const sandbox_wasm_global& g = d.globals[i];
    if (!g.is_mutable || g.is_fuel || is_ref(g.type)) continue;
    std::memcpy(base + g.offset, bytes.data() + at, g.size);
    at += g.size;
  }
}

Snapshot Instance::snapshot(GlobalsPolicy policy) const {
  if (state_ == InstanceState::kRunning || state_ == InstanceState::kInvalid) {
    throw WasmError("cannot snapshot an instance that is " +
                    std::string(instance_state_name(state_)));
  }
  // Reference-typed globals hold process-local pointers and are never saved: they must be
  // unchanged under either policy.
  bool refs_same = mutable_globals(module_.descriptor(), raw_, Which::kRefs) == c_->initial_refs;
  if (!refs_same || (policy == GlobalsPolicy::kRequireInitial && !globals_at_initial())) {
    throw WasmError("snapshot refused: mutable globals of '" + std::string(module_.name()) +
                    "' differ from their post-instantiation values");
  }
  Snapshot s;
  s.pages = memory_pages();
  auto mem = memory();
  s.memory.assign(mem.begin(), mem.end());
  if (policy == GlobalsPolicy::kSave) s.globals = save_globals();
  return s;
}

void Instance::prepare_restore(std::uint32_t pages) {
  if (state_ != InstanceState::kFresh) {
    throw WasmError("restore needs a fresh instance; this one is " +
                    std::string(instance_state_name(state_)));
  }
  grow_for_restore(pages);
  state_ = InstanceState::kReady;
}

void Instance::grow_memory_to(std::uint32_t pages) {
  if (state_ != InstanceState::kReady) {
    throw WasmError("grow_memory_to needs a ready instance; this one is " +
                    std::string(instance_state_name(state_)));
  }
  grow_for_restore(pages);
}

void Instance::grow_for_restore(std::uint32_t pages) {
  if (c_->memory == nullptr) {
    if (pages != 0) throw WasmError("restore of a memory into a module without memory");
    return;
  }
  if (pages < c_->memory->pages) {
    throw WasmError("snapshot of " + std::to_string(pages) + " pages is smaller than the " +
                    std::to_string(c_->memory->pages) + " initial pages (memory never shrinks)");
  }
  if (pages > c_->memory->max_pages) {
    throw WasmError("snapshot of " + std::to_string(pages) + " pages exceeds the memory limit of " +
                    std::to_string(c_->memory->max_pages) + " pages");
  }
  if (sandbox_wasm_grow(c_->memory, pages - c_->memory->pages) == UINT32_MAX) {
    throw WasmError("cannot grow memory to " + std::to_string(pages) + " pages for restore");
  }
}

void Instance::restore(const Snapshot& snapshot) {
  if (snapshot.memory.size() != static_cast<std::size_t>(snapshot.pages) * kPage) {
    throw WasmError("snapshot memory holds " + std::to_string(snapshot.memory.size()) +
                    " bytes for " + std::to_string(snapshot.pages) + " pages");
  }
  if (snapshot.globals) {
    std::size_t expected = save_globals().size();
    if (snapshot.globals->size() != expected) {
      throw WasmError("snapshot globals hold " + std::to_string(snapshot.globals->size()) +
                      " bytes, module '" + std::string(module_.name()) + "' has " +
                      std::to_string(expected));
    }
  }
  prepare_restore(snapshot.pages);
  if (!snapshot.memory.empty()) {
    std::memcpy(c_->memory->data, snapshot.memory.data(), snapshot.memory.size());
  }
  if (snapshot.globals) load_globals(*snapshot.globals);
}

}  // namespace sandbox::wasm
