// WASI preview1 numbers and layouts the host writes into guest memory (wasi-libc's
// wasi/api.h, snapshot 1).
#pragma once

#include <cstdint>

namespace sandbox::wasi {

// errno
inline constexpr std::uint32_t kSuccess = 0;
inline constexpr std::uint32_t kEAcces = 2;
inline constexpr std::uint32_t kEBadf = 8;
inline constexpr std::uint32_t kEBusy = 10;
inline constexpr std::uint32_t kEExist = 20;
inline constexpr std::uint32_t kEFault = 21;
inline constexpr std::uint32_t kEFbig = 22;
inline constexpr std::uint32_t kEIlseq = 25;
inline constexpr std::uint32_t kEInval = 28;
inline constexpr std::uint32_t kEIo = 29;
inline constexpr std::uint32_t kEIsdir = 31;
inline constexpr std::uint32_t kEMfile = 33;
inline constexpr std::uint32_t kENametoolong = 37;
inline constexpr std::uint32_t kENoent = 44;
inline constexpr std::uint32_t kENospc = 51;
inline constexpr std::uint32_t kENosys = 52;
inline constexpr std::uint32_t kENotdir = 54;
inline constexpr std::uint32_t kENotempty = 55;
inline constexpr std::uint32_t kENotsup = 58;
inline constexpr std::uint32_t kEOverflow = 61;
inline constexpr std::uint32_t kEPerm = 63;
inline constexpr std::uint32_t kESpipe = 70;
inline constexpr std::uint32_t kENotcapable = 76;

// filetype
inline constexpr std::uint8_t kFiletypeUnknown = 0;
inline constexpr std::uint8_t kFiletypeCharacterDevice = 2;
inline constexpr std::uint8_t kFiletypeDirectory = 3;
inline constexpr std::uint8_t kFiletypeRegularFile = 4;

// rights
inline constexpr std::uint64_t kRightFdDatasync = 1ull << 0;
inline constexpr std::uint64_t kRightFdRead = 1ull << 1;
inline constexpr std::uint64_t kRightFdSeek = 1ull << 2;
inline constexpr std::uint64_t kRightFdFdstatSetFlags = 1ull << 3;
inline constexpr std::uint64_t kRightFdSync = 1ull << 4;
inline constexpr std::uint64_t kRightFdTell = 1ull << 5;
inline constexpr std::uint64_t kRightFdWrite = 1ull << 6;
inline constexpr std::uint64_t kRightFdAdvise = 1ull << 7;
inline constexpr std::uint64_t kRightFdReaddir = 1ull << 14;
inline constexpr std::uint64_t kRightFdFilestatGet = 1ull << 21;
inline constexpr std::uint64_t kRightPollFdReadwrite = 1ull << 27;
inline constexpr std::uint64_t kRightsAll = (1ull << 30) - 1;
// What an open regular file may be granted.
inline constexpr std::uint64_t kRightsFile =
    kRightFdDatasync | kRightFdRead | kRightFdSeek | kRightFdFdstatSetFlags | kRightFdSync |
    kRightFdTell | kRightFdWrite | kRightFdAdvise | kRightFdFilestatGet | kRightPollFdReadwrite;
// Directories may be granted everything except reading/writing bytes.
inline constexpr std::uint64_t kRightsDirectory =
    kRightsAll & ~(kRightFdRead | kRightFdWrite | kRightFdSeek | kRightFdTell);

// oflags
inline constexpr std::uint32_t kOflagCreat = 1u << 0;
inline constexpr std::uint32_t kOflagDirectory = 1u << 1;
inline constexpr std::uint32_t kOflagExcl = 1u << 2;
inline constexpr std::uint32_t kOflagTrunc = 1u << 3;

// fdflags
inline constexpr std::uint16_t kFdflagAppend = 1u << 0;
inline constexpr std::uint16_t kFdflagsAll = 0x1f;

// whence
inline constexpr std::uint32_t kWhenceSet = 0;
inline constexpr std::uint32_t kWhenceCur = 1;
inline constexpr std::uint32_t kWhenceEnd = 2;

// clocks
inline constexpr std::uint32_t kClockRealtime = 0;
inline constexpr std::uint32_t kClockMonotonic = 1;

// Layouts (bytes).
inline constexpr std::uint32_t kIovecSize = 8;
inline constexpr std::uint32_t kFdstatSize = 24;
inline constexpr std::uint32_t kFilestatSize = 64;
inline constexpr std::uint32_t kDirentSize = 24;
inline constexpr std::uint32_t kPrestatSize = 8;

// The longest path the host accepts from a guest is sandbox::kMaxPathBytes (wasi-libc's
// PATH_MAX), its longest segment sandbox::kMaxPathSegmentBytes (<sandbox/workspace.h>).
// Most iovecs one call may pass (POSIX IOV_MAX; wasi-libc never passes more).
inline constexpr std::uint32_t kMaxIovecs = 1024;
// Open descriptors beyond the fixed ones.
inline constexpr std::size_t kMaxOpenGuestFds = 1024;

}  // namespace sandbox::wasi
