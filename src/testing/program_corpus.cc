// The program corpus (<sandbox/testing/program_corpus.h>): loading with validation, and the
// checks of one case against an engine's outcome.
#include <algorithm>
#include <array>
#include <fstream>
#include <iterator>
#include <memory>
#include <regex>
#include <set>
#include <string_view>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <sandbox/clock.h>
#include <sandbox/testing/program_corpus.h>
#include <sandbox/workspace.h>

namespace sandbox::testing {
namespace {

// The keys an outcome is checked with (a case, and its "then").
constexpr std::array<std::string_view, 8> kOutcomeKeys = {
    "code",   "env",    "results",         "result_text_matches",
    "stdout", "stderr", "stdout_contains", "error"};
// The keys only a case has.
constexpr std::array<std::string_view, 8> kCaseKeys = {
    "name", "modes", "dirs", "files", "setup", "expect_files", "invalidates", "then"};
constexpr std::array<std::string_view, 6> kErrorKeys = {
    "name", "name_matches", "message", "message_matches", "traceback", "traceback_contains"};

template <std::size_t N>
bool one_of(std::string_view key, const std::array<std::string_view, N>& keys) {
  return std::find(keys.begin(), keys.end(), key) != keys.end();
}

// Validation of one case: every message names the file and the case.
class Validator {
 public:
  Validator(const std::filesystem::path& file, std::string where)
      : file_(file), where_(std::move(where)) {}

  [[noreturn]] void fail(const std::string& what) const {
    throw CorpusError(file_.string() + ": " + where_ + ": " + what);
  }

  const boost::json::string& string(const boost::json::object& o, std::string_view key) const {
    const auto* v = o.if_contains(key);
    if (!v || !v->is_string()) fail("\"" + std::string(key) + "\" must be a string");
    return v->get_string();
  }

  void regex(const boost::json::object& o, std::string_view key) const {
    try {
      std::regex(std::string(string(o, key)));
    } catch (const std::regex_error& e) {
      fail("\"" + std::string(key) + "\" is not a valid regex: " + e.what());
    }
  }

  void strings(const boost::json::object& o, std::string_view key) const {
    const auto* v = o.if_contains(key);
    if (!v || !v->is_array()) fail("\"" + std::string(key) + "\" must be an array of strings");
    for (const auto& x : v->get_array()) {
      if (!x.is_string()) fail("\"" + std::string(key) + "\" must be an array of strings");
    }
  }

  void string_map(const boost::json::object& o, std::string_view key) const {
    const auto* v = o.if_contains(key);
    if (!v || !v->is_object()) fail("\"" + std::string(key) + "\" must be an object of strings");
    for (const auto& [k, x] : v->get_object()) {
      if (!x.is_string()) fail("\"" + std::string(key) + "\" must be an object of strings");
    }
  }

  // The keys of kOutcomeKeys present in `o`.
  void outcome(const boost::json::object& o) const {
    string(o, "code");
    if (o.contains("env")) string_map(o, "env");
    if (o.contains("results") && !o.at("results").is_array()) fail("\"results\" must be an array");
    if (o.contains("result_text_matches")) regex(o, "result_text_matches");
    if (o.contains("stdout")) strings(o, "stdout");
    if (o.contains("stderr")) strings(o, "stderr");
    if (o.contains("stdout_contains")) string(o, "stdout_contains");
    if (const auto* e = o.if_contains("error")) {
      if (!e->is_object()) fail("\"error\" must be an object");
      const auto& error = e->get_object();
      for (const auto& [k, v] : error) {
        if (!one_of(k, kErrorKeys)) fail("unknown key \"error." + std::string(k) + "\"");
      }
      for (const char* key : {"name", "message", "traceback_contains"}) {
        if (error.contains(key)) string(error, key);
      }
      for (const char* key : {"name_matches", "message_matches"}) {
        if (error.contains(key)) regex(error, key);
      }
      if (error.contains("traceback")) strings(error, "traceback");
    }
  }

 private:
  const std::filesystem::path& file_;
  std::string where_;
};

std::vector<std::string> validated_modes(const Validator& check, const boost::json::object& spec) {
  const auto* m = spec.if_contains("modes");
  if (!m) return {"run", "session"};
  check.strings(spec, "modes");
  std::vector<std::string> modes;
  for (const auto& x : m->get_array()) {
    const std::string mode(x.get_string());
    if (mode != "run" && mode != "session") check.fail("a mode is \"run\" or \"session\"");
    if (std::find(modes.begin(), modes.end(), mode) != modes.end()) check.fail("a mode twice");
    modes.push_back(mode);
  }
  if (modes.empty()) check.fail("\"modes\" must not be empty");
  return modes;
}

void validate_case(const Validator& check, const boost::json::object& spec) {
  for (const auto& [k, v] : spec) {
    if (!one_of(k, kOutcomeKeys) && !one_of(k, kCaseKeys)) {
      check.fail("unknown key \"" + std::string(k) + "\"");
    }
  }
  check.outcome(spec);
  if (spec.contains("dirs")) check.strings(spec, "dirs");
  if (spec.contains("files")) check.string_map(spec, "files");
  if (spec.contains("setup")) check.strings(spec, "setup");
  if (spec.contains("expect_files")) check.string_map(spec, "expect_files");
  if (const auto* i = spec.if_contains("invalidates"); i && !i->is_bool()) {
    check.fail("\"invalidates\" must be true or false");
  }
  if (const auto* t = spec.if_contains("then")) {
    if (!t->is_object()) check.fail("\"then\" must be an object");
    for (const auto& [k, v] : t->get_object()) {
      if (!one_of(k, kOutcomeKeys)) check.fail("unknown key \"then." + std::string(k) + "\"");
    }
    check.outcome(t->get_object());
  }
}

std::string str(const boost::json::value& v) { return std::string(v.as_string()); }

ExecutionRequest request_of(const boost::json::object& spec) {
  ExecutionRequest r;
  r.code = str(spec.at("code"));
  if (const auto* env = spec.if_contains("env")) {
    for (const auto& [k, v] : env->as_object()) r.env_vars[std::string(k)] = str(v);
  }
  return r;
}

boost::json::array results_json(const std::vector<ResultEntry>& results) {
  boost::json::array a;
  for (const auto& r : results) {
    boost::json::object o;
    if (r.text) o["text"] = *r.text;
    if (r.json) o["json"] = *r.json;
    a.push_back(std::move(o));
  }
  return a;
}

boost::json::array lines_json(const std::vector<std::string>& lines) {
  boost::json::array a;
  for (const auto& l : lines) a.emplace_back(l);
  return a;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string s;
  for (const auto& l : lines) s += l + "\n";
  return s;
}

std::string json(const boost::json::value& v) { return boost::json::serialize(v); }

// Records the failures of one case, each prefixed with where it was found.
class Recorder {
 public:
  explicit Recorder(CheckResult& result) : result_(result) {}

  bool expect(bool ok, const std::string& prefix, const std::string& what) {
    if (!ok) result_.failures.push_back(prefix + what);
    return ok;
  }

 private:
  CheckResult& result_;
};

// Checks an outcome against the expectations of `spec` (a case or its "then").
void check_outcome(Recorder& r, const std::string& at, const boost::json::object& spec,
                   const EngineOutcome& o) {
  const std::string error_text = o.error ? " [error " + o.error->name + ": " + o.error->message +
                                               "\n" + joined(o.error->traceback) + "]"
                                         : "";
  if (const auto* e = spec.if_contains("error")) {
    const auto& want = e->as_object();
    // Tested with `if`, not through expect()'s result: clang-tidy's optional check sees that.
    r.expect(o.error.has_value(), at,
             "expected an error; results " + json(results_json(o.results)));
    if (o.error) {
      if (const auto* n = want.if_contains("name")) {
        r.expect(o.error->name == str(*n), at,
                 "error name '" + o.error->name + "', expected '" + str(*n) + "'" + error_text);
      }
      if (const auto* n = want.if_contains("name_matches")) {
        r.expect(std::regex_search(o.error->name, std::regex(str(*n))), at,
                 "error name does not match /" + str(*n) + "/" + error_text);
      }
      if (const auto* m = want.if_contains("message")) {
        r.expect(o.error->message == str(*m), at,
                 "error message '" + o.error->message + "', expected '" + str(*m) + "'");
      }
      if (const auto* m = want.if_contains("message_matches")) {
        r.expect(std::regex_search(o.error->message, std::regex(str(*m))), at,
                 "error message does not match /" + str(*m) + "/" + error_text);
      }
      if (const auto* t = want.if_contains("traceback")) {
        const boost::json::value got = lines_json(o.error->traceback);
        r.expect(got == *t, at, "traceback " + json(got) + ", expected " + json(*t));
      }
      if (const auto* t = want.if_contains("traceback_contains")) {
        r.expect(joined(o.error->traceback).find(str(*t)) != std::string::npos, at,
                 "traceback lacks '" + str(*t) + "'" + error_text);
      }
    }
  } else {
    r.expect(!o.error.has_value(), at, "unexpected error" + error_text);
  }
  if (const auto* want = spec.if_contains("results")) {
    const boost::json::value got = results_json(o.results);
    r.expect(got == *want, at, "results " + json(got) + ", expected " + json(*want) + error_text);
  }
  if (const auto* m = spec.if_contains("result_text_matches")) {
    if (r.expect(o.results.size() == 1 && o.results[0].text.has_value(), at,
                 "expected a single text result, got " + json(results_json(o.results)))) {
      const std::string text = o.results[0].text.value_or("");  // has a value: tested above
      r.expect(std::regex_search(text, std::regex(str(*m))), at,
               "result '" + text + "' does not match /" + str(*m) + "/");
    }
  }
  if (const auto* want = spec.if_contains("stdout")) {
    const boost::json::value got = lines_json(o.logs.stdout_lines);
    r.expect(got == *want, at, "stdout " + json(got) + ", expected " + json(*want));
  }
  if (const auto* want = spec.if_contains("stderr")) {
    const boost::json::value got = lines_json(o.logs.stderr_lines);
    r.expect(got == *want, at, "stderr " + json(got) + ", expected " + json(*want));
  }
  if (const auto* s = spec.if_contains("stdout_contains")) {
    r.expect(joined(o.logs.stdout_lines).find(str(*s)) != std::string::npos, at,
             "stdout lacks '" + str(*s) + "': " + json(lines_json(o.logs.stdout_lines)));
  }
}

void run_stateless(Recorder& r, const Engine& engine, const boost::json::object& spec) {
  if (!r.expect(!spec.contains("setup"), "", "\"setup\" needs a session (modes: [\"session\"])")) {
    return;
  }
  // The runtime reports a throwing run() (a limit or a trap) like this; so does the corpus.
  EngineOutcome o;
  try {
    o = engine.run(request_of(spec));
  } catch (const std::exception& e) {
    o = engine_error_outcome(e);
  }
  check_outcome(r, "", spec, o);
}

void run_in_session(Recorder& r, const Engine& engine, const boost::json::object& spec) {
  if (!engine.sessions) {
    r.expect(false, "", "a session case, and the engine has no sessions");
    return;
  }
  ManualClock clock;
  Workspace workspace(clock);
  if (const auto* dirs = spec.if_contains("dirs")) {
    for (const auto& dir : dirs->as_array()) workspace.mkdir(str(dir), true);
  }
  if (const auto* files = spec.if_contains("files")) {
    for (const auto& [path, content] : files->as_object()) workspace.write(path, str(content));
  }
  // Declared after the workspace it uses, so destroyed before it.
  std::unique_ptr<SessionInstance> session =
      engine.sessions->boot(SessionOptions{.workspace = &workspace});
  if (const auto* setup = spec.if_contains("setup")) {
    for (const auto& code : setup->as_array()) {
      const SessionOutcome o = session->execute(ExecutionRequest{str(code), {}});
      if (!r.expect(!o.error, "setup: ",
                    "`" + str(code) +
                        "` failed: " + (o.error ? o.error->name + ": " + o.error->message : ""))) {
        return;
      }
    }
  }
  check_outcome(r, "", spec, session->execute(request_of(spec)));
  if (const auto* files = spec.if_contains("expect_files")) {
    for (const auto& [path, content] : files->as_object()) {
      const std::string got = workspace.read(path).content;
      r.expect(got == str(content), "",
               std::string(path) + " holds '" + got + "', expected '" + str(content) + "'");
    }
  }
  const bool invalidates = spec.contains("invalidates") && spec.at("invalidates").as_bool();
  r.expect(
      session->invalid() == invalidates, "",
      invalidates ? "the session must be invalid afterwards" : "the session is invalid afterwards");
  if (const auto* then = spec.if_contains("then")) {
    if (!r.expect(!session->invalid(), "then: ", "the session is invalid")) return;
    const auto& next = then->as_object();
    check_outcome(r, "then: ", next, session->execute(request_of(next)));
  }
}

}  // namespace

std::ostream& operator<<(std::ostream& os, const CorpusCase& c) {
  return os << c.name << "/" << c.mode;
}

std::vector<CorpusCase> load_program_corpus(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw CorpusError("cannot read the corpus " + file.string());
  std::string text;
  std::array<char, 65536> chunk;
  while (in.read(chunk.data(), chunk.size()) || in.gcount() > 0) {
    text.append(chunk.data(), static_cast<std::size_t>(in.gcount()));
    if (text.size() > kMaxCorpusFileBytes) {
      throw CorpusError(file.string() + ": larger than kMaxCorpusFileBytes (" +
                        std::to_string(kMaxCorpusFileBytes) + " bytes)");
    }
  }
  boost::system::error_code ec;
  const boost::json::value corpus = boost::json::parse(text, ec);
  if (ec) throw CorpusError(file.string() + ": not JSON: " + ec.message());
  if (!corpus.is_array()) throw CorpusError(file.string() + ": must be a JSON array of cases");
  static const std::regex kName("[A-Za-z0-9_]+");
  std::vector<CorpusCase> cases;
  std::set<std::string> names;
  std::size_t index = 0;
  for (const auto& v : corpus.get_array()) {
    const Validator at_index(file, "case " + std::to_string(index++));
    if (!v.is_object()) at_index.fail("must be an object");
    const auto& spec = v.get_object();
    const std::string name(at_index.string(spec, "name"));
    if (!std::regex_match(name, kName)) at_index.fail("a name is [A-Za-z0-9_]+: '" + name + "'");
    const Validator check(file, "case '" + name + "'");
    if (!names.insert(name).second) check.fail("a second case with this name");
    validate_case(check, spec);
    for (const auto& mode : validated_modes(check, spec)) cases.push_back({name, mode, spec});
  }
  return cases;
}

CheckResult run_corpus_case(const Engine& engine, const CorpusCase& c) {
  CheckResult result{.name = c.id()};
  Recorder r(result);
  try {
    if (c.mode == "run") {
      run_stateless(r, engine, c.spec);
    } else if (c.mode == "session") {
      run_in_session(r, engine, c.spec);
    } else {
      r.expect(false, "", "unknown mode '" + c.mode + "'");
    }
  } catch (const std::exception& e) {
    result.failures.push_back(std::string("threw: ") + e.what());
  }
  return result;
}

std::vector<CheckResult> run_program_corpus(const Engine& engine,
                                            const std::filesystem::path& file) {
  std::vector<CheckResult> results;
  for (const auto& c : load_program_corpus(file)) results.push_back(run_corpus_case(engine, c));
  return results;
}

}  // namespace sandbox::testing
