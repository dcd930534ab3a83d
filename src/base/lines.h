// Splitting captured output into lines, as every ExecutionResult reports it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace sandbox {

// Splits on '\n' and drops one trailing empty element: "a\nb\n" -> ["a", "b"], "" -> [];
// blank lines in the middle are kept and '\r' is not special.
std::vector<std::string> split_lines(std::string_view text);

}  // namespace sandbox
