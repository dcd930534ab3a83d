#include "try_exits.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <vector>

#include "wasm2c_header.h"

namespace sandbox::wasmc {
namespace {

constexpr std::string_view kTryOpen = "if (!wasm_rt_try(";
constexpr std::string_view kTargetSuffix = "_unwind_target";
constexpr std::string_view kBodyOpen = ")) {";
constexpr std::string_view kGoto = "goto ";

bool is_ident(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// The position just after the `}` closing the block whose `{` is at `open`, skipping comments
// and string/character literals.
std::size_t close_of_block(std::string_view s, std::size_t open) {
  int depth = 0;
  for (std::size_t i = open; i < s.size(); ++i) {
    char c = s[i];
    if (c == '/' && i + 1 < s.size() && s[i + 1] == '*') {
      std::size_t end = s.find("*/", i + 2);
      if (end == std::string_view::npos) break;
      i = end + 1;
    } else if (c == '/' && i + 1 < s.size() && s[i + 1] == '/') {
      i = s.find('\n', i);
      if (i == std::string_view::npos) break;
    } else if (c == '"' || c == '\'') {
      for (++i; i < s.size() && s[i] != c; ++i) {
        if (s[i] == '\\') ++i;
      }
    } else if (c == '{') {
      ++depth;
    } else if (c == '}') {
      if (--depth == 0) return i + 1;
    }
  }
  throw Wasm2cOutputError("a try block in the wasm2c output does not close");
}

struct TryBody {
  std::string name;  // w2c_T<n>
  std::size_t begin = 0;
  std::size_t end = 0;
  std::set<std::string, std::less<>> labels;  // defined in the body
};

// Labels wasm2c defines: `w2c_<id>:` at the start of a line (blocks `w2c_B3:;`, loops `w2c_L2: `).
std::set<std::string, std::less<>> labels_in(std::string_view body) {
  std::set<std::string, std::less<>> labels;
  std::size_t line = 0;
  while (line < body.size()) {
    std::size_t next = body.find('\n', line);
    if (next == std::string_view::npos) next = body.size();
    std::size_t i = line;
    while (i < next && (body[i] == ' ' || body[i] == '\t')) ++i;
    if (body.substr(i, 4) == "w2c_") {
      std::size_t j = i;
      while (j < next && is_ident(body[j])) ++j;
      if (j < next && body[j] == ':' && (j + 1 >= next || body[j + 1] != ':')) {
        labels.emplace(body.substr(i, j - i));
      }
    }
    line = next + 1;
  }
  return labels;
}

}  // namespace

TryExitRepair repair_try_exits(std::string_view source) {
  std::vector<TryBody> tries;  // in source order: an enclosing try precedes the tries inside it
  for (std::size_t at = source.find(kTryOpen); at != std::string_view::npos;
       at = source.find(kTryOpen, at + kTryOpen.size())) {
    std::size_t name_begin = at + kTryOpen.size();
    std::size_t name_end = name_begin;
    while (name_end < source.size() && is_ident(source[name_end])) ++name_end;
    std::string_view ident = source.substr(name_begin, name_end - name_begin);
    if (!ident.ends_with(kTargetSuffix) || source.substr(name_end, kBodyOpen.size()) != kBodyOpen) {
      throw Wasm2cOutputError("unexpected try block in the wasm2c output: " +
                              std::string(source.substr(at, 60)));
    }
    TryBody t;
    t.name = std::string(ident.substr(0, ident.size() - kTargetSuffix.size()));
    std::size_t open = name_end + kBodyOpen.size() - 1;
    t.begin = open + 1;
    t.end = close_of_block(source, open);
    t.labels = labels_in(source.substr(t.begin, t.end - t.begin));
    tries.push_back(std::move(t));
  }

  // goto position -> (label, the outermost try it leaves).
  std::map<std::size_t, std::pair<std::string, const TryBody*>> repairs;
  std::set<std::size_t> seen;
  for (const TryBody& t : tries) {
    std::string_view body = source.substr(t.begin, t.end - t.begin);
    for (std::size_t g = body.find(kGoto); g != std::string_view::npos;
         g = body.find(kGoto, g + kGoto.size())) {
      if (g > 0 && is_ident(body[g - 1])) continue;
      std::size_t label_begin = g + kGoto.size();
      std::size_t label_end = label_begin;
      while (label_end < body.size() && is_ident(body[label_end])) ++label_end;
      if (label_end >= body.size() || body[label_end] != ';') continue;
      std::size_t position = t.begin + g;
      if (seen.count(position) != 0) continue;  // an enclosing try is already left
      std::string_view label = body.substr(label_begin, label_end - label_begin);
      if (t.labels.count(label) != 0) continue;
      seen.insert(position);
      if (label == t.name + "_catch") continue;  // the catch code restores the target itself
      repairs.emplace(position, std::make_pair(std::string(label), &t));
    }
  }

  TryExitRepair result;
  result.try_blocks = tries.size();
  result.repaired_branches = repairs.size();
  result.source.reserve(source.size() + repairs.size() * 64);
  std::size_t copied = 0;
  for (const auto& [position, what] : repairs) {
    const auto& [label, left] = what;
    result.source.append(source.substr(copied, position - copied));
    result.source +=
        "{ wasm_rt_set_unwind_target(" + left->name + "_outer_target); goto " + label + "; }";
    copied = position + kGoto.size() + label.size() + 1;
  }
  result.source.append(source.substr(copied));
  return result;
}

}  // namespace sandbox::wasmc
