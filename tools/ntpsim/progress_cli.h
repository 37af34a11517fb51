// The `--resume FILE` progress file of `ntpsim sweep` and `ntpsim plan` (sim/io/progress.h), as
// the commands share it: opening it on every MPI rank alike, and the identity fields common to
// both commands.
// Thread safety: main thread only (MPI collectives).
#pragma once

#include <nlohmann/json.hpp>

#include <memory>
#include <string>

#include "models/base/status.h"
#include "sim/io/progress.h"
#include "tools/ntpsim/mpi_world.h"

namespace ntpsim::cli {

// The identity fields every progress file carries: the command, the tool version and git SHA.
nlohmann::ordered_json progress_identity(const std::string& command);

// Opens `path` (ProgressJournal::open) on rank 0 or the only process; other MPI ranks receive
// rank 0's file text and parse it (ProgressJournal::parse), so every rank resumes the same work.
// An error on rank 0 is returned on every rank. A collective under MPI: every rank calls it.
Result<std::unique_ptr<sim::ProgressJournal>> open_progress(
    const std::string& path, const nlohmann::ordered_json& identity, const MpiWorld* world);

// Appends a record on rank 0 (or the only process); a no-op on other ranks. Under MPI a failed
// append prints the error and ends every rank (MpiWorld::abort), since the other ranks would
// otherwise wait for rank 0 in the next Monte Carlo exchange; without MPI the error is returned.
Status append_progress(sim::ProgressJournal& journal, const std::string& key,
                       const nlohmann::ordered_json& data, const MpiWorld* world);

}  // namespace ntpsim::cli
