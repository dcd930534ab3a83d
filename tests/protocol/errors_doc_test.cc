#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include <sandbox/errors.h>

namespace sandbox {
namespace {

TEST(ErrorsDoc, TheCommittedDocsErrorsMdIsTheGeneratedOne) {
  const std::string path = std::string(SANDBOX_SOURCE_DIR) + "/docs/errors.md";
  std::ifstream in(path, std::ios::binary);
  ASSERT_TRUE(in) << path << " is missing; generate it with: "
                  << "cmake --build build/default --target gen_errors_doc && "
                  << "build/default/tools/gen_errors_doc/gen_errors_doc > docs/errors.md";
  std::stringstream committed;
  committed << in.rdbuf();
  EXPECT_EQ(committed.str(), errors_markdown())
      << path << " differs from the table in include/sandbox/errors.h; regenerate it with: "
      << "cmake --build build/default --target gen_errors_doc && "
      << "build/default/tools/gen_errors_doc/gen_errors_doc > docs/errors.md";
}

TEST(ErrorsDoc, EveryKindHasARowAndEveryCodeAWireCodeRow) {
  const std::string doc = errors_markdown();
  for (const ErrorKindInfo& k : error_kinds()) {
    EXPECT_NE(doc.find("| `" + std::string(k.name) + "` |"), std::string::npos) << k.name;
  }
  for (const char* code :
       {"FILE_NOT_FOUND", "VALIDATION_FAILED", "INTERNAL_ERROR", "NOT_SUPPORTED"}) {
    EXPECT_NE(doc.find("| `" + std::string(code) + "` | "), std::string::npos) << code;
  }
}

}  // namespace
}  // namespace sandbox
