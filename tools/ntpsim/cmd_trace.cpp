// `ntpsim trace FILE`: validates a failure trace, prints its statistics, converts it to the
// ntpsim CSV trace format (docs/trace-format.md) with --to-csv, and fits a failure model from it
// with --fit (sim/failures/fit.h).
#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

#include "models/base/atomic_file.h"
#include "models/base/time.h"
#include "models/base/random.h"
#include "models/base/statistics.h"
#include "sim/failures/failure_source.h"
#include "sim/failures/fit.h"
#include "sim/failures/trace.h"
#include "sim/failures/trace_formats.h"
#include "tools/ntpsim/command.h"
#include "tools/ntpsim/outputs.h"

namespace ntpsim::cli {
namespace {


// The type-7 q-quantile of sorted values; 0 for none.
double quantile(const std::vector<double>& sorted, double q) {
  return sorted.empty() ? 0.0 : percentile_sorted(sorted, q);
}

class TraceCommand final : public Command {
 public:
  CLI::App* setup(CLI::App& app) override {
    CLI::App* sub = app.add_subcommand("trace", "Check a failure trace, print its statistics, convert it to CSV");
    sub->add_option("file", file_, "Trace file (InfiniteHBD JSON or ntpsim CSV)")->required();
    // "infinitehbd | csv (default: from the extension, .json or .csv)", from the format table.
    std::string names, extensions;
    std::vector<std::string_view> all_extensions;
    for (const sim::TraceFormat& f : sim::trace_formats()) {
      names += (names.empty() ? "" : " | ") + std::string(f.name);
      all_extensions.insert(all_extensions.end(), f.extensions.begin(), f.extensions.end());
    }
    for (size_t i = 0; i < all_extensions.size(); ++i) {
      if (i > 0) extensions += i + 1 == all_extensions.size() ? " or " : ", ";
      extensions += all_extensions[i];
    }
    sub->add_option("--format", format_,
                    names + " (default: from the extension, " + extensions + ")")
        ->check(CLI::IsMember(sim::trace_format_names()));
    sub->add_option("--nodes", nodes_,
                    "Nodes the trace observed, for faults per 1000 node-days "
                    "(default: the nodes that appear)")
        ->check(CLI::Range(int64_t{1}, int64_t{1} << 40));
    sub->add_option("--to-csv", csv_out_, "Write the trace in the ntpsim CSV format to this path")
        ->check(output_path());
    sub->add_flag("--strict", strict_,
                  "Refuse a trace with exactly repeated faults (default: warn)");
    sub->add_flag("--fit", fit_, "Fit a failure model (one process per kind) from the trace");
    CLI::Option* out = sub->add_option(
        "-o,--out", fit_out_, "With --fit: write the model, a scenario fragment for include:");
    out->check(output_path());
    out->needs(sub->get_option("--fit"));
    sub->add_option(
           "--burst-window", burst_window_,
           "With --fit: faults starting within this many seconds of the previous form a burst")
        ->check(CLI::Range(1.0, 86400.0 * 30))
        ->needs(sub->get_option("--fit"));
    sub->add_option("--bootstrap", bootstrap_,
                    "With --fit: bootstrap replicates of the goodness-of-fit p-values")
        ->check(CLI::Range(0, 10000))
        ->needs(sub->get_option("--fit"));
    sub->add_option("--seed", seed_, "With --fit: seed of the bootstrap draws")
        ->needs(sub->get_option("--fit"));
    sub->add_option("--max-regime-faults", max_regime_faults_,
                    "With --fit: fit regimes of the pooled faults only up to this many faults "
                    "(their cost grows with the faults, about 16 CPU-ms each)")
        ->check(CLI::Range(int64_t{0}, int64_t{1} << 40))
        ->needs(sub->get_option("--fit"));
    sub->add_option("--threads", threads_,
                    "With --fit: worker threads of the regime fits (default: all cores; the fit "
                    "is the same for any count)")
        ->check(CLI::Range(1, 4096))
        ->needs(sub->get_option("--fit"));
    sub->add_option("--gpus-per-node", gpus_per_node_,
                    "With --fit: GPUs per node of the logged cluster; adds every rate per "
                    "GPU-hour, by kind and cause, to the model's comments")
        ->check(CLI::Range(int64_t{1}, int64_t{1} << 20))
        ->needs(sub->get_option("--fit"));
    return sub;
  }

  int run() override {
    sim::TraceConfig cfg;
    cfg.file = file_;
    cfg.format = format_;
    if (cfg.format.empty()) {
      const sim::TraceFormat* guess = sim::trace_format_for_file(file_);
      if (guess == nullptr)
        return report_error(
            Error::bad_input(file_ + ": cannot tell the format from the extension; pass --format"));
      cfg.format = std::string(guess->name);
    }
    OutputSet outputs;  // the converted trace may not replace the trace it converts
    outputs.add_input(file_, "trace");
    for (const auto& [path, what] :
         {std::pair{csv_out_, "--to-csv"}, std::pair{fit_out_, "-o"}}) {
      if (path.empty()) continue;
      const Status st = outputs.declare(path, what);
      if (!st.ok()) return report_error(st.error());
    }
    auto loaded = sim::load_trace(cfg);
    if (!loaded.ok()) return report_error(loaded.error());
    const sim::TraceData& t = **loaded;
    if (strict_ && t.duplicates > 0) {
      return report_error(
          Error::bad_input(t.warnings.front() + " (--strict refuses repeated faults)"));
    }
    // Every output is computed before any is written: a failed run prints only its error.
    std::string csv_text, fit_text;
    if (!csv_out_.empty()) {
      auto text = sim::to_csv_trace(t);
      if (!text.ok()) return report_error(text.error());
      csv_text = std::move(text).value();
    }
    if (fit_) {
      auto text = fit_model(t);
      if (!text.ok()) return report_error(text.error());
      fit_text = std::move(text).value();
    }
    if (!csv_out_.empty()) {
      const Status st = outputs.stage(csv_out_, csv_text);
      if (!st.ok()) return report_error(st.error());
    }
    if (fit_ && !fit_out_.empty()) {
      const Status st = outputs.stage(fit_out_, fit_text);
      if (!st.ok()) return report_error(st.error());
    }
    if (const Status st = outputs.commit(); !st.ok()) return report_error(st.error());
    for (const std::string& w : t.warnings) fmt::print(stderr, "warning: {}\n", w);
    for (const std::string& n : fit_notes_) fmt::print(stderr, "note: {}\n", n);
    print_summary(t);
    if (!csv_out_.empty()) fmt::print("wrote {} ({} faults)\n", csv_out_, t.faults.size());
    if (fit_ && fit_out_.empty()) fmt::print("{}", fit_text);
    if (fit_ && !fit_out_.empty()) {
      for (const std::string& line : fit_summary_) fmt::print("{}\n", line);
      fmt::print("wrote {} (fitted failure model, {} kind{})\n", fit_out_, t.kind_names.size(),
                 t.kind_names.size() == 1 ? "" : "s");
    }
    return 0;
  }

 private:
  void print_summary(const sim::TraceData& t) const {
    const double nodes = nodes_ > 0 ? static_cast<double>(nodes_) : static_cast<double>(t.node_names.size());
    fmt::print("trace        {} ({})\n", t.file, format_.empty() ? "by extension" : format_);
    fmt::print("faults       {} on {} nodes, {} without an end (repair runs to the trace's end)\n",
               t.faults.size(), t.node_names.size(), t.open_faults);
    fmt::print("span         {:.2f} days\n", t.span_s / kSecondsPerDay);
    if (t.span_s > 0) {
      fmt::print("rate         {:.2f} faults per 1000 node-days over {} nodes\n",
                 static_cast<double>(t.faults.size()) / (nodes * t.span_s / kSecondsPerDay) * 1000, nodes);
    }
    std::map<uint16_t, size_t> per_kind;
    std::vector<double> repair_d;
    for (const sim::TraceFault& f : t.faults) {
      ++per_kind[f.kind];
      repair_d.push_back(f.repair_s / kSecondsPerDay);
    }
    std::sort(repair_d.begin(), repair_d.end());
    double sum = 0.0;
    for (const double r : repair_d) sum += r;
    fmt::print("repair (d)   median {:.2f}, mean {:.2f}, p90 {:.2f}, max {:.2f}\n", quantile(repair_d, 0.5),
               sum / static_cast<double>(std::max<size_t>(1, repair_d.size())), quantile(repair_d, 0.9),
               repair_d.empty() ? 0.0 : repair_d.back());
    for (const auto& [kind, count] : per_kind) {
      fmt::print("kind         {:<24} {:>6} ({:.1f}%)\n", t.kind_names[kind], count,
                 100.0 * static_cast<double>(count) / static_cast<double>(t.faults.size()));
    }
  }

  // The fitted model as YAML; the log's hash is FNV-1a 64 of its bytes.
  Result<std::string> fit_model(const sim::TraceData& t) const {
    std::ifstream in(file_, std::ios::binary);
    std::ostringstream buffer;
    buffer << in.rdbuf();
    if (!in) return Error::bad_input(file_ + ": cannot read trace");
    const std::string bytes = std::move(buffer).str();
    sim::FitOptions o;
    o.nodes = nodes_;
    o.gpus_per_node = gpus_per_node_;
    o.burst_window_s = burst_window_;
    o.bootstrap = bootstrap_;
    o.seed = seed_;
    o.max_regime_faults = max_regime_faults_;
    o.threads = threads_ > 0 ? threads_
                             : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
    o.source_hash = fmt::format("fnv1a64:{:016x} ({} bytes)", fnv1a64(bytes), bytes.size());
    auto fit = sim::fit_trace(t, o);
    if (!fit.ok()) return fit.error();
    for (const sim::KindFit& k : fit->kinds) {
      for (const std::string& n : k.notes) fit_notes_.push_back("kind " + k.name + ": " + n);
    }
    if (!fit->pooled.regime_skipped.empty()) {
      fit_notes_.push_back("pooled faults: " + fit->pooled.regime_skipped);
    }
    fit_summary_ = sim::fitted_model_summary(*fit);
    return sim::fitted_failures_yaml(*fit);
  }

  mutable std::vector<std::string> fit_notes_;  // printed once every output is written
  mutable std::vector<std::string> fit_summary_;  // the model, printed after the log's summary

  std::string file_;
  std::string format_;
  bool strict_ = false;
  bool fit_ = false;
  std::string fit_out_;
  double burst_window_ = 3600.0;
  int bootstrap_ = 99;
  int64_t max_regime_faults_ = sim::FitOptions{}.max_regime_faults;
  int threads_ = 0;  // 0 = std::thread::hardware_concurrency()
  uint64_t seed_ = 1;
  int64_t nodes_ = 0;
  int64_t gpus_per_node_ = 0;
  std::string csv_out_;
};

NTPSIM_REGISTER_COMMAND("trace", TraceCommand)

}  // namespace
}  // namespace ntpsim::cli
