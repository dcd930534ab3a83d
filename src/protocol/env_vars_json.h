// The stored form of a set of env vars, a {name: value} object (the envVars of a sandbox's meta
// row and of a ContextRecord, protocol/context_record.h).
//
// Pure functions, safe from any thread.
#pragma once

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include "protocol/env_patch.h"

namespace sandbox {

boost::json::object to_json(const EnvVars& env);

// Reads a stored {string: string} object, tolerantly: absent, null or not an object reads as no
// vars; an entry whose value is not a string is skipped. Names are not re-validated (they were
// when written).
EnvVars env_from_json(const boost::json::value* value);

}  // namespace sandbox
