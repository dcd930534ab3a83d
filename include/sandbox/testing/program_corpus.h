// The program corpus: programs of an engine's language with their expected outcomes, kept as
// data (a JSON file) and run against any Engine, statelessly and in a booted session. Every
// language engine of this repository runs its own corpus through this; a third-party engine
// writes one for its language and runs it the same way
// (docs/build-your-own-runtime.md#running-the-program-corpus-and-the-image-checks).
//
// The corpus file is a JSON array of cases. Every key but `name` and `code` is optional:
//
//   {"name": "print",                 unique, [A-Za-z0-9_]+
//    "code": "print('hi')",           the program
//    "modes": ["run", "session"],     default both: "run" is engine.run() (stateless); "session"
//                                     is sessions->boot() over a fresh /workspace, then execute()
//    "env": {"A": "1"},               the request's environment variables
//    "results": [{"text": "2"} | {"json": ...}],   the outcome's results, exactly
//    "result_text_matches": "regex",  the single result is a text this ECMAScript regex finds
//    "stdout": ["hi"], "stderr": [],  the captured lines, exactly
//    "stdout_contains": "hi",         a substring of the stdout lines joined with "\n"
//    "error": {"name": "...", "name_matches": "regex", "message": "...",
//              "message_matches": "regex", "traceback": ["..."], "traceback_contains": "..."},
//                                     a guest error with these properties (each optional);
//                                     without "error" the outcome must have none
//    -- session mode only (ignored by "run", except "setup", which "run" refuses) --
//    "dirs": ["/workspace/sub"],      created in the workspace before boot
//    "files": {"/workspace/a.txt": "x"},   written to the workspace before boot
//    "setup": ["x = 1"],              run first in the session; each must not fail
//    "expect_files": {"/workspace/out.txt": "y"},  the workspace's files afterwards
//    "invalidates": true,             the session is invalid afterwards (default false)
//    "then": {"code": "...", ...}}    one more execute() in the same session, checked with the
//                                     keys of the first group (code, env, results, ..., error)
//
// A stateless run that throws (a limit, a trap) is checked as the outcome the runtime would
// report for it (engine_error_outcome()); a session's execute() must not throw.
//
// Thread-safety: loading is pure; running a case calls the engine from the calling thread only.
#pragma once

#include <cstddef>
#include <filesystem>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

#include <boost/json/object.hpp>

#include <sandbox/engine.h>
#include <sandbox/testing/check_result.h>

namespace sandbox::testing {

// A corpus file larger than this is refused when loaded (CorpusError): the whole file is read
// into memory and parsed at once.
inline constexpr std::size_t kMaxCorpusFileBytes = 16 << 20;

// The corpus file cannot be read, is not JSON, or a case breaks the format above (an unknown
// key, a wrong type, a duplicate name, an invalid regex). The message names the file and case.
class CorpusError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// One case in one mode: the unit a test framework reports.
struct CorpusCase {
  std::string name;
  std::string mode;          // "run" or "session"
  boost::json::object spec;  // the case as written in the file (validated)

  // "<name>_<mode>", unique within a corpus: usable as a test name.
  std::string id() const { return name + "_" + mode; }
};

// Prints "<name>/<mode>" (GoogleTest uses it for parameter values).
std::ostream& operator<<(std::ostream& os, const CorpusCase& c);

// Reads and validates `file`: each case once per mode, in file order. Throws CorpusError.
std::vector<CorpusCase> load_program_corpus(const std::filesystem::path& file);

// Runs one case against `engine` and checks its outcome; the result's name is c.id(). A
// "session" case fails (rather than throws) when the engine has no sessions.
CheckResult run_corpus_case(const Engine& engine, const CorpusCase& c);

// Loads `file` and runs every case, in order. Throws CorpusError for a malformed file; a case
// that fails is a failed CheckResult, not an exception.
std::vector<CheckResult> run_program_corpus(const Engine& engine,
                                            const std::filesystem::path& file);

}  // namespace sandbox::testing
