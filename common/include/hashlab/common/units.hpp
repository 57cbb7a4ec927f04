// Numbers as people write them: counts with decimal (K, M, G) or binary (Ki, Mi, Gi) suffixes,
// byte sizes (e.g. "2GiB", "512MB", "2Gi"). Each throws std::invalid_argument naming the bad text.
// The CLI's options, the modules' options (MP-EGA's budget) and the own-data commands read them.
#pragma once

#include <cstdint>
#include <string>

namespace hashlab {

/// "1000", "10M" (10^7), "32Mi" (2^25), "1e6", "16Ki".
std::uint64_t parse_count(const std::string& text);

/// "2GiB", "512MiB", "1GB", "4096", "1.5GiB"; "2Gi" as 2GiB.
std::uint64_t parse_bytes(const std::string& text);

/// A count for messages and tables: 33554432 -> "32Mi", 1000000 -> "1M", 1234 -> "1234".
std::string format_count(std::uint64_t n);

}  // namespace hashlab
