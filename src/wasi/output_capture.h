// OutputCapture: the stdout/stderr pieces of one execution and the limits on them
// (docs/guest-abi.md#output-capture).
//
// Each piece is decoded leniently as UTF-8 and its decoded byte length added to a running
// counter. A non-empty piece is refused — dropped, not truncated — when the counter then
// exceeds the byte limit or when the limit on stored pieces (both streams together) is already
// reached; once refused, the execution is over (the caller traps or throws).
//
// One deliberate difference from upstream: a character split between two pieces of the same
// stream (a guest's stdio buffer boundary falling inside it) is joined, not turned into two
// U+FFFD. The incomplete tail of a piece is held back and decoded with the next piece of that
// stream (or, if none comes, as U+FFFD in logs()).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <sandbox/engine.h>
#include <sandbox/wasi.h>

namespace sandbox::wasi {

class OutputCapture {
 public:
  OutputCapture(std::uint64_t limit_bytes, std::size_t limit_chunks)
      : limit_bytes_(limit_bytes), limit_chunks_(limit_chunks) {}

  // Returns false (and stores nothing) when the piece is over the limit.
  bool append(OutputStream stream, std::string_view bytes);
  Logs logs() const;
  void reset();
  bool exceeded() const { return exceeded_; }
  // Sees every piece append() stores (WasiHost::set_output_observer).
  void set_observer(OutputObserver observer) { observer_ = std::move(observer); }

 private:
  std::uint64_t limit_bytes_;
  std::size_t limit_chunks_;
  std::uint64_t total_bytes_ = 0;
  std::size_t chunks_ = 0;
  bool exceeded_ = false;
  std::string stdout_;
  std::string stderr_;
  std::string stdout_tail_;  // an incomplete UTF-8 sequence held back
  std::string stderr_tail_;
  OutputObserver observer_;
};

}  // namespace sandbox::wasi
