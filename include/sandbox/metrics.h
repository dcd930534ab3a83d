// MetricsRegistry: the counters, histograms and sampled values a server exposes at GET /metrics,
// rendered in the Prometheus text exposition format, version 0.0.4 (docs/sandbox-api.md#metrics
// lists every metric of sandboxd and sandbox-runtime).
//
// A metric family is a name, a help text, a type and the names of its labels; a series is one
// set of label values of it. Series are made when a component is set up (a runtime registers its
// language's series when it is built), never from what a request carries: label values are known
// sets (languages, limit names), never sandbox ids, keys or user input, and the registry refuses
// more than kMaxMetricSeries series.
//
// Three kinds of series:
//   - Counter: a monotonic count, kept in an atomic and added to on the hot path;
//   - Histogram: observations counted into fixed buckets (cumulative `_bucket{le=...}` lines with
//     `+Inf`, `_sum`, `_count` when rendered), atomics too;
//   - a callback (gauge or counter): a function read when the registry is rendered, for values
//     another object already keeps (a queue's length, the resident instances). It is registered
//     with a Callback handle; destroying the handle unregisters it.
//
// Thread-safety: every method may be called from any thread. Counter::add and
// Histogram::observe take no lock. Registration, unregistration and render() share one mutex;
// render() calls the callbacks while holding it, so a callback must be quick, must not call into
// the registry, and is guaranteed not to run once its handle's destructor has returned.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sandbox {

// Label names and values of one series, in the family's label order.
using MetricLabels = std::vector<std::pair<std::string, std::string>>;

// The most series one registry holds (a registration past it throws std::length_error). sandboxd
// with every engine registers about 100.
inline constexpr std::size_t kMaxMetricSeries = 1024;

// Bucket bounds (seconds) of the latency histograms: a stateless Lua `1+1` runs in about 0.1 ms,
// a context step in 0.3-2 ms, a restore in 0.5-6 ms, and a guest may run up to 30 s.
inline constexpr std::array<double, 17> kLatencyBucketsSeconds = {
    0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
    0.1,    0.25,    0.5,    1,     2.5,    5,     10,   30};

// The Content-Type of render()'s text.
inline constexpr std::string_view kMetricsContentType = "text/plain; version=0.0.4; charset=utf-8";

class Counter {
 public:
  void add(std::uint64_t n = 1) noexcept { value_.fetch_add(n, std::memory_order_relaxed); }
  std::uint64_t value() const noexcept { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<std::uint64_t> value_{0};
};

class Histogram {
 public:
  // `bounds`: the buckets' upper bounds, finite and strictly increasing (std::invalid_argument
  // otherwise); a `+Inf` bucket follows them.
  explicit Histogram(std::span<const double> bounds);

  // Counts `value` in the first bucket whose bound is >= it. NaN is ignored.
  void observe(double value) noexcept;

  struct Snapshot {
    std::vector<std::uint64_t> cumulative;  // per bound, then +Inf (== count)
    double sum = 0;
    std::uint64_t count = 0;
  };
  // The counts so far. A concurrent observe() may be in the sum and not yet in the buckets (or
  // the reverse); the buckets, `+Inf` and the count always agree with each other.
  Snapshot snapshot() const;
  const std::vector<double>& bounds() const { return bounds_; }

 private:
  std::vector<double> bounds_;
  std::unique_ptr<std::atomic<std::uint64_t>[]> buckets_;  // bounds_.size() + 1, not cumulative
  std::atomic<double> sum_{0};
};

class MetricsRegistry {
 public:
  // Keeps a callback registered; destroying it (or reset()) unregisters it. Move-only. The
  // registry must outlive it.
  class Callback {
   public:
    Callback() = default;
    ~Callback() { reset(); }
    Callback(Callback&& other) noexcept;
    Callback& operator=(Callback&& other) noexcept;
    Callback(const Callback&) = delete;
    Callback& operator=(const Callback&) = delete;
    // Unregisters now: once it returns, the function is not running and never runs again.
    void reset() noexcept;

   private:
    friend class MetricsRegistry;
    Callback(MetricsRegistry* registry, std::uint64_t id) : registry_(registry), id_(id) {}
    MetricsRegistry* registry_ = nullptr;
    std::uint64_t id_ = 0;
  };

  MetricsRegistry() = default;
  MetricsRegistry(const MetricsRegistry&) = delete;
  MetricsRegistry& operator=(const MetricsRegistry&) = delete;

  // The counter of family `name` (whose name must end in `_total`) with `labels`, made on first
  // use; the same name and labels give the same counter. The reference is valid as long as the
  // registry. Throws std::invalid_argument for a malformed name or label name, a family
  // registered before with another type, help or label names, and std::length_error past
  // kMaxMetricSeries.
  Counter& counter(std::string_view name, std::string_view help, const MetricLabels& labels = {});
  // As counter(), for a histogram with `bounds` (the family's bounds must match too).
  Histogram& histogram(std::string_view name, std::string_view help, std::span<const double> bounds,
                       const MetricLabels& labels = {});
  // A gauge series whose value is `read()` at each render. Several callbacks of one series are
  // summed (two runtimes of one language, say). Throws as counter().
  [[nodiscard]] Callback gauge_callback(std::string_view name, std::string_view help,
                                        const MetricLabels& labels, std::function<double()> read);
  // As gauge_callback(), for a counter another object keeps (`name` ends in `_total`); `read`
  // must never decrease.
  [[nodiscard]] Callback counter_callback(std::string_view name, std::string_view help,
                                          const MetricLabels& labels, std::function<double()> read);

  // Every family with at least one series, sorted by name: `# HELP`, `# TYPE`, then its series
  // (label values escaped), each line ending in '\n'. A callback that throws counts as 0.
  std::string render() const;

 private:
  enum class Type { kCounter, kGauge, kHistogram };
  struct Series {
    MetricLabels labels;
    std::unique_ptr<Counter> counter;
    std::unique_ptr<Histogram> histogram;
    std::map<std::uint64_t, std::function<double()>> callbacks;
  };
  struct Family {
    Type type = Type::kCounter;
    bool sampled = false;  // series are callbacks
    std::string help;
    std::vector<std::string> label_names;
    std::vector<double> bounds;
    std::map<std::string, Series> series;  // by rendered labels
  };

  // The series of `name` + `labels`, made (with its family) if missing. Requires mu_.
  Series& series_for(std::string_view name, std::string_view help, Type type, bool sampled,
                     std::span<const double> bounds, const MetricLabels& labels);
  Callback add_callback(std::string_view name, std::string_view help, Type type,
                        const MetricLabels& labels, std::function<double()> read);
  void remove_callback(std::uint64_t id) noexcept;

  mutable std::mutex mu_;
  std::map<std::string, Family, std::less<>> families_;
  std::size_t series_count_ = 0;
  std::uint64_t next_callback_ = 1;
  // Callback id -> (family name, series key).
  std::map<std::uint64_t, std::pair<std::string, std::string>> callback_series_;
};

// The text of `value` as the exposition format writes a sample value: "NaN", "+Inf", "-Inf",
// an integer without a fraction, otherwise the shortest decimal that reads back as `value`.
std::string format_metric_value(double value);

}  // namespace sandbox
