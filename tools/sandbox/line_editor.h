// LineEditor: `sandbox repl`'s input on a terminal, through libedit (emacs key bindings): arrow
// keys move in the line and through the history, Ctrl-R searches the history backwards, and
// ~/.editrc applies as in other libedit programs. The history is kept in a file (by default
// ~/.sandbox_history), at most kReplHistoryLines lines, loaded at start and saved (mode 0600:
// lines may hold secrets) after each entry, so it survives a killed session.
//
// Used only when standard input is a terminal; piped input keeps the plain line reader.
// Thread-safety: one thread.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

// libedit's handles (histedit.h), kept out of this header.
struct editline;
struct history;

namespace sandbox::cli {

// Lines kept in the history file.
inline constexpr std::size_t kReplHistoryLines = 1000;
// A longer line is run but not kept in the history.
inline constexpr std::size_t kMaxReplHistoryLineBytes = 4096;

// $HOME/.sandbox_history; empty (no history file) without HOME.
std::string default_history_path();

class LineEditor {
 public:
  // `history_path` empty: history for this session only. A missing or unreadable file starts an
  // empty history.
  LineEditor(const char* program, std::string history_path);
  ~LineEditor();
  LineEditor(const LineEditor&) = delete;
  LineEditor& operator=(const LineEditor&) = delete;

  // Shows `prompt` and reads one line (without its newline); nullopt at end of input (Ctrl-D on
  // an empty line). A line that is not blank and not .exit/.quit enters the history.
  std::optional<std::string> read_line(const std::string& prompt);

 private:
  static char* prompt_of(editline* el);

  editline* el_ = nullptr;
  history* history_ = nullptr;
  std::string history_path_;
  std::string prompt_;
};

}  // namespace sandbox::cli
