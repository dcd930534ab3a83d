// Test helper: a strict parser of the Prometheus text exposition format, version 0.0.4, as
// Prometheus reads it, narrowed to what our servers must write (docs/sandbox-api.md#metrics):
//   - every line ends with '\n'; a line is `# HELP name text`, `# TYPE name type`, or a sample
//     `name{label="value",...} value` (no timestamps, no other comments, no blank lines);
//   - names match [a-zA-Z_:][a-zA-Z0-9_:]*, label names [a-zA-Z_][a-zA-Z0-9_]*; a label value
//     escapes exactly `\\`, `\"` and `\n`, HELP text `\\` and `\n`;
//   - a family's HELP and TYPE come once each, before its samples, and its samples are
//     contiguous; a counter's name ends in _total; no series appears twice;
//   - a histogram's series has `_bucket` lines with strictly increasing `le` ending in "+Inf",
//     cumulative (non-decreasing) counts, `_count` equal to the +Inf bucket, and a `_sum`.
// parse() throws std::runtime_error naming the line that breaks a rule.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sandbox::test {

class PrometheusText {
 public:
  using Labels = std::vector<std::pair<std::string, std::string>>;

  struct Family {
    std::string type;
    std::string help;
  };

  static PrometheusText parse(std::string_view text) {
    PrometheusText out;
    out.parse_all(text);
    return out;
  }

  const std::map<std::string, Family>& families() const { return families_; }

  // The value of the sample `name` with exactly `labels` (any order); throws when absent.
  double value(const std::string& name, Labels labels = {}) const {
    const auto it = samples_.find(key(name, std::move(labels)));
    if (it == samples_.end()) throw std::runtime_error("no sample " + name);
    return it->second;
  }
  // As value(), 0 when absent.
  double value_or_zero(const std::string& name, Labels labels = {}) const {
    const auto it = samples_.find(key(name, std::move(labels)));
    return it == samples_.end() ? 0 : it->second;
  }
  bool has(const std::string& name, Labels labels = {}) const {
    return samples_.count(key(name, std::move(labels))) > 0;
  }
  std::size_t sample_count() const { return samples_.size(); }

 private:
  static std::string key(const std::string& name, Labels labels) {
    std::sort(labels.begin(), labels.end());
    std::string k = name + "{";
    for (const auto& [n, v] : labels) k += n + "=" + v + "\x1f";
    return k + "}";
  }

  [[noreturn]] static void fail(std::size_t line_no, const std::string& why,
                                std::string_view line) {
    std::ostringstream s;
    s << "line " << line_no << ": " << why << ": " << line;
    throw std::runtime_error(s.str());
  }

  static bool name_char(char c, bool first, bool colon) {
    const bool alpha =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (colon && c == ':');
    return alpha || (!first && c >= '0' && c <= '9');
  }

  // Reads a name at `pos`; empty when none.
  static std::string read_name(std::string_view s, std::size_t& pos, bool colon) {
    const std::size_t start = pos;
    while (pos < s.size() && name_char(s[pos], pos == start, colon)) ++pos;
    return std::string(s.substr(start, pos - start));
  }

  // Go's strconv.ParseFloat as Prometheus applies it, narrowed: decimal or scientific, or
  // +Inf/-Inf/NaN.
  static bool parse_value(std::string_view text, double& out) {
    if (text == "+Inf") {
      out = std::numeric_limits<double>::infinity();
      return true;
    }
    if (text == "-Inf") {
      out = -std::numeric_limits<double>::infinity();
      return true;
    }
    if (text == "NaN") {
      out = std::numeric_limits<double>::quiet_NaN();
      return true;
    }
    if (text.empty()) return false;
    for (const char c : text) {
      if (!((c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-')) {
        return false;
      }
    }
    const std::string copy(text);
    char* end = nullptr;
    out = std::strtod(copy.c_str(), &end);
    return end == copy.c_str() + copy.size();
  }

  // The family a sample name belongs to (a histogram's suffixes stripped when that family is a
  // histogram), or "" when none was declared.
  std::string family_of(const std::string& sample, std::string& suffix) const {
    if (families_.count(sample) && families_.at(sample).type != "histogram") {
      suffix.clear();
      return sample;
    }
    for (const char* s : {"_bucket", "_sum", "_count"}) {
      const std::string_view sv(s);
      if (sample.size() > sv.size() && sample.ends_with(sv)) {
        const std::string base = sample.substr(0, sample.size() - sv.size());
        const auto it = families_.find(base);
        if (it != families_.end() && it->second.type == "histogram") {
          suffix = s;
          return base;
        }
      }
    }
    return {};
  }

  struct HistogramSeries {
    std::vector<std::pair<double, double>> buckets;  // (le, count)
    bool has_sum = false;
    bool has_count = false;
    double count = 0;
  };

  void parse_all(std::string_view text) {
    if (text.empty()) throw std::runtime_error("empty exposition");
    if (text.back() != '\n') throw std::runtime_error("the last line does not end with \\n");
    std::set<std::string> helped, typed, finished;
    std::string current;  // the family whose lines are being read
    std::map<std::string, HistogramSeries> histograms;
    std::size_t line_no = 0;
    std::size_t at = 0;
    while (at < text.size()) {
      const std::size_t nl = text.find('\n', at);
      const std::string_view line = text.substr(at, nl - at);
      at = nl + 1;
      ++line_no;
      if (line.empty()) fail(line_no, "blank line", line);
      const auto enter = [&](const std::string& family) {
        if (family == current) return;
        if (finished.count(family)) fail(line_no, "family " + family + " is not contiguous", line);
        if (!current.empty()) finished.insert(current);
        current = family;
      };
      if (line.starts_with("# HELP ") || line.starts_with("# TYPE ")) {
        const bool help = line.starts_with("# HELP ");
        std::size_t pos = 7;
        const std::string name = read_name(line, pos, true);
        if (name.empty() || pos >= line.size() || line[pos] != ' ') {
          fail(line_no, "bad metadata line", line);
        }
        const std::string_view rest = line.substr(pos + 1);
        enter(name);
        if (help) {
          if (!helped.insert(name).second) fail(line_no, "second HELP", line);
          std::string unescaped;
          for (std::size_t i = 0; i < rest.size(); ++i) {
            if (rest[i] != '\\') {
              unescaped += rest[i];
              continue;
            }
            if (i + 1 >= rest.size()) fail(line_no, "dangling backslash in HELP", line);
            const char e = rest[++i];
            if (e == '\\') {
              unescaped += '\\';
            } else if (e == 'n') {
              unescaped += '\n';
            } else {
              fail(line_no, "bad escape in HELP", line);
            }
          }
          families_[name].help = unescaped;
        } else {
          if (!typed.insert(name).second) fail(line_no, "second TYPE", line);
          if (samples_of_.count(name)) fail(line_no, "TYPE after samples", line);
          const std::string type(rest);
          if (type != "counter" && type != "gauge" && type != "histogram") {
            fail(line_no, "unexpected type", line);
          }
          if (type == "counter" && !name.ends_with("_total")) {
            fail(line_no, "counter without _total", line);
          }
          families_[name].type = type;
        }
        continue;
      }
      if (line.starts_with("#")) fail(line_no, "unexpected comment", line);
      std::size_t pos = 0;
      const std::string name = read_name(line, pos, true);
      if (name.empty()) fail(line_no, "no metric name", line);
      Labels labels;
      if (pos < line.size() && line[pos] == '{') {
        ++pos;
        while (pos < line.size() && line[pos] != '}') {
          const std::string label = read_name(line, pos, false);
          if (label.empty() || label.starts_with("__")) fail(line_no, "bad label name", line);
          if (line.substr(pos, 2) != "=\"") fail(line_no, "label without =\"", line);
          pos += 2;
          std::string value;
          for (;;) {
            if (pos >= line.size()) fail(line_no, "unterminated label value", line);
            const char c = line[pos++];
            if (c == '"') break;
            if (c != '\\') {
              value += c;
              continue;
            }
            if (pos >= line.size()) fail(line_no, "dangling backslash", line);
            const char e = line[pos++];
            if (e == '\\') {
              value += '\\';
            } else if (e == '"') {
              value += '"';
            } else if (e == 'n') {
              value += '\n';
            } else {
              fail(line_no, "bad escape in label value", line);
            }
          }
          for (const auto& [n, v] : labels) {
            if (n == label) fail(line_no, "label given twice", line);
          }
          labels.emplace_back(label, value);
          if (pos < line.size() && line[pos] == ',') {
            ++pos;
            if (pos < line.size() && line[pos] == '}') fail(line_no, "trailing comma", line);
          } else if (pos >= line.size() || line[pos] != '}') {
            fail(line_no, "expected , or }", line);
          }
        }
        if (pos >= line.size()) fail(line_no, "unterminated labels", line);
        ++pos;  // '}'
      }
      if (pos >= line.size() || line[pos] != ' ') fail(line_no, "no space before the value", line);
      double value = 0;
      if (!parse_value(line.substr(pos + 1), value)) fail(line_no, "bad value", line);
      std::string suffix;
      const std::string family = family_of(name, suffix);
      if (family.empty() || !typed.count(family) || !helped.count(family)) {
        fail(line_no, "sample before its family's HELP and TYPE", line);
      }
      enter(family);
      samples_of_.insert(family);
      if (!samples_.emplace(key(name, labels), value).second) {
        fail(line_no, "series given twice", line);
      }
      if (families_.at(family).type == "counter" && !(value >= 0)) {
        fail(line_no, "negative counter", line);
      }
      if (families_.at(family).type != "histogram") continue;
      // The series without le.
      Labels base;
      std::string le;
      bool has_le = false;
      for (const auto& [n, v] : labels) {
        if (n == "le") {
          le = v;
          has_le = true;
        } else {
          base.emplace_back(n, v);
        }
      }
      HistogramSeries& h = histograms[key(family, base)];
      if (suffix == "_bucket") {
        double bound = 0;
        if (!has_le || !parse_value(le, bound)) fail(line_no, "bucket without a valid le", line);
        if (h.has_sum || h.has_count) fail(line_no, "bucket after _sum/_count", line);
        if (!h.buckets.empty()) {
          if (!(bound > h.buckets.back().first)) fail(line_no, "le not increasing", line);
          if (value < h.buckets.back().second) fail(line_no, "buckets not cumulative", line);
        }
        h.buckets.emplace_back(bound, value);
      } else if (has_le) {
        fail(line_no, "le on _sum/_count", line);
      } else if (suffix == "_sum") {
        h.has_sum = true;
      } else {
        h.has_count = true;
        h.count = value;
      }
    }
    for (const auto& [name, h] : histograms) {
      if (h.buckets.empty() || !std::isinf(h.buckets.back().first)) {
        throw std::runtime_error("histogram " + name + " has no +Inf bucket");
      }
      if (!h.has_sum || !h.has_count) {
        throw std::runtime_error("histogram " + name + " lacks _sum or _count");
      }
      if (h.count != h.buckets.back().second) {
        throw std::runtime_error("histogram " + name + ": _count differs from the +Inf bucket");
      }
    }
    for (const auto& [name, f] : families_) {
      if (f.type.empty() || !helped.count(name)) {
        throw std::runtime_error("family " + name + " lacks HELP or TYPE");
      }
    }
  }

  std::map<std::string, Family> families_;
  std::map<std::string, double> samples_;
  std::set<std::string> samples_of_;  // families with samples seen
};

}  // namespace sandbox::test
