// `ntpsim sensitivity SCENARIO [--set k=v]... [--replications N] [--threads N] [--seed S]
//  [--samples N] [--no-indices] [--bisection-steps N] [--max-evaluations N]
//  [--out sensitivity.json] [--csv tornado.csv] [--report sensitivity.html|.md]
//  [--resume FILE] [-q]`: which
// uncertain input decides which strategy wins (sim/sensitivity/sensitivity.h,
// docs/sensitivity.md). Prints the summary verdict first; writes the JSON (kind "sensitivity"),
// the tornado CSV and the report page (reports/sensitivity_section.cpp), all or none; progress on
// a terminal's stderr (progress_display.h); "ntpsim: wrote FILE" lines unless -q. Under mpirun
// each evaluation's replications are split across the ranks and rank 0 alone prints and writes.
// Ctrl-C stops after the running replications and writes nothing; with --resume FILE every
// finished evaluation is appended to FILE (sim/io/progress.h) and the same command run again
// continues from it, to results identical to an uninterrupted run.
#include <fmt/format.h>

#include <cstdio>
#include <limits>
#include <memory>
#include <optional>
#include <utility>

#include "reports/report.h"
#include "sim/io/progress.h"
#include "sim/scenario/loader.h"
#include "sim/scenario/printer.h"
#include "sim/sensitivity/sensitivity.h"
#include "tools/ntpsim/command.h"
#include "tools/ntpsim/interrupt.h"
#include "tools/ntpsim/mpi_world.h"
#include "tools/ntpsim/outputs.h"
#include "tools/ntpsim/progress_cli.h"
#include "tools/ntpsim/progress_display.h"

namespace ntpsim::cli {
namespace {

class SensitivityCommand final : public Command {
 public:
  CLI::App* setup(CLI::App& app) override {
    CLI::App* sub = app.add_subcommand(
        "sensitivity",
        "Which uncertain input decides the winner: one-at-a-time tornado, break-even values, "
        "win probabilities and first-order and total Sobol' indices over Latin hypercubes");
    sub->add_option("scenario", file_, "Scenario YAML file (its `uncertain:` section, if any)")
        ->required();
    sub->add_option("--set", overrides_, "Override a scenario field (every evaluation)");
    sub->add_option("--replications", replications_, "Replications per evaluation")
        ->check(CLI::Range(1, 1000000));
    sub->add_option("--threads", threads_, "Worker threads (default: all cores)")
        ->check(CLI::Range(1, 4096));
    sub->add_option("--seed", seed_, "Scenario seed (overrides the scenario)")
        ->transform(unsigned_decimal(std::numeric_limits<int64_t>::max()));
    sub->add_option("--samples", options_.samples,
                    "Rows N of each of the two Latin hypercubes of the global analysis (0 = none; "
                    "default 64): N (k + 2) evaluations for k inputs, 2N with --no-indices")
        ->check(CLI::Range(0, 100000));
    sub->add_flag("--no-indices", no_indices_,
                  "Win probabilities only: skip the N k evaluations of the Sobol' indices");
    sub->add_option("--bisection-steps", options_.bisection_steps,
                    "Bisections per break-even (default 10)")
        ->check(CLI::Range(1, 60));
    sub->add_option("--max-evaluations", options_.max_evaluations,
                    "Refuse a plan of more scenario evaluations than this (default 2000)")
        ->check(CLI::Range(int64_t{1}, int64_t{1000000}));
    sub->add_option("--out", out_, "Write the sensitivity JSON here")->check(output_path());
    sub->add_option("--csv", csv_, "Write the tornado CSV here")->check(output_path());
    sub->add_option("--report", report_,
                    "Write the report here: HTML (tornado, win probabilities, break-even lines, "
                    "indices), or Markdown for a .md path")
        ->check(output_path());
    sub->add_option("--resume", resume_,
                    "Progress file: record each finished evaluation there and continue from it "
                    "after an interruption (removed when the outputs are written)")
        ->check(output_path());
    sub->add_flag("-q,--quiet", quiet_, "Print no summary");
    return sub;
  }

  int run() override {
    std::vector<std::string> overrides = overrides_;
    if (seed_) overrides.push_back(fmt::format("seed={}", *seed_));
    options_.replications = replications_;
    options_.threads = threads_;
    options_.indices = !no_indices_;
    // Under mpirun / srun: each evaluation's replications split across ranks, rank 0 alone
    // prints and writes.
    const auto world = MpiWorld::join();
    if (world) options_.distribution = world->distribution();
    install_interrupt_handlers();  // Ctrl-C: stop after the running replications, write nothing
    options_.cancel = interrupt_flag();
    // Every output or none, checked before the analysis: none may be the scenario or another
    // output.
    auto base = sim::load_scenario(file_, overrides);
    if (!base.ok()) return report_error(base.error());
    OutputSet outputs;
    add_scenario_inputs(outputs, *base);
    outputs.add_input(resume_, "--resume progress file");
    if (!report_.empty() && reports::format_for_path(report_) == reports::Format::kCsv) {
      return report_error(Error::bad_input(
          fmt::format("--report {}: a sensitivity report is .html or .md (--csv writes the "
                      "tornado CSV)",
                      report_)));
    }
    for (const auto& [path, what] :
         {std::pair{out_, "--out"}, std::pair{csv_, "--csv"}, std::pair{report_, "--report"}}) {
      const auto st = declare_if_given(outputs, path, what);
      if (!st.ok()) return report_error(st.error());
    }
    // Progress on a terminal only (progress_display.h): evaluations, the planned count a bound.
    ProgressDisplay progress("sensitivity", "evaluations", progress_wanted(quiet_, is_root(world)));
    if (progress.enabled()) {
      options_.progress = [&progress](int done, int planned) {
        progress.set_total(planned, /*is_bound=*/true);
        progress.set_done(done);
      };
    }
    std::unique_ptr<sim::ProgressJournal> journal;
    sim::SensitivityHooks hooks;
    if (!resume_.empty()) {
      auto opened = open_journal(file_, overrides, *base, world.get());
      if (!opened.ok()) return report_error(opened.error());
      journal = std::move(*opened);
      if (is_root(world) && !quiet_ && journal->size() > 0) {
        fmt::print(stderr,
                   "ntpsim sensitivity: resuming: {} finished evaluation{} recorded in {}\n",
                   journal->size(), journal->size() == 1 ? "" : "s", resume_);
      }
      const size_t strategies = base->strategies.size();
      hooks.recorded = [&, strategies](int index) -> Result<std::optional<sim::Evaluation>> {
        const auto* rec = journal->find(key(index));
        if (rec == nullptr) return std::optional<sim::Evaluation>();
        auto e = read_record(*rec, strategies, fmt::format("{}: evaluation {}", resume_, index));
        if (!e.ok()) return e.error();
        return std::optional<sim::Evaluation>(std::move(*e));
      };
      hooks.finished = [&](int index, const sim::Evaluation& e) {
        return append_progress(*journal, key(index), record(e), world.get());  // rank 0 writes
      };
    }
    auto result = sim::run_sensitivity(file_, overrides, options_, hooks);
    progress.finish();
    if (!result.ok()) {
      if (!interrupt_flag()->load()) {
        // Nothing was recorded: leave no progress file behind a failure.
        if (journal && journal->size() == 0 && is_root(world)) (void)journal->remove();
        return report_error(result.error());
      }
      if (journal) {
        return report_error(Error::runtime(fmt::format(
            "{}; no output file written; the finished evaluations are kept in {}: run the same "
            "command again to continue",
            result.error().message, resume_)));
      }
      return report_error(Error::runtime(result.error().message + "; no output file written"));
    }
    if (!is_root(world)) return 0;
    if (!out_.empty()) {
      const auto st = outputs.stage(out_, sim::sensitivity_json(*result).dump(1) + "\n");
      if (!st.ok()) return report_error(st.error());
    }
    if (!csv_.empty()) {
      const auto st = outputs.stage(csv_, sim::sensitivity_csv(*result));
      if (!st.ok()) return report_error(st.error());
    }
    if (!report_.empty()) {
      const auto doc = nlohmann::json::parse(sim::sensitivity_json(*result).dump());
      const auto st = stage_report(outputs, doc, "sensitivity results", report_, "");
      if (!st.ok()) return report_error(st.error());
    }
    if (const auto st = outputs.commit(); !st.ok()) return report_error(st.error());
    if (journal) {
      const auto st = journal->remove();
      if (!st.ok()) return report_error(st.error());
    }
    if (!quiet_) std::fputs(sim::sensitivity_summary(*result).c_str(), stdout);
    print_written({out_, csv_, report_}, quiet_);
    return 0;
  }

 private:
  static std::string key(int index) { return fmt::format("evaluation/{}", index); }

  // An evaluation as a progress record, every double exact (sim/io/progress.h).
  static nlohmann::ordered_json record(const sim::Evaluation& e) {
    nlohmann::ordered_json goodput = nlohmann::ordered_json::array(), mean = goodput, ttt = goodput;
    for (size_t s = 0; s < e.strategies.size(); ++s) {
      nlohmann::ordered_json reps = nlohmann::ordered_json::array();
      for (double g : e.goodput[s]) reps.push_back(sim::exact_number(g));
      goodput.push_back(std::move(reps));
      mean.push_back(sim::exact_number(e.strategies[s].goodput));
      ttt.push_back(sim::exact_number(e.strategies[s].time_to_train_days));
    }
    return {{"winner", e.winner},
            {"goodput_mean", std::move(mean)},
            {"time_to_train_days", std::move(ttt)},
            {"goodput", std::move(goodput)}};
  }

  // The evaluation of a record; bad input naming `where` when its shape is not record()'s.
  static Result<sim::Evaluation> read_record(const nlohmann::ordered_json& j, size_t strategies,
                                             const std::string& where) {
    auto bad = [&](const char* what) { return Error::bad_input(where + ": " + what); };
    if (!j.is_object() || !j.contains("winner") || !j.at("winner").is_number_integer() ||
        !j.contains("goodput_mean") || !j.contains("time_to_train_days") ||
        !j.contains("goodput") || !j.at("goodput").is_array() || !j.at("goodput_mean").is_array() ||
        !j.at("time_to_train_days").is_array() || j.at("goodput").size() != strategies ||
        j.at("goodput_mean").size() != strategies ||
        j.at("time_to_train_days").size() != strategies) {
      return bad("not an evaluation record of this scenario's strategies");
    }
    sim::Evaluation e;
    e.winner = j.at("winner").get<int>();
    if (e.winner < 0 || static_cast<size_t>(e.winner) >= strategies) return bad("bad winner");
    for (size_t s = 0; s < strategies; ++s) {
      sim::StrategyPoint p;
      auto m = sim::read_exact_number(j.at("goodput_mean").at(s), where + ": goodput_mean");
      if (!m.ok()) return m.error();
      auto t = sim::read_exact_number(j.at("time_to_train_days").at(s), where + ": time to train");
      if (!t.ok()) return t.error();
      p.goodput = *m;
      p.time_to_train_days = *t;
      e.strategies.push_back(p);
      const auto& reps = j.at("goodput").at(s);
      if (!reps.is_array() || reps.empty()) return bad("goodput: expected a list per strategy");
      std::vector<double> g;
      for (const auto& v : reps) {
        auto x = sim::read_exact_number(v, where + ": goodput");
        if (!x.ok()) return x.error();
        g.push_back(*x);
      }
      e.goodput.push_back(std::move(g));
    }
    return e;
  }

  // The progress file, whose identity is everything the evaluations depend on: the scenario and
  // its hash, the overrides, the uncertain inputs as read, and the options that set the sequence.
  Result<std::unique_ptr<sim::ProgressJournal>> open_journal(
      const std::string& file, const std::vector<std::string>& overrides, const sim::Scenario& base,
      const MpiWorld* world) const {
    auto inputs = sim::read_uncertain_inputs(file, overrides);
    if (!inputs.ok()) return inputs.error();
    auto identity = progress_identity("sensitivity");
    identity["scenario_file"] = file;
    identity["overrides"] = overrides;
    identity["scenario_hash"] = sim::scenario_hash(base);  // catches edited files
    nlohmann::ordered_json ins = nlohmann::ordered_json::array();
    for (const auto& in : inputs->inputs) {
      ins.push_back({{"path", in.path},
                     {"distribution", sim::describe_distribution(in)},
                     {"low", sim::exact_number(in.lo)},
                     {"high", sim::exact_number(in.hi)}});
    }
    identity["inputs"] = std::move(ins);
    identity["replications"] = replications_;
    identity["samples"] = options_.samples;
    identity["indices"] = options_.indices;
    identity["bisection_steps"] = options_.bisection_steps;
    return open_progress(resume_, identity, world);
  }

  std::string file_;
  std::vector<std::string> overrides_;
  int replications_ = 0;
  int threads_ = 0;
  std::optional<uint64_t> seed_;
  sim::SensitivityOptions options_;
  std::string out_;
  std::string csv_;
  std::string report_;
  std::string resume_;
  bool quiet_ = false;
  bool no_indices_ = false;
};

NTPSIM_REGISTER_COMMAND("sensitivity", SensitivityCommand)

}  // namespace
}  // namespace ntpsim::cli
