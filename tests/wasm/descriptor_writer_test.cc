#include "descriptor_writer.h"

#include <gtest/gtest.h>

namespace sandbox::wasmc {
namespace {

WasmModule with_import(ExternalKind kind) {
  WasmModule m;
  Import im;
  im.module = "env";
  im.name = "thing";
  im.kind = kind;
  m.imports.push_back(im);
  return m;
}

TEST(DescriptorWriter, ImportedMemoriesTablesGlobalsAreBuildErrors) {
  for (ExternalKind kind :
       {ExternalKind::kMemory, ExternalKind::kTable, ExternalKind::kGlobal, ExternalKind::kTag}) {
    try {
      check_supported(with_import(kind));
      ADD_FAILURE() << external_kind_name(kind) << " import accepted";
    } catch (const PlanError& e) {
      EXPECT_NE(
          std::string(e.what()).find("imports a " + external_kind_name(kind) + " ('env' 'thing')"),
          std::string::npos)
          << e.what();
    }
  }
  EXPECT_NO_THROW(check_supported(with_import(ExternalKind::kFunction)));
}

TEST(DescriptorWriter, RejectsSeveralOr64BitMemories) {
  WasmModule two;
  two.memories.resize(2);
  EXPECT_THROW(check_supported(two), PlanError);
  WasmModule wide;
  wide.memories.resize(1);
  wide.memories[0].is64 = true;
  EXPECT_THROW(check_supported(wide), PlanError);
}

TEST(DescriptorWriter, EscapesCStrings) {
  EXPECT_EQ(c_string_literal("plain-name_1"), "\"plain-name_1\"");
  EXPECT_EQ(c_string_literal("a\"b\\c?"), "\"a\\042b\\134c\\077\"");
  EXPECT_EQ(c_string_literal("\xc3\xa9\n"), "\"\\303\\251\\012\"");
}

}  // namespace
}  // namespace sandbox::wasmc
