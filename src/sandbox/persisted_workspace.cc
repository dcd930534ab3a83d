#include "sandbox/persisted_workspace.h"

namespace sandbox {

Workspace& PersistedWorkspace::get() {
  if (!workspace_) {
    auto ws = std::make_unique<Workspace>(clock_);
    ws->restore_from(store_.load_files(sandbox_id_));
    const Manifest m = ws->manifest();
    persisted_files_ = m.files;
    persisted_dirs_ = std::set<std::string>(m.dirs.begin(), m.dirs.end());
    workspace_ = std::move(ws);
  }
  return *workspace_;
}

WorkspacePersist PersistedWorkspace::diff() {
  WorkspacePersist out;
  if (!workspace_) return out;
  const Manifest m = workspace_->manifest();
  const std::set<std::string> dirs(m.dirs.begin(), m.dirs.end());
  for (const auto& d : persisted_dirs_) {
    if (!dirs.contains(d)) out.deletes.push_back(d);
  }
  const Changes changes = workspace_->changes(persisted_files_);
  for (const auto& p : changes.deleted) out.deletes.push_back(p);
  // Parents first, so the stored row order rebuilds the tree in a sensible order.
  for (const auto& d : m.dirs) {
    if (!persisted_dirs_.contains(d)) out.upserts.push_back(WorkspaceRow{d, std::nullopt, 0});
  }
  const auto add_file = [&](const std::string& path) {
    auto [bytes, updated_at] = workspace_->read_bytes(path);
    out.upserts.push_back(WorkspaceRow{path, std::move(bytes), updated_at});
  };
  for (const auto& p : changes.created) add_file(p);
  for (const auto& p : changes.updated) add_file(p);
  return out;
}

void PersistedWorkspace::mark_persisted() {
  if (!workspace_) return;
  const Manifest m = workspace_->manifest();
  persisted_files_ = m.files;
  persisted_dirs_ = std::set<std::string>(m.dirs.begin(), m.dirs.end());
}

void PersistedWorkspace::discard() {
  workspace_.reset();
  persisted_files_.clear();
  persisted_dirs_.clear();
}

void PersistedWorkspace::reset_empty() {
  workspace_ = std::make_unique<Workspace>(clock_);
  persisted_files_.clear();
  persisted_dirs_.clear();
}

}  // namespace sandbox
