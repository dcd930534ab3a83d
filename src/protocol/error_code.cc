#include <sandbox/protocol.h>

#include <array>

namespace sandbox {
namespace {

struct ErrorCodeInfo {
  ErrorCode code;
  std::string_view name;
  int status;
};

constexpr std::array kErrorCodes = {
#define SANDBOX_ERROR_CODE_INFO(name, wire, status) ErrorCodeInfo{ErrorCode::name, wire, status},
    SANDBOX_ERROR_CODES(SANDBOX_ERROR_CODE_INFO)
#undef SANDBOX_ERROR_CODE_INFO
};

const ErrorCodeInfo& info(ErrorCode code) { return kErrorCodes[static_cast<std::size_t>(code)]; }

}  // namespace

std::string_view error_code_name(ErrorCode code) { return info(code).name; }

int error_code_status(ErrorCode code) { return info(code).status; }

std::optional<ErrorCode> parse_error_code(std::string_view name) {
  for (const auto& i : kErrorCodes) {
    if (i.name == name) return i.code;
  }
  return std::nullopt;
}

ErrorCode error_code_for_errno(Errno e) {
  switch (e) {
    case Errno::kENOENT: return ErrorCode::kFileNotFound;
    case Errno::kEEXIST: return ErrorCode::kFileExists;
    case Errno::kEACCES: return ErrorCode::kPermissionDenied;
    case Errno::kEISDIR: return ErrorCode::kIsDirectory;
    case Errno::kENOTDIR: return ErrorCode::kNotDirectory;
    case Errno::kEFBIG: return ErrorCode::kFileTooLarge;
    case Errno::kENOSPC: return ErrorCode::kNoSpace;
    case Errno::kENOTEMPTY:
    case Errno::kEINVAL: return ErrorCode::kFilesystemError;
    // A path past the limits of <sandbox/workspace.h> is a bad request, not a server fault.
    case Errno::kENAMETOOLONG: return ErrorCode::kValidationFailed;
  }
  return ErrorCode::kFilesystemError;
}

}  // namespace sandbox
