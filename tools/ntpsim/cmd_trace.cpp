// `ntpsim trace FILE`: validates a failure trace, prints its statistics, and converts it to the
// ntpsim CSV trace format (docs/trace-format.md) with --to-csv.
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "models/base/atomic_file.h"
#include "models/base/statistics.h"
#include "sim/failures/failure_source.h"
#include "sim/failures/trace.h"
#include "sim/failures/trace_formats.h"
#include "tools/ntpsim/command.h"
#include "tools/ntpsim/outputs.h"

namespace ntpsim::cli {
namespace {

constexpr double kDay = 86400.0;

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
    sub->add_option("--format", format_, names + " (default: from the extension, " + extensions + ")")
        ->check(CLI::IsMember(sim::trace_format_names()));
    sub->add_option("--nodes", nodes_,
                    "Nodes the trace observed, for faults per 1000 node-days "
                    "(default: the nodes that appear)")
        ->check(CLI::Range(int64_t{1}, int64_t{1} << 40));
    sub->add_option("--to-csv", csv_out_, "Write the trace in the ntpsim CSV format to this path")
        ->check(output_path());
    return sub;
  }

  int run() override {
    sim::TraceConfig cfg;
    cfg.file = file_;
    cfg.format = format_;
    if (cfg.format.empty()) {
      const sim::TraceFormat* guess = sim::trace_format_for_file(file_);
      if (guess == nullptr) return report_error(Error::bad_input(file_ + ": cannot tell the format from the extension; pass --format"));
      cfg.format = std::string(guess->name);
    }
    OutputSet outputs;  // the converted trace may not replace the trace it converts
    outputs.add_input(file_, "trace");
    if (!csv_out_.empty()) {
      const Status st = outputs.declare(csv_out_, "--to-csv");
      if (!st.ok()) return report_error(st.error());
    }
    auto loaded = sim::load_trace(cfg);
    if (!loaded.ok()) return report_error(loaded.error());
    const sim::TraceData& t = **loaded;
    // The conversion first: a failed run prints only its error.
    if (!csv_out_.empty()) {
      auto text = sim::to_csv_trace(t);
      if (!text.ok()) return report_error(text.error());
      Status st = outputs.stage(csv_out_, *text);
      if (st.ok()) st = outputs.commit();
      if (!st.ok()) return report_error(st.error());
    }
    print_summary(t);
    if (!csv_out_.empty()) fmt::print("wrote {} ({} faults)\n", csv_out_, t.faults.size());
    return 0;
  }

 private:
  void print_summary(const sim::TraceData& t) const {
    const double nodes = nodes_ > 0 ? static_cast<double>(nodes_) : static_cast<double>(t.node_names.size());
    fmt::print("trace        {} ({})\n", t.file, format_.empty() ? "by extension" : format_);
    fmt::print("faults       {} on {} nodes, {} without an end (repair runs to the trace's end)\n",
               t.faults.size(), t.node_names.size(), t.open_faults);
    fmt::print("span         {:.2f} days\n", t.span_s / kDay);
    if (t.span_s > 0) {
      fmt::print("rate         {:.2f} faults per 1000 node-days over {} nodes\n",
                 static_cast<double>(t.faults.size()) / (nodes * t.span_s / kDay) * 1000, nodes);
    }
    std::map<uint16_t, size_t> per_kind;
    std::vector<double> repair_d;
    for (const sim::TraceFault& f : t.faults) {
      ++per_kind[f.kind];
      repair_d.push_back(f.repair_s / kDay);
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

  std::string file_;
  std::string format_;
  int64_t nodes_ = 0;
  std::string csv_out_;
};

NTPSIM_REGISTER_COMMAND("trace", TraceCommand)

}  // namespace
}  // namespace ntpsim::cli
