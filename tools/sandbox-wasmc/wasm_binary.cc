#include "wasm_binary.h"

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <string_view>

namespace sandbox::wasmc {
namespace {

class Reader {
 public:
  explicit Reader(std::span<const std::uint8_t> bytes, std::size_t pos = 0, std::size_t end = 0)
      : bytes_(bytes), pos_(pos), end_(end ? end : bytes.size()) {}

  std::size_t pos() const { return pos_; }
  bool done() const { return pos_ >= end_; }

  [[noreturn]] void fail(const std::string& what) const {
    throw WasmFormatError("malformed wasm at byte " + std::to_string(pos_) + ": " + what);
  }

  std::uint8_t byte() {
    if (pos_ >= end_) fail("unexpected end");
    return bytes_[pos_++];
  }

  std::uint64_t uleb(unsigned max_bits = 32) {
    std::uint64_t result = 0;
    unsigned shift = 0;
    while (true) {
      if (shift >= max_bits) fail("LEB128 too long");
      std::uint8_t b = byte();
      result |= static_cast<std::uint64_t>(b & 0x7f) << shift;
      shift += 7;
      if ((b & 0x80) == 0) break;
    }
    if (max_bits < 64 && (result >> max_bits) != 0) fail("LEB128 out of range");
    return result;
  }
  std::uint32_t u32() { return static_cast<std::uint32_t>(uleb(32)); }

  void sleb() {
    for (int i = 0; i < 10; ++i) {
      if ((byte() & 0x80) == 0) return;
    }
    fail("signed LEB128 too long");
  }

  void skip(std::size_t n) {
    if (n > end_ - pos_) fail("unexpected end");
    pos_ += n;
  }

  std::string name() {
    std::uint32_t n = u32();
    if (n > end_ - pos_) fail("name runs past its section");
    std::string s(reinterpret_cast<const char*>(bytes_.data() + pos_), n);
    pos_ += n;
    return s;
  }

  ValueType value_type() {
    std::uint8_t b = byte();
    switch (b) {
      case 0x7f:
      case 0x7e:
      case 0x7d:
      case 0x7c:
      case 0x7b:
      case 0x70:
      case 0x6f:
        return static_cast<ValueType>(b);
      default:
        fail("unknown value type 0x" + hex(b));
    }
  }

  Limits limits() {
    Limits l;
    std::uint8_t flags = byte();
    if (flags > 7) fail("unknown limits flags");
    l.shared = (flags & 2) != 0;
    l.is64 = (flags & 4) != 0;
    unsigned bits = l.is64 ? 64 : 32;
    l.initial = uleb(bits);
    if (flags & 1) l.maximum = uleb(bits);
    return l;
  }

  // A constant expression, up to and including its `end`.
  void const_expr() {
    while (true) {
      std::uint8_t op = byte();
      switch (op) {
        case 0x0b:
          return;  // end
        case 0x41:
        case 0x42:
          sleb();
          break;  // i32.const, i64.const
        case 0x43:
          skip(4);
          break;  // f32.const
        case 0x44:
          skip(8);
          break;  // f64.const
        case 0x23:
          u32();
          break;  // global.get
        case 0xd0:
          byte();
          break;  // ref.null t
        case 0xd2:
          u32();
          break;  // ref.func
        case 0x6a:
        case 0x6b:
        case 0x6c:  // i32.add/sub/mul (extended const)
        case 0x7c:
        case 0x7d:
        case 0x7e:  // i64.add/sub/mul
          break;
        default:
          fail("unsupported opcode 0x" + hex(op) + " in a constant expression");
      }
    }
  }

  static std::string hex(std::uint8_t b) {
    static constexpr char kDigits[] = "0123456789abcdef";
    return std::string{kDigits[b >> 4], kDigits[b & 15]};
  }

 private:
  std::span<const std::uint8_t> bytes_;
  std::size_t pos_;
  std::size_t end_;
};

void check_header(Reader& r) {
  static constexpr std::uint8_t kMagic[] = {0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00};
  for (std::uint8_t m : kMagic) {
    if (r.byte() != m) r.fail("not a WebAssembly 1.0 binary (bad magic or version)");
  }
}

void encode_uleb(std::vector<std::uint8_t>& out, std::uint64_t v) {
  do {
    std::uint8_t b = v & 0x7f;
    v >>= 7;
    if (v) b |= 0x80;
    out.push_back(b);
  } while (v);
}

}  // namespace

std::string value_type_name(ValueType type) {
  switch (type) {
    case ValueType::kI32:
      return "i32";
    case ValueType::kI64:
      return "i64";
    case ValueType::kF32:
      return "f32";
    case ValueType::kF64:
      return "f64";
    case ValueType::kV128:
      return "v128";
    case ValueType::kFuncRef:
      return "funcref";
    case ValueType::kExternRef:
      return "externref";
  }
  return "?";
}

std::string external_kind_name(ExternalKind kind) {
  switch (kind) {
    case ExternalKind::kFunction:
      return "function";
    case ExternalKind::kTable:
      return "table";
    case ExternalKind::kMemory:
      return "memory";
    case ExternalKind::kGlobal:
      return "global";
    case ExternalKind::kTag:
      return "tag";
  }
  return "?";
}

const FuncType& WasmModule::function_type(std::uint32_t function_index) const {
  if (function_index >= function_types.size() || function_types[function_index] >= types.size()) {
    throw WasmFormatError("function index " + std::to_string(function_index) + " out of range");
  }
  return types[function_types[function_index]];
}

// The position of a known non-custom section id in the order the binary format requires
// (the tag section, 13, sits between memory and global; datacount, 12, before code), or 0 for
// an unknown id. Each such section may appear at most once, in this order: otherwise a second
// memory section could hide the memory cap_memory_maximum rewrites.
int section_rank(std::uint8_t id) {
  constexpr std::uint8_t kOrder[] = {1, 2, 3, 4, 5, 13, 6, 7, 8, 9, 12, 10, 11};
  for (int i = 0; i < static_cast<int>(std::size(kOrder)); ++i) {
    if (kOrder[i] == id) return i + 1;
  }
  return 0;
}

WasmModule read_wasm_module(std::span<const std::uint8_t> bytes) {
  WasmModule m;
  Reader r(bytes);
  check_header(r);
  int last_rank = 0;
  while (!r.done()) {
    std::size_t section_begin = r.pos();
    std::uint8_t id = r.byte();
    if (id != 0) {
      const int rank = section_rank(id);
      if (rank == 0) r.fail("unknown section id " + std::to_string(id));
      if (rank <= last_rank)
        r.fail("section " + std::to_string(id) + " is repeated or out of order");
      last_rank = rank;
    }
    std::uint32_t size = r.u32();
    std::size_t begin = r.pos();
    if (size > bytes.size() - begin) r.fail("section runs past the end of the file");
    std::size_t end = begin + size;
    Reader s(bytes, begin, end);
    switch (id) {
      case 0: {  // custom
        if (s.name() == "name") m.has_name_section = true;
        break;
      }
      case 1: {  // type
        std::uint32_t n = s.u32();
        for (std::uint32_t i = 0; i < n; ++i) {
          if (s.byte() != 0x60) s.fail("only function types are supported");
          FuncType t;
          std::uint32_t np = s.u32();
          for (std::uint32_t j = 0; j < np; ++j) t.params.push_back(s.value_type());
          std::uint32_t nr = s.u32();
          for (std::uint32_t j = 0; j < nr; ++j) t.results.push_back(s.value_type());
          m.types.push_back(std::move(t));
        }
        break;
      }
      case 2: {  // import
        std::uint32_t n = s.u32();
        for (std::uint32_t i = 0; i < n; ++i) {
          Import im;
          im.module = s.name();
          im.name = s.name();
          std::uint8_t kind = s.byte();
          switch (kind) {
            case 0:
              im.kind = ExternalKind::kFunction;
              im.type_index = s.u32();
              m.function_types.push_back(im.type_index);
              ++m.imported_functions;
              break;
            case 1:
              im.kind = ExternalKind::kTable;
              s.value_type();
              s.limits();
              ++m.tables;
              break;
            case 2:
              im.kind = ExternalKind::kMemory;
              m.memories.push_back(s.limits());
              break;
            case 3: {
              im.kind = ExternalKind::kGlobal;
              Global g;
              g.type = s.value_type();
              g.is_mutable = s.byte() != 0;
              g.imported = true;
              m.globals.push_back(g);
              break;
            }
            case 4:
              im.kind = ExternalKind::kTag;
              s.byte();
              s.u32();
              break;
            default:
              s.fail("unknown import kind");
          }
          m.imports.push_back(std::move(im));
        }
        break;
      }
      case 3: {  // function
        std::uint32_t n = s.u32();
        for (std::uint32_t i = 0; i < n; ++i) m.function_types.push_back(s.u32());
        break;
      }
      case 4: {  // table
        std::uint32_t n = s.u32();
        for (std::uint32_t i = 0; i < n; ++i) {
          s.value_type();
          s.limits();
        }
        m.tables += n;
        break;
      }
      case 5: {  // memory
        m.memory_section_begin = section_begin;
        m.memory_section_end = end;
        std::uint32_t n = s.u32();
        for (std::uint32_t i = 0; i < n; ++i) m.memories.push_back(s.limits());
        break;
      }
      case 6: {  // global
        std::uint32_t n = s.u32();
        for (std::uint32_t i = 0; i < n; ++i) {
          Global g;
          g.type = s.value_type();
          std::uint8_t mut = s.byte();
          if (mut > 1) s.fail("bad global mutability");
          g.is_mutable = mut == 1;
          s.const_expr();
          m.globals.push_back(g);
        }
        break;
      }
      case 7: {  // export
        std::uint32_t n = s.u32();
        for (std::uint32_t i = 0; i < n; ++i) {
          Export e;
          e.name = s.name();
          std::uint8_t kind = s.byte();
          if (kind > 4) s.fail("unknown export kind");
          e.kind = static_cast<ExternalKind>(kind);
          e.index = s.u32();
          m.exports.push_back(std::move(e));
        }
        break;
      }
      case 13:  // tag
        m.has_tag_section = true;
        break;
      default:
        break;  // start, element, code, data, datacount: not needed here
    }
    if (id >= 1 && id <= 7 && s.pos() != end) s.fail("section size mismatch");
    r.skip(size);
  }
  for (std::uint32_t t : m.function_types) {
    if (t >= m.types.size()) r.fail("function type index out of range");
  }
  for (const Export& e : m.exports) {
    if (e.kind == ExternalKind::kFunction && e.index >= m.function_types.size()) {
      r.fail("export '" + e.name + "' refers to a missing function");
    }
    if (e.kind == ExternalKind::kGlobal && e.index >= m.globals.size()) {
      r.fail("export '" + e.name + "' refers to a missing global");
    }
  }
  return m;
}

std::vector<std::uint8_t> cap_memory_maximum(std::span<const std::uint8_t> bytes,
                                             std::uint64_t max_pages) {
  WasmModule m = read_wasm_module(bytes);
  const bool imported = std::any_of(m.imports.begin(), m.imports.end(), [](const Import& i) {
    return i.kind == ExternalKind::kMemory;
  });
  if (m.memory_section_end == 0 || m.memories.size() != 1 || imported) {
    throw WasmFormatError("a memory cap needs exactly one defined memory");
  }
  Limits l = m.memories[0];
  if (l.initial > max_pages) {
    throw WasmFormatError("the memory's initial size (" + std::to_string(l.initial) +
                          " pages) exceeds the cap of " + std::to_string(max_pages) + " pages");
  }
  std::uint64_t max = l.maximum ? std::min(*l.maximum, max_pages) : max_pages;
  std::vector<std::uint8_t> body;
  body.push_back(1);  // one memory
  body.push_back(static_cast<std::uint8_t>(1 | (l.shared ? 2 : 0) | (l.is64 ? 4 : 0)));
  encode_uleb(body, l.initial);
  encode_uleb(body, max);
  std::vector<std::uint8_t> out(
      bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(m.memory_section_begin));
  out.push_back(5);
  encode_uleb(out, body.size());
  out.insert(out.end(), body.begin(), body.end());
  out.insert(out.end(), bytes.begin() + static_cast<std::ptrdiff_t>(m.memory_section_end),
             bytes.end());
  return out;
}

}  // namespace sandbox::wasmc
