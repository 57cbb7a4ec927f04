// check_sequence_table, the whole-table device check of the largest input: it accepts every
// correct build of the sequence and finds each kind of wrong table (GPU tests).
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "hashlab/common/cuda_check.hpp"
#include "hashlab/common/generator.hpp"
#include "hashlab/common/memory.hpp"
#include "hashlab/hashgraph/hashgraph.hpp"
#include "hashlab/testing/gpu_test.hpp"

namespace hashlab::hashgraph {
namespace {

class SequenceCheck : public testing::GpuTest {
 protected:
  // A table of the sequence 0..n-1 at `load`, built on the device.
  HashGraph& build(std::size_t n, double load, BuildOptions options = {}) {
    keys_ = to_device(gen::generate_keys_host(gen::KeySpec::sequence(), 1, n), stream);
    graph_ = std::make_unique<HashGraph>(n, hash_range_for(n, load), options, stream);
    graph_->build(keys_.data(), n, stream);
    return *graph_;
  }
  // Overwrites entry `e` of the table (the check reads the device copy).
  void write_entry(const HashGraph& graph, std::uint32_t e, Entry value) {
    HASHLAB_CUDA_CHECK(cudaMemcpyAsync(const_cast<Entry*>(graph.entries()) + e, &value, sizeof(Entry),
                                       cudaMemcpyHostToDevice, stream));
    HASHLAB_CUDA_CHECK(cudaStreamSynchronize(stream));
  }
  void write_offset(const HashGraph& graph, std::uint32_t v, std::uint32_t value) {
    HASHLAB_CUDA_CHECK(cudaMemcpyAsync(const_cast<std::uint32_t*>(graph.offsets()) + v, &value, sizeof(value),
                                       cudaMemcpyHostToDevice, stream));
    HASHLAB_CUDA_CHECK(cudaStreamSynchronize(stream));
  }
  // The first vertex whose list holds at least two entries.
  static std::uint32_t vertex_with_two(const HostGraph& host) {
    for (std::uint32_t v = 0; v < host.range; ++v)
      if (host.offsets[v + 1] - host.offsets[v] >= 2) return v;
    ADD_FAILURE() << "no vertex holds two entries";
    return 0;
  }

  testing::LazyStream stream;
  DeviceBuffer<std::uint32_t> keys_;
  std::unique_ptr<HashGraph> graph_;
};

TEST_F(SequenceCheck, AcceptsEveryBuildOfTheSequence) {
  for (const BuildOptions options : {BuildOptions{Version::kV1}, BuildOptions{Version::kV2},
                                     BuildOptions{Version::kV2, 7}, BuildOptions{Version::kV2, 1}})
    for (const double load : {0.5, 1.0, 4.0}) {
      const auto& graph = build(100003, load, options);
      EXPECT_EQ(check_sequence_table(graph, stream), "")
          << to_string(options.version) << ", " << options.bins << " bins, load " << load;
    }
}

TEST_F(SequenceCheck, AcceptsTheEmptyTable) { EXPECT_EQ(check_sequence_table(build(0, 1.0), stream), ""); }

TEST_F(SequenceCheck, FindsAnEntryWithAnotherRow) {
  const auto& graph = build(1000, 1.0);
  const auto host = graph.to_host(stream);
  const Entry entry = host.entries[17];
  write_entry(graph, 17, Entry{entry.key, entry.index + 1});
  EXPECT_NE(check_sequence_table(graph, stream).find("vertex"), std::string::npos);
}

TEST_F(SequenceCheck, FindsARowListedTwiceInOneVertexAndAnotherMissing) {
  const auto& graph = build(1000, 4.0);  // about four keys per vertex
  const auto host = graph.to_host(stream);
  const std::uint32_t v = vertex_with_two(host);
  write_entry(graph, host.offsets[v] + 1, host.entries[host.offsets[v]]);  // every entry still (k, k) of vertex v
  EXPECT_NE(check_sequence_table(graph, stream).find("exactly once"), std::string::npos);
}

TEST_F(SequenceCheck, FindsEntriesSwappedBetweenTwoVertices) {
  const auto& graph = build(1000, 1.0);
  const auto host = graph.to_host(stream);
  std::uint32_t a = 0;
  while (host.offsets[a + 1] == host.offsets[a]) ++a;
  std::uint32_t b = a + 1;
  while (host.offsets[b + 1] == host.offsets[b]) ++b;
  // Each entry stays (k, k) and each key stays present once: only the vertices are wrong.
  write_entry(graph, host.offsets[a], host.entries[host.offsets[b]]);
  write_entry(graph, host.offsets[b], host.entries[host.offsets[a]]);
  EXPECT_NE(check_sequence_table(graph, stream).find("vertex"), std::string::npos);
}

TEST_F(SequenceCheck, FindsAnOffsetThatDoesNotEndAtN) {
  const auto& graph = build(1000, 1.0);
  write_offset(graph, graph.range(), 999);
  EXPECT_NE(check_sequence_table(graph, stream), "");
}

TEST_F(SequenceCheck, FindsOffsetsOutOfOrderBeforeReadingPastThem) {
  const auto& graph = build(1000, 1.0);
  write_offset(graph, 3, 5000);  // beyond n: the keys pass would read past the entries
  EXPECT_NE(check_sequence_table(graph, stream).find("vertex"), std::string::npos);
}

}  // namespace
}  // namespace hashlab::hashgraph
