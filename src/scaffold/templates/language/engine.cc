// {{project}}'s engine: the kit's built-in {{language}} engine (<sandbox/engines/{{language}}_engine.h>),
// exactly as `sandbox-runtime --engine {{language}}` and sandboxd serve it.
#include "engine.h"

#include <sandbox/engines/{{language}}_engine.h>

namespace {{project}} {

sandbox::Engine make_engine() { return sandbox::engines::make_{{language}}_engine(); }

}  // namespace {{project}}
