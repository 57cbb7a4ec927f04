// HashGraph experiments (filled in below).
#include "hashlab/harness/experiment.hpp"
