// Python's sqlite3 on a database file in /workspace through the Sandbox actor: the file and the
// context that opened it persist across executes and across a restart of the whole service
// (storage reopened, the context restored from its snapshot), as docs/languages.md promises.
#include "interpreter/over_store.h"
#include "python_engine.h"
#include "sandbox_test_fixture.h"

namespace sandbox::test {
namespace {

class PythonSqliteSandbox : public SandboxFixture {
 protected:
  void SetUp() override {
    start({}, {}, [this](BindingSet& bindings) {
      bindings.add(make_local_binding(
          "PYTHON",
          define_interpreter_runtime(
              engines::make_python_engine(), storage_->interpreters(),
              RuntimeOptions{.clock = &clock_, .idle_ttl_ms = 0, .background_expiry = false})));
    });
  }

  // The text result of `code` in the context (the first execute creates it).
  std::string execute(const std::string& code) {
    boost::json::object body{{"code", code}};
    if (context_id_.empty()) {
      body["binding"] = "PYTHON";
    } else {
      body["contextId"] = context_id_;
    }
    const auto response = post_ok("s1", "/execute", body);
    if (const auto* error = response.if_contains("error")) {
      ADD_FAILURE() << code << ": " << boost::json::serialize(*error);
    }
    if (context_id_.empty()) context_id_ = response.at("context").at("id").as_string();
    return result_text(response);
  }

  std::string context_id_;
};

// Each execute closes its connection: a guest holding a file open cannot be snapshotted
// (docs/contexts.md#cl8), and the context would resume from an older snapshot after a restart.
TEST_F(PythonSqliteSandbox, ADatabaseInTheWorkspaceSurvivesExecutesAndARestart) {
  EXPECT_EQ(execute("import sqlite3\nfrom contextlib import closing\n"
                    "def sql(query, *args):\n"
                    "    with closing(sqlite3.connect('/workspace/notes.db')) as con, con:\n"
                    "        return con.execute(query, args).fetchall()\n"
                    "sql('create table notes (id integer primary key, body text)')\n"
                    "sql('insert into notes (body) values (?)', 'first')\n"
                    "len(sql('select * from notes'))"),
            "1");
  EXPECT_EQ(execute("sql('insert into notes (body) values (?)', 'second')\n"
                    "sql('select count(*) from notes')[0][0]"),
            "2");
  const auto listing = post_ok("s1", "/files", {{"op", "list"}, {"path", "/workspace"}});
  EXPECT_NE(boost::json::serialize(listing).find("notes.db"), std::string::npos)
      << boost::json::serialize(listing);

  restart();
  EXPECT_EQ(execute("sql('insert into notes (body) values (?)', 'after the restart')\n"
                    "repr([b for (b,) in sql('select body from notes order by id')])"),
            "\"['first', 'second', 'after the restart']\"");
}

}  // namespace
}  // namespace sandbox::test
