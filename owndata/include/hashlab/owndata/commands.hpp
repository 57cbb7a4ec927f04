// The own-data commands of the `hashlab` CLI: groupby, join, table. Each parses its options,
// reads the files, runs the algorithm --reps times after --warmup runs, prints the median time
// and the algorithm's statistics, checks the answer with --verify and writes --out.
// Usage errors and bad input throw InputError (exit status 2); a failed --verify returns 1.
#pragma once

#include <string>
#include <vector>

namespace hashlab::owndata {

int groupby_command(const std::vector<std::string>& args);
int join_command(const std::vector<std::string>& args);
int table_command(const std::vector<std::string>& args);

}  // namespace hashlab::owndata
