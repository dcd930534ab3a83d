#include <array>

#include <sandbox/protocol.h>

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

ErrorKind error_kind_for_errno(Errno e) {
  switch (e) {
    case Errno::kENOENT:
      return ErrorKind::kFileNotFound;
    case Errno::kEEXIST:
      return ErrorKind::kFileExists;
    case Errno::kEACCES:
      return ErrorKind::kPermissionDenied;
    case Errno::kEISDIR:
      return ErrorKind::kIsDirectory;
    case Errno::kENOTDIR:
      return ErrorKind::kNotDirectory;
    case Errno::kEFBIG:
      return ErrorKind::kFileTooLarge;
    case Errno::kENOSPC:
      return ErrorKind::kWorkspaceFull;
    case Errno::kENOTEMPTY:
    case Errno::kEINVAL:
      return ErrorKind::kFilesystemError;
    // A path past the limits of <sandbox/workspace.h> is a bad request, not a server fault.
    case Errno::kENAMETOOLONG:
      return ErrorKind::kBadRequest;
  }
  return ErrorKind::kFilesystemError;
}

ErrorCode error_code_for_errno(Errno e) { return error_kind_code(error_kind_for_errno(e)); }

}  // namespace sandbox
