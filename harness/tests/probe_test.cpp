// device.json's all-to-all limits (a host with several GPUs) load back; no GPU needed.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "hashlab/common/device.hpp"
#include "hashlab/harness/probe.hpp"

namespace hashlab::harness {
namespace {

TEST(DeviceJson, LoadsTheAllToAllLimitsOfAMultiGpuHost) {
  const auto dir = std::filesystem::path(::testing::TempDir()) / "hashlab_probe_all_to_all";
  std::filesystem::create_directories(dir);
  DeviceLimits limits;
  limits.device = device_label();  // on a GPU machine, the file must be this GPU's
  limits.copy_gbps = 4000;
  limits.atomic_exch_gops_large = 13;
  limits.all_to_all = {{2, std::uint64_t{64} << 20, 125.5}, {4, std::uint64_t{2} << 30, 322.25}};
  write_device_limits(limits, (dir / "device.json").string());
  const auto loaded = load_device_limits(dir.string());
  ASSERT_TRUE(loaded.has_value());
  ASSERT_EQ(loaded->all_to_all.size(), 2u);
  bool seen_two = false, seen_four = false;
  for (const auto& a : loaded->all_to_all) {
    if (a.servers == 2) {
      seen_two = true;
      EXPECT_EQ(a.bytes_per_gpu, std::uint64_t{64} << 20);
      EXPECT_DOUBLE_EQ(a.gbps_per_gpu, 125.5);
    }
    if (a.servers == 4) {
      seen_four = true;
      EXPECT_EQ(a.bytes_per_gpu, std::uint64_t{2} << 30);
      EXPECT_DOUBLE_EQ(a.gbps_per_gpu, 322.25);
    }
  }
  EXPECT_TRUE(seen_two && seen_four);
}

}  // namespace
}  // namespace hashlab::harness
