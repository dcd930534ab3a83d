// A data-driven corpus of programs with expected outcomes, shared by the language engines'
// tests (tests/engines/{lua,javascript,python}/corpus.json).
//
// The corpus is a JSON array of cases:
//   {"name": "print",                      unique, [A-Za-z0-9_]
//    "code": "print('hi')",
//    "modes": ["run", "session"],          optional, default both: engine.run() (stateless) and
//                                          a booted session with a workspace
//    "env": {"A": "1"},                    optional
//    "dirs": ["/workspace/sub"],           optional: created in the workspace first (session)
//    "files": {"/workspace/a.txt": "x"},   optional: written to the workspace first (session)
//    "setup": ["x = 1"],                   optional: run first in the same session, no error
//    "results": [{"text": "2"} | {"json": ...}],   optional: exact
//    "result_text_matches": "regex",       optional: the single text result matches
//    "stdout": ["hi"], "stderr": [],       optional: exact lines
//    "stdout_contains": "hi",              optional
//    "error": {"name": "...", "name_matches": "regex", "message": "...", "message_matches": "regex",
//              "traceback": [...], "traceback_contains": "..."},   optional; absent = no error
//    "expect_files": {"/workspace/out.txt": "y"},   optional (session)
//    "then": {"code": "...", "results": [...]},     optional (session): the session survives
//    "invalidates": true}                  optional (session): the session must be invalid after
//
// Every case is a separate GoogleTest test per mode (see SANDBOX_LANGUAGE_CORPUS below).
#pragma once

#include <gtest/gtest.h>
#include <sandbox/clock.h>
#include <sandbox/engine.h>
#include <sandbox/workspace.h>

#include <boost/json.hpp>
#include <fstream>
#include <iterator>
#include <memory>
#include <ostream>
#include <regex>
#include <stdexcept>
#include <string>
#include <vector>

namespace sandbox::testing_corpus {

struct CorpusCase {
  std::string name;
  std::string mode;  // "run" or "session"
  boost::json::object spec;
};

inline void PrintTo(const CorpusCase& c, std::ostream* os) { *os << c.name << "/" << c.mode; }

inline std::vector<CorpusCase> load_corpus(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read the corpus " + path);
  const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  std::vector<CorpusCase> cases;
  const boost::json::value corpus = boost::json::parse(text);
  for (const auto& v : corpus.as_array()) {
    const auto& spec = v.as_object();
    std::vector<std::string> modes = {"run", "session"};
    if (const auto* m = spec.if_contains("modes")) {
      modes.clear();
      for (const auto& x : m->as_array()) modes.emplace_back(x.as_string());
    }
    for (const auto& mode : modes) {
      cases.push_back({std::string(spec.at("name").as_string()), mode, spec});
    }
  }
  return cases;
}

inline std::string test_name(const ::testing::TestParamInfo<CorpusCase>& info) {
  return info.param.name + "_" + info.param.mode;
}

inline std::string str(const boost::json::value& v) { return std::string(v.as_string()); }

inline ExecutionRequest request_of(const boost::json::object& spec) {
  ExecutionRequest r;
  r.code = str(spec.at("code"));
  if (const auto* env = spec.if_contains("env")) {
    for (const auto& [k, v] : env->as_object()) r.env_vars[std::string(k)] = str(v);
  }
  return r;
}

inline boost::json::array results_json(const std::vector<ResultEntry>& results) {
  boost::json::array a;
  for (const auto& r : results) {
    boost::json::object o;
    if (r.text) o["text"] = *r.text;
    if (r.json) o["json"] = *r.json;
    a.push_back(std::move(o));
  }
  return a;
}

inline boost::json::array lines_json(const std::vector<std::string>& lines) {
  boost::json::array a;
  for (const auto& l : lines) a.emplace_back(l);
  return a;
}

inline std::string joined(const std::vector<std::string>& lines) {
  std::string s;
  for (const auto& l : lines) s += l + "\n";
  return s;
}

// Checks an outcome against the expectations in `spec`.
inline void check_outcome(const boost::json::object& spec, const EngineOutcome& o) {
  const std::string error_text =
      o.error ? o.error->name + ": " + o.error->message + "\n" + joined(o.error->traceback) : "";
  if (const auto* e = spec.if_contains("error")) {
    const auto& want = e->as_object();
    ASSERT_TRUE(o.error.has_value()) << "expected an error; results "
                                     << boost::json::serialize(results_json(o.results));
    if (const auto* n = want.if_contains("name")) {
      EXPECT_EQ(o.error->name, str(*n)) << error_text;
    }
    if (const auto* n = want.if_contains("name_matches")) {
      EXPECT_TRUE(std::regex_search(o.error->name, std::regex(str(*n)))) << error_text;
    }
    if (const auto* m = want.if_contains("message")) {
      EXPECT_EQ(o.error->message, str(*m));
    }
    if (const auto* m = want.if_contains("message_matches")) {
      EXPECT_TRUE(std::regex_search(o.error->message, std::regex(str(*m)))) << error_text;
    }
    if (const auto* t = want.if_contains("traceback")) {
      EXPECT_EQ(boost::json::value(lines_json(o.error->traceback)), *t) << error_text;
    }
    if (const auto* t = want.if_contains("traceback_contains")) {
      EXPECT_NE(joined(o.error->traceback).find(str(*t)), std::string::npos) << error_text;
    }
  } else {
    EXPECT_FALSE(o.error.has_value()) << error_text;
  }
  if (const auto* r = spec.if_contains("results")) {
    EXPECT_EQ(boost::json::value(results_json(o.results)), *r) << error_text;
  }
  if (const auto* m = spec.if_contains("result_text_matches")) {
    ASSERT_EQ(o.results.size(), 1u);
    ASSERT_TRUE(o.results[0].text.has_value());
    EXPECT_TRUE(std::regex_search(*o.results[0].text, std::regex(str(*m)))) << *o.results[0].text;
  }
  if (const auto* s = spec.if_contains("stdout")) {
    EXPECT_EQ(boost::json::value(lines_json(o.logs.stdout_lines)), *s);
  }
  if (const auto* s = spec.if_contains("stderr")) {
    EXPECT_EQ(boost::json::value(lines_json(o.logs.stderr_lines)), *s);
  }
  if (const auto* s = spec.if_contains("stdout_contains")) {
    EXPECT_NE(joined(o.logs.stdout_lines).find(str(*s)), std::string::npos);
  }
}

inline void run_case(const Engine& engine, const CorpusCase& c) {
  const auto& spec = c.spec;
  if (c.mode == "run") {
    ASSERT_FALSE(spec.contains("setup")) << "setup needs a session";
    // The kit reports a throwing run() (a limit or a trap) like this; so does the corpus.
    EngineOutcome o;
    try {
      o = engine.run(request_of(spec));
    } catch (const std::exception& e) {
      o = engine_error_outcome(e);
    }
    check_outcome(spec, o);
    return;
  }
  ASSERT_TRUE(engine.sessions.has_value());
  ManualClock clock;
  Workspace workspace(clock);
  if (const auto* dirs = spec.if_contains("dirs")) {
    for (const auto& dir : dirs->as_array()) workspace.mkdir(str(dir), true);
  }
  if (const auto* files = spec.if_contains("files")) {
    for (const auto& [path, content] : files->as_object()) workspace.write(path, str(content));
  }
  auto session = engine.sessions->boot(SessionOptions{.workspace = &workspace});
  if (const auto* setup = spec.if_contains("setup")) {
    for (const auto& code : setup->as_array()) {
      const SessionOutcome o = session->execute(ExecutionRequest{str(code), {}});
      ASSERT_FALSE(o.error) << "setup failed: " << o.error->name << ": " << o.error->message;
    }
  }
  const SessionOutcome o = session->execute(request_of(spec));
  check_outcome(spec, o);
  if (const auto* files = spec.if_contains("expect_files")) {
    for (const auto& [path, content] : files->as_object()) {
      EXPECT_EQ(workspace.read(path).content, str(content)) << path;
    }
  }
  const bool invalidates = spec.contains("invalidates") && spec.at("invalidates").as_bool();
  EXPECT_EQ(session->invalid(), invalidates);
  if (const auto* then = spec.if_contains("then")) {
    ASSERT_FALSE(session->invalid());
    const auto& next = then->as_object();
    check_outcome(next, session->execute(request_of(next)));
  }
}

}  // namespace sandbox::testing_corpus

// Declares the parameterized corpus test `Suite` over `engine_expr`, reading `corpus_path`.
#define SANDBOX_LANGUAGE_CORPUS(Suite, engine_expr, corpus_path)                                 \
  class Suite : public ::testing::TestWithParam<::sandbox::testing_corpus::CorpusCase> {};        \
  TEST_P(Suite, Program) {                                                                        \
    static const ::sandbox::Engine engine = (engine_expr);                                        \
    ::sandbox::testing_corpus::run_case(engine, GetParam());                                     \
  }                                                                                               \
  INSTANTIATE_TEST_SUITE_P(Corpus, Suite,                                                         \
                           ::testing::ValuesIn(::sandbox::testing_corpus::load_corpus(corpus_path)), \
                           ::sandbox::testing_corpus::test_name)
