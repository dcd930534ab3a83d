// CountingStore: an InterpreterStore that forwards everything and counts what snapshot writes
// put into storage (chunks, bytes, rows), for the benchmarks.
#pragma once

#include <cstdint>

#include "storage/interpreter_store.h"

namespace sandbox::bench {

class CountingStore final : public InterpreterStore {
 public:
  explicit CountingStore(InterpreterStore& inner) : inner_(inner) {}
  std::uint64_t bytes = 0;   // compressed chunk bytes written
  std::uint64_t chunks = 0;  // chunk rows written
  std::uint64_t rows = 0;    // every row written (chunks, removals, context rows)

  void reset() { bytes = chunks = rows = 0; }

  std::optional<boost::json::object> get_meta(std::string_view k) override {
    return inner_.get_meta(k);
  }
  void put_meta(std::string_view k, const boost::json::object& m) override {
    inner_.put_meta(k, m);
  }
  std::vector<StoredRow> list_contexts(std::string_view k) override {
    return inner_.list_contexts(k);
  }
  std::optional<boost::json::object> get_context(std::string_view k, std::string_view id) override {
    return inner_.get_context(k, id);
  }
  void put_context(std::string_view k, std::string_view id,
                   const boost::json::object& row) override {
    ++rows;
    inner_.put_context(k, id, row);
  }
  bool delete_context(std::string_view k, std::string_view id) override {
    return inner_.delete_context(k, id);
  }
  StoredChunks read_chunks(std::string_view k, std::string_view id) override {
    return inner_.read_chunks(k, id);
  }
  void write_snapshot(std::string_view k, std::string_view id, const SnapshotWrite& w) override {
    rows += 1 + w.upserts.size() + w.removed.size();
    chunks += w.upserts.size();
    for (const auto& c : w.upserts) bytes += c.data.size();
    inner_.write_snapshot(k, id, w);
  }
  void drop_snapshot(std::string_view k, std::string_view id,
                     const std::optional<boost::json::object>& r) override {
    inner_.drop_snapshot(k, id, r);
  }
  void wipe(std::string_view k) override { inner_.wipe(k); }
  std::vector<std::string> list_keys() override { return inner_.list_keys(); }
  std::size_t count_keys_with_contexts() override { return inner_.count_keys_with_contexts(); }
  std::optional<std::int64_t> get_alarm(std::string_view k) override { return inner_.get_alarm(k); }
  void set_alarm(std::string_view k, std::optional<std::int64_t> d) override {
    inner_.set_alarm(k, d);
  }
  std::vector<std::pair<std::string, std::int64_t>> list_alarms() override {
    return inner_.list_alarms();
  }

 private:
  InterpreterStore& inner_;
};

}  // namespace sandbox::bench
