// Upgrading the Lua engine from 5.4.4 to 5.4.9, as a user of sandboxd meets it
// (server/engine_upgrade_fixture.h): a code context stored under the identity of the Lua 5.4.4
// engine this tree shipped before, then the same database served by the engine as built.
#include <string>

#include <gtest/gtest.h>

#include "lua_engine.h"
#include "server/engine_upgrade_fixture.h"

namespace sandbox::test {
namespace {

// The engine of Debian's lua5.4 5.4.4-3+deb12u1, as sandboxd built at 72606d7 reported it.
constexpr const char* kLua544Name = "Lua 5.4.4 / sandbox-workers";
constexpr const char* kLua544Build =
    "ac8039f7fcfccf57ca86c857437ff4090600cd83a4519f591aacb0e4c905fae5";
constexpr const char* kEngineName = "Lua 5.4.9 / sandbox-workers";

class LuaUpgrade : public EngineUpgradeTest {
 protected:
  LuaUpgrade()
      : EngineUpgradeTest("lua", "LUA", engines::make_lua_engine,
                          {.engine_name = kLua544Name, .build = kLua544Build}) {}
};

TEST_F(LuaUpgrade, AContextOfTheLua544BuildBootsFreshAndKeepsItsFilesEnvAndCount) {
  store_under_previous_build(
      "greeting = 'hi'; function shout(s) return s:upper() end\n"
      "local f = io.open('kept.txt', 'w'); f:write('kept'); f:close()\n"
      "return shout(greeting)",
      "\"HI\"");
  reopen_as_built(kEngineName);
  expect_fresh_interpreter("return shout(greeting)", kEngineName, "LuaError",
                           "input:1: attempt to call a nil value (global 'shout')");

  // The files and the environment variables are the sandbox's and stay.
  EXPECT_EQ(text("local f = io.open('kept.txt'); local s = f:read('a'); f:close()\n"
                 "return tostring(greeting) .. ' ' .. s .. ' ' .. os.getenv('STAGE')"),
            "\"nil kept set before\"");
  expect_durable_again("greeting = 'hello again'; return #greeting", "11", "return greeting",
                       "\"hello again\"");
}

}  // namespace
}  // namespace sandbox::test
