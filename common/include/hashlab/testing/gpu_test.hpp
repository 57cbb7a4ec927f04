// Test support: GPU tests skip (visibly) without a GPU, and random inputs print their seed.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <string>

#include "hashlab/common/device.hpp"
#include "hashlab/common/memory.hpp"

#include <memory>

namespace hashlab::testing {

/// The seed for a test's random inputs: $HASHLAB_TEST_SEED if set, else `fallback`. Tests
/// print it (SCOPED_TRACE) so that a failure can be replayed.
inline std::uint64_t test_seed(std::uint64_t fallback = 20261122) {
  if (const char* env = std::getenv("HASHLAB_TEST_SEED")) return std::strtoull(env, nullptr, 10);
  return fallback;
}

/// A stream created on first use, so that a fixture can hold one as a member and still skip
/// (in SetUp) on a machine without a GPU; converts to cudaStream_t wherever one is expected.
class LazyStream {
 public:
  operator cudaStream_t() {
    if (!stream_) stream_ = std::make_unique<Stream>();
    return stream_->get();
  }

 private:
  std::unique_ptr<Stream> stream_;
};

/// Fixture for tests that need a CUDA GPU: without one they are reported SKIPPED with the reason.
class GpuTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (!hashlab::gpu_available(&why)) GTEST_SKIP() << "needs a CUDA GPU (" << why << ")";
  }
};

/// For parameterised GPU tests.
template <class Param>
class GpuTestWithParam : public ::testing::TestWithParam<Param> {
 protected:
  void SetUp() override {
    std::string why;
    if (!hashlab::gpu_available(&why)) GTEST_SKIP() << "needs a CUDA GPU (" << why << ")";
  }
};

}  // namespace hashlab::testing

/// Records the seed in the test's trace, so every failure message shows it.
#define HASHLAB_TRACE_SEED(seed) SCOPED_TRACE("seed=" + std::to_string(seed))
