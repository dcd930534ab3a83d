// Upgrading the Lua engine from 5.4.4 to 5.4.9, as a user of sandboxd meets it
// (server/engine_upgrade_fixture.h): a code context stored under the identity of the Lua 5.4.4
// engine this tree shipped before, then the same database served by the engine as built.
#include <string>

#include <boost/json/serialize.hpp>
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
  serve(/*old=*/true);
  EXPECT_EQ(text("greeting = 'hi'; function shout(s) return s:upper() end\n"
                 "local f = io.open('kept.txt', 'w'); f:write('kept'); f:close()\n"
                 "return shout(greeting)"),
            "\"HI\"");
  EXPECT_EQ(server_->post("/sandboxes/up/env", {{"envVars", {{"STAGE", "set before"}}}}).status,
            200);
  EXPECT_EQ(stored_build(context_info()), kLua544Build);

  serve(/*old=*/false);  // the upgraded server, on the database the first one wrote
  EXPECT_EQ(languages_engine(), kEngineName);
  const std::string new_build = this->new_build();
  ASSERT_NE(new_build, kLua544Build);
  EXPECT_EQ(stored_build(context_info()), kLua544Build);  // discarded only when used

  // The next call succeeds as a call; the globals are gone, as in a new context.
  const auto first = execute("return shout(greeting)");
  EXPECT_EQ(first.at("engine").as_string(), kEngineName);
  ASSERT_TRUE(first.contains("error")) << boost::json::serialize(first);
  EXPECT_EQ(first.at("error").at("name").as_string(), "LuaError");
  EXPECT_EQ(first.at("error").at("message").as_string(),
            "input:1: attempt to call a nil value (global 'shout')");
  EXPECT_EQ(first.at("context").at("id").as_string(), context_id_);  // the same context
  EXPECT_EQ(first.at("executionCount").as_int64(), 2);               // its count goes on

  // The files and the environment variables are the sandbox's and stay.
  EXPECT_EQ(text("local f = io.open('kept.txt'); local s = f:read('a'); f:close()\n"
                 "return tostring(greeting) .. ' ' .. s .. ' ' .. os.getenv('STAGE')"),
            "\"nil kept set before\"");
  const auto after = context_info();
  EXPECT_EQ(stored_build(after), new_build);  // the new build's record replaced the old one
  EXPECT_EQ(after.at("engine").as_string(), kLua544Name);

  // From here on the context is durable again under the new build.
  EXPECT_EQ(text("greeting = 'hello again'; return #greeting"), "11");
  serve(/*old=*/false);
  EXPECT_EQ(text("return greeting"), "\"hello again\"");
  EXPECT_EQ(context_info().at("executions").as_int64(), 5);
}

}  // namespace
}  // namespace sandbox::test
