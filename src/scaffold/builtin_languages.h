// The built-in languages of `sandbox init LANGUAGE DIR`: the engines of the manifest
// (engines/engines.cmake) an installed kit has, that is all but the DEFAULT TEST ones (a language
// project links the installed sandbox::engine_LANGUAGE, and the tests' engines are never
// installed), each with the conformance programs of its engines/<id>/conformance.json, which the
// project's conformance.json gets. Generated at build time by embed_languages.cmake, so an engine
// added to the manifest is offered with no edit here; tests/engines/manifest checks the list
// against the manifest.
//
// Thread-safety: read-only data.
#pragma once

#include <span>

namespace sandbox::scaffold {

// A built-in language and the programs of its conformance.json.
struct BuiltinLanguage {
  const char* name;
  const char* simple;
  const char* simple_result;
  const char* error;
  // Empty for an engine without sessions (stateful: null).
  const char* define;
  const char* use;
  const char* use_result;
};

// Every built-in language, in the manifest's order.
std::span<const BuiltinLanguage> builtin_language_table();

}  // namespace sandbox::scaffold
