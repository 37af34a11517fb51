// Loading a scenario file into a validated `Scenario` (DESIGN.md §3).
//
// `load_scenario` reads the file, merges its `include:` bases (tree.h), applies `--set`
// overrides, reads every section strictly (unknown keys, types, units, ranges; "did you mean"),
// fills defaults, and checks constraints across sections (TP inside a domain, TP·PP·DP fitting the
// non-spare domains, heads and batch fitting the layout, failure components present in the
// cluster, horizon XOR token budget, bounded simulation size). It never throws: every problem is
// one Error "file:line:col: field.path: what is wrong" with exit code 2.
//
// Workload and hardware names are looked up in <data_dir>/models/workloads and
// <data_dir>/models/profiles (and, for workloads, next to the file that names them).
// Thread safety: reentrant; no shared state.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "models/base/status.h"
#include "sim/scenario/scenario.h"

namespace ntpsim::sim {

struct LoadOptions {
  std::vector<std::string> overrides;  // "a.b.c=value", applied in order after includes
  // Where overrides[i] was written, for those written in a file (a plan's `overrides:`); errors
  // then name that file, line and column. Beyond its size (the command line): "--set a.b.c=value".
  std::vector<SourceLocation> override_locations;
  std::string data_dir;                // folder holding models/; "" = default_data_dir()
};

// The folder holding models/workloads and models/profiles: $NTPSIM_DATA_DIR when set, else the
// source tree this binary was built from.
std::string default_data_dir();

Result<Scenario> load_scenario(const std::string& path, const LoadOptions& options);

// Simulation size limits (docs/limits.md): the loader refuses a scenario expecting more
// failures than this per replication, or over all its replications (an adaptive run counted at its
// max); run_monte_carlo applies the second to a replication count given on the command line.
inline constexpr double kMaxFailuresPerReplication = 1e7;
inline constexpr double kMaxFailuresPerRun = 1e9;

// Failure events one replication of `s` is expected to draw from its stochastic processes: rate x
// units of the component class x lemon factor x burst factor x run length (horizon, or
// train.max_time), summed over processes. A trace's faults are not included.
double expected_process_failures(const Scenario& s);
Result<Scenario> load_scenario(const std::string& path,
                               const std::vector<std::string>& overrides = {});

// Loads one scenario file many times over with overrides that differ only in the `checkpoint`
// and `strategies` sections (a planner's candidates: one cluster and layout, several intervals
// and strategies). Every load gives exactly what load_scenario(path, options) gives, the same
// scenario or the same error. When the files are unchanged and the overrides differ from the
// last full load's in those two sections only, the load reads just those sections (copied from
// the kept tree, tree.h) and takes the rest, or the last load's error where it stopped at a
// section that does not depend on them, from the last full load; anything else, and any reading
// that would need a line or column, is a full load. What the two sections read to is kept per
// list of their overrides (a plan's intervals and strategies recur for every cluster) while the
// files and the checkpoint defaults stay the same; a few hundred lists at most.
// Thread safety: one loader per thread.
class ScenarioLoader {
 public:
  ScenarioLoader();
  ~ScenarioLoader();
  ScenarioLoader(const ScenarioLoader&) = delete;
  ScenarioLoader& operator=(const ScenarioLoader&) = delete;

  Result<Scenario> load(const std::string& path, const LoadOptions& options);
  // Loads that read only the checkpoint and strategies sections.
  int64_t sections_reread() const { return sections_reread_; }

 private:
  struct Last;
  // What the two sections read to under one list of their overrides, from one kept tree and
  // checkpoint defaults: each one's value, or nullopt where its reading failed or needed a line
  // or column (then only a full load tells the outcome); `applied` is false where one of the
  // overrides did not apply.
  struct Sections {
    CheckpointConfig defaults;
    bool applied = false;
    std::optional<CheckpointConfig> checkpoint;
    std::optional<std::vector<StrategyConfig>> strategies;
  };
  // The two sections read under `options`' overrides of them, from the last full load's kept
  // tree and checkpoint defaults; null where that tree is no longer kept. REQUIRES: last_.
  const Sections* sections(const std::string& path, const LoadOptions& options);
  static constexpr size_t kMaxSectionsKept = 512;

  std::unique_ptr<Last> last_;
  std::map<std::string, Sections> read_;  // by the two sections' overrides (sections())
  uint64_t sections_generation_ = 0;      // the kept tree read_ was read from
  int64_t sections_reread_ = 0;
};

}  // namespace ntpsim::sim
