// The kit's conformance suite (<sandbox/testing.h>) against make_engine(), with the programs of
// conformance.json (CTest passes its path):
//
//   {"simple":   {"code": "...", "expectResultText": "..." (optional)},
//    "error":    {"code": "..."},
//    "stateful": {"define": "...", "use": "...", "expectResultText": "..."} or null}
//
// `simple` must run without error, `error` must return a guest error; `stateful` is required
// when the engine has sessions (code contexts): `define` runs in a context, then `use` must
// yield expectResultText, also after the context is evicted and restored from its snapshot
// (`use` runs more than once on the same state, so it must not change it).
// Exit status: 0 when the engine conforms, 1 with the violated rule, 2 when the programs
// cannot be read.
#include <sandbox/testing.h>

#include <fstream>
#include <iostream>
#include <iterator>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include <boost/json.hpp>

#include "engine.h"

namespace {

std::string field(const boost::json::object& object, std::string_view key, std::string_view where,
                  bool required) {
  const boost::json::value* value = object.if_contains(key);
  if (!value || value->is_null()) {
    if (required) throw std::runtime_error(std::string(where) + "." + std::string(key) + " is missing");
    return {};
  }
  if (!value->is_string()) {
    throw std::runtime_error(std::string(where) + "." + std::string(key) + " must be a string");
  }
  std::string text(value->as_string());
  if (required && text.empty()) {
    throw std::runtime_error(std::string(where) + "." + std::string(key) +
                             " is empty: write it in your engine's language");
  }
  return text;
}

const boost::json::object& section(const boost::json::object& root, std::string_view key) {
  const boost::json::value* value = root.if_contains(key);
  if (!value || !value->is_object()) {
    throw std::runtime_error("\"" + std::string(key) + "\" must be an object");
  }
  return value->as_object();
}

sandbox::testing::ConformancePrograms read_programs(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read the file");
  const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  boost::system::error_code ec;
  const boost::json::value root = boost::json::parse(text, ec);
  if (ec || !root.is_object()) throw std::runtime_error("not a JSON object");
  const boost::json::object& programs = root.as_object();

  sandbox::testing::ConformancePrograms out;
  const auto& simple = section(programs, "simple");
  out.simple.code = field(simple, "code", "simple", true);
  if (simple.contains("expectResultText") && !simple.at("expectResultText").is_null()) {
    out.simple.expect_result_text = field(simple, "expectResultText", "simple", true);
  }
  out.error.code = field(section(programs, "error"), "code", "error", true);
  if (programs.contains("stateful") && !programs.at("stateful").is_null()) {
    const auto& stateful = section(programs, "stateful");
    out.stateful = sandbox::testing::StatefulProgram{
        .define = field(stateful, "define", "stateful", true),
        .use = field(stateful, "use", "stateful", true),
        .expect_result_text = field(stateful, "expectResultText", "stateful", true)};
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: " << argv[0] << " conformance.json\n";
    return 2;
  }
  sandbox::testing::ConformanceOptions options;
  try {
    options.programs = read_programs(argv[1]);
  } catch (const std::exception& e) {
    std::cerr << argv[1] << ": " << e.what() << "\n";
    return 2;
  }

  try {
    const sandbox::Engine engine = {{project}}::make_engine();
    sandbox::testing::run_engine_conformance(engine, options);
    std::cout << engine.language << " conforms ("
              << (engine.sessions ? "stateless runs and code contexts" : "stateless only")
              << ")\n";
  } catch (const sandbox::testing::ConformanceFailure& failure) {
    std::cerr << "not conforming: " << failure.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "make_engine() failed: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
