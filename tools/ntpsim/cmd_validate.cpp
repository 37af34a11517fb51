// `ntpsim validate [--out docs/VALIDATION.md] [--quick] [--threads N] [--source DIR]`: runs the
// validation studies against the NTP paper and the reliability literature and writes
// the Markdown document with its SVG charts beside it (tools/validate/document.h).
// The document depends only on the source tree and --quick; --threads changes only the speed.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <thread>

#include "sim/scenario/loader.h"
#include "tools/ntpsim/command.h"
#include "tools/validate/document.h"

namespace ntpsim::cli {
namespace {

class ValidateCommand final : public Command {
 public:
  CLI::App* setup(CLI::App& app) override {
    CLI::App* sub = app.add_subcommand(
        "validate",
        "Reproduce the NTP paper's figures and closed-form reliability results; write "
        "docs/VALIDATION.md with SVG charts in docs/validation/");
    sub->add_option("--out", opts_.out, "Markdown file to write (default docs/VALIDATION.md)");
    sub->add_flag("--quick", opts_.quick, "Fewer samples and replications (seconds, not minutes)");
    sub->add_option("--threads", opts_.threads, "Worker threads (default: all cores)")
        ->check(CLI::Range(1, 4096));
    sub->add_option("--source", opts_.source_dir,
                    "Repository root holding scenarios/paper (default: the data folder)");
    return sub;
  }

  int run() override {
    if (opts_.source_dir.empty()) opts_.source_dir = sim::default_data_dir();
    if (opts_.out.empty()) opts_.out = opts_.source_dir + "/docs/VALIDATION.md";
    // Refused before minutes of studies, and before the charts are written beside it.
    if (std::filesystem::is_directory(opts_.out)) {
      return report_error(Error::bad_input(
          opts_.out + ": --out is a directory; give the path of the Markdown file to write"));
    }
    if (opts_.threads <= 0) {
      opts_.threads = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
    }
    const Status st = validate::write_validation(opts_);
    if (!st.ok()) return report_error(st.error());
    fmt::print("ntpsim: wrote {}\n", opts_.out);
    return 0;
  }

 private:
  validate::ValidateOptions opts_;
};

NTPSIM_REGISTER_COMMAND("validate", ValidateCommand)

}  // namespace
}  // namespace ntpsim::cli
