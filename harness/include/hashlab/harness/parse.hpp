// The CLI's numbers: common's units (counts with K / Ki suffixes, byte sizes), under the
// harness's names.
#pragma once

#include "hashlab/common/units.hpp"

namespace hashlab::harness {

using hashlab::format_count;
using hashlab::parse_bytes;
using hashlab::parse_count;

}  // namespace hashlab::harness
