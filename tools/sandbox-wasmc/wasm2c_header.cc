#include "wasm2c_header.h"

#include <cctype>

namespace sandbox::wasmc {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

bool is_ident(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// "struct Z_env_instance_t* Z_env_instance" -> "struct Z_env_instance_t*"; "u32" -> "u32".
std::string strip_param_name(std::string_view param) {
  param = trim(param);
  std::size_t end = param.size();
  std::size_t start = end;
  while (start > 0 && is_ident(param[start - 1])) --start;
  std::string_view before = trim(param.substr(0, start));
  // A lone type ("u32", "void") has nothing before its identifier; a named parameter has a type.
  if (before.empty() || before == "struct" || before == "const") return std::string(param);
  return std::string(before);
}

std::vector<std::string_view> lines_of(std::string_view text) {
  std::vector<std::string_view> out;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    std::size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    out.push_back(text.substr(pos, nl - pos));
    pos = nl + 1;
  }
  return out;
}

}  // namespace

bool is_global_field_type(std::string_view type) {
  return type == "u32" || type == "u64" || type == "f32" || type == "f64" ||
         type == "wasm_rt_funcref_t" || type == "wasm_rt_externref_t";
}

CDeclaration parse_c_declaration(std::string_view line) {
  line = trim(line);
  std::size_t open = line.find('(');
  std::size_t close = line.rfind(')');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) {
    throw Wasm2cOutputError("unexpected declaration in wasm2c header: " + std::string(line));
  }
  std::size_t sym_end = open;
  std::size_t sym_start = sym_end;
  while (sym_start > 0 && is_ident(line[sym_start - 1])) --sym_start;
  CDeclaration d;
  d.symbol = std::string(line.substr(sym_start, sym_end - sym_start));
  d.return_type = std::string(trim(line.substr(0, sym_start)));
  if (d.symbol.empty() || d.return_type.empty()) {
    throw Wasm2cOutputError("unexpected declaration in wasm2c header: " + std::string(line));
  }
  std::string_view params = line.substr(open + 1, close - open - 1);
  std::size_t pos = 0;
  while (pos <= params.size()) {
    std::size_t comma = params.find(',', pos);
    if (comma == std::string_view::npos) comma = params.size();
    std::string_view p = trim(params.substr(pos, comma - pos));
    if (!p.empty() && p != "void") d.param_types.push_back(strip_param_name(p));
    pos = comma + 1;
  }
  return d;
}

std::vector<const InstanceField*> Wasm2cHeader::global_fields() const {
  std::vector<const InstanceField*> out;
  for (const InstanceField& f : fields) {
    if (!f.bitfield && is_global_field_type(f.type)) out.push_back(&f);
  }
  return out;
}

const InstanceField* Wasm2cHeader::memory_field() const {
  for (const InstanceField& f : fields) {
    if (f.type == "wasm_rt_memory_t") return &f;
  }
  return nullptr;
}

const CDeclaration& Wasm2cHeader::find_import(std::string_view module,
                                              std::string_view name) const {
  std::string comment = "/* import: '" + std::string(module) + "' '" + std::string(name) + "' */";
  for (const CommentedDeclaration& d : imports) {
    if (d.comment == comment) return d.declaration;
  }
  throw Wasm2cOutputError("the wasm2c header has no declaration for import " + std::string(module) +
                          "." + std::string(name));
}

const CDeclaration& Wasm2cHeader::find_export(std::string_view name) const {
  std::string comment = "/* export: '" + std::string(name) + "' */";
  for (const CommentedDeclaration& d : exports) {
    if (d.comment == comment) return d.declaration;
  }
  throw Wasm2cOutputError("the wasm2c header has no declaration for export " + std::string(name));
}

Wasm2cHeader parse_wasm2c_header(std::string_view text) {
  Wasm2cHeader h;
  std::vector<std::string_view> lines = lines_of(text);
  bool in_struct = false;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::string_view line = lines[i];
    if (!in_struct && starts_with(line, "typedef struct Z_") && line.back() == '{') {
      std::string_view name = trim(line.substr(std::string_view("typedef struct ").size()));
      name = trim(name.substr(0, name.size() - 1));
      if (name.size() < 11 || name.substr(name.size() - 11) != "_instance_t") {
        throw Wasm2cOutputError("unexpected struct in wasm2c header: " + std::string(line));
      }
      h.instance_type = std::string(name);
      in_struct = true;
      continue;
    }
    if (in_struct) {
      std::string_view f = trim(line);
      if (starts_with(f, "}")) {
        in_struct = false;
        continue;
      }
      if (f.empty()) continue;
      if (f.back() != ';') throw Wasm2cOutputError("unexpected field: " + std::string(f));
      f.remove_suffix(1);
      InstanceField field;
      std::size_t colon = f.find(" : ");
      if (colon != std::string_view::npos) {
        field.bitfield = true;
        f = trim(f.substr(0, colon));
      }
      std::size_t start = f.size();
      while (start > 0 && is_ident(f[start - 1])) --start;
      field.name = std::string(f.substr(start));
      field.type = std::string(trim(f.substr(0, start)));
      if (field.name.empty() || field.type.empty()) {
        throw Wasm2cOutputError("unexpected field: " + std::string(f));
      }
      h.fields.push_back(std::move(field));
      continue;
    }
    if (starts_with(line, "/* import: ") || starts_with(line, "/* export: ")) {
      bool import = line[3] == 'i';
      std::size_t j = i + 1;
      while (j < lines.size() && trim(lines[j]).empty()) ++j;
      if (j == lines.size())
        throw Wasm2cOutputError("declaration missing after " + std::string(line));
      (import ? h.imports : h.exports)
          .push_back(CommentedDeclaration{std::string(line), parse_c_declaration(lines[j])});
      i = j;
      continue;
    }
    if (starts_with(line, "void Z_") &&
        line.find("_init_module(void);") != std::string_view::npos) {
      h.init_module = parse_c_declaration(line).symbol;
    } else if (starts_with(line, "void Z_") &&
               line.find("_instantiate(") != std::string_view::npos) {
      CDeclaration d = parse_c_declaration(line);
      h.instantiate = d.symbol;
      if (d.param_types.empty()) throw Wasm2cOutputError("instantiate without an instance");
      h.context_types.assign(d.param_types.begin() + 1, d.param_types.end());
    } else if (starts_with(line, "void Z_") && line.find("_free(") != std::string_view::npos) {
      h.free_instance = parse_c_declaration(line).symbol;
    }
  }
  if (h.instance_type.empty() || h.init_module.empty() || h.instantiate.empty() ||
      h.free_instance.empty()) {
    throw Wasm2cOutputError(
        "the wasm2c header lacks the instance struct or init/instantiate/free (wabt 1.0.32 "
        "expected)");
  }
  return h;
}

}  // namespace sandbox::wasmc
