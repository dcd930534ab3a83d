// Prints docs/errors.md: build/default/tools/gen_errors_doc/gen_errors_doc > docs/errors.md
#include <iostream>

#include <sandbox/errors.h>

int main() {
  std::cout << sandbox::errors_markdown();
  return std::cout ? 0 : 1;
}
