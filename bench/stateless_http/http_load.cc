// http-load: a closed-loop HTTP load generator for the benchmarks. N connections, each sending
// one request after another for a fixed time; prints requests/s and latency percentiles.
//
//   http-load --url http://127.0.0.1:8080 --path /execute --body '{"code":"1+1"}' -c 8 -d 5
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>

#include "client/http_client.h"

int main(int argc, char** argv) {
  CLI::App app{"http-load: measure requests/s and latency of one HTTP request"};
  std::string url, path = "/", method = "GET", body, label;
  int connections = 1;
  double duration = 5;
  app.add_option("--url", url, "Server base URL")->required();
  app.add_option("--path", path, "Request path");
  app.add_option("--method", method, "GET or POST");
  app.add_option("--body", body, "JSON body (POST)");
  app.add_option("-c,--connections", connections, "Concurrent connections")
      ->check(CLI::Range(1, 1024));
  app.add_option("-d,--duration", duration, "Seconds to run");
  app.add_option("--label", label, "Label printed in front of the numbers");
  CLI11_PARSE(app, argc, argv);

  using clock = std::chrono::steady_clock;
  std::atomic<bool> stop{false};
  std::atomic<long> errors{0};
  std::vector<std::vector<double>> latencies(connections);
  std::vector<std::thread> threads;
  const auto start = clock::now();
  for (int i = 0; i < connections; ++i) {
    threads.emplace_back([&, i] {
      try {
        sandbox::HttpClient client(url);
        while (!stop.load(std::memory_order_relaxed)) {
          const auto t0 = clock::now();
          const auto r =
              method == "POST" ? client.post_json(path, body) : client.request(method, path);
          const auto t1 = clock::now();
          if (r.status != 200) ++errors;
          latencies[i].push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
        }
      } catch (const std::exception& e) {
        ++errors;
        std::cerr << "http-load: " << e.what() << "\n";
      }
    });
  }
  std::this_thread::sleep_for(std::chrono::duration<double>(duration));
  stop = true;
  for (auto& t : threads) t.join();
  const double elapsed = std::chrono::duration<double>(clock::now() - start).count();
  std::vector<double> all;
  for (auto& l : latencies) all.insert(all.end(), l.begin(), l.end());
  std::sort(all.begin(), all.end());
  const auto pct = [&](double p) {
    return all.empty() ? 0.0
                       : all[std::min(all.size() - 1, static_cast<std::size_t>(p * all.size()))];
  };
  std::printf("%-28s conns=%-4d req/s=%-10.0f p50=%8.1fus p99=%8.1fus errors=%ld\n", label.c_str(),
              connections, all.size() / elapsed, pct(0.50), pct(0.99), errors.load());
  return errors.load() == 0 ? 0 : 1;
}
