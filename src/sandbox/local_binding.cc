#include "sandbox/local_binding.h"

namespace sandbox {
namespace {

class LocalBinding final : public Binding {
 public:
  LocalBinding(std::string name, std::unique_ptr<InterpreterRuntime> runtime)
      : Binding(std::move(name)), runtime_(std::move(runtime)) {}

  HttpResponse fetch(const std::string& method, const std::string& path,
                     const std::string& body) override {
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
    return runtime_->handle(std::move(request));
  }

  InterpreterExecuteResult execute_in_context(const std::string& key,
                                              const InterpreterExecuteArgs& args,
                                              const GetWorkspaceFiles& get_files) override {
    return runtime_->execute_in_context(key, args, get_files);
  }

  InterpreterRuntime* local_runtime() override { return runtime_.get(); }
  std::string location() const override { return "built-in"; }

 private:
  std::unique_ptr<InterpreterRuntime> runtime_;
};

}  // namespace

std::unique_ptr<Binding> make_local_binding(std::string name,
                                            std::unique_ptr<InterpreterRuntime> runtime) {
  return std::make_unique<LocalBinding>(std::move(name), std::move(runtime));
}

}  // namespace sandbox
