// The runtime server's routes (docs/protocol.md#runtime-routes): dispatch order, the stateless
// execute path and the refusal of code-context routes for engines without sessions.
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <thread>

#include <boost/json/serialize.hpp>

#include <sandbox/clock.h>
#include <sandbox/isolation.h>
#include <sandbox/protocol.h>
#include <sandbox/runtime.h>

#include "base/mutex.h"
#include "base/thread_annotations.h"
#include "http/error_answers.h"
#include "http/event_stream.h"
#include "http/route_table.h"
#include "interpreter/engine_metrics.h"
#include "interpreter/over_store.h"
#include "protocol/execute_request.h"
#include "storage/sqlite/sqlite_stores.h"

namespace sandbox {
namespace {

// A runtime's routes (docs/protocol.md#runtime-routes). An interpreter key's own routes are
// InterpreterServer's; "/interpreters/{key}" alone is its route "/".
enum class RuntimeRoute { kProbe, kKeyRoot, kKey, kExecute };

const RouteTable<RuntimeRoute>& runtime_routes() {
  static const RouteTable<RuntimeRoute> routes{
      {"*", "/interpreter", RuntimeRoute::kProbe},
      {"*", "/interpreters/{key}", RuntimeRoute::kKeyRoot},
      {"*", "/interpreters/{key}{rest...}", RuntimeRoute::kKey},
      {"POST", "/execute", RuntimeRoute::kExecute},
  };
  return routes;
}

// The path below /interpreters/{key} of a kKeyRoot or kKey match.
std::string key_path(const RouteTable<RuntimeRoute>::Match& match) {
  return match.id == RuntimeRoute::kKeyRoot ? std::string("/") : match.param(1);
}

// What the runtime routes answer for an unknown path and for /execute with another method: plain
// text, as docs/protocol.md#runtime-routes says.
HttpResponse route_refusal(const RouteTable<RuntimeRoute>::Match& match) {
  return match.outcome == RouteTable<RuntimeRoute>::Match::Outcome::kWrongMethod
             ? HttpResponse::text(405, "Method not allowed")
             : HttpResponse::text(404, "Not found");
}

// Runs InterpreterServer::run_due_alarms() when the earliest deadline comes (at least once a
// minute, in case another process armed one). The server reports every deadline it arms
// (InterpreterServerOptions::on_alarm_armed): one earlier than the deadline the thread sleeps
// toward wakes it, so a short INTERPRETER_IDLE_TTL_MS is honoured on time, not up to
// kMaxExpirySleepMs late.
class ExpiryThread {
 public:
  static constexpr std::int64_t kMaxExpirySleepMs = 60'000;

  explicit ExpiryThread(const Clock& clock) : clock_(clock) {}
  ~ExpiryThread() {
    {
      MutexLock lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
  }

  // Starts the thread; `server` must outlive this object.
  void start(InterpreterServer& server) {
    thread_ = std::thread([this, &server] { loop(server); });
  }

  // A deadline was armed: wake the thread if it sleeps toward a later one (or is computing).
  void armed(std::int64_t deadline_ms) {
    {
      MutexLock lock(mu_);
      if (earliest_armed_ && *earliest_armed_ <= deadline_ms) return;
      earliest_armed_ = deadline_ms;
    }
    cv_.notify_all();
  }

 private:
  void loop(InterpreterServer& server) {
    MutexLock lock(mu_);
    while (!stop_) {
      // Deadlines armed from here on are reported again through armed(); those armed before
      // are in next_alarm().
      earliest_armed_.reset();
      lock.unlock();
      std::int64_t target = clock_.now_ms() + kMaxExpirySleepMs;
      try {
        if (const auto next = server.next_alarm()) target = std::min(target, *next);
      } catch (const std::exception&) {
      }
      lock.lock();
      const std::int64_t wait_ms =
          std::clamp<std::int64_t>(target - clock_.now_ms(), 0, kMaxExpirySleepMs);
      // As cv_.wait_for(lock, wait_ms, woken), written out so that the analysis sees the
      // guarded reads under the lock.
      const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(wait_ms);
      bool woke = woken(target);
      while (!woke) {
        const bool timed_out = lock.wait_until(cv_, until) == std::cv_status::timeout;
        woke = woken(target);
        if (timed_out) break;
      }
      if (woke) {
        if (stop_) break;
        continue;  // an earlier deadline: sleep toward it instead
      }
      lock.unlock();
      try {
        server.run_due_alarms();
      } catch (const std::exception&) {
      }
      lock.lock();
    }
  }

  // Stopping, or a deadline armed before `target`, the one the thread sleeps toward.
  bool woken(std::int64_t target) const SANDBOX_REQUIRES(mu_) {
    return stop_ || (earliest_armed_ && *earliest_armed_ < target);
  }

  const Clock& clock_;
  Mutex mu_;
  std::condition_variable cv_;
  bool stop_ SANDBOX_GUARDED_BY(mu_) = false;
  std::optional<std::int64_t> earliest_armed_ SANDBOX_GUARDED_BY(mu_);
  std::thread thread_;
};

class Runtime final : public InterpreterRuntime {
 public:
  // `owned` is set when the runtime opened its own database; `store` points into it or at the
  // caller's store.
  Runtime(Engine engine, std::unique_ptr<SqliteStorage> owned, InterpreterStore* store,
          const RuntimeOptions& options)
      : engine_(std::move(engine)),
        clock_(options.clock ? options.clock : &system_clock_),
        owned_storage_(std::move(owned)),
        metrics_(EngineMetrics::make(options.metrics, engine_.language, false)) {
    if (engine_.sessions && store) {
      InterpreterServerOptions server_options;
      server_options.idle_ttl_ms = options.idle_ttl_ms >= 0
                                       ? options.idle_ttl_ms
                                       : parse_idle_ttl(std::getenv("INTERPRETER_IDLE_TTL_MS"));
      server_options.max_resident_instances = options.max_resident_instances;
      server_options.metrics = options.metrics;
      if (options.background_expiry) {
        expiry_ = std::make_unique<ExpiryThread>(*clock_);
        server_options.on_alarm_armed = [expiry = expiry_.get()](std::int64_t deadline_ms) {
          expiry->armed(deadline_ms);
        };
      }
      interpreter_ = make_interpreter_server(engine_, *store, *clock_, server_options);
      if (expiry_) expiry_->start(*interpreter_);
    }
  }

  ~Runtime() override {
    expiry_.reset();
    interpreter_.reset();
  }

  const Engine& engine() const override { return engine_; }
  bool contexts() const override { return interpreter_ != nullptr; }
  InterpreterServer* interpreter() override { return interpreter_.get(); }

  HeadDecision on_head(const HttpRequest& head) override {
    HeadDecision d;
    d.body_limit = kMaxRequestBytes;
    d.too_large = error_json(
        ApiError(ErrorKind::kRequestTooLarge, "Request too large").to_response(clock_->now_ms()));
    const auto route = runtime_routes().match(head.method, head.path());
    if (!route.found()) {
      d.early_response = route_refusal(route);
      return d;
    }
    if (route.id == RuntimeRoute::kProbe) return d;
    if (route.id != RuntimeRoute::kExecute) {
      const std::string& key = route.param(0);
      const std::string rest = key_path(route);
      if (rest == "/execute") d.body_limit = kMaxSyncRequestBytes;
      // Admission (include/sandbox/http.h): calls on one key run one at a time anyway, so those
      // waiting for a busy key wait without a worker thread; executions run guest code.
      d.serial_key = "interpreter key '" + key + "'";
      d.long_running = rest == "/execute";
      d.may_stream = rest == "/execute" && accepts_event_stream(head);
      if (const auto n = head.content_length(); n && *n > d.body_limit) {
        d.early_response = d.too_large;
      }
      return d;
    }
    if (!is_json_content_type(head.header("content-type").value_or(""))) {
      d.early_response = error_json(
          ApiError(ErrorKind::kUnsupportedMediaType, "Content-Type must be application/json")
              .to_response(clock_->now_ms()));
      return d;
    }
    if (const auto n = head.content_length(); n && *n > kMaxRequestBytes) {
      d.early_response = d.too_large;
    }
    d.long_running = true;
    d.may_stream = accepts_event_stream(head);
    return d;
  }

  HttpResponse handle(HttpRequest request) override {
    // Streaming (docs/protocol.md#streaming-output): only the execute routes are offered a
    // stream (on_head's may_stream); everything else answers as usual.
    EventStreamWriter events(request.stream);
    try {
      const auto route = runtime_routes().match(request.method, request.path());
      if (!route.found()) return route_refusal(route);
      if (route.id == RuntimeRoute::kProbe) return probe();
      if (route.id != RuntimeRoute::kExecute) {
        const std::string& key = route.param(0);
        check_context_call(key);
        return events.finish(interpreter_->handle(key, request.method, key_path(route),
                                                  request.body, events.observer()));
      }
      ExecutionRequest exec = parse_execute_request(request.body, engine_.language);
      exec.on_output = events.observer();
      return events.finish(HttpResponse::json(200, boost::json::serialize(to_json(execute(exec)))));
    } catch (const std::exception& e) {
      return events.finish(error_json(error_response_for(e, clock_->now_ms())));
    }
  }

  InterpreterExecuteResult execute_in_context(const std::string& key,
                                              const InterpreterExecuteArgs& args,
                                              const GetWorkspaceFiles& get_files) override {
    try {
      check_context_call(key);
    } catch (const std::exception& e) {
      const ErrorResponse body = error_response_for(e, clock_->now_ms());
      return InterpreterCallError{body.http_status, body};
    }
    return interpreter_->execute_in_context(key, args, get_files);
  }

 private:
  // docs/protocol.md#interpreter-routes K1-K3: the key, then session support.
  void check_context_call(const std::string& key) const {
    if (!valid_interpreter_key(key))
      throw ApiError(ErrorKind::kBadRequest, "Invalid interpreter key");
    if (!engine_.sessions) {
      throw ApiError(ErrorKind::kBadRequest,
                     "Code contexts are not supported for " + engine_.language);
    }
    if (!interpreter_) {
      throw ApiError(ErrorKind::kBadRequest,
                     "Code contexts are not supported: this runtime has no context storage");
    }
  }

  HttpResponse probe() const {
    const boost::json::object o{{"language", engine_.language},
                                {"engine", engine_.engine_name},
                                {"contexts", contexts()},
                                {"protocol", kInterpreterProtocolVersion}};
    return HttpResponse::json(200, boost::json::serialize(o));
  }

  ExecutionResult execute(const ExecutionRequest& request) const {
    ExecutionResult result;
    result.code = request.code;
    result.language = engine_.language;
    result.engine = engine_.engine_name;
    const auto start = std::chrono::steady_clock::now();
    try {
      result.outcome = engine_.run(request);
    } catch (const WorkerLostError&) {
      // not the guest's outcome: a retryable error (docs/errors.md)
      metrics_.count(EngineMetrics::Kind::kStateless, EngineMetrics::Outcome::kFailed);
      throw;
    } catch (const std::exception& e) {
      result.outcome = engine_error_outcome(e);
    }
    result.duration_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    metrics_.stateless_ms(result.duration_ms);
    metrics_.count(EngineMetrics::Kind::kStateless, EngineMetrics::outcome_of(result.outcome));
    return result;
  }

  Engine engine_;
  SystemClock system_clock_;
  const Clock* clock_;
  std::unique_ptr<SqliteStorage> owned_storage_;
  EngineMetrics metrics_;  // stateless executions
  std::unique_ptr<InterpreterServer> interpreter_;
  std::unique_ptr<ExpiryThread> expiry_;
};

void check_engine(const Engine& engine) {
  if (engine.language.empty()) throw std::invalid_argument("engine.language must not be empty");
  if (engine.engine_name.empty())
    throw std::invalid_argument("engine.engine_name must not be empty");
  if (engine.build.empty()) throw std::invalid_argument("engine.build must not be empty");
  if (!engine.run) throw std::invalid_argument("engine.run must be set");
  if (engine.sessions && (!engine.sessions->boot || !engine.sessions->restore)) {
    throw std::invalid_argument("engine.sessions needs both boot and restore");
  }
}

}  // namespace

void InterpreterRuntime::serve(const ServeOptions& options,
                               const std::function<void(std::uint16_t)>& on_listening) {
  HttpServer server(*this, options);
  if (on_listening) on_listening(server.port());
  server.run();
}

std::unique_ptr<InterpreterRuntime> define_interpreter_runtime(Engine engine,
                                                               const RuntimeOptions& options) {
  check_engine(engine);
  std::unique_ptr<SqliteStorage> storage;
  if (engine.sessions) {
    std::string path = ":memory:";
    if (!options.data_dir.empty()) {
      std::error_code ec;
      std::filesystem::create_directories(options.data_dir, ec);
      if (ec) {
        throw std::runtime_error("cannot create data directory " + options.data_dir + ": " +
                                 ec.message());
      }
      path = (std::filesystem::path(options.data_dir) / "interpreters.db").string();
    }
    storage = std::make_unique<SqliteStorage>(path);
  }
  InterpreterStore* store = storage ? &storage->interpreters() : nullptr;
  return std::make_unique<Runtime>(std::move(engine), std::move(storage), store, options);
}

std::unique_ptr<InterpreterRuntime> define_interpreter_runtime(Engine engine,
                                                               InterpreterStore& store,
                                                               const RuntimeOptions& options) {
  check_engine(engine);
  return std::make_unique<Runtime>(std::move(engine), nullptr, &store, options);
}

}  // namespace sandbox
