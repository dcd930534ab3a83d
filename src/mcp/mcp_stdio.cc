#include "mcp/mcp_stdio.h"

namespace sandbox::mcp {

std::optional<std::string> read_bounded_line(std::istream& in, std::size_t max_bytes) {
  std::string line;
  std::streambuf* buf = in.rdbuf();
  for (;;) {
    const int c = buf->sbumpc();
    if (c == std::char_traits<char>::eof()) {
      in.setstate(std::ios::eofbit);
      if (line.empty()) return std::nullopt;
      return line;
    }
    if (c == '\n') return line;
    if (line.size() <= max_bytes) line.push_back(static_cast<char>(c));
  }
}

int serve_mcp_stdio(const McpServer& server, std::istream& in, std::ostream& out) {
  while (auto line = read_bounded_line(in, kMaxMcpMessageBytes)) {
    if (!line->empty() && line->back() == '\r') line->pop_back();
    if (line->find_first_not_of(" \t") == std::string::npos) continue;
    // An over-long line is one byte past the limit: handle() refuses it by its size.
    const McpReply reply = server.handle(*line);
    if (reply.body) out << *reply.body << '\n' << std::flush;
  }
  return 0;
}

}  // namespace sandbox::mcp
