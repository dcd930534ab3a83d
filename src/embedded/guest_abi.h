// The byte formats of the embedded-interpreter ABI (engines/common/sandbox_guest.h): request
// records going in, the JSON envelope coming out, and the result limit.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <sandbox/embedded.h>

namespace sandbox::embedded {

// Largest reply the host reads from guest memory.
inline constexpr std::uint32_t kMaxReplyBytes = kMaxGuestReplyBytes;

// Records `tag:u8 len:u32le bytes`: 'c' code, then 'w' cwd (if non-empty), then one 'e'
// "NAME=VALUE" per env var.
std::vector<std::uint8_t> encode_request(std::string_view code, std::string_view cwd,
                                         const std::map<std::string, std::string>& env);

// parse_guest_reply() (<sandbox/embedded.h>).
[[nodiscard]] GuestReply parse_reply(std::uint32_t status, std::string_view bytes);

// The UTF-8 size of `results` serialized as the wire's results array.
std::size_t results_json_bytes(const std::vector<ResultEntry>& results);
// Throws ExecutionLimitError("Result limit exceeded") above kResultLimitBytes.
void check_result_limit(const std::vector<ResultEntry>& results);

}  // namespace sandbox::embedded
