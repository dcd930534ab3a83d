#include "try_exits.h"

#include <string>

#include <gtest/gtest.h>

#include "wasm2c_header.h"

namespace sandbox::wasmc {
namespace {

// What wasm2c 1.0.32 --enable-exceptions writes for
//   (block $out (try (do (br_if $out (local.get 0)) (throw $t (i32.const 1))) (catch $t drop)))
constexpr const char* kBrIfOutOfTry = R"(static u32 w2c_f(Z_br_instance_t* instance, u32 w2c_p0) {
  FUNC_PROLOGUE;
  u32 w2c_i0;
  {
    WASM_RT_UNWIND_TARGET *w2c_T1_outer_target = wasm_rt_get_unwind_target();
    WASM_RT_UNWIND_TARGET w2c_T1_unwind_target;
    if (!wasm_rt_try(w2c_T1_unwind_target)) {
      wasm_rt_set_unwind_target(&w2c_T1_unwind_target);
      w2c_i0 = w2c_p0;
      if (w2c_i0) {goto w2c_B0;}
      w2c_i0 = 1u;
      wasm_rt_load_exception(w2c_e0, sizeof(u32), &w2c_i0);
      goto w2c_T1_catch;
      wasm_rt_set_unwind_target(w2c_T1_outer_target);
    } else {
      w2c_T1_catch:;
      wasm_rt_set_unwind_target(w2c_T1_outer_target);
      /* a comment with a brace { */
      if (wasm_rt_exception_tag() == w2c_e0) {
        wasm_rt_memcpy(&w2c_i0, wasm_rt_exception(), sizeof(u32));
      } else {
        wasm_rt_throw();
      }
    }
  }
  w2c_B0:;
  w2c_i0 = 7u;
  FUNC_EPILOGUE;
  return w2c_i0;
}
)";

TEST(TryExits, BranchOutOfATryRestoresTheOuterTarget) {
  TryExitRepair r = repair_try_exits(kBrIfOutOfTry);
  EXPECT_EQ(r.try_blocks, 1u);
  EXPECT_EQ(r.repaired_branches, 1u);
  EXPECT_NE(r.source.find("if (w2c_i0) {{ wasm_rt_set_unwind_target(w2c_T1_outer_target); goto "
                          "w2c_B0; }}"),
            std::string::npos)
      << r.source;
  // The jump to the try's own catch is left alone: the catch code restores the target.
  EXPECT_NE(r.source.find("      goto w2c_T1_catch;\n"), std::string::npos);
  // Nothing else changed.
  std::string expected = kBrIfOutOfTry;
  expected.replace(expected.find("goto w2c_B0;"), 12,
                   "{ wasm_rt_set_unwind_target(w2c_T1_outer_target); goto w2c_B0; }");
  EXPECT_EQ(r.source, expected);
}

// Nested tries: a br_table leaving both restores the outer try's saved target; a branch that
// leaves only the inner try restores the inner one's (which is the outer try's buffer); a
// branch inside its own try (a loop) is untouched.
constexpr const char* kNested = R"(static void w2c_g(Z_t_instance_t* instance, u32 w2c_p0) {
  u32 w2c_i0;
  {
    WASM_RT_UNWIND_TARGET *w2c_T2_outer_target = wasm_rt_get_unwind_target();
    WASM_RT_UNWIND_TARGET w2c_T2_unwind_target;
    if (!wasm_rt_try(w2c_T2_unwind_target)) {
      wasm_rt_set_unwind_target(&w2c_T2_unwind_target);
      {
        WASM_RT_UNWIND_TARGET *w2c_T3_outer_target = wasm_rt_get_unwind_target();
        WASM_RT_UNWIND_TARGET w2c_T3_unwind_target;
        if (!wasm_rt_try(w2c_T3_unwind_target)) {
          wasm_rt_set_unwind_target(&w2c_T3_unwind_target);
          w2c_L4: 
          w2c_i0 = w2c_p0;
          if (w2c_i0) {goto w2c_L4;}
          switch (w2c_i0) {
            case 0: goto w2c_B0;
            case 1: goto w2c_B5;
            default: goto w2c_B0;
          }
          wasm_rt_set_unwind_target(w2c_T3_outer_target);
        } else {
          wasm_rt_set_unwind_target(w2c_T3_outer_target);
        }
      }
      w2c_B5:;
      wasm_rt_set_unwind_target(w2c_T2_outer_target);
    } else {
      wasm_rt_set_unwind_target(w2c_T2_outer_target);
    }
  }
  w2c_B0:;
}
)";

TEST(TryExits, NestedTriesRestoreTheOutermostTargetLeft) {
  TryExitRepair r = repair_try_exits(kNested);
  EXPECT_EQ(r.try_blocks, 2u);
  EXPECT_EQ(r.repaired_branches, 3u);
  EXPECT_NE(r.source.find("case 0: { wasm_rt_set_unwind_target(w2c_T2_outer_target); goto "
                          "w2c_B0; }"),
            std::string::npos)
      << r.source;
  EXPECT_NE(r.source.find("default: { wasm_rt_set_unwind_target(w2c_T2_outer_target); goto "
                          "w2c_B0; }"),
            std::string::npos);
  EXPECT_NE(r.source.find("case 1: { wasm_rt_set_unwind_target(w2c_T3_outer_target); goto "
                          "w2c_B5; }"),
            std::string::npos);
  EXPECT_NE(r.source.find("if (w2c_i0) {goto w2c_L4;}"), std::string::npos);
}

TEST(TryExits, CodeWithoutTryBlocksIsUnchanged) {
  const std::string source = "static void w2c_h(void) {\n  goto w2c_B0;\n  w2c_B0:;\n}\n";
  TryExitRepair r = repair_try_exits(source);
  EXPECT_EQ(r.try_blocks, 0u);
  EXPECT_EQ(r.repaired_branches, 0u);
  EXPECT_EQ(r.source, source);
}

TEST(TryExits, AnUnclosedTryIsAnError) {
  EXPECT_THROW(repair_try_exits("if (!wasm_rt_try(w2c_T1_unwind_target)) {\n  goto w2c_B0;\n"),
               Wasm2cOutputError);
  EXPECT_THROW(repair_try_exits("if (!wasm_rt_try(something_else)) {}\n"), Wasm2cOutputError);
}

}  // namespace
}  // namespace sandbox::wasmc
