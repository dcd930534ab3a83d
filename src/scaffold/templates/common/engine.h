// {{project}}'s engine: make_engine() returns the sandbox::Engine (<sandbox/engine.h>) that
// src/main.cc serves and tests/conformance_test.cc checks against the kit's conformance suite.
//
// Thread-safety: the Engine's run() may be called from several threads at once; so may
// sessions.boot and sessions.restore (for different code contexts).
#pragma once

#include <sandbox/engine.h>

namespace {{project}} {

sandbox::Engine make_engine();

}  // namespace {{project}}
