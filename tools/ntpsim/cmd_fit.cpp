// `ntpsim fit FILE... -o PROFILE.yaml [--base PROFILE]`: fits cost-model parameters to raw ntpcal
// measurements and nccl-tests logs (any mix; calibrate/nccl_tests_log.h) and writes a hardware
// profile whose `origin` says what the numbers are (measured, synthetic or mixed; calibrate/fit.h,
// calibrate/profile.h).
// No GPU needed. The written profile is read back with models::read_hardware before the command
// reports success, so what it writes is always a profile `ntpsim run/step` accept.
#include <fmt/format.h>

#include <cstdio>
#include <filesystem>

#include "calibrate/fit.h"
#include "calibrate/model_check.h"
#include "calibrate/nccl_tests_log.h"
#include "calibrate/profile.h"
#include "calibrate/raw_reader.h"
#include "models/base/yaml_reader.h"
#include "models/hardware.h"
#include "sim/scenario/loader.h"
#include "tools/ntpsim/command.h"
#include "tools/ntpsim/outputs.h"

namespace ntpsim::cli {
namespace {

class FitCommand final : public Command {
 public:
  CLI::App* setup(CLI::App& app) override {
    CLI::App* sub = app.add_subcommand("fit",
                                       "Fit cost-model parameters to ntpcal measurements and "
                                       "nccl-tests logs and write a hardware profile");
    sub->add_option("raw", raw_,
                    "Raw measurement CSV files written by ntpcal and/or nccl-tests logs "
                    "(*_perf output), detected by content")
        ->required();
    sub->add_option("-o,--output", output_, "Profile YAML to write")
        ->required()
        ->check(output_path());
    sub->add_option("--base", base_,
                    "Spec profile (name in models/profiles, or a file) that the measured parts "
                    "replace; without it only measured values are written");
    sub->add_option("--name", name_, "Name of the written profile (default: <base>-measured)");
    sub->add_option("--sm-count", sm_count_, "SM count when the raw files do not record it")
        ->check(CLI::Range(1, 1 << 20));
    sub->add_flag("--no-table", no_table_, "Do not write the measured GEMM table (tile model only)");
    sub->add_option("--report", report_, "Also write per-point relative errors as CSV")
        ->check(output_path());
    sub->add_option(
           "--gemm-layouts", gemm_layouts_,
           "pool: one GEMM fit per type over the TN/NN/NT layouts (the profile's GEMM "
           "model); separate: one per type and layout, the profile from each type's TN fit")
        ->check(CLI::IsMember({"pool", "separate"}));
    sub->add_flag("-q,--quiet", quiet_, "Print nothing but errors");
    sub->add_option("--nccl-collective", nccl_.collective,
                    "Collective of the nccl-tests logs when neither the log nor the file name says")
        ->check(CLI::IsMember(
            {"all_reduce", "all_gather", "reduce_scatter", "all_to_all", "send_recv"}));
    sub->add_option("--nccl-ranks", nccl_.ranks,
                    "Ranks of the nccl-tests runs (default: the '# Using devices' list)")
        ->check(CLI::Range(2, 1 << 24));
    sub->add_option("--nccl-nodes", nccl_.nodes,
                    "Nodes the nccl-tests ranks span (default: the hosts in the device list)")
        ->check(CLI::Range(1, 1 << 24));
    sub->add_option(
           "--nccl-fabric", nccl_.fabric,
           "Fabric of the nccl-tests logs (default: scale_up on one node, scale_out across "
           "nodes; an NVL72 rack is scale_up)")
        ->check(CLI::IsMember({"scale_up", "scale_out"}));
    sub->add_flag("--nccl-in-place", nccl_.in_place,
                  "Read the in-place columns of nccl-tests logs (default: out-of-place)");
    return sub;
  }

  int run() override {
    // Both files or neither, and neither may replace a measurement or the base profile.
    OutputSet outputs;
    for (const auto& path : raw_) outputs.add_input(path, "raw measurement file");
    if (!base_.empty() && std::filesystem::exists(base_))
      outputs.add_input(base_, "--base profile");
    for (const auto& [path, what] : {std::pair{output_, "-o"}, std::pair{report_, "--report"}}) {
      const auto st = declare_if_given(outputs, path, what);
      if (!st.ok()) return report_error(st.error());
    }
    std::vector<calibrate::RawData> files;
    for (const auto& path : raw_) {
      auto data = calibrate::read_measurement_file(path, nccl_);
      if (!data.ok()) return report_error(data.error());
      files.push_back(std::move(*data));
    }
    calibrate::FitOptions fit_options;
    fit_options.sm_count = sm_count_;
    fit_options.separate_layouts = gemm_layouts_ == "separate";
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
    const std::string text = calibrate::profile_text(*profile, *fit, checks);
    // Read it back as `ntpsim run` would, before it is written: a profile that does not load is
    // never put in place for `ntpsim run` to trip on.
    auto loaded = load_yaml_string(text, output_);
    if (!loaded.ok()) {
      return report_error(
          Error::runtime("the written profile does not parse: " + loaded.error().message));
    }
    auto check = models::read_hardware(*loaded, "", YamlContext(output_), search);
    if (!check.ok()) {
      return report_error(
          Error::runtime("the written profile does not load: " + check.error().message));
    }
    Status st = outputs.stage(output_, text);
    if (st.ok() && !report_.empty()) st = outputs.stage(report_, calibrate::fit_report_csv(*fit));
    if (st.ok()) st = outputs.commit();
    if (!st.ok()) return report_error(st.error());
    if (!quiet_) {
      fmt::print("{}", calibrate::describe(*fit));
      fmt::print("profile's cost models against the measurements:\n{}", calibrate::describe(checks));
      for (const auto& r : fit->reshards) {
        fmt::print("note: {} all_to_all at group size {} holds the reshard fit (the step model uses "
                   "it only for the NTP reshard), so all_to_all's own points may differ there\n",
                   r.fabric, r.tp);
      }
      fmt::print("wrote profile '{}' (origin {}, {} points from {} files) to {}\n", profile->name,
                 profile->origin, fit->points, files.size(), output_);
    }
    // Not measured is said even with --quiet: the numbers must not pass for a measurement.
    for (const auto& f : files) {
      if (calibrate::data_origin(f) == "synthetic") {
        fmt::print(stderr,
                   "WARNING: {} is SYNTHETIC data, not a measurement (profile origin: {})\n",
                   f.file, profile->origin);
      }
    }
    return 0;
  }

 private:
  std::vector<std::string> raw_;
  std::string output_, base_, name_, report_;
  std::string gemm_layouts_ = "pool";
  int sm_count_ = 0;
  bool no_table_ = false;
  bool quiet_ = false;
  calibrate::NcclTestsOptions nccl_;
};

NTPSIM_REGISTER_COMMAND("fit", FitCommand)

}  // namespace
}  // namespace ntpsim::cli
