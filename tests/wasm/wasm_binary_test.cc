#include "wasm_binary.h"

#include <gtest/gtest.h>

namespace sandbox::wasmc {
namespace {

// (module (import "env" "f" (func (param i32 i32) (result i32))) (memory 2) (global (mut i32)
//  (i32.const 5)) (func (param i32 i32) (result i32) local.get 0 local.get 1 i32.add)
//  (export "add" (func 1)) (export "memory" (memory 0)))
const std::vector<std::uint8_t> kModule = {
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01, 0x07, 0x01, 0x60, 0x02, 0x7f, 0x7f,
    0x01, 0x7f, 0x02, 0x09, 0x01, 0x03, 'e',  'n',  'v',  0x01, 'f',  0x00, 0x00, 0x03, 0x02,
    0x01, 0x00, 0x05, 0x03, 0x01, 0x00, 0x02, 0x06, 0x06, 0x01, 0x7f, 0x01, 0x41, 0x05, 0x0b,
    0x07, 0x10, 0x02, 0x03, 'a',  'd',  'd',  0x00, 0x01, 0x06, 'm',  'e',  'm',  'o',  'r',
    'y',  0x02, 0x00, 0x0a, 0x09, 0x01, 0x07, 0x00, 0x20, 0x00, 0x20, 0x01, 0x6a, 0x0b,
};

TEST(WasmBinary, ReadsDeclarations) {
  WasmModule m = read_wasm_module(kModule);
  ASSERT_EQ(m.types.size(), 1u);
  EXPECT_EQ(m.types[0].params, (std::vector<ValueType>{ValueType::kI32, ValueType::kI32}));
  ASSERT_EQ(m.imports.size(), 1u);
  EXPECT_EQ(m.imports[0].module, "env");
  EXPECT_EQ(m.imports[0].name, "f");
  EXPECT_EQ(m.imported_functions, 1u);
  EXPECT_EQ(m.function_types.size(), 2u);
  ASSERT_EQ(m.memories.size(), 1u);
  EXPECT_EQ(m.memories[0].initial, 2u);
  EXPECT_FALSE(m.memories[0].maximum);
  ASSERT_EQ(m.globals.size(), 1u);
  EXPECT_TRUE(m.globals[0].is_mutable);
  ASSERT_EQ(m.exports.size(), 2u);
  EXPECT_EQ(m.exports[0].name, "add");
  EXPECT_EQ(m.function_type(m.exports[0].index).results, (std::vector<ValueType>{ValueType::kI32}));
  EXPECT_EQ(m.exports[1].kind, ExternalKind::kMemory);
}

TEST(WasmBinary, NotesATagSection) {
  EXPECT_FALSE(read_wasm_module(kModule).has_tag_section);
  // (module (tag (param i32))): exception handling.
  const std::vector<std::uint8_t> with_tag = {
      0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01, 0x05,
      0x01, 0x60, 0x01, 0x7f, 0x00, 0x0d, 0x03, 0x01, 0x00, 0x00,
  };
  EXPECT_TRUE(read_wasm_module(with_tag).has_tag_section);
}

TEST(WasmBinary, CapsTheMemoryMaximum) {
  std::vector<std::uint8_t> capped = cap_memory_maximum(kModule, 300);
  WasmModule m = read_wasm_module(capped);
  ASSERT_EQ(m.memories.size(), 1u);
  EXPECT_EQ(m.memories[0].initial, 2u);
  EXPECT_EQ(m.memories[0].maximum, 300u);
  // A lower existing maximum is kept.
  WasmModule again = read_wasm_module(cap_memory_maximum(capped, 1000));
  EXPECT_EQ(again.memories[0].maximum, 300u);
  EXPECT_EQ(again.exports.size(), 2u);  // the rest of the module is intact
  EXPECT_THROW(cap_memory_maximum(kModule, 1), WasmFormatError);
}

TEST(WasmBinary, RejectsMalformedInput) {
  EXPECT_THROW(read_wasm_module(std::vector<std::uint8_t>{}), WasmFormatError);
  std::vector<std::uint8_t> bad_magic = kModule;
  bad_magic[1] = 'x';
  EXPECT_THROW(read_wasm_module(bad_magic), WasmFormatError);
  for (std::size_t cut : std::vector<std::size_t>{9, 20, 40, kModule.size() - 1}) {
    std::vector<std::uint8_t> truncated(kModule.begin(), kModule.begin() + cut);
    EXPECT_THROW(read_wasm_module(truncated), WasmFormatError) << cut;
  }
  std::vector<std::uint8_t> long_leb = {0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
                                        0x01, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01};
  EXPECT_THROW(read_wasm_module(long_leb), WasmFormatError);
}

// Found by fuzz_wasm_binary (tests/fuzz/corpus/fuzz_wasm_binary/crash-duplicate-memory-section):
// a second, empty memory section was accepted, and cap_memory_maximum rewrote that one, leaving
// the real memory uncapped.
TEST(WasmBinary, DuplicateMemorySectionIsRejectedSoTheCapCannotMissTheMemory) {
  const std::vector<std::uint8_t> twice = {
      0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00,
      0x00, 0x05, 0x04, 0x01, 0x00, 0xd0, 0x05,  // memory section: (memory 720)
      0x05, 0x01, 0x00,                          // another memory section, empty
  };
  EXPECT_THROW(read_wasm_module(twice), WasmFormatError);
  EXPECT_THROW(cap_memory_maximum(twice, 1024), WasmFormatError);
}

TEST(WasmBinary, UnknownOrMisorderedSectionIsRejected) {
  const std::vector<std::uint8_t> header = {0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00};
  std::vector<std::uint8_t> unknown_id = header;
  unknown_id.insert(unknown_id.end(), {0x27, 0x00});
  EXPECT_THROW(read_wasm_module(unknown_id), WasmFormatError);
  std::vector<std::uint8_t> export_before_memory = header;
  export_before_memory.insert(export_before_memory.end(),
                              {0x07, 0x01, 0x00, 0x05, 0x03, 0x01, 0x00, 0x01});
  EXPECT_THROW(read_wasm_module(export_before_memory), WasmFormatError);
  // Custom sections may appear anywhere, any number of times; the tag section sits between the
  // memory and global sections.
  std::vector<std::uint8_t> ordered = header;
  ordered.insert(ordered.end(), {0x00, 0x02, 0x01, 'a', 0x05, 0x03, 0x01, 0x00, 0x01, 0x00, 0x02,
                                 0x01, 'b', 0x0d, 0x01, 0x00, 0x06, 0x01, 0x00});
  EXPECT_EQ(read_wasm_module(ordered).memories.size(), 1u);
}

// An imported memory plus an empty memory section: "exactly one memory", but none defined, so
// the rewritten section would have defined a second memory instead of capping the import.
TEST(WasmBinary, CapOfAnImportedMemoryIsRefused) {
  const std::vector<std::uint8_t> imported = {
      0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x02, 0x0c, 0x01, 0x03, 'e',
      'n',  'v',  0x03, 'm',  'e',  'm',  0x02, 0x00, 0x01, 0x05, 0x01, 0x00,
  };
  ASSERT_EQ(read_wasm_module(imported).memories.size(), 1u);
  EXPECT_THROW(cap_memory_maximum(imported, 1024), WasmFormatError);
}

}  // namespace
}  // namespace sandbox::wasmc
