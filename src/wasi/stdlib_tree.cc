// StdlibTree: the read-only /stdlib mount, built from a directory or an uncompressed ZIP.
#include <algorithm>
#include <fstream>
#include <iterator>
#include <stdexcept>

#include <sandbox/wasi.h>

#include "wasi/zip_archive.h"

namespace sandbox {
namespace {

using Node = WorkspaceNode;

std::shared_ptr<Node> make_dir() { return std::make_shared<Node>(Node::Type::kDirectory); }

// Splits an archive name into segments; throws on "..".
std::vector<std::string> archive_segments(const std::string& name) {
  std::vector<std::string> segments;
  std::size_t start = 0;
  while (start <= name.size()) {
    std::size_t slash = name.find('/', start);
    if (slash == std::string::npos) slash = name.size();
    std::string seg = name.substr(start, slash - start);
    if (seg == "..") throw std::runtime_error("Invalid archive path: " + name);
    if (!seg.empty() && seg != ".") {
      if (seg.find('\0') != std::string::npos)
        throw std::runtime_error("Invalid archive path: " + name);
      segments.push_back(std::move(seg));
    }
    start = slash + 1;
  }
  return segments;
}

// The directory at `segments` below `root`, created as needed.
Node& ensure_dir(Node& root, const std::vector<std::string>& segments, std::size_t count,
                 const std::string& name) {
  Node* dir = &root;
  for (std::size_t i = 0; i < count; ++i) {
    auto child = dir->find(segments[i]);
    if (!child) {
      child = make_dir();
      dir->children.emplace_back(segments[i], child);
    } else if (!child->is_dir()) {
      throw std::runtime_error("Archive path conflicts with a file: " + name);
    }
    dir = child.get();
  }
  return *dir;
}

void load_directory(Node& dir, const std::filesystem::path& path) {
  std::vector<std::filesystem::directory_entry> entries;
  for (const auto& entry : std::filesystem::directory_iterator(path)) entries.push_back(entry);
  std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) {
    return a.path().filename().string() < b.path().filename().string();
  });
  for (const auto& entry : entries) {
    const std::string name = entry.path().filename().string();
    if (entry.is_directory()) {
      auto child = make_dir();
      load_directory(*child, entry.path());
      dir.children.emplace_back(name, std::move(child));
    } else if (entry.is_regular_file()) {
      auto child = std::make_shared<Node>(Node::Type::kFile);
      std::ifstream in(entry.path(), std::ios::binary);
      if (!in) throw std::runtime_error("Cannot read " + entry.path().string());
      child->data.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
      if (in.bad()) throw std::runtime_error("Cannot read " + entry.path().string());
      dir.children.emplace_back(name, std::move(child));
    }
  }
}

void count(const Node& node, std::uint64_t& files, std::uint64_t& bytes) {
  for (const auto& [name, child] : node.children) {
    if (child->is_dir()) {
      count(*child, files, bytes);
    } else {
      ++files;
      bytes += child->data.size();
    }
  }
}

}  // namespace

StdlibTree::StdlibTree(std::shared_ptr<WorkspaceNode> root) : root_(std::move(root)) {
  if (!root_ || !root_->is_dir())
    throw std::invalid_argument("StdlibTree root must be a directory");
  count(*root_, files_, bytes_);
}

std::shared_ptr<const StdlibTree> StdlibTree::empty() {
  return std::make_shared<const StdlibTree>(make_dir());
}

std::shared_ptr<const StdlibTree> StdlibTree::from_directory(const std::filesystem::path& dir) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) {
    throw std::runtime_error("Not a directory: " + dir.string());
  }
  auto root = make_dir();
  try {
    load_directory(*root, dir);
  } catch (const std::filesystem::filesystem_error& e) {
    throw std::runtime_error(std::string("Cannot load ") + dir.string() + ": " + e.what());
  }
  return std::make_shared<const StdlibTree>(std::move(root));
}

std::shared_ptr<const StdlibTree> StdlibTree::from_zip(std::span<const std::uint8_t> archive) {
  auto root = make_dir();
  for (const auto& entry : wasi::read_zip_entries(archive)) {
    const auto segments = archive_segments(entry.name);
    const bool is_dir = !entry.name.empty() && entry.name.back() == '/';
    if (is_dir) {
      ensure_dir(*root, segments, segments.size(), entry.name);
      continue;
    }
    if (segments.empty()) throw std::runtime_error("Invalid archive path: " + entry.name);
    Node& parent = ensure_dir(*root, segments, segments.size() - 1, entry.name);
    auto existing = parent.find(segments.back());
    if (existing && existing->is_dir()) {
      throw std::runtime_error("Archive path conflicts with a directory: " + entry.name);
    }
    auto file = std::make_shared<Node>(Node::Type::kFile);
    file->data.assign(entry.data.begin(), entry.data.end());
    parent.put(segments.back(), std::move(file));
  }
  return std::make_shared<const StdlibTree>(std::move(root));
}

std::shared_ptr<const StdlibTree> StdlibTree::from_zip_file(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw std::runtime_error("Cannot open " + file.string());
  const std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                                        std::istreambuf_iterator<char>());
  if (in.bad()) throw std::runtime_error("Cannot read " + file.string());
  return from_zip(bytes);
}

const WorkspaceNode* StdlibTree::find(std::string_view path) const {
  const WorkspaceNode* node = root_.get();
  std::size_t start = 0;
  while (start < path.size()) {
    std::size_t slash = path.find('/', start);
    if (slash == std::string_view::npos) slash = path.size();
    const std::string_view seg = path.substr(start, slash - start);
    start = slash + 1;
    if (seg.empty() || seg == ".") continue;
    if (!node->is_dir()) return nullptr;
    const auto child = node->find(seg);
    if (!child) return nullptr;
    node = child.get();
  }
  return node;
}

}  // namespace sandbox
