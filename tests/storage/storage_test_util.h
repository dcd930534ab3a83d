// Helpers for the storage tests: a temporary directory and fault injectors.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>

#include <unistd.h>

#include "storage/fault_injector.h"

namespace sandbox::testing_storage {

// A fresh directory under $TMPDIR (or /tmp), removed with its contents at scope end.
class TempDir {
 public:
  TempDir() {
    const char* base = std::getenv("TMPDIR");
    std::string pattern = std::string(base && *base ? base : "/tmp") + "/sandbox-storage-XXXXXX";
    if (!mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

struct InjectedFault : std::runtime_error {
  InjectedFault() : std::runtime_error("injected fault") {}
};

// Counts write statements; throws InjectedFault at write number `fail_at` (1-based; 0 never).
class FailNthWrite final : public FaultInjector {
 public:
  explicit FailNthWrite(int fail_at = 0) : fail_at_(fail_at) {}
  void before_write(std::string_view) override {
    ++count_;
    if (armed_ && count_ == fail_at_) throw InjectedFault();
  }
  // Starts counting from zero and arms the fault.
  void arm(int fail_at) {
    count_ = 0;
    fail_at_ = fail_at;
    armed_ = true;
  }
  void disarm() { armed_ = false; }
  int count() const { return count_; }

 private:
  int fail_at_;
  int count_ = 0;
  bool armed_ = true;
};

// Ends the process at write number `crash_at`, as a crash would: no unwinding, no rollback.
class CrashAtNthWrite final : public FaultInjector {
 public:
  explicit CrashAtNthWrite(int crash_at) : crash_at_(crash_at) {}
  void before_write(std::string_view) override {
    if (++count_ == crash_at_) _exit(42);
  }

 private:
  int crash_at_;
  int count_ = 0;
};

}  // namespace sandbox::testing_storage
