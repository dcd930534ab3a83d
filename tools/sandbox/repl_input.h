// How the `sandbox repl` command groups typed lines into one submission (no line editing; the
// terminal's own editing applies). A line continues the submission when:
//
//   1. it ends with a backslash (the backslash is removed);
//   2. a bracket ( [ { is still open, or a multi-line string (``` `...` ```, ''' or """) is
//      unterminated, counting over everything typed so far (quotes ' and " end at a newline);
//   3. it ends with ':' (a Python block header); the block then ends at the first blank line.
//
// Comments are not recognized (a bracket inside a comment counts).
#pragma once

#include <string>
#include <string_view>

namespace sandbox::cli {

// Brackets left open in `code` (0 when balanced or over-closed), with 1 added when `code` ends
// inside a multi-line string.
int open_brackets(std::string_view code);

class ReplInput {
 public:
  // Adds one typed line (without its newline). Returns true when the submission is complete.
  bool add_line(std::string line);
  // The submission so far, and resets.
  std::string take();
  bool empty() const { return buffer_.empty(); }

 private:
  std::string buffer_;
  bool in_block_ = false;
};

}  // namespace sandbox::cli
