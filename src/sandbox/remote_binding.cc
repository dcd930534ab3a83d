#include "sandbox/remote_binding.h"

#include <mutex>
#include <set>
#include <unordered_map>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <sandbox/clock.h>
#include <sandbox/protocol.h>

#include "base/url_codec.h"
#include "client/execute_stream_reader.h"
#include "client/http_client.h"
#include "interpreter/execute_args.h"
#include "sandbox/execute_response_json.h"

namespace sandbox {
namespace {

class RemoteBinding final : public Binding {
 public:
  RemoteBinding(std::string name, RemoteBindingOptions options)
      : Binding(std::move(name)), options_(std::move(options)) {
    // Validates the URL now rather than at the first call.
    HttpClient probe(options_.url, options_.timeout);
  }

  HttpResponse fetch(const std::string& method, const std::string& path,
                     const std::string& body) override {
    return send(method, path, body);
  }

  HttpResponse fetch_execute(const std::string& path, const std::string& body,
                             const OutputObserver& on_output) override {
    return send("POST", path, body, on_output);
  }

  InterpreterExecuteResult execute_in_context(const std::string& key,
                                              const InterpreterExecuteArgs& args,
                                              const GetWorkspaceFiles& get_files) override {
    const std::string path = "/interpreters/" + url_encode(key) + "/execute";
    FileHashes known;
    {
      std::lock_guard lock(mu_);
      if (const auto it = known_.find(key); it != known_.end()) known = it->second;
    }
    std::vector<std::string> to_send;
    for (const auto& [p, hash] : args.workspace.manifest) {
      const auto it = known.find(p);
      if (it == known.end() || it->second != hash) to_send.push_back(p);
    }
    std::vector<WorkspaceFileEntry> files;
    std::set<std::string> sent;
    const auto add_files = [&](const std::vector<std::string>& paths) {
      if (paths.empty() || !get_files) return;
      for (auto& f : get_files(paths)) {
        if (sent.insert(f.path).second) files.push_back(std::move(f));
      }
    };
    add_files(to_send);

    for (int attempt = 0; attempt < 2; ++attempt) {
      const HttpResponse response =
          send("POST", path, boost::json::serialize(to_json(args, files)), args.on_output);
      boost::system::error_code ec;
      const boost::json::value body = boost::json::parse(response.body, ec);
      if (response.status < 200 || response.status >= 300) {
        forget(key);
        std::optional<ErrorResponse> error;
        if (!ec) error = error_response_from_json(body);
        if (!error) {
          throw BindingError("HTTP " + std::to_string(response.status) + " from " + options_.url +
                             path);
        }
        error->http_status = response.status;
        return InterpreterCallError{response.status, std::move(*error)};
      }
      if (ec || !body.is_object()) throw BindingError("the execute response is not JSON");
      const auto& o = body.get_object();
      if (const auto* resync = o.if_contains("resync");
          resync && resync->is_bool() && resync->get_bool()) {
        std::vector<std::string> missing;
        if (const auto* m = o.if_contains("missing"); m && m->is_array()) {
          for (const auto& p : m->get_array()) {
            if (p.is_string()) missing.emplace_back(p.get_string());
          }
        }
        if (attempt == 1) break;
        add_files(missing);
        continue;
      }
      InterpreterExecuteResponse result = execute_response_from_json(o);
      remember(key, args, result);
      return result;
    }
    forget(key);
    const ErrorResponse error =
        ApiError(ErrorKind::kInternal,
                 "Binding '" + name() + "' asked for a second workspace resync")
            .to_response(SystemClock().now_ms());
    return InterpreterCallError{error.http_status, error};
  }

  void forget(const std::string& key) override {
    std::lock_guard lock(mu_);
    known_.erase(key);
  }

  std::string location() const override { return options_.url; }

 private:
  // The mirror now holds the manifest that was sent, changed by the guest's diff.
  void remember(const std::string& key, const InterpreterExecuteArgs& args,
                const InterpreterExecuteResponse& result) {
    FileHashes held = args.workspace.manifest;
    for (const auto& f : result.files) held[f.path] = content_hash(f.data);
    for (const auto& d : result.deleted) held.erase(d);
    std::lock_guard lock(mu_);
    known_[key] = std::move(held);
  }

  // One request on a pooled connection. With `on_output` (a POST to an execute route) the
  // runtime is asked for an event stream, relayed to `on_output` as it arrives.
  HttpResponse send(const std::string& method, const std::string& path, const std::string& body,
                    const OutputObserver& on_output = {}) {
    std::unique_ptr<HttpClient> client;
    {
      std::lock_guard lock(mu_);
      if (!idle_.empty()) {
        client = std::move(idle_.back());
        idle_.pop_back();
      }
    }
    if (!client) client = std::make_unique<HttpClient>(options_.url, options_.timeout);
    std::vector<std::pair<std::string, std::string>> headers;
    if (!options_.bearer_token.empty()) {
      headers.emplace_back("authorization", "Bearer " + options_.bearer_token);
    }
    HttpResponse response;
    try {
      if (on_output) {
        response = request_execute_stream(*client, path, body, headers, on_output);
      } else {
        response = method == "POST" ? client->post_json(path, body, headers)
                                    : client->request(method, path, body, headers);
      }
    } catch (const std::exception& e) {
      throw BindingError(e.what());
    }
    std::lock_guard lock(mu_);
    if (idle_.size() < kMaxIdleConnections) idle_.push_back(std::move(client));
    return response;
  }

  static constexpr std::size_t kMaxIdleConnections = 8;

  RemoteBindingOptions options_;
  std::mutex mu_;
  std::unordered_map<std::string, FileHashes> known_;
  std::vector<std::unique_ptr<HttpClient>> idle_;
};

}  // namespace

std::unique_ptr<Binding> make_remote_binding(std::string name, RemoteBindingOptions options) {
  return std::make_unique<RemoteBinding>(std::move(name), std::move(options));
}

}  // namespace sandbox
