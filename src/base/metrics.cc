#include <algorithm>
#include <charconv>
#include <cmath>
#include <stdexcept>
#include <system_error>

#include <sandbox/metrics.h>

namespace sandbox {
namespace {

// [a-zA-Z_:][a-zA-Z0-9_:]*
bool valid_metric_name(std::string_view name) {
  if (name.empty()) return false;
  for (std::size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    const bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';
    if (!alpha && !(i > 0 && c >= '0' && c <= '9')) return false;
  }
  return true;
}

// [a-zA-Z_][a-zA-Z0-9_]*, not starting with "__" (reserved), not "le" (the histograms' own).
bool valid_label_name(std::string_view name) {
  if (name.empty() || name.starts_with("__") || name == "le") return false;
  for (std::size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    const bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    if (!alpha && !(i > 0 && c >= '0' && c <= '9')) return false;
  }
  return true;
}

// HELP text: backslash and line feed escaped.
std::string escape_help(std::string_view help) {
  std::string out;
  out.reserve(help.size());
  for (const char c : help) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

// A label value: backslash, double quote and line feed escaped.
void append_label_value(std::string& out, std::string_view value) {
  for (const char c : value) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
}

// `{a="x",b="y"}`, or "" without labels; `extra` (a histogram's le) goes last.
std::string render_labels(const MetricLabels& labels, std::string_view extra_name = {},
                          std::string_view extra_value = {}) {
  if (labels.empty() && extra_name.empty()) return {};
  std::string out = "{";
  bool first = true;
  const auto add = [&](std::string_view name, std::string_view value) {
    if (!first) out += ',';
    first = false;
    out += name;
    out += "=\"";
    append_label_value(out, value);
    out += '"';
  };
  for (const auto& [name, value] : labels) add(name, value);
  if (!extra_name.empty()) add(extra_name, extra_value);
  out += '}';
  return out;
}

std::string_view type_name(bool counter, bool histogram) {
  if (histogram) return "histogram";
  return counter ? "counter" : "gauge";
}

}  // namespace

std::string format_metric_value(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  // Integers (the usual counter) as such, below 2^53 where a double holds them exactly.
  if (value == std::trunc(value) && std::fabs(value) < 9007199254740992.0) {
    return std::to_string(static_cast<std::int64_t>(value));
  }
  std::array<char, 64> buffer{};
  // Fixed notation reads best for the bucket bounds and sums; tiny or huge values go scientific.
  const std::chars_format format = std::fabs(value) >= 1e-6 && std::fabs(value) < 1e15
                                       ? std::chars_format::fixed
                                       : std::chars_format::scientific;
  const auto [end, ec] = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value, format);
  if (ec != std::errc()) return std::to_string(value);
  return {buffer.data(), end};
}

// ---- Histogram
// -----------------------------------------------------------------------------------

Histogram::Histogram(std::span<const double> bounds)
    : bounds_(bounds.begin(), bounds.end()),
      buckets_(std::make_unique<std::atomic<std::uint64_t>[]>(bounds.size() + 1)) {
  for (std::size_t i = 0; i < bounds_.size(); ++i) {
    if (!std::isfinite(bounds_[i]) || (i > 0 && bounds_[i] <= bounds_[i - 1])) {
      throw std::invalid_argument("histogram bounds must be finite and strictly increasing");
    }
  }
}

void Histogram::observe(double value) noexcept {
  if (std::isnan(value)) return;
  const auto at = std::lower_bound(bounds_.begin(), bounds_.end(), value) - bounds_.begin();
  buckets_[static_cast<std::size_t>(at)].fetch_add(1, std::memory_order_relaxed);
  sum_.fetch_add(value, std::memory_order_relaxed);
}

Histogram::Snapshot Histogram::snapshot() const {
  Snapshot s;
  s.cumulative.reserve(bounds_.size() + 1);
  std::uint64_t running = 0;
  for (std::size_t i = 0; i <= bounds_.size(); ++i) {
    running += buckets_[i].load(std::memory_order_relaxed);
    s.cumulative.push_back(running);
  }
  s.count = running;
  s.sum = sum_.load(std::memory_order_relaxed);
  return s;
}

// ---- MetricsRegistry ---------------------------------------------------------------------------

MetricsRegistry::Series& MetricsRegistry::series_for(std::string_view name, std::string_view help,
                                                     Type type, bool sampled,
                                                     std::span<const double> bounds,
                                                     const MetricLabels& labels) {
  if (!valid_metric_name(name)) {
    throw std::invalid_argument("invalid metric name '" + std::string(name) + "'");
  }
  if (type == Type::kCounter && !name.ends_with("_total")) {
    throw std::invalid_argument("counter '" + std::string(name) + "' must end in _total");
  }
  std::vector<std::string> label_names;
  label_names.reserve(labels.size());
  for (const auto& [label, value] : labels) {
    if (!valid_label_name(label)) {
      throw std::invalid_argument("invalid label name '" + label + "' of " + std::string(name));
    }
    if (std::find(label_names.begin(), label_names.end(), label) != label_names.end()) {
      throw std::invalid_argument("label '" + label + "' given twice for " + std::string(name));
    }
    label_names.push_back(label);
  }
  auto it = families_.find(name);
  if (it == families_.end()) {
    Family family;
    family.type = type;
    family.sampled = sampled;
    family.help = std::string(help);
    family.label_names = label_names;
    family.bounds.assign(bounds.begin(), bounds.end());
    it = families_.emplace(std::string(name), std::move(family)).first;
  } else {
    const Family& f = it->second;
    if (f.type != type || f.sampled != sampled || f.help != help || f.label_names != label_names ||
        !std::equal(f.bounds.begin(), f.bounds.end(), bounds.begin(), bounds.end())) {
      throw std::invalid_argument("metric '" + std::string(name) +
                                  "' registered again with another type, help, labels or buckets");
    }
  }
  Family& family = it->second;
  std::string key = render_labels(labels);
  auto found = family.series.find(key);
  if (found != family.series.end()) return found->second;
  if (series_count_ >= kMaxMetricSeries) {
    if (family.series.empty()) families_.erase(it);
    throw std::length_error("more than " + std::to_string(kMaxMetricSeries) + " metric series");
  }
  Series& series = family.series[std::move(key)];
  series.labels = labels;
  ++series_count_;
  return series;
}

Counter& MetricsRegistry::counter(std::string_view name, std::string_view help,
                                  const MetricLabels& labels) {
  std::lock_guard lock(mu_);
  Series& s = series_for(name, help, Type::kCounter, false, {}, labels);
  if (!s.counter) s.counter = std::make_unique<Counter>();
  return *s.counter;
}

Histogram& MetricsRegistry::histogram(std::string_view name, std::string_view help,
                                      std::span<const double> bounds, const MetricLabels& labels) {
  // Checked before the family is made, so malformed bounds leave nothing behind.
  const Histogram probe(bounds);
  std::lock_guard lock(mu_);
  Series& s = series_for(name, help, Type::kHistogram, false, bounds, labels);
  if (!s.histogram) s.histogram = std::make_unique<Histogram>(bounds);
  return *s.histogram;
}

MetricsRegistry::Callback MetricsRegistry::gauge_callback(std::string_view name,
                                                          std::string_view help,
                                                          const MetricLabels& labels,
                                                          std::function<double()> read) {
  return add_callback(name, help, Type::kGauge, labels, std::move(read));
}

MetricsRegistry::Callback MetricsRegistry::counter_callback(std::string_view name,
                                                            std::string_view help,
                                                            const MetricLabels& labels,
                                                            std::function<double()> read) {
  return add_callback(name, help, Type::kCounter, labels, std::move(read));
}

MetricsRegistry::Callback MetricsRegistry::add_callback(std::string_view name,
                                                        std::string_view help, Type type,
                                                        const MetricLabels& labels,
                                                        std::function<double()> read) {
  if (!read) throw std::invalid_argument("metric callback of '" + std::string(name) + "' is empty");
  std::lock_guard lock(mu_);
  Series& s = series_for(name, help, type, true, {}, labels);
  const std::uint64_t id = next_callback_++;
  s.callbacks.emplace(id, std::move(read));
  callback_series_.emplace(id, std::pair{std::string(name), render_labels(labels)});
  return Callback(this, id);
}

void MetricsRegistry::remove_callback(std::uint64_t id) noexcept {
  std::lock_guard lock(mu_);
  const auto where = callback_series_.find(id);
  if (where == callback_series_.end()) return;
  const auto family = families_.find(where->second.first);
  if (family != families_.end()) {
    const auto series = family->second.series.find(where->second.second);
    if (series != family->second.series.end()) {
      series->second.callbacks.erase(id);
      if (series->second.callbacks.empty()) {
        family->second.series.erase(series);
        --series_count_;
      }
    }
    if (family->second.series.empty()) families_.erase(family);
  }
  callback_series_.erase(where);
}

MetricsRegistry::Callback::Callback(Callback&& other) noexcept
    : registry_(std::exchange(other.registry_, nullptr)), id_(std::exchange(other.id_, 0)) {}

MetricsRegistry::Callback& MetricsRegistry::Callback::operator=(Callback&& other) noexcept {
  if (this != &other) {
    reset();
    registry_ = std::exchange(other.registry_, nullptr);
    id_ = std::exchange(other.id_, 0);
  }
  return *this;
}

void MetricsRegistry::Callback::reset() noexcept {
  if (registry_ != nullptr) registry_->remove_callback(id_);
  registry_ = nullptr;
  id_ = 0;
}

std::string MetricsRegistry::render() const {
  std::string out;
  std::lock_guard lock(mu_);
  for (const auto& [name, family] : families_) {
    if (family.series.empty()) continue;
    const bool histogram = family.type == Type::kHistogram;
    out += "# HELP " + name + " " + escape_help(family.help) + "\n";
    out += "# TYPE " + name + " ";
    out += type_name(family.type == Type::kCounter, histogram);
    out += "\n";
    for (const auto& [key, series] : family.series) {
      if (histogram) {
        const Histogram::Snapshot snap = series.histogram->snapshot();
        for (std::size_t i = 0; i < snap.cumulative.size(); ++i) {
          const std::string le = i < family.bounds.size() ? format_metric_value(family.bounds[i])
                                                          : std::string("+Inf");
          out += name + "_bucket" + render_labels(series.labels, "le", le) + " " +
                 std::to_string(snap.cumulative[i]) + "\n";
        }
        out += name + "_sum" + key + " " + format_metric_value(snap.sum) + "\n";
        out += name + "_count" + key + " " + std::to_string(snap.count) + "\n";
        continue;
      }
      std::string value;
      if (series.counter) {
        value = std::to_string(series.counter->value());
      } else {
        double total = 0;
        for (const auto& [id, read] : series.callbacks) {
          try {
            total += read();
          } catch (const std::exception&) {
            // A value that cannot be read now counts as none.
          }
        }
        value = format_metric_value(total);
      }
      out += name + key + " " + value + "\n";
    }
  }
  return out;
}

}  // namespace sandbox
