#include "c_splitter.h"

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <regex>

#include "wasm2c_header.h"

namespace sandbox::wasmc {
namespace {

constexpr std::string_view kHidden = "__attribute__((visibility(\"hidden\"))) ";

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}
bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}
bool is_ident(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

std::vector<std::string_view> lines_of(std::string_view text) {
  std::vector<std::string_view> out;
  out.reserve(text.size() / 32);
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    out.push_back(text.substr(pos, nl - pos));
    pos = nl + 1;
  }
  return out;
}

// `static RET w2c_NAME(` where RET is a wasm2c value type or a multi-value struct.
bool is_function_start(std::string_view line) {
  if (!starts_with(line, "static ")) return false;
  std::size_t paren = line.find('(');
  if (paren == std::string_view::npos) return false;
  std::size_t sym = paren;
  while (sym > 0 && is_ident(line[sym - 1])) --sym;
  if (!starts_with(line.substr(sym), "w2c_")) return false;
  std::string_view ret = line.substr(7, sym - 7);
  while (!ret.empty() && ret.back() == ' ') ret.remove_suffix(1);
  return ret == "u32" || ret == "u64" || ret == "f32" || ret == "f64" || ret == "void" ||
         ret == "wasm_rt_funcref_t" || ret == "wasm_rt_externref_t" ||
         starts_with(ret, "struct wasm_multi_");
}

// The w2c_ symbol of a function start line.
std::string_view function_symbol(std::string_view line) {
  std::size_t paren = line.find('(');
  std::size_t sym = paren;
  while (sym > 0 && is_ident(line[sym - 1])) --sym;
  return line.substr(sym, paren - sym);
}

// A top-level `static` object (no parameter list before any initializer).
bool is_static_object(std::string_view line) {
  if (!starts_with(line, "static ")) return false;
  std::size_t eq = line.find(" = ");
  std::string_view head = eq == std::string_view::npos ? line : line.substr(0, eq);
  return head.find('(') == std::string_view::npos &&
         line != "static bool s_module_initialized = false;";
}

class Renamer {
 public:
  explicit Renamer(const std::unordered_map<std::string, std::string>& renames)
      : renames_(renames) {}

  // Appends `line` to `out` with renamed tokens.
  void append(std::string& out, std::string_view line) const {
    if (renames_.empty() || line.find("Z_") == std::string_view::npos) {
      out.append(line);
      return;
    }
    std::size_t i = 0;
    while (i < line.size()) {
      if (is_ident(line[i]) && (i == 0 || !is_ident(line[i - 1]))) {
        std::size_t j = i;
        while (j < line.size() && is_ident(line[j])) ++j;
        std::string_view token = line.substr(i, j - i);
        auto it = token.size() > 2 && token[0] == 'Z' ? renames_.find(std::string(token))
                                                      : renames_.end();
        if (it != renames_.end()) {
          out.append(it->second);
        } else {
          out.append(token);
        }
        i = j;
      } else {
        out.push_back(line[i++]);
      }
    }
  }

 private:
  const std::unordered_map<std::string, std::string>& renames_;
};

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Appends the bytes of `0x12, 0x34, ...` lines to `blob`.
void parse_hex_bytes(std::string_view line, std::string& blob) {
  std::size_t i = 0;
  while ((i = line.find("0x", i)) != std::string_view::npos) {
    if (i + 3 >= line.size() + 1) break;
    int hi = i + 2 < line.size() ? hex_value(line[i + 2]) : -1;
    int lo = i + 3 < line.size() ? hex_value(line[i + 3]) : -1;
    if (hi < 0 || lo < 0)
      throw Wasm2cOutputError("unexpected data segment byte: " + std::string(line));
    blob.push_back(static_cast<char>(hi * 16 + lo));
    i += 4;
  }
}

std::uint64_t fnv1a64(std::string_view bytes) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (char c : bytes) {
    h ^= static_cast<std::uint8_t>(c);
    h *= 0x100000001b3ull;
  }
  return h;
}

std::string asm_string(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  return out + "\"";
}

// `  LOAD_DATA(instance->w2c_memory, 4194304u, data_segment_data_w2c_d0, 197393);` with a
// literal offset and a segment in the blob (`segments`: the offsets of those defined so far).
std::optional<LoadDataRow> parse_load_data(
    std::string_view line, const std::unordered_map<std::string_view, std::size_t>& segments) {
  static const std::regex kLoad(
      R"(^  LOAD_DATA\((instance->w2c_\w+), (\d+u), (data_segment_data_\w+), (\d+)\);$)");
  std::match_results<std::string_view::const_iterator> m;
  if (!std::regex_match(line.begin(), line.end(), m, kLoad)) return std::nullopt;
  auto group = [&](int k) {
    return line.substr(static_cast<std::size_t>(m.position(k)),
                       static_cast<std::size_t>(m.length(k)));
  };
  auto it = segments.find(group(3));
  if (it == segments.end()) return std::nullopt;
  return LoadDataRow{group(1), group(2), it->second, group(4)};
}

// The runtime's answer to "is this instance's memory replaced before it runs?"
// (src/wasm/data_segments.h). main.c declares it itself, so the common header, and with it the
// cached compilation of every part, does not change with it.
constexpr std::string_view kSkipDataSegments = "sandbox_wasm_skip_data_segments";

// Loads and stores through a base pointer held in a local (see SplitOptions::memory_field),
// generated from the prelude's DEFINE_LOAD/DEFINE_STORE lines. Unlike wasm2c's own loads, these
// have no "force read" (`wasm_asm("" ::"r"(result))` after the memcpy): it makes gcc load every
// value into a register first, so it cannot fold a load into an ALU operand or a
// read-modify-write instruction (about 5% of bench_wasm's interpreter kernel). What changes: a
// load whose result is never used may be removed by the compiler, so such a dead load out of
// bounds no longer traps (Wasm says it should). Memory safety does not depend on it: every
// access that is made still goes through the guard region of the 8 GiB reservation.
std::string base_pointer_accessors(const std::vector<std::string_view>& lines,
                                   std::size_t prelude_end, const std::string& memory_field) {
  static const std::regex kLoad(R"(^DEFINE_LOAD\((\w+), (\w+), (\w+), (\w+)\)$)");
  static const std::regex kStore(R"(^DEFINE_STORE\((\w+), (\w+), (\w+)\)$)");
  std::string out =
      "/* sandbox-wasmc: linear-memory accesses through a base address read once per function "
      "*/\n#undef FUNC_PROLOGUE\n#define FUNC_PROLOGUE u8* const sandbox_wasmc_base = "
      "instance->" +
      memory_field + ".data\n";
  std::match_results<std::string_view::const_iterator> m;
  for (std::size_t i = 0; i < prelude_end; ++i) {
    std::string_view line = lines[i];
    if (std::regex_match(line.begin(), line.end(), m, kLoad)) {
      std::string name = m[1].str(), t1 = m[2].str(), t2 = m[3].str(), t3 = m[4].str();
      out += "static inline " + t3 + " sandbox_wasmc_" + name + "(u8* base, u64 addr) { " + t1 +
             " result; wasm_rt_memcpy(&result, base + addr, sizeof(" + t1 + ")); return (" + t3 +
             ")(" + t2 + ")result; }\n";
      out +=
          "#define " + name + "(mem, addr) sandbox_wasmc_" + name + "(sandbox_wasmc_base, addr)\n";
    } else if (std::regex_match(line.begin(), line.end(), m, kStore)) {
      std::string name = m[1].str(), t1 = m[2].str(), t2 = m[3].str();
      out += "static inline void sandbox_wasmc_" + name + "(u8* base, u64 addr, " + t2 +
             " value) { " + t1 + " wrapped = (" + t1 +
             ")value; wasm_rt_memcpy(base + addr, &wrapped, sizeof(" + t1 + ")); }\n";
      out += "#define " + name + "(mem, addr, value) sandbox_wasmc_" + name +
             "(sandbox_wasmc_base, addr, value)\n";
    }
  }
  return out;
}

// The fuel macros of SplitOptions::fuel_field: the local, its write-back and reload, and the
// tick (whose rare slow path hands the pre-decrement value to the wasm2c tick function, which
// decrements, sees the negative value and calls the exhausted import).
std::string fuel_local_macros(const std::string& fuel_field, const std::string& fuel_tick) {
  const std::string field = "instance->" + fuel_field;
  std::string out =
      "/* sandbox-wasmc: fuel in a local per function, written back around calls and returns */\n";
  out += "#define SANDBOX_WASMC_FUEL_ENTER s64 sandbox_wasmc_fuel = (s64)" + field + "\n";
  out += "#define SANDBOX_WASMC_FUEL_SAVE " + field + " = (u64)sandbox_wasmc_fuel\n";
  out += "#define SANDBOX_WASMC_FUEL_LOAD sandbox_wasmc_fuel = (s64)" + field + "\n";
  out += "#define SANDBOX_WASMC_TICK \\\n";
  out += "  do { \\\n";
  out += "    if (__builtin_expect(--sandbox_wasmc_fuel < 0, 0)) { \\\n";
  out += "      " + field + " = (u64)(sandbox_wasmc_fuel + 1); \\\n";
  out += "      " + fuel_tick + "(instance, 0); \\\n";
  out += "      SANDBOX_WASMC_FUEL_LOAD; \\\n";
  out += "    } \\\n";
  out += "  } while (0)\n";
  return out;
}

// How one line of a function body is rewritten for the fuel local (see
// SplitOptions::fuel_field and plan_fuel_local). The shapes are wasm2c 1.0.32's: `  FUNC_PROLOGUE;`
// once after the locals, `FUNC_EPILOGUE;` before every return (explicit returns are gotos to the
// end), the tick as a statement of its own, and every call on one line ending in `;`:
// `w2c_f(instance, ...)`, `(*import)(instance->ctx, ...)`, `CALL_INDIRECT(...)` (the callee gets
// its table entry's `module_instance`), `wasm_rt_throw()`.
FuelEdit fuel_edit_of(std::string_view line, std::string_view tick_call) {
  std::size_t indent = 0;
  while (indent < line.size() && line[indent] == ' ') ++indent;
  std::string_view code = line.substr(indent);
  if (code == "FUNC_PROLOGUE;") return FuelEdit::kEnter;
  if (code == "FUNC_EPILOGUE;") return FuelEdit::kEpilogue;
  if (starts_with(code, tick_call)) return FuelEdit::kTick;
  bool call = code.find("(instance,") != std::string_view::npos ||
              code.find("(instance)") != std::string_view::npos ||
              code.find(")(instance->") != std::string_view::npos ||
              code.find("CALL_INDIRECT(") != std::string_view::npos ||
              code.find("wasm_rt_throw(") != std::string_view::npos;
  // An explicit trap: write the fuel back so fuel_consumed() after it is exact.
  bool trap = code == "UNREACHABLE;";
  if (!call && !trap) return FuelEdit::kKeep;
  if (!ends_with(code, ";") || code.find('{') != std::string_view::npos) {
    throw Wasm2cOutputError("a call that is not a statement of its own: " + std::string(line));
  }
  return call ? FuelEdit::kCall : FuelEdit::kTrap;
}

// Appends `line` rewritten as `edit` says (not kKeep) to `out`.
void append_fuel_edit(std::string& out, std::string_view line, FuelEdit edit) {
  std::size_t indent = 0;
  while (indent < line.size() && line[indent] == ' ') ++indent;
  std::string_view code = line.substr(indent);
  std::string_view pad = line.substr(0, indent);
  switch (edit) {
    case FuelEdit::kKeep:
      out.append(line);
      break;
    case FuelEdit::kEnter:
      out.append(line).append(" SANDBOX_WASMC_FUEL_ENTER;");
      break;
    case FuelEdit::kEpilogue:
      out.append(pad).append("SANDBOX_WASMC_FUEL_SAVE; FUNC_EPILOGUE;");
      break;
    case FuelEdit::kTick:
      out.append(pad).append("SANDBOX_WASMC_TICK;");
      break;
    case FuelEdit::kCall:
      out.append(pad).append("SANDBOX_WASMC_FUEL_SAVE; ").append(code);
      out.append(" SANDBOX_WASMC_FUEL_LOAD;");
      break;
    case FuelEdit::kTrap:
      out.append(pad).append("SANDBOX_WASMC_FUEL_SAVE; ").append(code);
      break;
  }
}

// Bytes of C of an item's lines, newlines included.
std::size_t item_bytes(const Wasm2cModel& model, const Wasm2cItem& item) {
  std::size_t bytes = 0;
  for (std::size_t j = item.begin; j < item.end; ++j) bytes += model.lines[j].size() + 1;
  return bytes;
}

// Appends lines [begin, end) of the model, renamed, each with its '\n'; the first without its
// leading "static " (a top-level item's), after `first_prefix`.
void append_item_lines(std::string& out, const Wasm2cModel& model, const Renamer& renamer,
                       std::size_t begin, std::size_t end, std::string_view first_prefix) {
  out.append(first_prefix);
  for (std::size_t j = begin; j < end; ++j) {
    renamer.append(out, j == begin ? model.lines[j].substr(7) : model.lines[j]);
    out.push_back('\n');
  }
}

// The common header: the prelude, the blob's declaration, the accessor and fuel macros, the
// caller's extra text, the declarations of functions, shared objects and data segments, and
// the inline functions.
std::string emit_common(const Wasm2cModel& model, const SplitOptions& options,
                        const Renamer& renamer, const std::string& blob_symbol) {
  const std::string& mod = options.name;
  std::string common = "/* Generated by sandbox-wasmc from wasm2c output: do not edit. */\n";
  common +=
      "#ifndef SANDBOX_WASMC_" + mod + "_COMMON_H_\n#define SANDBOX_WASMC_" + mod + "_COMMON_H_\n";
  for (std::size_t j = 0; j < model.prelude_end; ++j) {
    renamer.append(common, model.lines[j]);
    common.push_back('\n');
  }
  common += "extern const u8 " + blob_symbol + "[] __attribute__((visibility(\"hidden\")));\n";
  if (!options.memory_field.empty()) {
    common += base_pointer_accessors(model.lines, model.prelude_end, options.memory_field);
  }
  if (!options.fuel_field.empty()) {
    common += fuel_local_macros(options.fuel_field, options.fuel_tick);
  }
  common += options.extra_common;
  for (const Wasm2cItem& item : model.items) {
    switch (item.kind) {
      case ItemKind::kPrototype:
        append_item_lines(common, model, renamer, item.begin, item.end, kHidden);
        break;
      case ItemKind::kDataSegment:
        common.append("#define ").append(item.symbol);
        common += " (" + blob_symbol + " + " + std::to_string(item.blob_offset) + "u)\n";
        break;
      case ItemKind::kSharedObject: {
        // Declared here, defined hidden in main.
        std::string_view rest = model.lines[item.begin].substr(7);
        std::size_t eq = rest.find(" = ");
        std::string_view declarator = eq == std::string_view::npos ? rest : rest.substr(0, eq);
        if (ends_with(declarator, ";")) declarator.remove_suffix(1);
        common.append(kHidden);
        common.append("extern ");
        renamer.append(common, declarator);
        common.append(";\n");
        break;
      }
      default:
        break;
    }
  }
  for (const Wasm2cItem& item : model.items) {
    if (item.kind == ItemKind::kInlineFunction) {
      append_item_lines(common, model, renamer, item.begin, item.end, "static inline ");
    }
  }
  common += "#endif\n";
  return common;
}

// main.c: every item that is not a function, with the shared objects defined hidden and the
// data loads guarded.
std::string emit_main(const Wasm2cModel& model, const SplitOptions& options, const Renamer& renamer,
                      const std::string& blob_symbol) {
  std::string main = "#include \"" + options.name + "_common.h\"\nint " +
                     std::string(kSkipDataSegments) + "(void);\n";
  for (const Wasm2cItem& item : model.items) {
    switch (item.kind) {
      case ItemKind::kLine:
        renamer.append(main, model.lines[item.begin]);
        main.push_back('\n');
        break;
      case ItemKind::kSharedObject:
        append_item_lines(main, model, renamer, item.begin, item.end, kHidden);
        break;
      case ItemKind::kGuardedLoadData:
        main.append("  if (!").append(kSkipDataSegments).append("()) ");
        main.append(model.lines[item.begin].substr(2));
        main.push_back('\n');
        break;
      case ItemKind::kLoadDataRun: {
        const LoadDataRow* rows = &model.load_data_rows[item.first_row];
        const std::size_t count = item.end - item.begin;
        main += "  if (!" + std::string(kSkipDataSegments) +
                "()) {\n    static const struct { u32 dest, src, size; } segments[] = {\n";
        for (std::size_t r = 0; r < count; ++r) {
          main.append("      {").append(rows[r].dest).append(", ");
          main.append(std::to_string(rows[r].src)).append("u, ").append(rows[r].size);
          main.append("u},\n");
        }
        main += "    };\n    for (size_t k = 0; k < sizeof segments / sizeof segments[0]; k++) {\n";
        main.append("      LOAD_DATA(").append(rows[0].memory);
        main += ", segments[k].dest, " + blob_symbol +
                " + segments[k].src, segments[k].size);\n    }\n  }\n";
        break;
      }
      default:
        break;
    }
  }
  return main;
}

// <name>_data.S: the blob's symbol, with the blob's hash in a symbol name.
std::string emit_data_asm(const Wasm2cModel& model, const SplitOptions& options,
                          const std::string& blob_symbol) {
  const std::string& mod = options.name;
  std::filesystem::path bin = std::filesystem::absolute(options.out_dir / (mod + "_data.bin"));
  char hash[17];
  std::snprintf(hash, sizeof hash, "%016llx", static_cast<unsigned long long>(fnv1a64(model.blob)));
  const std::string size = std::to_string(model.blob.size());
  std::string s = "/* Generated by sandbox-wasmc: the data segments of " + mod + ". */\n";
  s += "  .section .rodata\n  .balign 16\n  .globl " + blob_symbol + "\n  .hidden " + blob_symbol +
       "\n  .type " + blob_symbol + ", @object\n";
  s += "  .set " + mod + "_data_fnv_" + hash + ", " + size + "\n";
  s += blob_symbol + ":\n  .incbin " + asm_string(bin.string()) + "\n  .byte 0\n";
  s += "  .size " + blob_symbol + ", " + std::to_string(model.blob.size() + 1) + "\n";
  s += "  .section .note.GNU-stack,\"\",@progbits\n";
  return s;
}

}  // namespace

Wasm2cModel classify_wasm2c_source(std::string_view source) {
  Wasm2cModel model;
  model.lines = lines_of(source);
  const std::vector<std::string_view>& lines = model.lines;
  auto init = std::find_if(lines.begin(), lines.end(), [](std::string_view l) {
    return starts_with(l, "static bool s_module_initialized");
  });
  if (init == lines.end()) {
    throw Wasm2cOutputError(
        "no 's_module_initialized' in the wasm2c output (wabt 1.0.32 expected)");
  }
  model.prelude_end = static_cast<std::size_t>(init - lines.begin());

  const std::size_t n = lines.size();
  std::size_t i = model.prelude_end;
  while (i < n) {
    std::string_view line = lines[i];
    Wasm2cItem item;
    item.begin = i;
    if (is_function_start(line)) {
      // The signature may wrap over several lines; it ends in ");" (prototype) or ") {".
      std::size_t k = i;
      while (k < n && !ends_with(lines[k], ");") && !ends_with(lines[k], ") {")) ++k;
      if (k == n) throw Wasm2cOutputError("unterminated function signature: " + std::string(line));
      item.symbol = function_symbol(line);
      if (ends_with(lines[k], ");")) {
        item.kind = ItemKind::kPrototype;
        item.end = k + 1;
      } else {
        std::size_t end = k + 1;
        while (end < n && lines[end] != "}") ++end;
        if (end == n) throw Wasm2cOutputError("unterminated function: " + std::string(line));
        item.kind = ItemKind::kFunction;
        item.end = end + 1;
      }
    } else if (is_static_object(line)) {
      std::size_t end = i;
      if (ends_with(line, "{")) {
        while (end < n && lines[end] != "};") ++end;
        if (end == n) throw Wasm2cOutputError("unterminated initializer: " + std::string(line));
      }
      item.end = end + 1;
      std::string_view rest = line.substr(7);  // after "static "
      static const std::regex kSegment(R"(^const u8 (data_segment_data_\w+)\[\] = \{$)");
      std::match_results<std::string_view::const_iterator> match;
      if (std::regex_match(rest.begin(), rest.end(), match, kSegment)) {
        item.kind = ItemKind::kDataSegment;
        item.symbol = rest.substr(static_cast<std::size_t>(match.position(1)),
                                  static_cast<std::size_t>(match.length(1)));
      } else {
        item.kind = ItemKind::kSharedObject;
      }
    } else {
      item.kind = ItemKind::kLine;
      item.end = i + 1;
    }
    i = item.end;
    model.items.push_back(item);
  }
  return model;
}

void mark_inline_functions(Wasm2cModel& model, const std::set<std::string>& names) {
  if (names.empty()) return;
  for (Wasm2cItem& item : model.items) {
    if (item.kind != ItemKind::kPrototype && item.kind != ItemKind::kFunction) continue;
    if (names.count(std::string(item.symbol)) == 0) continue;
    item.kind =
        item.kind == ItemKind::kPrototype ? ItemKind::kInlinePrototype : ItemKind::kInlineFunction;
  }
}

void collect_data_segments(Wasm2cModel& model) {
  for (Wasm2cItem& item : model.items) {
    if (item.kind != ItemKind::kDataSegment) continue;
    item.blob_offset = model.blob.size();
    for (std::size_t j = item.begin + 1; j + 1 < item.end; ++j) {
      parse_hex_bytes(model.lines[j], model.blob);
    }
  }
}

void guard_data_loads(Wasm2cModel& model) {
  std::unordered_map<std::string_view, std::size_t> segments;  // defined so far
  std::vector<Wasm2cItem> items;
  items.reserve(model.items.size());
  const std::size_t n = model.items.size();
  std::size_t i = 0;
  while (i < n) {
    const Wasm2cItem& item = model.items[i];
    if (item.kind == ItemKind::kDataSegment) segments[item.symbol] = item.blob_offset;
    std::string_view line = model.lines[item.begin];
    if (item.kind != ItemKind::kLine || line.find("LOAD_DATA(") == std::string_view::npos) {
      items.push_back(item);
      ++i;
      continue;
    }
    // The longest run from here: consecutive lines, one memory.
    std::vector<LoadDataRow> run;
    for (std::size_t j = i; j < n && model.items[j].kind == ItemKind::kLine; ++j) {
      auto row = parse_load_data(model.lines[model.items[j].begin], segments);
      if (!row || (!run.empty() && row->memory != run.front().memory)) break;
      run.push_back(*row);
    }
    if (run.size() >= kMinLoadDataRun) {
      Wasm2cItem table = item;
      table.kind = ItemKind::kLoadDataRun;
      table.end = item.begin + run.size();
      table.first_row = model.load_data_rows.size();
      model.load_data_rows.insert(model.load_data_rows.end(), run.begin(), run.end());
      items.push_back(table);
      i += run.size();
      continue;
    }
    items.push_back(item);
    if (starts_with(line, "  LOAD_DATA(")) items.back().kind = ItemKind::kGuardedLoadData;
    ++i;
  }
  model.items = std::move(items);
}

void plan_fuel_local(Wasm2cModel& model, const std::string& fuel_tick) {
  const std::string tick_call = fuel_tick + "(instance, ";
  model.fuel_edits.assign(model.lines.size(), FuelEdit::kKeep);
  for (const Wasm2cItem& item : model.items) {
    if (item.kind != ItemKind::kFunction) continue;
    bool has_try = false;
    for (std::size_t j = item.begin + 1; !has_try && j < item.end; ++j) {
      has_try = model.lines[j].find("wasm_rt_try(") != std::string_view::npos;
    }
    if (has_try) continue;
    for (std::size_t j = item.begin + 1; j < item.end; ++j) {
      model.fuel_edits[j] = fuel_edit_of(model.lines[j], tick_call);
    }
  }
}

void assign_parts(Wasm2cModel& model, unsigned parts) {
  if (parts == 0) throw std::invalid_argument("parts must be at least 1");
  std::size_t total = 0;
  for (const Wasm2cItem& item : model.items) {
    if (item.kind == ItemKind::kFunction) total += item_bytes(model, item);
  }
  unsigned part = 0;
  std::size_t done = 0;
  for (Wasm2cItem& item : model.items) {
    if (item.kind != ItemKind::kFunction) continue;
    while (part + 1 < parts && done >= static_cast<std::size_t>((static_cast<double>(total) *
                                                                 static_cast<double>(part + 1)) /
                                                                static_cast<double>(parts))) {
      ++part;
    }
    item.part = part;
    done += item_bytes(model, item);
  }
}

SplitResult emit_split(Wasm2cModel model, const SplitOptions& options) {
  const std::string& mod = options.name;
  const std::string blob_symbol = mod + "_data_blob";
  const Renamer renamer(options.renames);
  SplitResult result;
  result.files.reserve(options.parts + 4);
  result.files.push_back({mod + "_common.h", emit_common(model, options, renamer, blob_symbol)});
  result.files.push_back({mod + "_main.c", emit_main(model, options, renamer, blob_symbol)});

  const std::size_t first_part = result.files.size();
  for (unsigned p = 0; p < options.parts; ++p) {
    result.files.push_back(
        {mod + "_part" + std::to_string(p) + ".c", "#include \"" + mod + "_common.h\"\n"});
  }
  result.part_bytes.assign(options.parts, 0);
  const bool fuel = !model.fuel_edits.empty();
  std::string rewritten;
  for (const Wasm2cItem& item : model.items) {
    if (item.kind == ItemKind::kDataSegment) ++result.data_segments;
    if (item.kind != ItemKind::kFunction) continue;
    ++result.functions;
    std::string& out = result.files[first_part + item.part].contents;
    out.append(kHidden);
    renamer.append(out, model.lines[item.begin].substr(7));
    out.push_back('\n');
    for (std::size_t j = item.begin + 1; j < item.end; ++j) {
      if (fuel && model.fuel_edits[j] != FuelEdit::kKeep) {
        rewritten.clear();
        append_fuel_edit(rewritten, model.lines[j], model.fuel_edits[j]);
        renamer.append(out, rewritten);
      } else {
        renamer.append(out, model.lines[j]);
      }
      out.push_back('\n');
    }
    out.push_back('\n');
    result.part_bytes[item.part] += item_bytes(model, item);
  }
  result.data_bytes = model.blob.size();
  std::string data_asm = emit_data_asm(model, options, blob_symbol);
  result.files.push_back({mod + "_data.bin", std::move(model.blob)});
  result.files.push_back({mod + "_data.S", std::move(data_asm)});
  return result;
}

SplitResult split_wasm2c_source(std::string_view source, const SplitOptions& options) {
  if (options.parts == 0) throw std::invalid_argument("parts must be at least 1");
  const bool fuel_local = !options.fuel_field.empty();
  if (fuel_local && options.inline_functions.count(options.fuel_tick) == 0) {
    throw std::invalid_argument("fuel_tick must be one of inline_functions");
  }
  Wasm2cModel model = classify_wasm2c_source(source);
  mark_inline_functions(model, options.inline_functions);
  collect_data_segments(model);
  guard_data_loads(model);
  if (fuel_local) plan_fuel_local(model, options.fuel_tick);
  assign_parts(model, options.parts);
  return emit_split(std::move(model), options);
}

}  // namespace sandbox::wasmc
