// `ntpsim fit RAW.csv... -o PROFILE.yaml [--base PROFILE]`: fits cost-model parameters to raw
// ntpcal measurements and writes a measured hardware profile (calibrate/fit.h, calibrate/profile.h).
// No GPU needed. The written profile is read back with models::read_hardware before the command
// reports success, so what it writes is always a profile `ntpsim run/step` accept.
#include <fmt/format.h>

#include <cstdio>

#include "calibrate/fit.h"
#include "calibrate/model_check.h"
#include "calibrate/profile.h"
#include "calibrate/raw_reader.h"
#include "models/base/atomic_file.h"
#include "models/base/yaml_reader.h"
#include "models/hardware.h"
#include "sim/scenario/loader.h"
#include "tools/ntpsim/command.h"

namespace ntpsim::cli {
namespace {

class FitCommand final : public Command {
 public:
  CLI::App* setup(CLI::App& app) override {
    CLI::App* sub = app.add_subcommand(
        "fit", "Fit cost-model parameters to raw ntpcal measurements and write a measured profile");
    sub->add_option("raw", raw_, "Raw measurement CSV files written by ntpcal")->required();
    sub->add_option("-o,--output", output_, "Profile YAML to write")->required();
    sub->add_option("--base", base_,
                    "Spec profile (name in models/profiles, or a file) that the measured parts "
                    "replace; without it only measured values are written");
    sub->add_option("--name", name_, "Name of the written profile (default: <base>-measured)");
    sub->add_option("--sm-count", sm_count_, "SM count when the raw files do not record it")
        ->check(CLI::Range(1, 1 << 20));
    sub->add_flag("--no-table", no_table_, "Do not write the measured GEMM table (tile model only)");
    sub->add_option("--report", report_, "Also write per-point relative errors as CSV");
    sub->add_flag("-q,--quiet", quiet_, "Print nothing but errors");
    return sub;
  }

  int run() override {
    std::vector<calibrate::RawData> files;
    for (const auto& path : raw_) {
      auto data = calibrate::read_raw_file(path);
      if (!data.ok()) return report_error(data.error());
      files.push_back(std::move(*data));
    }
    calibrate::FitOptions fit_options;
    fit_options.sm_count = sm_count_;
    auto fit = calibrate::fit_raw(files, fit_options);
    if (!fit.ok()) return report_error(fit.error());

    calibrate::ProfileOptions options;
    options.name = name_;
    options.gemm_table = !no_table_;
    const std::vector<std::string> search = {sim::default_data_dir() + "/models/profiles"};
    if (!base_.empty()) {
      YAML::Node node(base_);
      auto base = models::read_hardware(node, "--base", YamlContext("<command line>"), search);
      if (!base.ok()) return report_error(base.error());
      options.base = *base;
    }
    auto profile = calibrate::make_profile(*fit, options);
    if (!profile.ok()) return report_error(profile.error());
    const auto checks = calibrate::check_profile(*profile, files);
    if (auto s = write_file_atomic(output_, calibrate::profile_text(*profile, *fit, checks)); !s.ok()) {
      return report_error(s.error());
    }
    // Read it back exactly as `ntpsim run` would.
    // A profile that does not load is removed, not left for `ntpsim run` to trip on.
    auto loaded = load_yaml_file(output_);
    if (!loaded.ok()) {
      std::remove(output_.c_str());
      return report_error(
          Error::runtime("the written profile does not parse: " + loaded.error().message));
    }
    auto check = models::read_hardware(*loaded, "", YamlContext(output_), search);
    if (!check.ok()) {
      std::remove(output_.c_str());
      return report_error(
          Error::runtime("the written profile does not load: " + check.error().message));
    }
    if (!report_.empty()) {
      if (auto s = write_file_atomic(report_, calibrate::fit_report_csv(*fit)); !s.ok()) {
        std::remove(output_.c_str());  // both files or neither
        return report_error(s.error());
      }
    }
    if (!quiet_) {
      fmt::print("{}", calibrate::describe(*fit));
      fmt::print("profile's cost models against the measurements:\n{}", calibrate::describe(checks));
      for (const auto& r : fit->reshards) {
        fmt::print("note: {} all_to_all at group size {} holds the reshard fit (the step model uses "
                   "it only for the NTP reshard), so all_to_all's own points may differ there\n",
                   r.fabric, r.tp);
      }
      fmt::print("wrote profile '{}' ({} points from {} files) to {}\n", profile->name, fit->points,
                 files.size(), output_);
      for (const auto& c : fit->contexts) {
        if (!c.get("synthetic").empty()) {
          fmt::print("WARNING: {} is SYNTHETIC data, not a measurement\n", c.get("tool"));
          break;
        }
      }
    }
    return 0;
  }

 private:
  std::vector<std::string> raw_;
  std::string output_, base_, name_, report_;
  int sm_count_ = 0;
  bool no_table_ = false;
  bool quiet_ = false;
};

NTPSIM_REGISTER_COMMAND("fit", FitCommand)

}  // namespace
}  // namespace ntpsim::cli
