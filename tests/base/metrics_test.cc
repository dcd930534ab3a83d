// MetricsRegistry (include/sandbox/metrics.h): what it renders parses as the Prometheus text format
// (tests/support/prometheus_text.h), with the values that were recorded; labels and help are
// escaped; registration refuses malformed names, mismatched re-registration and more than
// kMaxMetricSeries series; callbacks are summed, and gone once their handle is.
#include <limits>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include <sandbox/metrics.h>

#include "support/prometheus_text.h"

namespace sandbox {
namespace {

using test::PrometheusText;

TEST(Metrics, CountersAndHistogramsRenderAsTheTextFormatWithTheirValues) {
  MetricsRegistry r;
  Counter& ok = r.counter("jobs_total", "Jobs run", {{"language", "lua"}, {"outcome", "ok"}});
  Counter& err = r.counter("jobs_total", "Jobs run", {{"language", "lua"}, {"outcome", "error"}});
  ok.add();
  ok.add(2);
  err.add();
  const double bounds[] = {0.001, 0.01, 0.1};
  Histogram& h = r.histogram("job_seconds", "Job time", bounds, {{"language", "lua"}});
  for (const double v : {0.0005, 0.001, 0.005, 0.05, 0.5, 7.0}) h.observe(v);

  const std::string text = r.render();
  const PrometheusText p = PrometheusText::parse(text);
  EXPECT_EQ(p.families().at("jobs_total").type, "counter");
  EXPECT_EQ(p.families().at("jobs_total").help, "Jobs run");
  EXPECT_EQ(p.families().at("job_seconds").type, "histogram");
  EXPECT_EQ(p.value("jobs_total", {{"language", "lua"}, {"outcome", "ok"}}), 3);
  EXPECT_EQ(p.value("jobs_total", {{"outcome", "error"}, {"language", "lua"}}), 1);
  // le is inclusive: 0.001 falls in the first bucket.
  EXPECT_EQ(p.value("job_seconds_bucket", {{"language", "lua"}, {"le", "0.001"}}), 2);
  EXPECT_EQ(p.value("job_seconds_bucket", {{"language", "lua"}, {"le", "0.01"}}), 3);
  EXPECT_EQ(p.value("job_seconds_bucket", {{"language", "lua"}, {"le", "0.1"}}), 4);
  EXPECT_EQ(p.value("job_seconds_bucket", {{"language", "lua"}, {"le", "+Inf"}}), 6);
  EXPECT_EQ(p.value("job_seconds_count", {{"language", "lua"}}), 6);
  EXPECT_NEAR(p.value("job_seconds_sum", {{"language", "lua"}}), 7.5565, 1e-9);
  // The exact lines of one family, in order.
  EXPECT_NE(text.find("# HELP job_seconds Job time\n# TYPE job_seconds histogram\n"
                      "job_seconds_bucket{language=\"lua\",le=\"0.001\"} 2\n"),
            std::string::npos)
      << text;
  // The same name and labels give the same counter.
  EXPECT_EQ(&r.counter("jobs_total", "Jobs run", {{"language", "lua"}, {"outcome", "ok"}}), &ok);
}

TEST(Metrics, LabelValuesAndHelpAreEscaped) {
  MetricsRegistry r;
  const std::string odd = "a\\b\"c\nd}e,f=g";
  r.counter("odd_total", "Help with a \\ backslash\nand a new line", {{"v", odd}}).add(5);
  const std::string text = r.render();
  EXPECT_NE(text.find(R"(odd_total{v="a\\b\"c\nd}e,f=g"} 5)"), std::string::npos) << text;
  EXPECT_NE(text.find(R"(# HELP odd_total Help with a \\ backslash\nand a new line)"),
            std::string::npos)
      << text;
  const PrometheusText p = PrometheusText::parse(text);
  EXPECT_EQ(p.value("odd_total", {{"v", odd}}), 5);
  EXPECT_EQ(p.families().at("odd_total").help, "Help with a \\ backslash\nand a new line");
}

TEST(Metrics, RegistrationRefusesWhatTheFormatOrTheFamilyForbids) {
  MetricsRegistry r;
  EXPECT_THROW(r.counter("jobs", "no _total"), std::invalid_argument);
  EXPECT_THROW(r.counter("9lives_total", "starts with a digit"), std::invalid_argument);
  EXPECT_THROW(r.counter("a-b_total", "a dash"), std::invalid_argument);
  EXPECT_THROW(r.counter("x_total", "h", {{"__reserved", "v"}}), std::invalid_argument);
  EXPECT_THROW(r.counter("x_total", "h", {{"le", "v"}}), std::invalid_argument);
  EXPECT_THROW(r.counter("x_total", "h", {{"a:b", "v"}}), std::invalid_argument);
  EXPECT_THROW(r.counter("x_total", "h", {{"a", "1"}, {"a", "2"}}), std::invalid_argument);
  const double bad[] = {0.1, 0.1};
  EXPECT_THROW(r.histogram("h_seconds", "h", bad), std::invalid_argument);
  r.counter("x_total", "h", {{"a", "1"}});
  // Another help, other label names, another type: refused.
  EXPECT_THROW(r.counter("x_total", "other help", {{"a", "2"}}), std::invalid_argument);
  EXPECT_THROW(r.counter("x_total", "h", {{"b", "2"}}), std::invalid_argument);
  EXPECT_THROW((void)r.gauge_callback("x_total", "h", {{"a", "3"}}, [] { return 1.0; }),
               std::invalid_argument);
  const double bounds[] = {1, 2};
  const double other[] = {1, 3};
  r.histogram("y_seconds", "h", bounds);
  EXPECT_THROW(r.histogram("y_seconds", "h", other), std::invalid_argument);
  // Nothing refused was left behind: the text still parses, with only what was registered.
  const PrometheusText p = PrometheusText::parse(r.render());
  EXPECT_EQ(p.families().size(), 2u);
}

TEST(Metrics, TheNumberOfSeriesIsBounded) {
  MetricsRegistry r;
  for (std::size_t i = 0; i < kMaxMetricSeries; ++i) {
    r.counter("many_total", "h", {{"i", std::to_string(i)}});
  }
  EXPECT_THROW(r.counter("many_total", "h", {{"i", "one more"}}), std::length_error);
  EXPECT_THROW(r.counter("another_total", "h"), std::length_error);
  // An existing series is still found.
  r.counter("many_total", "h", {{"i", "0"}}).add();
  const PrometheusText p = PrometheusText::parse(r.render());
  EXPECT_EQ(p.sample_count(), kMaxMetricSeries);
  EXPECT_FALSE(p.families().contains("another_total"));
}

TEST(Metrics, CallbacksAreReadAtRenderSummedAndGoneWithTheirHandle) {
  MetricsRegistry r;
  double a = 2, b = 3;
  auto ha = r.gauge_callback("queue_depth", "Queued", {{"pool", "x"}}, [&] { return a; });
  auto hb = r.gauge_callback("queue_depth", "Queued", {{"pool", "x"}}, [&] { return b; });
  auto hc = r.counter_callback("starts_total", "Starts", {}, [] { return 7.0; });
  auto hd = r.gauge_callback("broken", "Throws", {},
                             []() -> double { throw std::runtime_error("unreadable"); });
  PrometheusText p = PrometheusText::parse(r.render());
  EXPECT_EQ(p.value("queue_depth", {{"pool", "x"}}), 5);
  EXPECT_EQ(p.value("starts_total"), 7);
  EXPECT_EQ(p.value("broken"), 0);
  a = 10;
  hb.reset();
  p = PrometheusText::parse(r.render());
  EXPECT_EQ(p.value("queue_depth", {{"pool", "x"}}), 10);
  {
    // Moving a handle moves the registration.
    MetricsRegistry::Callback moved = std::move(ha);
  }
  hd.reset();
  const std::string text = r.render();
  EXPECT_EQ(text.find("queue_depth"), std::string::npos) << text;
  EXPECT_EQ(text.find("broken"), std::string::npos) << text;
  p = PrometheusText::parse(text);
  EXPECT_EQ(p.value("starts_total"), 7);
}

TEST(Metrics, ValuesAreWrittenAsTheFormatReadsThem) {
  EXPECT_EQ(format_metric_value(0), "0");
  EXPECT_EQ(format_metric_value(42), "42");
  EXPECT_EQ(format_metric_value(-3), "-3");
  EXPECT_EQ(format_metric_value(0.0001), "0.0001");
  EXPECT_EQ(format_metric_value(0.00025), "0.00025");
  EXPECT_EQ(format_metric_value(2.5), "2.5");
  EXPECT_EQ(format_metric_value(1e-9), "1e-09");
  EXPECT_EQ(format_metric_value(1.5e300), "1.5e+300");
  EXPECT_EQ(format_metric_value(std::numeric_limits<double>::infinity()), "+Inf");
  EXPECT_EQ(format_metric_value(-std::numeric_limits<double>::infinity()), "-Inf");
  EXPECT_EQ(format_metric_value(std::numeric_limits<double>::quiet_NaN()), "NaN");
}

TEST(Metrics, ConcurrentRecordsAreAllCounted) {
  MetricsRegistry r;
  Counter& c = r.counter("hits_total", "h");
  Histogram& h = r.histogram("lat_seconds", "h", kLatencyBucketsSeconds);
  constexpr int kThreads = 4;
  constexpr int kEach = 20'000;
  std::vector<std::thread> threads;
  threads.reserve(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kEach; ++i) {
        c.add();
        h.observe(0.002);
      }
    });
  }
  // Renders while the threads record: every text parses (buckets, +Inf and count agree).
  for (int i = 0; i < 50; ++i) ASSERT_NO_THROW(PrometheusText::parse(r.render()));
  for (auto& t : threads) t.join();
  const PrometheusText p = PrometheusText::parse(r.render());
  EXPECT_EQ(p.value("hits_total"), kThreads * kEach);
  EXPECT_EQ(p.value("lat_seconds_count"), kThreads * kEach);
  EXPECT_EQ(p.value("lat_seconds_bucket", {{"le", "0.001"}}), 0);
  EXPECT_EQ(p.value("lat_seconds_bucket", {{"le", "0.0025"}}), kThreads * kEach);
  EXPECT_NEAR(p.value("lat_seconds_sum"), 0.002 * kThreads * kEach, 1e-6);
}

}  // namespace
}  // namespace sandbox
