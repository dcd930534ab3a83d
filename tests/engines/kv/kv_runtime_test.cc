// The kv engine behind the runtime server, over loopback HTTP: hostile programs get their
// limit or guest errors, and the server stays up and keeps answering through all of them.
#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <sandbox/runtime.h>

#include "client/http_client.h"
#include "kv_engine.h"
#include "support/isolation_under_test.h"
#include "support/test_server.h"

namespace sandbox {
namespace {

class KvRuntime : public ::testing::Test {
 protected:
  KvRuntime()
      : runtime_(define_interpreter_runtime(test::under_test(engines::make_kv_engine()))),
        server_(*runtime_),
        client_(server_.url()) {}

  boost::json::object execute(const std::string& code) {
    boost::json::object body{{"code", code}};
    const HttpResponse r = client_.post_json("/execute", boost::json::serialize(body));
    EXPECT_EQ(r.status, 200) << r.body;
    return boost::json::parse(r.body).as_object();
  }
  static std::string error_name(const boost::json::object& o) {
    const auto* e = o.if_contains("error");
    return e ? std::string(e->at("name").as_string()) : "";
  }
  static std::string error_message(const boost::json::object& o) {
    const auto* e = o.if_contains("error");
    return e ? std::string(e->at("message").as_string()) : "";
  }

  std::unique_ptr<InterpreterRuntime> runtime_;
  test::TestServer server_;
  HttpClient client_;
};

TEST_F(KvRuntime, SurvivesHostilePrograms) {
  std::string flood;
  for (int i = 0; i < 50; ++i) flood += "print " + std::string(1000, 'f') + "\n";

  const auto spin = execute("spin");
  EXPECT_EQ(error_name(spin), "ExecutionLimitError");
  EXPECT_EQ(error_message(spin), "Execution fuel exhausted");

  const auto out = execute(flood);
  EXPECT_EQ(error_name(out), "ExecutionLimitError");
  EXPECT_EQ(error_message(out), "Output limit exceeded");

  EXPECT_EQ(error_name(execute("alloc 500")), "MemoryError");
  EXPECT_EQ(error_name(execute("read ../../etc/passwd")), "OSError");
  EXPECT_EQ(error_name(execute("read /etc/passwd")), "OSError");
  EXPECT_EQ(error_name(execute("open /dev/null")), "");
  EXPECT_EQ(error_name(execute("fail on purpose")), "KvError");

  // Still up, still correct.
  const auto ok = execute("set a 1\nincr a\nprint fine");
  EXPECT_EQ(error_name(ok), "");
  EXPECT_EQ(ok.at("results").as_array().at(0).at("text"), "2");
  EXPECT_EQ(ok.at("logs").at("stdout").as_array().at(0), "fine");
  EXPECT_EQ(ok.at("language"), "kv");
  const HttpResponse probe = client_.request("GET", "/interpreter");
  EXPECT_EQ(probe.status, 200);
  EXPECT_EQ(boost::json::parse(probe.body).at("contexts"), true);
}

}  // namespace
}  // namespace sandbox
