#include "tools/ntpsim/progress_cli.h"

#include "models/base/build_info.h"
#include "tools/ntpsim/command.h"

namespace ntpsim::cli {

nlohmann::ordered_json progress_identity(const std::string& command) {
  const BuildInfo& b = build_info();
  nlohmann::ordered_json id;
  id["command"] = command;
  id["version"] = b.version;
  id["git_sha"] = b.git_sha;
  return id;
}

Result<std::unique_ptr<sim::ProgressJournal>> open_progress(
    const std::string& path, const nlohmann::ordered_json& identity, const MpiWorld* world) {
  if (world == nullptr) return sim::ProgressJournal::open(path, identity);
  // code: 0 ok (text = the journal), else the error's exit code (text = its message).
  int code = 0;
  std::string text;
  Result<std::unique_ptr<sim::ProgressJournal>> mine = Error::runtime("unset");
  if (world->rank() == 0) {
    mine = sim::ProgressJournal::open(path, identity);
    if (mine.ok()) {
      text = (*mine)->text();
    } else {
      code = static_cast<int>(mine.error().exit_code);
      text = mine.error().message;
    }
  }
  world->broadcast(code, text);
  if (world->rank() == 0) return mine;
  if (code != 0) {
    return code == static_cast<int>(ExitCode::kBadInput) ? Error::bad_input(text)
                                                         : Error::runtime(text);
  }
  return sim::ProgressJournal::parse(path, text, identity);
}

Status append_progress(sim::ProgressJournal& journal, const std::string& key,
                       const nlohmann::ordered_json& data, const MpiWorld* world) {
  if (world != nullptr && world->rank() != 0) return Status::Ok();
  Status st = journal.append(key, data);
  if (!st.ok() && world != nullptr) world->abort(report_error(st.error()));
  return st;
}

}  // namespace ntpsim::cli
