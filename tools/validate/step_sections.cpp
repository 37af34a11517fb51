// Step time against published Megatron-LM measurements (models/step_validation.h), as a
// section of docs/VALIDATION.md. The bounds are the ones tests/models/validation_test.cpp
// asserts.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "models/hardware.h"
#include "models/step_validation.h"
#include "tools/validate/doc_builder.h"

namespace ntpsim::validate {

namespace {
constexpr double kMeanBound = 0.03;
constexpr double kMaxBound = 0.08;
}  // namespace

Status step_sections(Doc& doc) {
  YamlContext ctx("a100-sxm-80gb");
  const std::vector<std::string> dirs{
      (std::filesystem::path(doc.options.source_dir) / "models" / "profiles").string()};
  auto a100 = models::read_hardware(YAML::Node("a100-sxm-80gb"), "hardware", ctx, dirs);
  if (!a100.ok()) return a100.error();
  const auto points = models::megatron_step_validation(*a100);
  std::string& b = doc.body;
  b += "## Step time: Megatron-LM on A100 (Korthikanti et al. 2022)\n\n";
  b += "The analytic step model (`models/analytic_step_model.h`) against the measured times of "
       "Korthikanti et al., \"Reducing Activation Recomputation in Large Transformer Models\" "
       "(MLSys 2023): Table 4 (one 22B layer, forward + backward), Table 5 (iterations) and the "
       "530B run with 8-way data parallelism. One spec-derived profile (`a100-sxm-80gb`), the "
       "software of the run (unfused attention, gradient all-reduce after the backward), no "
       "per-configuration factor (`models/step_validation.cpp`; asserted in "
       "`tests/models/validation_test.cpp`).\n\n";
  b += "| point | layout | measured | ntpsim | error |\n|---|---|---|---|---|\n";
  double sum = 0;
  double worst = 0;
  for (const auto& p : points) {
    const bool layer = p.measured_s < 0.1;
    b += fmt::format("| {} | {} | {} | {} | {:+.1f}% |\n", p.name, p.layout,
                     layer ? fmt::format("{:.1f} ms", p.measured_s * 1e3)
                           : fmt::format("{:.2f} s", p.measured_s),
                     layer ? fmt::format("{:.2f} ms", p.predicted_s * 1e3)
                           : fmt::format("{:.2f} s", p.predicted_s),
                     100 * p.error());
    sum += std::fabs(p.error());
    worst = std::max(worst, std::fabs(p.error()));
  }
  const double mean = sum / static_cast<double>(points.size());
  b += fmt::format("\nMean |error| {:.2f}% over {} points, largest {:.2f}%.\n\n", 100 * mean,
                   points.size(), 100 * worst);
  b += claim_header();
  b += doc.claim({"Megatron-LM step time, mean absolute error", "Korthikanti 2022 T4/T5",
                  "measured", pct(mean, 2), pct(mean, 2), fmt::format("≤ {}", pct(kMeanBound, 0)),
                  mean <= kMeanBound});
  b += doc.claim({"Megatron-LM step time, largest absolute error", "Korthikanti 2022 T4/T5",
                  "measured", pct(worst, 2), pct(worst, 2), fmt::format("≤ {}", pct(kMaxBound, 0)),
                  worst <= kMaxBound});
  b += "\n";
  return Status::Ok();
}

}  // namespace ntpsim::validate
