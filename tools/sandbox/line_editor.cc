#include "line_editor.h"

#include <cstdio>
#include <cstdlib>

#include <histedit.h>
#include <sys/stat.h>

namespace sandbox::cli {

std::string default_history_path() {
  const char* home = std::getenv("HOME");
  if (!home || !*home) return {};
  return std::string(home) + "/.sandbox_history";
}

LineEditor::LineEditor(const char* program, std::string history_path)
    : history_path_(std::move(history_path)) {
  HistEvent event;
  history_ = history_init();
  history(history_, &event, H_SETSIZE, static_cast<int>(kReplHistoryLines));
  history(history_, &event, H_SETUNIQUE, 1);  // no run of the same line twice
  if (!history_path_.empty()) history(history_, &event, H_LOAD, history_path_.c_str());

  el_ = el_init(program, stdin, stdout, stderr);
  el_set(el_, EL_CLIENTDATA, this);
  el_set(el_, EL_PROMPT, &LineEditor::prompt_of);
  el_set(el_, EL_EDITOR, "emacs");
  el_set(el_, EL_HIST, history, history_);
  el_set(el_, EL_SIGNAL, 1);  // restore the terminal on a fatal signal
  el_set(el_, EL_BIND, "^R", "em-inc-search-prev", nullptr);
  el_source(el_, nullptr);  // ~/.editrc, if any
}

LineEditor::~LineEditor() {
  el_end(el_);
  history_end(history_);
}

char* LineEditor::prompt_of(editline* el) {
  LineEditor* self = nullptr;
  el_get(el, EL_CLIENTDATA, &self);
  return self->prompt_.data();
}

std::optional<std::string> LineEditor::read_line(const std::string& prompt) {
  prompt_ = prompt;
  int count = 0;
  const char* raw = el_gets(el_, &count);
  if (!raw || count <= 0) return std::nullopt;
  std::string line(raw, static_cast<std::size_t>(count));
  if (!line.empty() && line.back() == '\n') line.pop_back();
  const bool blank = line.find_first_not_of(" \t") == std::string::npos;
  if (!blank && line != ".exit" && line != ".quit" && line.size() <= kMaxReplHistoryLineBytes) {
    HistEvent event;
    history(history_, &event, H_ENTER, line.c_str());
    if (!history_path_.empty() && history(history_, &event, H_SAVE, history_path_.c_str()) >= 0) {
      chmod(history_path_.c_str(), 0600);
    }
  }
  return line;
}

}  // namespace sandbox::cli
