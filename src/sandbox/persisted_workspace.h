// PersistedWorkspace: a sandbox's /workspace tree (the source of truth) and what of it has been
// written to the SandboxStore (docs/snapshot-format.md#sandbox-storage, J1).
//
// The tree is loaded from the store on first use. diff() computes, since the last persist, the
// file rows to upsert (created or changed content), the rows to delete (files gone, directories
// gone) and the directory rows to add; after the store committed it, mark_persisted() makes it
// the new baseline. When a write fails, discard() drops the tree so the next use reloads the
// last committed state: memory never runs ahead of disk across a failed write.
//
// Not synchronized: owned by one Sandbox actor.
#pragma once

#include <memory>
#include <set>
#include <string>

#include <sandbox/clock.h>
#include <sandbox/workspace.h>

#include "storage/sandbox_store.h"

namespace sandbox {

class PersistedWorkspace {
 public:
  PersistedWorkspace(SandboxStore& store, std::string sandbox_id, const Clock& clock)
      : store_(store), sandbox_id_(std::move(sandbox_id)), clock_(clock) {}

  // The tree, loaded from the store the first time. Throws StorageError.
  Workspace& get();
  // Rows to write so the store matches the tree (nothing when the tree was never loaded).
  WorkspacePersist diff();
  // The store committed diff(): it is the new baseline.
  void mark_persisted();
  // Forgets the tree; the next get() reloads it from the store.
  void discard();
  // Replaces the tree with an empty one that matches an empty store (after a wipe).
  void reset_empty();

 private:
  SandboxStore& store_;
  std::string sandbox_id_;
  const Clock& clock_;
  std::unique_ptr<Workspace> workspace_;
  FileHashes persisted_files_;
  std::set<std::string> persisted_dirs_;
};

}  // namespace sandbox
