// Random identifiers.
#pragma once

#include <string>

namespace sandbox {

// A random (version 4) UUID in its 36-character lowercase form, from the OS's CSPRNG.
std::string random_uuid();

}  // namespace sandbox
