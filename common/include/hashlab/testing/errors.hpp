// Test support for bad-input tests: the message of the exception a call throws, and a check
// that a message names what it should (the value, the size, the file).
#pragma once

#include <gtest/gtest.h>

#include <exception>
#include <functional>
#include <stdexcept>
#include <string>

namespace hashlab::testing {

/// The message of the `Error` that `fn` throws; a test failure (and "") if it throws nothing
/// or something else.
template <class Error = std::invalid_argument>
std::string error_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "expected another exception type, got: " << e.what();
    return "";
  }
  ADD_FAILURE() << "expected an exception, nothing was thrown";
  return "";
}

/// Succeeds when `message` contains `text`.
inline ::testing::AssertionResult mentions(const std::string& message, const std::string& text) {
  if (message.find(text) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "message \"" << message << "\" does not mention \"" << text << "\"";
}

}  // namespace hashlab::testing
