// `ntpsim validate`: runs every validation study (studies.h) on the scenarios in
// scenarios/paper/ and writes docs/VALIDATION.md with its SVG charts in docs/validation/.
//
// The document lists, per study, each published statement, ntpsim's number, the difference and
// whether it is within the stated tolerance (the same tolerances tests/validation asserts), the
// chart, and the explanation where ntpsim disagrees; it opens with its context (version, git SHA,
// build type, seeds, replications). Output depends only on the source tree and the options
// (never on threads, time or host), so regenerating it on an unchanged tree changes nothing.
// Ownership: plain values. Thread safety: reentrant (threads are spawned per study).
#pragma once

#include <string>

#include "models/base/status.h"

namespace ntpsim::validate {

struct ValidateOptions {
  std::string source_dir;  // the repository root (scenarios/paper/ lives there)
  std::string out;         // the Markdown file; SVGs go to <its folder>/validation/
  bool quick = false;      // fewer samples and replications (minutes -> seconds)
  int threads = 1;         // engine replications in parallel (results do not depend on it)
};

// Runs the studies and writes the files (atomically, each). Errors: bad scenario files (bad
// input) or unwritable outputs (runtime).
Status write_validation(const ValidateOptions& options);

}  // namespace ntpsim::validate
