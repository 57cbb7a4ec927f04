// device.json: every limit of limit_fields() and the all-to-all limits (a host with several GPUs)
// load back, and the file says what each is; no GPU needed.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

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

// Each field written is read back (a distinct value per field, so that two fields swapped would
// show), and the file names each key with its label and unit under "fields", the report's source.
TEST(DeviceJson, EveryFieldRoundTripsAndIsDescribed) {
  const auto dir = std::filesystem::path(::testing::TempDir()) / "hashlab_probe_fields";
  std::filesystem::create_directories(dir);
  DeviceLimits limits;
  limits.device = device_label();
  double value = 1.5;
  for (const LimitField& f : limit_fields()) limits.*f.value = (value *= 2);
  limits.all_to_all = {{8, std::uint64_t{512} << 20, 99.75}};
  write_device_limits(limits, (dir / "device.json").string());
  const auto loaded = load_device_limits(dir.string());
  ASSERT_TRUE(loaded.has_value());
  std::set<std::string> keys;
  for (const LimitField& f : limit_fields()) {
    EXPECT_DOUBLE_EQ((*loaded).*f.value, limits.*f.value) << f.key;
    EXPECT_TRUE(keys.insert(f.key).second) << f.key << " listed twice";
    EXPECT_FALSE(std::string(f.label).empty() || std::string(f.unit).empty()) << f.key;
  }
  std::ifstream in(dir / "device.json");
  std::stringstream text;
  text << in.rdbuf();
  const std::string json = text.str();
  const auto fields = json.find("\"fields\"");
  ASSERT_NE(fields, std::string::npos) << json;
  // Under "fields", each key followed by its own label (before the next key's).
  const auto described = [&](const std::string& key, const std::string& label) {
    const auto at = json.find("\"" + key + "\"", fields);
    const auto label_at = json.find("\"label\": \"" + label + "\"", at);
    return at != std::string::npos && label_at != std::string::npos && json.find("\"unit\"", at) > label_at;
  };
  for (const LimitField& f : limit_fields()) EXPECT_TRUE(described(f.key, f.label)) << f.key << " in\n" << json;
  EXPECT_TRUE(described("all_to_all_gbps_p8_512mib", all_to_all_label(8, std::uint64_t{512} << 20))) << json;
  EXPECT_EQ(all_to_all_key(8, std::uint64_t{512} << 20), "all_to_all_gbps_p8_512mib");
}

}  // namespace
}  // namespace hashlab::harness
