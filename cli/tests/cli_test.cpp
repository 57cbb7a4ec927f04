// The hashlab command line: every bad option, size or file gives a one-line error and a non-zero
// exit; good commands work with or without a GPU.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "hashlab/common/column_io.hpp"
#include "hashlab/common/device.hpp"
#include "hashlab/common/generator.hpp"

namespace hashlab {
namespace {

struct Result {
  int status = -1;
  std::string output;  // stdout and stderr together
};

std::string binary() {
  const char* dir = std::getenv("HASHLAB_BINARY_DIR");
  return std::string(dir ? dir : ".") + "/hashlab";
}

Result hashlab(const std::string& args) {
  Result result;
  const std::string command = binary() + " " + args + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return result;
  std::array<char, 4096> buffer{};
  while (fgets(buffer.data(), buffer.size(), pipe) != nullptr) result.output += buffer.data();
  const int status = pclose(pipe);
  result.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

// Paths are unique per test: CTest runs tests as parallel processes.
std::string temp_path(const std::string& name) {
  const std::string test = ::testing::UnitTest::GetInstance()->current_test_info()->name();
  return (std::filesystem::path(::testing::TempDir()) / ("hashlab_cli_" + test + "_" + name)).string();
}

#define EXPECT_USAGE_ERROR(args, text)                                               \
  do {                                                                               \
    const Result r = hashlab(args);                                                  \
    EXPECT_EQ(r.status, 2) << r.output;                                              \
    EXPECT_NE(r.output.find(text), std::string::npos) << r.output;                   \
    EXPECT_NE(r.output.find("hashlab: error:"), std::string::npos) << r.output;      \
  } while (0)

TEST(Cli, NoArgumentsPrintsUsageAndFails) {
  const Result r = hashlab("");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.output.find("usage: hashlab"), std::string::npos);
}

TEST(Cli, UnknownCommandIsAUsageError) { EXPECT_USAGE_ERROR("frobnicate", "unknown command 'frobnicate'"); }
TEST(Cli, RunWithoutAPaperIsAUsageError) { EXPECT_USAGE_ERROR("run", "run needs a paper"); }
TEST(Cli, UnknownPaperNamesTheKnownOnes) { EXPECT_USAGE_ERROR("run nosuchpaper", "unknown paper 'nosuchpaper' (known: "); }
TEST(Cli, UnknownExperimentNamesThePapersExperiments) {
  EXPECT_USAGE_ERROR("run baselines nosuch", "has no experiment 'nosuch' (it has: ");
}
TEST(Cli, UnknownOptionIsAUsageError) { EXPECT_USAGE_ERROR("run baselines --bogus", "bogus"); }
TEST(Cli, MalformedSizeIsAUsageError) { EXPECT_USAGE_ERROR("run baselines --n 12X", "unknown suffix 'X'"); }
TEST(Cli, ZeroSizeIsAUsageError) { EXPECT_USAGE_ERROR("run baselines --n 0", "at least 1"); }
TEST(Cli, QuickAndFullExcludeEachOther) { EXPECT_USAGE_ERROR("run baselines --quick --full", "exclude each other"); }
TEST(Cli, NegativeRepetitionsAreAUsageError) { EXPECT_USAGE_ERROR("run baselines --reps -1", "--reps"); }
TEST(Cli, DemoOfUnknownPaperIsAUsageError) { EXPECT_USAGE_ERROR("demo nosuch", "unknown paper"); }
TEST(Cli, GenUnknownDistributionIsAUsageError) {
  EXPECT_USAGE_ERROR("gen --dist lumpy --n 10 --out " + temp_path("x.npy"), "unknown key distribution 'lumpy'");
}
TEST(Cli, GenZipfWithoutDistinctIsAUsageError) {
  EXPECT_USAGE_ERROR("gen --dist zipf --n 10 --out " + temp_path("x.npy"), "--distinct");
}
TEST(Cli, GenMoreUniqueKeysThanTheDomainIsAUsageError) {
  EXPECT_USAGE_ERROR("gen --dist unique --n 100 --domain 10 --out " + temp_path("x.npy"), "domain holds only 10");
}
TEST(Cli, GenWithoutRequiredOptionsIsAUsageError) { EXPECT_USAGE_ERROR("gen --dist unique", "required"); }

TEST(Cli, GenToAnUnknownFileTypeFailsWithTheFileName) {
  // Refused before generating anything: a usage error (exit status 2).
  EXPECT_USAGE_ERROR("gen --dist unique --n 10 --out " + temp_path("x.txt"), "x.txt: unknown output type");
}

TEST(Cli, GenWritesTheGeneratorsColumn) {
  const std::string path = temp_path("zipf.npy");
  const Result r = hashlab("gen --dist zipf --distinct 100 --zipf 1.2 --n 5000 --seed 7 --out " + path);
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(io::read_npy<std::uint32_t>(path), gen::generate_keys_host(gen::KeySpec::zipf(100, 1.2), 7, 5000));
  const std::string csv = temp_path("seq.csv");
  ASSERT_EQ(hashlab("gen --dist sequence --n 10 --out " + csv).status, 0);
  EXPECT_EQ(io::read_column<std::uint32_t>(csv), gen::generate_keys_host(gen::KeySpec::sequence(), 42, 10));
}

TEST(Cli, ListShowsPapersExperimentsAndSizes) {
  const Result r = hashlab("list");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("baselines"), std::string::npos);
  EXPECT_NE(r.output.find("cpu_groupby"), std::string::npos);
  EXPECT_NE(r.output.find("quick:"), std::string::npos);
}

TEST(Cli, DryRunListsPointsWithoutRunning) {
  const Result r = hashlab("run baselines cpu_groupby --dry-run --n 1Ki");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("parallel n=1Ki"), std::string::npos) << r.output;
}

TEST(Cli, RunOfACpuExperimentWritesVerifiedRows) {
  const std::string out = temp_path("results");
  std::filesystem::remove_all(out);
  const Result r = hashlab("run baselines cpu_groupby --n 5000 --reps 2 --out " + out);
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("ETA"), std::string::npos) << r.output;
  std::ifstream csv(out + "/baselines/cpu_groupby.csv");
  std::string line;
  int rows = 0;
  std::getline(csv, line);  // header
  while (std::getline(csv, line)) {
    ++rows;
    EXPECT_NE(line.find(",true,"), std::string::npos) << line;
  }
  EXPECT_EQ(rows, 4);  // two variants x (time, rate)
  EXPECT_TRUE(std::filesystem::exists(out + "/baselines/cpu_groupby.json"));
}

TEST(Cli, ProbeWithoutAGpuFailsClearly) {
  if (gpu_available()) GTEST_SKIP() << "a GPU is present (the probe itself is tested by ProbeGpuExclusive)";
  const Result r = hashlab("probe --out " + temp_path("probe"));
  EXPECT_EQ(r.status, 3) << r.output;  // this machine cannot run it
  EXPECT_NE(r.output.find("probe needs a CUDA GPU"), std::string::npos) << r.output;
}

TEST(Cli, GenRejectsContradictoryOrIgnoredOptions) {
  const std::string out = temp_path("keys.npy");
  std::filesystem::remove(out);
  EXPECT_USAGE_ERROR("gen --dist uniform --distinct 2000 --n 1K --out " + out, "--distinct 2000 is more than --n 1K");
  EXPECT_USAGE_ERROR("gen --dist sequence --domain 100 --n 1K --out " + out, "--domain 100");
  EXPECT_USAGE_ERROR("gen --dist uniform --distinct 10 --multiplicity 4 --n 1K --out " + out,
                     "--distinct and --multiplicity");
  EXPECT_USAGE_ERROR("gen --dist unique --distinct 10 --n 1K --out " + out, "--distinct 10");
  EXPECT_USAGE_ERROR("gen --dist uniform --distinct 10 --zipf 1.5 --n 1K --out " + out, "--zipf 1.5");
  EXPECT_USAGE_ERROR("gen --dist zipf --distinct 10 --multiplicity 2 --n 1K --out " + out, "--multiplicity 2");
  EXPECT_USAGE_ERROR("gen --dist unique --n 1K --out " + out + " stray", "stray");
  EXPECT_FALSE(std::filesystem::exists(out));
  const Result ok = hashlab("gen --dist uniform --distinct 1000 --n 1K --out " + out);
  EXPECT_EQ(ok.status, 0) << ok.output;
}

TEST(Cli, EveryPaperHasADemoWithOrWithoutAGpu) {
  for (const char* paper : {"cuckoo", "hashgraph", "rapids_groupby", "ega", "pkpk_join"}) {
    const Result r = hashlab(std::string("demo ") + paper);
    EXPECT_EQ(r.status, 0) << paper << ": " << r.output;
    EXPECT_GT(r.output.size(), 500u) << paper << ": " << r.output;
    const bool gpu_demo = std::string(paper) == "hashgraph" || std::string(paper) == "ega" ||
                          std::string(paper) == "pkpk_join";  // cuckoo's and rapids' demos run on the CPU
    if (gpu_demo && !gpu_available()) {
      EXPECT_NE(r.output.find("as recorded on NVIDIA"), std::string::npos) << r.output;
    }
  }
}

TEST(Cli, AWrongModuleOptionIsAUsageErrorNamingIt) {
  EXPECT_USAGE_ERROR("run compare tables --compare-keys bogus --dry-run", "--compare-keys bogus");
  EXPECT_USAGE_ERROR("run cuckoo fig4_4 --cuckoo-hash bogus --dry-run", "--cuckoo-hash bogus");
  EXPECT_USAGE_ERROR("run cuckoo fig4_4 --cuckoo-max-attempts 0 --dry-run", "--cuckoo-max-attempts 0");
  EXPECT_USAGE_ERROR("run hashgraph fig2 --hashgraph-bins 0 --dry-run", "--hashgraph-bins 0");
  EXPECT_USAGE_ERROR("run ega mp_vs_cpu --gpu-mem-budget -5 --dry-run", "--gpu-mem-budget -5");
}

TEST(Cli, RunOutThatIsAFileIsAUsageError) {
  const std::string file = temp_path("afile");
  std::ofstream(file) << "not a directory";
  EXPECT_USAGE_ERROR("run baselines cpu_groupby --n 1K --reps 1 --out " + file, "a file, not a directory");
}

}  // namespace
}  // namespace hashlab
