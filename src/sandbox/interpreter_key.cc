#include "sandbox/interpreter_key.h"

namespace sandbox {

std::string interpreter_key(std::string_view lifetime, std::string_view binding) {
  std::string key = "sbx.";
  key += lifetime;
  key += '.';
  key += binding;
  return key;
}

}  // namespace sandbox
