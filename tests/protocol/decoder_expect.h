// expect_refused(): a decoder call throws ApiError of `kind` with exactly `message`.
#pragma once

#include <string>

#include <gtest/gtest.h>

#include <sandbox/protocol.h>

namespace sandbox::test {

template <typename F>
void expect_refused(F&& decode, ErrorKind kind, const std::string& message) {
  try {
    decode();
    ADD_FAILURE() << "expected ApiError \"" << message << "\"";
  } catch (const ApiError& e) {
    EXPECT_EQ(e.kind(), kind) << e.what();
    EXPECT_EQ(std::string(e.what()), message);
  }
}

}  // namespace sandbox::test
