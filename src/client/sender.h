// Sender: how a client's requests reach sandboxd or a runtime: over HTTP to a URL (one
// keep-alive connection, streaming an execute when asked), or over a ClientTransport of the
// caller's (include/sandbox/client.h). Either way a failure to deliver is a SandboxError
// (INTERNAL_ERROR, http_status 0), and the answer comes back whole for the caller to decode.
//
// Thread-safety: one thread at a time, as HttpClient.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include <sandbox/client.h>
#include <sandbox/http.h>

#include "client/client_support.h"
#include "client/http_client.h"

namespace sandbox::client_detail {

class Sender {
 public:
  // Over HTTP to `base_url`; throws SandboxError (transport) for a URL that is not http://...
  static Sender http(const std::string& base_url, std::chrono::milliseconds timeout);
  // Over `transport`.
  static Sender over(ClientTransport transport);

  Sender(Sender&&) noexcept;
  Sender& operator=(Sender&&) noexcept;
  ~Sender();

  // One request (a POST carries JSON), its answer whole.
  HttpResponse send(const std::string& method, const std::string& path, const std::string& body,
                    const Headers& headers = {});
  // A POST to an execute route: streamed over HTTP when a callback is set (client.h, "Streaming
  // output"); over a transport sent as any request, the callbacks left to deliver_unstreamed().
  HttpResponse send_execute(const std::string& path, const std::string& body,
                            const Headers& headers,
                            const std::function<void(std::string_view)>& on_stdout_text,
                            const std::function<void(std::string_view)>& on_stderr_text);
  // The timeout of the next requests over HTTP (a transport keeps its own).
  void set_timeout(std::chrono::milliseconds timeout);
  // Whether send_execute() streams (HTTP) or the text callbacks wait for the answer.
  bool streams() const { return http_ != nullptr; }

 private:
  Sender() = default;
  std::unique_ptr<HttpClient> http_;
  ClientTransport transport_;
};

// What a streamed execute would have shown as it ran, for an answer that was not streamed: each
// line of `result`'s stdout and stderr, with its newline, to the callbacks that are set.
void deliver_unstreamed(const ExecutionResult& result,
                        const std::function<void(std::string_view)>& on_stdout_text,
                        const std::function<void(std::string_view)>& on_stderr_text);

}  // namespace sandbox::client_detail
