#include "workers/worker_protocol.h"

#include <algorithm>
#include <cstring>
#include <set>
#include <unordered_map>
#include <utility>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <sandbox/protocol.h>

namespace sandbox::workers {
namespace {

// The smallest encodings, for Reader::count().
constexpr std::size_t kMinStringBytes = 4;
constexpr std::size_t kMinReplicaEntryBytes = 4 + 1 + 8 + 8 + 4 + 1;

void write_strings(Writer& w, const std::vector<std::string>& v) {
  w.u32(static_cast<std::uint32_t>(v.size()));
  for (const auto& s : v) w.str(s);
}

std::vector<std::string> read_strings(Reader& r) {
  std::vector<std::string> v(r.count(kMinStringBytes));
  for (auto& s : v) s = r.str();
  return v;
}

boost::json::value parse_json(std::string_view text) {
  boost::system::error_code ec;
  boost::json::value v = boost::json::parse(text, ec);
  if (ec) throw WireError("worker message has invalid JSON: " + ec.message());
  return v;
}

boost::json::object read_object(Reader& r) {
  boost::json::value v = parse_json(r.str_view());
  if (!v.is_object()) throw WireError("worker message has a JSON value that is not an object");
  return std::move(v.as_object());
}

std::vector<std::uint32_t> read_ascending_pages(Reader& r, std::uint32_t limit) {
  std::vector<std::uint32_t> pages(r.count(4));
  for (std::size_t i = 0; i < pages.size(); ++i) {
    pages[i] = r.u32();
    if (pages[i] >= limit || (i > 0 && pages[i] <= pages[i - 1])) {
      throw WireError("worker message lists pages out of order or past the memory");
    }
  }
  return pages;
}

void write_pages(Writer& w, std::span<const std::uint32_t> pages) {
  w.u32(static_cast<std::uint32_t>(pages.size()));
  for (const std::uint32_t p : pages) w.u32(p);
}

// The listing of `ws` in walk order (pre-order, children in insertion order).
std::vector<ReplicaEntry> describe(const Workspace& ws) {
  std::vector<ReplicaEntry> out;
  struct Item {
    const WorkspaceNode* dir;
    std::size_t next;
    std::string path;
  };
  std::vector<Item> stack{{ws.root().get(), 0, std::string(kWorkspaceRoot)}};
  while (!stack.empty()) {
    Item& top = stack.back();
    if (top.next == top.dir->children.size()) {
      stack.pop_back();
      continue;
    }
    const auto& [name, node] = top.dir->children[top.next++];
    ReplicaEntry e;
    e.path = top.path + "/" + name;
    e.dir = node->is_dir();
    if (!e.dir) {
      e.updated_at = node->updated_at;
      e.size = node->data.size();
      e.hash = node->data_hash();
    }
    out.push_back(e);
    if (node->is_dir()) stack.push_back({node.get(), 0, std::move(e.path)});
  }
  return out;
}

// The node at `path` (absolute, canonical) in the tree of `root`, or null.
std::shared_ptr<WorkspaceNode> find_node(const std::shared_ptr<WorkspaceNode>& root,
                                         const std::vector<std::string>& segments) {
  std::shared_ptr<WorkspaceNode> node = root;
  for (const auto& s : segments) {
    if (!node->is_dir()) return nullptr;
    node = node->find(s);
    if (!node) return nullptr;
  }
  return node;
}

}  // namespace

std::chrono::microseconds next_call_look(std::uint32_t kind,
                                         std::optional<std::chrono::steady_clock::duration> gap) {
  if ((kind & kAnnounceFlag) == 0) return std::chrono::microseconds(0);
  if (static_cast<Kind>(kind & ~kAnnounceFlag) == Kind::kRestore) return kWokenLaneSpin;
  if (gap && *gap <= kCallsInARowSpin) return kCallsInARowSpin;
  return std::chrono::microseconds(0);
}

// ---- Requests and outcomes ---------------------------------------------------------------------

void write_request(Writer& w, const ExecutionRequest& request) {
  w.str(request.code);
  w.u32(static_cast<std::uint32_t>(request.env_vars.size()));
  for (const auto& [k, v] : request.env_vars) {
    w.str(k);
    w.str(v);
  }
}

ExecutionRequest read_request(Reader& r) {
  ExecutionRequest request;
  request.code = r.str();
  const std::uint32_t n = r.count(2 * kMinStringBytes);
  for (std::uint32_t i = 0; i < n; ++i) {
    std::string k = r.str();
    request.env_vars[std::move(k)] = r.str();
  }
  return request;
}

void write_outcome(Writer& w, const EngineOutcome& outcome) {
  write_strings(w, outcome.logs.stdout_lines);
  write_strings(w, outcome.logs.stderr_lines);
  w.u32(static_cast<std::uint32_t>(outcome.results.size()));
  for (const auto& entry : outcome.results) {
    w.boolean(entry.json.has_value());
    w.str(entry.json ? boost::json::serialize(*entry.json) : entry.text.value_or(""));
  }
  w.boolean(outcome.error.has_value());
  if (outcome.error) {
    w.str(outcome.error->name);
    w.str(outcome.error->message);
    write_strings(w, outcome.error->traceback);
    w.boolean(outcome.error->line_number.has_value());
    if (outcome.error->line_number) w.i64(*outcome.error->line_number);
  }
  w.boolean(outcome.usage.has_value());
  if (outcome.usage) {
    w.u64(outcome.usage->fuel_consumed);
    w.u64(outcome.usage->fuel_limit);
    w.u64(outcome.usage->memory_bytes);
  }
}

EngineOutcome read_outcome(Reader& r) {
  EngineOutcome outcome;
  outcome.logs.stdout_lines = read_strings(r);
  outcome.logs.stderr_lines = read_strings(r);
  const std::uint32_t results = r.count(1 + kMinStringBytes);
  for (std::uint32_t i = 0; i < results; ++i) {
    const bool json = r.boolean();
    std::string_view text = r.str_view();
    outcome.results.push_back(json ? ResultEntry::of_json(parse_json(text))
                                   : ResultEntry::of_text(std::string(text)));
  }
  if (r.boolean()) {
    ExecutionError error;
    error.name = r.str();
    error.message = r.str();
    error.traceback = read_strings(r);
    if (r.boolean()) error.line_number = r.i64();
    outcome.error = std::move(error);
  }
  if (r.boolean()) {
    Usage usage;
    usage.fuel_consumed = r.u64();
    usage.fuel_limit = r.u64();
    usage.memory_bytes = r.u64();
    outcome.usage = usage;
  }
  return outcome;
}

void write_failure(Writer& w, const Failure& failure) {
  w.u8(static_cast<std::uint8_t>(failure.type));
  w.str(failure.message);
  if (failure.type == FailureType::kClassified) w.u8(static_cast<std::uint8_t>(failure.kind));
}

Failure read_failure(Reader& r) {
  Failure failure;
  const std::uint8_t type = r.u8();
  if (type > static_cast<std::uint8_t>(FailureType::kClassified)) {
    throw WireError("worker failure has an unknown type");
  }
  failure.type = static_cast<FailureType>(type);
  failure.message = r.str();
  if (failure.type == FailureType::kClassified) {
    const std::uint8_t kind = r.u8();
    if (kind >= error_kinds().size()) throw WireError("worker failure has an unknown error kind");
    failure.kind = static_cast<ErrorKind>(kind);
  }
  return failure;
}

void throw_failure(const Failure& failure) {
  if (failure.type == FailureType::kLimit) throw ExecutionLimitError(failure.message);
  if (failure.type == FailureType::kClassified) throw ApiError(failure.kind, failure.message);
  throw std::runtime_error(failure.message);
}

void write_state(Writer& w, const SessionState& state) {
  w.str(state.cwd);
  w.boolean(state.invalid);
  w.boolean(state.can_snapshot);
}

SessionState read_state(Reader& r) {
  SessionState state;
  state.cwd = r.str();
  state.invalid = r.boolean();
  state.can_snapshot = r.boolean();
  return state;
}

// ---- Workspace replicas ------------------------------------------------------------------------

void write_workspace_update(Writer& w, const Workspace& ws, ReplicaState& last) {
  std::vector<ReplicaEntry> now = describe(ws);
  if (last.known && last.disabled == ws.disabled() && last.entries == now) {
    w.boolean(false);
    return;
  }
  std::unordered_map<std::string_view, const ReplicaEntry*> had;
  if (last.known) {
    for (const auto& e : last.entries) had.emplace(e.path, &e);
  }
  w.boolean(true);
  w.boolean(ws.disabled());
  w.u32(static_cast<std::uint32_t>(now.size()));
  for (const auto& e : now) {
    w.str(e.path);
    w.boolean(e.dir);
    w.i64(e.updated_at);
    w.u64(e.size);
    w.str(e.hash);
    if (e.dir) {
      w.boolean(false);
      continue;
    }
    const auto it = had.find(e.path);
    const bool other_has = it != had.end() && !it->second->dir && it->second->hash == e.hash &&
                           it->second->size == e.size;
    w.boolean(!other_has);
    if (!other_has) {
      const auto segments = normalize_workspace_path(e.path).segments;
      const auto node = find_node(ws.root(), segments);
      w.str(std::string_view(reinterpret_cast<const char*>(node->data.data()), node->data.size()));
    }
  }
  last.known = true;
  last.disabled = ws.disabled();
  last.entries = std::move(now);
}

void apply_workspace_update(Reader& r, Workspace& ws, ReplicaState& last) {
  if (!r.boolean()) {
    if (!last.known) throw WireError("workspace update refers to a tree the receiver lacks");
    return;
  }
  const bool disabled = r.boolean();
  const std::uint32_t n = r.count(kMinReplicaEntryBytes);
  if (n > kMaxWorkspaceEntries) throw WireError("workspace update has too many entries");
  // Every node of the new tree, by path: reused nodes keep their identity (a guest's open file
  // or directory keeps working), changed files get new nodes.
  std::unordered_map<std::string, std::shared_ptr<WorkspaceNode>> dirs;
  dirs.emplace(std::string(kWorkspaceRoot), ws.root());
  struct Placed {
    std::string parent;
    std::string name;
    std::shared_ptr<WorkspaceNode> node;
    std::int64_t updated_at;
  };
  std::vector<Placed> placed;
  std::vector<ReplicaEntry> entries;
  std::set<std::string> seen;
  std::uint64_t total = 0;
  placed.reserve(n);
  entries.reserve(n);
  for (std::uint32_t i = 0; i < n; ++i) {
    ReplicaEntry e;
    e.path = r.str();
    e.dir = r.boolean();
    e.updated_at = r.i64();
    e.size = r.u64();
    e.hash = r.str();
    const bool has_data = r.boolean();
    NormalizedPath np;
    try {
      np = normalize_workspace_path(e.path);
    } catch (const WorkspaceError&) {
      throw WireError("workspace update has an invalid path");
    }
    if (np.absolute != e.path || np.segments.empty() || !seen.insert(e.path).second) {
      throw WireError("workspace update has a non-canonical, root or repeated path");
    }
    const std::string parent = np.absolute.substr(0, np.absolute.rfind('/'));
    if (!dirs.count(parent)) throw WireError("workspace update lists an entry before its parent");
    std::shared_ptr<WorkspaceNode> old = find_node(ws.root(), np.segments);
    std::shared_ptr<WorkspaceNode> node;
    if (e.dir) {
      if (has_data) throw WireError("workspace update sends bytes for a directory");
      e.updated_at = 0;
      e.size = 0;
      e.hash.clear();
      node = old && old->is_dir()
                 ? old
                 : std::make_shared<WorkspaceNode>(WorkspaceNode::Type::kDirectory);
      dirs.emplace(e.path, node);
    } else if (has_data) {
      const std::string_view data = r.str_view();
      if (data.size() > kMaxFileBytes)
        throw WireError("workspace update has a file over the limit");
      node = std::make_shared<WorkspaceNode>(WorkspaceNode::Type::kFile);
      node->data.assign(data.begin(), data.end());
      e.size = data.size();
      e.hash = node->data_hash();
    } else {
      if (!old || old->is_dir() || old->data.size() != e.size || old->data_hash() != e.hash) {
        throw WireError("workspace update keeps a file the receiver does not have");
      }
      node = old;
    }
    if (!e.dir) {
      total += e.size;
      if (total > kMaxTotalBytes) throw WireError("workspace update is over the total size");
    }
    placed.push_back({parent, np.segments.back(), node, e.updated_at});
    entries.push_back(std::move(e));
  }
  // Everything checked: rebuild the tree in place (the root keeps its identity).
  for (auto& [path, dir] : dirs) dir->children.clear();
  for (auto& p : placed) {
    if (!p.node->is_dir()) p.node->updated_at = p.updated_at;
    dirs.at(p.parent)->children.emplace_back(p.name, std::move(p.node));
  }
  ws.set_disabled(disabled);
  last.known = true;
  last.disabled = disabled;
  last.entries = std::move(entries);
}

// ---- Snapshots ---------------------------------------------------------------------------------

void write_changes(Writer& w, const SessionSnapshot& snapshot,
                   const std::vector<std::uint32_t>* blocks, std::span<char> area) {
  const auto pages = static_cast<std::uint32_t>(snapshot.memory.size() / kWasmPageBytes);
  w.u64(snapshot.handle);
  w.str(boost::json::serialize(snapshot.extra));
  w.u32(pages);
  w.boolean(blocks != nullptr);
  if (blocks == nullptr) {
    w.raw(snapshot.memory.first(std::size_t{pages} * kWasmPageBytes));
    return;
  }
  write_pages(w, *blocks);
  const std::size_t bytes = blocks->size() * kChangeBlockBytes;
  const bool in_area = bytes <= area.size();
  w.boolean(in_area);
  char* to = in_area ? area.data() : nullptr;
  if (!in_area) w.buffer().reserve(w.buffer().size() + bytes);
  for_each_block_run(snapshot.memory, *blocks, [&](std::span<const std::uint8_t> run) {
    if (in_area) {
      std::memcpy(to, run.data(), run.size());
      to += run.size();
    } else {
      w.raw(run);
    }
  });
}

ChangesHeader read_changes_header(Reader& r, std::size_t area_bytes) {
  ChangesHeader h;
  h.handle = r.u64();
  h.extra = read_object(r);
  h.memory_pages = r.u32();
  if (h.memory_pages > (std::uint64_t{4} << 30) / kWasmPageBytes) {
    throw WireError("worker snapshot is larger than a 32-bit memory");
  }
  if (r.boolean()) {
    h.blocks = read_ascending_pages(r, h.memory_pages * kChangeBlocksPerPage);
    h.in_area = r.boolean();
    const std::size_t bytes = h.blocks->size() * kChangeBlockBytes;
    if (h.in_area && bytes > area_bytes) {
      throw WireError("worker snapshot's blocks do not fit in the lane's area");
    }
    if (r.left() != (h.in_area ? 0 : bytes)) {
      throw WireError("worker snapshot's block bytes do not match its block list");
    }
  } else if (r.left() != std::size_t{h.memory_pages} * kWasmPageBytes) {
    throw WireError("worker snapshot's bytes do not match its memory size");
  }
  return h;
}

void write_restore_source(Writer& w, const SnapshotSource& source, bool delta,
                          std::optional<std::uint32_t> server_cpu, bool streamed) {
  w.u64(source.handle);
  w.str(boost::json::serialize(source.extra));
  w.u32(source.memory_pages);
  const bool listed = delta && source.base_delta_pages.has_value();
  w.boolean(listed);
  if (listed) write_pages(w, *source.base_delta_pages);
  w.str(source.base_fingerprint);
  w.boolean(server_cpu.has_value());
  if (server_cpu) w.u32(*server_cpu);
  w.boolean(streamed);
}

RestoreSource read_restore_source(Reader& r) {
  RestoreSource s;
  s.handle = r.u64();
  s.extra = read_object(r);
  s.memory_pages = r.u32();
  if (s.memory_pages > (std::uint64_t{4} << 30) / kWasmPageBytes) {
    throw WireError("restore is larger than a 32-bit memory");
  }
  if (r.boolean()) s.base_delta_pages = read_ascending_pages(r, s.memory_pages);
  s.base_fingerprint = r.str();
  if (r.boolean()) s.server_cpu = r.u32();
  s.streamed = r.boolean();
  return s;
}

void write_restore_piece(Writer& w, std::span<const std::uint32_t> blocks,
                         std::optional<std::size_t> area_offset) {
  write_pages(w, blocks);
  w.boolean(area_offset.has_value());
  if (area_offset) w.u64(*area_offset);
}

RestorePiece read_restore_piece(Reader& r, std::uint32_t memory_pages, std::size_t area_bytes) {
  RestorePiece p;
  p.blocks = read_ascending_pages(r, memory_pages * kChangeBlocksPerPage);
  const std::size_t bytes = p.blocks.size() * kChangeBlockBytes;
  if (!r.boolean()) {
    p.bytes = r.raw(bytes);
    return p;
  }
  const std::uint64_t offset = r.u64();
  if (offset > area_bytes || bytes > area_bytes - offset) {
    throw WireError("restore piece's blocks do not fit in the lane's area");
  }
  p.area_offset = static_cast<std::size_t>(offset);
  return p;
}

void write_base(Writer& w, const SnapshotBase* base) {
  w.boolean(base != nullptr);
  if (!base) return;
  w.str(base->fingerprint);
  w.u32(base->pages);
  std::vector<std::uint32_t> nonzero;
  for (std::uint32_t p = 0; p < base->pages && p < base->page_bytes.size(); ++p) {
    if (base->page_bytes[p] != nullptr) nonzero.push_back(p);
  }
  write_pages(w, nonzero);
  for (const std::uint32_t p : nonzero) w.raw({base->page_bytes[p], kWasmPageBytes});
}

std::optional<BaseMessage> read_base(Reader& r) {
  if (!r.boolean()) return std::nullopt;
  BaseMessage b;
  b.fingerprint = r.str();
  b.pages = r.u32();
  if (b.pages > (std::uint64_t{4} << 30) / kWasmPageBytes) {
    throw WireError("worker base image is larger than a 32-bit memory");
  }
  b.nonzero = read_ascending_pages(r, b.pages);
  b.bytes = r.raw(b.nonzero.size() * std::size_t{kWasmPageBytes});
  return b;
}

}  // namespace sandbox::workers
