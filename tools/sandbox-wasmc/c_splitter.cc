#include "c_splitter.h"

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <fstream>
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
std::string function_symbol(std::string_view line) {
  std::size_t paren = line.find('(');
  std::size_t sym = paren;
  while (sym > 0 && is_ident(line[sym - 1])) --sym;
  return std::string(line.substr(sym, paren - sym));
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
void parse_hex_bytes(std::string_view line, std::vector<std::uint8_t>& blob) {
  std::size_t i = 0;
  while ((i = line.find("0x", i)) != std::string_view::npos) {
    if (i + 3 >= line.size() + 1) break;
    int hi = i + 2 < line.size() ? hex_value(line[i + 2]) : -1;
    int lo = i + 3 < line.size() ? hex_value(line[i + 3]) : -1;
    if (hi < 0 || lo < 0)
      throw Wasm2cOutputError("unexpected data segment byte: " + std::string(line));
    blob.push_back(static_cast<std::uint8_t>(hi * 16 + lo));
    i += 4;
  }
}

std::uint64_t fnv1a64(const std::vector<std::uint8_t>& bytes) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (std::uint8_t b : bytes) {
    h ^= b;
    h *= 0x100000001b3ull;
  }
  return h;
}

void write_file(const std::filesystem::path& path, std::string_view content,
                std::vector<std::filesystem::path>& files) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(content.data(), static_cast<std::streamsize>(content.size()));
  out.close();
  if (!out) throw std::runtime_error("cannot write " + path.string());
  files.push_back(path);
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
// literal offset and a segment we moved into the blob.
struct LoadData {
  std::string memory;
  std::string dest;
  std::size_t src;
  std::string size;
};
std::optional<LoadData> parse_load_data(std::string_view line,
                                        const std::unordered_map<std::string, std::size_t>& segs) {
  static const std::regex kLoad(
      R"(^  LOAD_DATA\((instance->w2c_\w+), (\d+u), (data_segment_data_\w+), (\d+)\);$)");
  std::match_results<std::string_view::const_iterator> m;
  if (!std::regex_match(line.begin(), line.end(), m, kLoad)) return std::nullopt;
  auto it = segs.find(m[3].str());
  if (it == segs.end()) return std::nullopt;
  return LoadData{m[1].str(), m[2].str(), it->second, m[4].str()};
}

// The runtime's answer to "is this instance's memory replaced before it runs?"
// (src/wasm/data_segments.h). main.c declares it itself, so the common header, and with it the
// cached compilation of every part, does not change with it.
constexpr std::string_view kSkipDataSegments = "sandbox_wasm_skip_data_segments";

// A single active segment's load in init_memories, guarded like a run (below).
bool guarded_load_data(std::string_view line, std::string& out) {
  if (!starts_with(line, "  LOAD_DATA(")) return false;
  out.append("  if (!").append(kSkipDataSegments).append("()) ").append(line.substr(2));
  out.push_back('\n');
  return true;
}

// A module with thousands of data segments gets thousands of LOAD_DATA lines in one function,
// which takes gcc minutes; a run of at least kMinRun of them (same memory) becomes a table and
// a loop with the same checks. Returns the number of lines consumed (0: not such a run).
std::size_t load_data_run(const std::vector<std::string_view>& lines, std::size_t i,
                          const std::unordered_map<std::string, std::size_t>& segs,
                          const std::string& blob_symbol, std::string& out) {
  constexpr std::size_t kMinRun = 16;
  if (lines[i].find("LOAD_DATA(") == std::string_view::npos) return 0;
  std::vector<LoadData> run;
  std::size_t j = i;
  while (j < lines.size()) {
    auto load = parse_load_data(lines[j], segs);
    if (!load || (!run.empty() && load->memory != run.front().memory)) break;
    run.push_back(std::move(*load));
    ++j;
  }
  if (run.size() < kMinRun) return 0;
  out += "  if (!" + std::string(kSkipDataSegments) +
         "()) {\n    static const struct { u32 dest, src, size; } segments[] = {\n";
  for (const LoadData& l : run) {
    out += "      {" + l.dest + ", " + std::to_string(l.src) + "u, " + l.size + "u},\n";
  }
  out += "    };\n    for (size_t k = 0; k < sizeof segments / sizeof segments[0]; k++) {\n";
  out += "      LOAD_DATA(" + run.front().memory + ", segments[k].dest, " + blob_symbol +
         " + segments[k].src, segments[k].size);\n    }\n  }\n";
  return run.size();
}

// Loads and stores through a base pointer held in a local (see SplitOptions::memory_field),
// generated from the prelude's DEFINE_LOAD/DEFINE_STORE lines. Unlike wasm2c's own loads, these
// have no "force read" (`wasm_asm("" ::"r"(result))` after the memcpy): it makes gcc load every
// value into a register first, so it cannot fold a load into an ALU operand or a
// read-modify-write instruction (about 5% of bench_wasm's interpreter kernel). What changes: a
// load whose result is never used may be removed by the compiler, so such a dead load out of
// bounds no longer traps (Wasm says it should). Memory safety does not depend on it: every
// access that is made still goes through the guard region of the 8 GiB reservation.
std::string base_pointer_accessors(const std::vector<std::string_view>& prelude,
                                   const std::string& memory_field) {
  static const std::regex kLoad(R"(^DEFINE_LOAD\((\w+), (\w+), (\w+), (\w+)\)$)");
  static const std::regex kStore(R"(^DEFINE_STORE\((\w+), (\w+), (\w+)\)$)");
  std::string out =
      "/* sandbox-wasmc: linear-memory accesses through a base address read once per function "
      "*/\n#undef FUNC_PROLOGUE\n#define FUNC_PROLOGUE u8* const sandbox_wasmc_base = "
      "instance->" +
      memory_field + ".data\n";
  std::match_results<std::string_view::const_iterator> m;
  for (std::string_view line : prelude) {
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

// Rewrites one line of a function body for the fuel local (see SplitOptions::fuel_field). The
// shapes are wasm2c 1.0.32's: `  FUNC_PROLOGUE;` once after the locals, `FUNC_EPILOGUE;` before
// every return (explicit returns are gotos to the end), the tick as a statement of its own, and
// every call on one line ending in `;`: `w2c_f(instance, ...)`, `(*import)(instance->ctx, ...)`,
// `CALL_INDIRECT(...)` (the callee gets its table entry's `module_instance`), `wasm_rt_throw()`.
// Returns false if the line is left as it is.
bool rewrite_for_fuel_local(std::string_view line, const std::string& tick_call, std::string& out) {
  std::size_t indent = 0;
  while (indent < line.size() && line[indent] == ' ') ++indent;
  std::string_view code = line.substr(indent);
  std::string_view pad = line.substr(0, indent);
  if (code == "FUNC_PROLOGUE;") {
    out.append(line).append(" SANDBOX_WASMC_FUEL_ENTER;");
    return true;
  }
  if (code == "FUNC_EPILOGUE;") {
    out.append(pad).append("SANDBOX_WASMC_FUEL_SAVE; FUNC_EPILOGUE;");
    return true;
  }
  if (starts_with(code, tick_call)) {
    out.append(pad).append("SANDBOX_WASMC_TICK;");
    return true;
  }
  bool call = code.find("(instance,") != std::string_view::npos ||
              code.find("(instance)") != std::string_view::npos ||
              code.find(")(instance->") != std::string_view::npos ||
              code.find("CALL_INDIRECT(") != std::string_view::npos ||
              code.find("wasm_rt_throw(") != std::string_view::npos;
  // An explicit trap: write the fuel back so fuel_consumed() after it is exact.
  bool trap = code == "UNREACHABLE;";
  if (!call && !trap) return false;
  if (!ends_with(code, ";") || code.find('{') != std::string_view::npos) {
    throw Wasm2cOutputError("a call that is not a statement of its own: " + std::string(line));
  }
  out.append(pad).append("SANDBOX_WASMC_FUEL_SAVE; ").append(code);
  if (call) out.append(" SANDBOX_WASMC_FUEL_LOAD;");
  return true;
}

}  // namespace

SplitResult split_wasm2c_source(std::string_view source, const SplitOptions& options) {
  if (options.parts == 0) throw std::invalid_argument("parts must be at least 1");
  const std::string& mod = options.name;
  const std::string blob_symbol = mod + "_data_blob";
  Renamer renamer(options.renames);
  std::vector<std::string_view> lines = lines_of(source);

  auto init = std::find_if(lines.begin(), lines.end(), [](std::string_view l) {
    return starts_with(l, "static bool s_module_initialized");
  });
  if (init == lines.end()) {
    throw Wasm2cOutputError(
        "no 's_module_initialized' in the wasm2c output (wabt 1.0.32 expected)");
  }
  std::size_t prelude_end = static_cast<std::size_t>(init - lines.begin());

  std::string decls;        // hidden declarations for the common header
  std::string main_body;    // <mod>_main.c after its #include
  std::string inline_defs;  // static inline functions for the common header
  std::vector<std::pair<std::size_t, std::size_t>> functions;  // [begin, end) line ranges
  std::vector<std::uint8_t> blob;
  std::unordered_map<std::string, std::size_t> segment_offsets;  // in the blob
  SplitResult result;

  std::size_t i = prelude_end;
  const std::size_t n = lines.size();
  while (i < n) {
    std::string_view line = lines[i];
    if (is_function_start(line)) {
      // The signature may wrap over several lines; it ends in ");" (prototype) or ") {".
      std::size_t k = i;
      while (k < n && !ends_with(lines[k], ");") && !ends_with(lines[k], ") {")) ++k;
      if (k == n) throw Wasm2cOutputError("unterminated function signature: " + std::string(line));
      bool inlined = options.inline_functions.count(function_symbol(line)) != 0;
      if (ends_with(lines[k], ");")) {
        if (inlined) {  // defined static inline below instead
          i = k + 1;
          continue;
        }
        decls.append(kHidden);
        for (std::size_t j = i; j <= k; ++j) {
          renamer.append(decls, j == i ? lines[j].substr(7) : lines[j]);
          decls.push_back('\n');
        }
        i = k + 1;
        continue;
      }
      std::size_t end = k + 1;
      while (end < n && lines[end] != "}") ++end;
      if (end == n) throw Wasm2cOutputError("unterminated function: " + std::string(line));
      if (inlined) {
        inline_defs.append("static inline ");
        for (std::size_t j = i; j <= end; ++j) {
          renamer.append(inline_defs, j == i ? lines[j].substr(7) : lines[j]);
          inline_defs.push_back('\n');
        }
        i = end + 1;
        continue;
      }
      functions.emplace_back(i, end + 1);
      i = end + 1;
      continue;
    }
    if (is_static_object(line)) {
      std::size_t end = i;
      if (ends_with(line, "{")) {
        while (end < n && lines[end] != "};") ++end;
        if (end == n) throw Wasm2cOutputError("unterminated initializer: " + std::string(line));
      }
      std::string_view rest = line.substr(7);  // after "static "
      static const std::regex kSegment(R"(^const u8 (data_segment_data_\w+)\[\] = \{$)");
      std::match_results<std::string_view::const_iterator> match;
      if (std::regex_match(rest.begin(), rest.end(), match, kSegment)) {
        std::size_t offset = blob.size();
        for (std::size_t j = i + 1; j < end; ++j) parse_hex_bytes(lines[j], blob);
        segment_offsets[match[1].str()] = offset;
        decls += "#define " + match[1].str() + " (" + blob_symbol + " + " + std::to_string(offset) +
                 "u)\n";
        ++result.data_segments;
      } else {
        // A shared object (func_types, element segments): defined hidden in main, declared in
        // the common header.
        std::size_t eq = rest.find(" = ");
        std::string_view declarator = eq == std::string_view::npos ? rest : rest.substr(0, eq);
        if (ends_with(declarator, ";")) declarator.remove_suffix(1);
        decls.append(kHidden);
        decls.append("extern ");
        renamer.append(decls, declarator);
        decls.append(";\n");
        main_body.append(kHidden);
        for (std::size_t j = i; j <= end; ++j) {
          renamer.append(main_body, j == i ? rest : lines[j]);
          main_body.push_back('\n');
        }
      }
      i = end + 1;
      continue;
    }
    if (std::size_t run = load_data_run(lines, i, segment_offsets, blob_symbol, main_body);
        run > 0) {
      i += run;
      continue;
    }
    if (guarded_load_data(line, main_body)) {
      ++i;
      continue;
    }
    renamer.append(main_body, line);
    main_body.push_back('\n');
    ++i;
  }
  result.functions = functions.size();
  result.data_bytes = blob.size();

  std::string common = "/* Generated by sandbox-wasmc from wasm2c output: do not edit. */\n";
  common +=
      "#ifndef SANDBOX_WASMC_" + mod + "_COMMON_H_\n#define SANDBOX_WASMC_" + mod + "_COMMON_H_\n";
  for (std::size_t j = 0; j < prelude_end; ++j) {
    renamer.append(common, lines[j]);
    common.push_back('\n');
  }
  common += "extern const u8 " + blob_symbol + "[] __attribute__((visibility(\"hidden\")));\n";
  if (!options.memory_field.empty()) {
    std::vector<std::string_view> prelude(lines.begin(),
                                          lines.begin() + static_cast<std::ptrdiff_t>(prelude_end));
    common += base_pointer_accessors(prelude, options.memory_field);
  }
  const bool fuel_local = !options.fuel_field.empty();
  if (fuel_local) {
    if (options.inline_functions.count(options.fuel_tick) == 0) {
      throw std::invalid_argument("fuel_tick must be one of inline_functions");
    }
    common += fuel_local_macros(options.fuel_field, options.fuel_tick);
  }
  const std::string tick_call = options.fuel_tick + "(instance, ";
  common += options.extra_common;
  common += decls;
  common += inline_defs;
  common += "#endif\n";

  const std::filesystem::path& dir = options.out_dir;
  write_file(dir / (mod + "_common.h"), common, result.files);
  write_file(dir / (mod + "_main.c"),
             "#include \"" + mod + "_common.h\"\nint " + std::string(kSkipDataSegments) +
                 "(void);\n" + main_body,
             result.files);

  // Parts, balanced by bytes of C.
  std::vector<std::size_t> sizes;
  std::size_t total = 0;
  for (auto [b, e] : functions) {
    std::size_t s = 0;
    for (std::size_t j = b; j < e; ++j) s += lines[j].size() + 1;
    sizes.push_back(s);
    total += s;
  }
  std::vector<std::string> parts(options.parts, "#include \"" + mod + "_common.h\"\n");
  result.part_bytes.assign(options.parts, 0);
  std::size_t part = 0;
  std::size_t done = 0;
  for (std::size_t f = 0; f < functions.size(); ++f) {
    while (part + 1 < options.parts &&
           done >= static_cast<std::size_t>(
                       (static_cast<double>(total) * static_cast<double>(part + 1)) /
                       static_cast<double>(options.parts))) {
      ++part;
    }
    auto [b, e] = functions[f];
    std::string& out = parts[part];
    out.append(kHidden);
    renamer.append(out, lines[b].substr(7));
    out.push_back('\n');
    // A function with a try block keeps its fuel in the instance: a local changed after the
    // try's setjmp would be indeterminate after the longjmp of a throw.
    bool fuel_here = fuel_local;
    for (std::size_t j = b + 1; fuel_here && j < e; ++j) {
      if (lines[j].find("wasm_rt_try(") != std::string_view::npos) fuel_here = false;
    }
    std::string rewritten;
    for (std::size_t j = b + 1; j < e; ++j) {
      rewritten.clear();
      if (fuel_here && rewrite_for_fuel_local(lines[j], tick_call, rewritten)) {
        renamer.append(out, rewritten);
      } else {
        renamer.append(out, lines[j]);
      }
      out.push_back('\n');
    }
    out.push_back('\n');
    result.part_bytes[part] += sizes[f];
    done += sizes[f];
  }
  for (unsigned p = 0; p < options.parts; ++p) {
    write_file(dir / (mod + "_part" + std::to_string(p) + ".c"), parts[p], result.files);
  }

  // The data blob and its assembly wrapper.
  std::filesystem::path bin = std::filesystem::absolute(dir / (mod + "_data.bin"));
  write_file(bin, std::string_view(reinterpret_cast<const char*>(blob.data()), blob.size()),
             result.files);
  char hash[17];
  std::snprintf(hash, sizeof hash, "%016llx", static_cast<unsigned long long>(fnv1a64(blob)));
  std::string s = "/* Generated by sandbox-wasmc: the data segments of " + mod + ". */\n";
  s += "  .section .rodata\n  .balign 16\n  .globl " + blob_symbol + "\n  .hidden " + blob_symbol +
       "\n  .type " + blob_symbol + ", @object\n";
  s += "  .set " + mod + "_data_fnv_" + hash + ", " + std::to_string(blob.size()) + "\n";
  s += blob_symbol + ":\n  .incbin " + asm_string(bin.string()) + "\n  .byte 0\n";
  s += "  .size " + blob_symbol + ", " + std::to_string(blob.size() + 1) + "\n";
  s += "  .section .note.GNU-stack,\"\",@progbits\n";
  write_file(dir / (mod + "_data.S"), s, result.files);
  return result;
}

}  // namespace sandbox::wasmc
