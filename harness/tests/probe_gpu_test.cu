// `hashlab probe` measures plausible limits and stores them for the cost models (GPU tests).
#include <gtest/gtest.h>

#include <filesystem>

#include "hashlab/harness/probe.hpp"
#include "hashlab/testing/gpu_test.hpp"

namespace hashlab::harness {
namespace {

// The probe measures rates of the whole device and sizes its tables from the free memory: ctest
// runs it alone (suites named *Exclusive, cmake/hashlab.cmake), as `hashlab probe` should be run.
class ProbeGpuExclusive : public testing::GpuTest {};

TEST_F(ProbeGpuExclusive, MeasuresPlausibleLimitsAndRoundTripsThemThroughDeviceJson) {
  const DeviceLimits limits = probe_device();
  // Loose physical sanity bounds for any GPU this suite targets (an H100 is near 3000 GB/s,
  // 13 G random atomics/s and 55 GB/s pinned): wrong units or a broken timer fall outside.
  EXPECT_GT(limits.copy_gbps, 50.0);
  EXPECT_LT(limits.copy_gbps, 20000.0);
  EXPECT_GT(limits.atomic_exch_gops_large, 0.1);
  EXPECT_LT(limits.atomic_exch_gops_large, limits.atomic_exch_gops_8mib * 1.5);  // L2 helps, never hurts much
  EXPECT_GT(limits.random_read_gops_large, 0.1);
  EXPECT_GT(limits.h2d_pinned_gbps, 1.0);
  EXPECT_LT(limits.h2d_pinned_gbps, 1000.0);
  EXPECT_GT(limits.t_uncoalesced_ns(), limits.t_coalesced_ns());

  const auto dir = std::filesystem::path(::testing::TempDir()) / "hashlab_probe_test";
  std::filesystem::remove_all(dir);
  write_device_limits(limits, (dir / "device.json").string());
  const auto loaded = load_device_limits(dir.string());
  ASSERT_TRUE(loaded.has_value());
  EXPECT_EQ(loaded->device, limits.device);
  EXPECT_NEAR(loaded->atomic_exch_gops_large, limits.atomic_exch_gops_large, 1e-6 * limits.atomic_exch_gops_large);
  EXPECT_NEAR(loaded->copy_gbps, limits.copy_gbps, 1e-6 * limits.copy_gbps);
  // On a host with several GPUs the probe adds NCCL's all-to-all (none on one GPU).
  ASSERT_EQ(loaded->all_to_all.size(), limits.all_to_all.size());
  for (const auto& a : limits.all_to_all) {
    EXPECT_GE(a.servers, 2);
    EXPECT_GT(a.gbps_per_gpu, 1.0) << a.servers << " GPUs, " << a.bytes_per_gpu << " bytes";
  }
}

}  // namespace
}  // namespace hashlab::harness
