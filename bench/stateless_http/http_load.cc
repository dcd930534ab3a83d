// http-load: a closed-loop HTTP load generator for the benchmarks. N connections, each sending
// one request after another for a fixed time (or a fixed number of requests); prints requests/s
// and latency percentiles.
//
//   http-load --url http://127.0.0.1:8080 --path /execute --body '{"code":"1+1"}' -c 8 -d 5
//   http-load --url ... --path '/interpreters/k{conn}/execute' --body ... -c 16 -n 50
//
// In --path and --body, `{conn}` is replaced by the connection's index (0..c-1) and `{seq}` by
// the request's index on its connection (0, 1, ...): one key per connection, or one key per
// request (bench/run restores a different context with each request this way).
// A non-2xx answer is an error; so is, with --expect TEXT, one whose body lacks TEXT (a guest
// error is a 200).
//
// With --url given more than once, each connection sends its requests to the servers in turn,
// --turn at a time (request `seq` to server `seq / turn % servers`), and a line is printed per
// server in --url order. Two
// servers measured this way see the machine in the same state, request by request, so a drift of
// the host's speed between two separate runs does not show as a difference between them
// (docs/benchmarks.md).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>

#include "client/http_client.h"

namespace {

// `text` with every `{conn}` and `{seq}` replaced.
std::string expand(std::string text, int conn, long seq) {
  for (const auto& [name, value] :
       {std::pair<std::string, std::string>{"{conn}", std::to_string(conn)},
        std::pair<std::string, std::string>{"{seq}", std::to_string(seq)}}) {
    for (std::size_t at = text.find(name); at != std::string::npos;
         at = text.find(name, at + value.size())) {
      text.replace(at, name.size(), value);
    }
  }
  return text;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"http-load: measure requests/s and latency of one HTTP request"};
  std::vector<std::string> urls;
  std::string path = "/", method = "GET", body, label, expect;
  int connections = 1;
  double duration = 5;
  long requests = 0;
  long turn = 1;
  app.add_option("--url", urls,
                 "Server base URL; given more than once, each connection sends its requests to "
                 "the servers in turn and a line is printed per server")
      ->required();
  app.add_option("--path", path, "Request path ({conn}, {seq} are replaced)");
  app.add_option("--method", method, "GET or POST");
  app.add_option("--body", body, "JSON body (POST; {conn}, {seq} are replaced)");
  app.add_option("-c,--connections", connections, "Concurrent connections")
      ->check(CLI::Range(1, 1024));
  app.add_option("-d,--duration", duration, "Seconds to run (unless -n)");
  app.add_option("-n,--requests", requests,
                 "Requests per connection (and per server), instead of a duration")
      ->check(CLI::Range(1L, 10'000'000L));
  app.add_option("--turn", turn, "With several --url: requests sent to a server before the next")
      ->check(CLI::Range(1L, 1'000'000L));
  app.add_option("--expect", expect, "Text every answer's body must contain");
  app.add_option("--label", label, "Label printed in front of the numbers");
  CLI11_PARSE(app, argc, argv);

  using clock = std::chrono::steady_clock;
  std::atomic<bool> stop{false};
  std::atomic<long> errors{0};
  std::atomic<bool> reported{false};
  const std::size_t servers = urls.size();
  // Requests of one connection before it comes back to the first server.
  const long round = turn * static_cast<long>(servers);
  // latencies[server][connection], in microseconds.
  std::vector<std::vector<std::vector<double>>> latencies(
      servers, std::vector<std::vector<double>>(connections));
  std::vector<std::thread> threads;
  const auto start = clock::now();
  for (int i = 0; i < connections; ++i) {
    threads.emplace_back([&, i] {
      try {
        std::vector<std::unique_ptr<sandbox::HttpClient>> clients;
        clients.reserve(servers);
        for (const auto& url : urls) clients.push_back(std::make_unique<sandbox::HttpClient>(url));
        // With -n, whole rounds until every server had its requests (a turn longer than what
        // is left of a server's requests ends early), so each server gets exactly -n.
        const long last = requests > 0 ? (requests + turn - 1) / turn * round : 0;
        for (long seq = 0; requests > 0 ? seq < last : !stop.load(std::memory_order_relaxed);
             ++seq) {
          const std::size_t server = static_cast<std::size_t>(seq % round / turn);
          auto& client = *clients[server];
          // Each server sees the same {seq}s as it would alone: 0, 1, 2, ...
          const long server_seq = seq / round * turn + seq % turn;
          if (requests > 0 && server_seq >= requests) continue;
          const std::string p = expand(path, i, server_seq);
          const std::string b = method == "POST" ? expand(body, i, server_seq) : std::string();
          const auto t0 = clock::now();
          const auto r = method == "POST" ? client.post_json(p, b) : client.request(method, p);
          const auto t1 = clock::now();
          if (r.status / 100 != 2 || r.body.find(expect) == std::string::npos) {
            ++errors;
            if (!reported.exchange(true)) {  // the first failure says why; the rest are counted
              std::cerr << "http-load: " << method << " " << p << ": " << r.status << " "
                        << r.body.substr(0, 300) << "\n";
            }
          }
          latencies[server][i].push_back(
              std::chrono::duration<double, std::micro>(t1 - t0).count());
        }
      } catch (const std::exception& e) {
        ++errors;
        std::cerr << "http-load: " << e.what() << "\n";
      }
    });
  }
  if (requests == 0) {
    std::this_thread::sleep_for(std::chrono::duration<double>(duration));
    stop = true;
  }
  for (auto& t : threads) t.join();
  const double elapsed = std::chrono::duration<double>(clock::now() - start).count();
  for (const auto& of_server : latencies) {
    std::vector<double> all;
    for (const auto& l : of_server) all.insert(all.end(), l.begin(), l.end());
    std::sort(all.begin(), all.end());
    const auto pct = [&](double p) {
      return all.empty() ? 0.0
                         : all[std::min(all.size() - 1, static_cast<std::size_t>(p * all.size()))];
    };
    std::printf("%-28s conns=%-4d req/s=%-10.0f p50=%8.1fus p99=%8.1fus errors=%ld n=%zu\n",
                label.c_str(), connections, static_cast<double>(all.size()) / elapsed, pct(0.50),
                pct(0.99), errors.load(), all.size());
  }
  return errors.load() == 0 ? 0 : 1;
}
