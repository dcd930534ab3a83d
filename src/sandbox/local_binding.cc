#include "sandbox/local_binding.h"

#include "client/execute_stream_reader.h"

namespace sandbox {
namespace {

class LocalBinding final : public Binding {
 public:
  LocalBinding(std::string name, std::unique_ptr<InterpreterRuntime> runtime)
      : Binding(std::move(name)), runtime_(std::move(runtime)) {}

  HttpResponse fetch(const std::string& method, const std::string& path,
                     const std::string& body) override {
    return fetch_streamed(method, path, body, nullptr);
  }

  // The runtime streams into an in-process ResponseStream whose bytes are read back as a
  // caller would (ExecuteStreamReader): one path for local and remote runtimes.
  HttpResponse fetch_execute(const std::string& path, const std::string& body,
                             const OutputObserver& on_output) override {
    if (!on_output) return fetch("POST", path, body);
    ReadBackStream stream(on_output);
    HttpResponse response = fetch_streamed("POST", path, body, &stream);
    if (!stream.is_open()) return response;
    try {
      stream.write(std::move(response.body));
      return stream.reader.response();
    } catch (const EventStreamError& e) {
      throw BindingError(std::string("the runtime's event stream: ") + e.what());
    }
  }

  InterpreterExecuteResult execute_in_context(const std::string& key,
                                              const InterpreterExecuteArgs& args,
                                              const GetWorkspaceFiles& get_files) override {
    return runtime_->execute_in_context(key, args, get_files);
  }

  InterpreterRuntime* local_runtime() override { return runtime_.get(); }
  std::string location() const override { return "built-in"; }

 private:
  class ReadBackStream final : public ResponseStream {
   public:
    explicit ReadBackStream(const OutputObserver& on_output) : reader(on_output) {}
    void open(int, std::vector<std::pair<std::string, std::string>>) override { open_ = true; }
    bool is_open() const override { return open_; }
    bool write(std::string data) override {
      reader.feed(data);
      return true;
    }
    ExecuteStreamReader reader;

   private:
    bool open_ = false;
  };

  HttpResponse fetch_streamed(const std::string& method, const std::string& path,
                              const std::string& body, ResponseStream* stream) {
    HttpRequest request;
    request.method = method;
    request.target = path;
    if (method == "POST") request.headers.emplace_back("content-type", "application/json");
    request.headers.emplace_back("content-length", std::to_string(body.size()));
    // The same two steps an HTTP server takes: the head (content type, size caps), the body.
    HeadDecision head = runtime_->on_head(request);
    if (head.early_response) return std::move(*head.early_response);
    if (body.size() > head.body_limit) {
      return head.too_large ? *head.too_large : HttpResponse::text(413, "Request too large");
    }
    request.body = body;
    request.stream = stream;
    return runtime_->handle(std::move(request));
  }

  std::unique_ptr<InterpreterRuntime> runtime_;
};

}  // namespace

std::unique_ptr<Binding> make_local_binding(std::string name,
                                            std::unique_ptr<InterpreterRuntime> runtime) {
  return std::make_unique<LocalBinding>(std::move(name), std::move(runtime));
}

}  // namespace sandbox
