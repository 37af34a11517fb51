// `ntpsim step`: the step-time model's answer for one workload, layout and profile.
//
//   ntpsim step --workload W --profile P --tp T --pp P --dp R [--vp V] [--json|--csv]
//   ntpsim step SCENARIO [--set k=v]... [--json|--csv]
// Megatron-LM's argument names are accepted as aliases (--tensor-model-parallel-size,
// --pipeline-model-parallel-size, --num-layers-per-virtual-pipeline-stage, --micro-batch-size,
// --global-batch-size, --seq-length, --recompute-granularity, --sequence-parallel,
// --hidden-dropout, --attention-dropout); flag mode
// checks the layout as a scenario would (TP <= heads, DP x micro-batch <= global batch,
// PP x chunks <= layers) and refuses --set, which only applies to a scenario.
//
// For the healthy TP degree and every reduced degree down to the memory bound min_tp it prints
// the iteration-time breakdown, the largest batch share a damaged replica can carry while keeping
// pace with healthy ones (at TDP and at the highest allowed power), and the least power that keeps
// its full share — the NTP paper's Table 1 for any configuration. Writes no file.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iterator>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "models/analytic_step_model.h"
#include "models/base/build_info.h"
#include "models/layout_search.h"
#include "models/memory_model.h"
#include "sim/scenario/loader.h"
#include "sim/scenario/printer.h"
#include "tools/ntpsim/command.h"

namespace ntpsim::cli {
namespace {

namespace fs = std::filesystem;

// One row of the table: the replica at TP degree `tp`.
struct Row {
  int tp = 0;
  int runs_as = 0;  // the degree it runs at (the fastest t' <= tp; analytic model)
  std::optional<models::StepBreakdown> breakdown;  // analytic model only
  double iteration_s = 0;                          // full share, TDP
  double share_at_tdp = 0;                         // largest share keeping pace at TDP
  double share_at_max = 0;                         // ... at the highest allowed power
  double power_for_full = 0;        // least power ratio for the full share (> max when impossible)
  double perf_per_watt = 0;         // perf/W at power_for_full relative to TDP (when reachable)
  double memory_bytes = 0;          // busiest GPU
  double tokens_per_s_per_gpu = 0;  // full share, TDP, over the tp x cp x pp GPUs of a replica
};

struct Setup {
  models::Workload workload;
  models::Layout layout;
  models::HardwareProfile hardware;
  std::string model = "analytic";
};

class StepCommand final : public Command {
 public:
  CLI::App* setup(CLI::App& app) override {
    CLI::App* sub = app.add_subcommand(
        "step",
        "Step-time breakdown at the healthy and each reduced TP degree, with the batch share "
        "and power a damaged replica needs (the NTP paper's Table 1)");
    sub->add_option("scenario", scenario_, "Scenario YAML file (instead of --workload/--profile)");
    sub->add_option("--set", overrides_, "Override a scenario field (repeatable)");
    sub->add_option("--workload", workload_, "Workload name (models/workloads) or YAML file");
    sub->add_option("--profile", profile_, "Hardware profile name (models/profiles) or YAML file");
    sub->add_option("--tp,--tensor-model-parallel-size", tp_, "Tensor-parallel degree T")
        ->check(CLI::Range(1, 1 << 16));
    sub->add_option("--cp,--context-parallel-size", cp_,
                    "Context-parallel degree (each rank holds 1/CP of every sequence; default 1)")
        ->check(CLI::Range(1, 1 << 16));
    sub->add_option("--cp-comm-type", cp_comm_,
                    "How attention exchanges K and V among the CP ranks: p2p (ring, overlapped; "
                    "Megatron-LM's default) | allgather (exposed; Llama 3's)")
        ->check(CLI::IsMember({"p2p", "allgather"}));
    sub->add_option("--pp,--pipeline-model-parallel-size", pp_, "Pipeline stages")
        ->check(CLI::Range(1, 1 << 16));
    sub->add_option("--dp,--data-parallel-size", dp_, "Data-parallel replicas")
        ->check(CLI::Range(1, 1 << 24));
    auto* vp = sub->add_option("--vp,--virtual-stages,--num-virtual-stages-per-pipeline-rank", vp_,
                               "Interleaved (virtual) stages per pipeline stage")
                   ->check(CLI::Range(1, 1024));
    sub->add_option("--num-layers-per-virtual-pipeline-stage", layers_per_chunk_,
                    "Layers per interleaved chunk (Megatron-LM); sets the virtual stages to "
                    "layers / (PP x this)")
        ->check(CLI::Range(1, 1 << 20))
        ->excludes(vp);
    sub->add_flag("--account-for-embedding-in-pipeline-split", account_embedding_,
                  "Count the embedding as one layer when splitting layers over stages");
    sub->add_flag("--account-for-loss-in-pipeline-split", account_loss_,
                  "Count the LM head and loss as one layer when splitting layers over stages");
    sub->add_option("--decoder-first-pipeline-num-layers", first_layers_,
                    "Layers on the first pipeline stage (the others share the rest evenly)")
        ->check(CLI::Range(1, 1 << 20));
    sub->add_option("--decoder-last-pipeline-num-layers", last_layers_,
                    "Layers on the last pipeline stage (the others share the rest evenly)")
        ->check(CLI::Range(1, 1 << 20));
    sub->add_option("--micro-batch,--micro-batch-size", micro_batch_,
                    "Sequences per micro-batch (default: the workload's)")
        ->check(CLI::Range(1, 1 << 24));
    sub->add_option("--global-batch,--global-batch-size", global_batch_,
                    "Sequences per iteration (default: the workload's)")
        ->check(CLI::Range(1, 1 << 30));
    sub->add_option("--seq-len,--seq-length", seq_len_,
                    "Tokens per sequence (default: the workload's)")
        ->check(CLI::Range(1, 1 << 30));
    sub->add_option("--recompute,--recompute-granularity", recompute_,
                    "Activation recompute: none | selective | full (default: the workload's)")
        ->check(CLI::IsMember({"none", "selective", "full"}));
    auto* sp = sub->add_flag("--sequence-parallel", sp_on_, "Use sequence parallelism");
    sub->add_flag("--no-sequence-parallel", sp_off_, "Do not use sequence parallelism")
        ->excludes(sp);
    sub->add_option("--hidden-dropout", hidden_dropout_,
                    "Dropout probability after attention and MLP (Megatron-LM; 0: none; default: "
                    "the workload's)")
        ->check(CLI::Range(0.0, 1.0));
    sub->add_option("--attention-dropout", attention_dropout_,
                    "Dropout probability on the attention scores (Megatron-LM; 0: none)")
        ->check(CLI::Range(0.0, 1.0));
    sub->add_option("--model", model_,
                    "Step model: analytic | proportional (default: the "
                    "scenario's, else analytic)")
        ->check(CLI::IsMember({"analytic", "proportional"}));
    sub->add_option("--tp-overlap", options_.tp_overlap,
                    "Share of forward TP communication hidden (TE comm overlap), default 0")
        ->check(CLI::Range(0.0, 1.0));
    sub->add_flag("--no-dp-overlap", no_dp_overlap_,
                  "Do not overlap the DP gradient reduction and weight all-gather with compute "
                  "(default: Megatron's bucketed overlap, last bucket exposed)");
    sub->add_flag("--no-distributed-optimizer", no_dist_opt_,
                  "All-reduce gradients and keep the whole optimizer state on every replica");
    sub->add_flag("--unfused-attention", unfused_,
                  "Model Megatron's unfused attention instead of flash attention");
    sub->add_flag("--json", json_, "Print JSON");
    sub->add_flag("--csv", csv_, "Print CSV");
    return sub;
  }

  int run() override {
    if (json_ && csv_) return report_error(Error::bad_input("choose one of --json and --csv"));
    auto setup = load();
    if (!setup.ok()) return report_error(setup.error());
    options_.flash_attention = !unfused_;
    options_.overlap_grad_reduce = !no_dp_overlap_;
    options_.overlap_param_gather = !no_dp_overlap_;
    options_.distributed_optimizer = !no_dist_opt_;
    options_.cp_exchange = cp_comm_ == "allgather" ? models::StepOptions::CpExchange::kAllGather
                                                   : models::StepOptions::CpExchange::kRing;
    if (unfused_ && setup->layout.cp > 1) {
      return report_error(Error::bad_input(fmt::format(
          "--unfused-attention: context parallelism (CP {}) runs on fused attention only",
          setup->layout.cp)));
    }
    if (!model_.empty()) setup->model = model_;
    auto rows = compute(*setup);
    if (!rows.ok()) return report_error(rows.error());
    if (const std::string w = models::origin_warning(setup->hardware); !w.empty()) {
      fmt::print(stderr, "ntpsim: warning: {}\n", w);
    }
    for (const std::string& w : notes(*setup, *rows)) fmt::print(stderr, "{}\n", w);
    // The fastest layout of the same GPUs (TP inside the profile's scale-up domain); for a
    // layout that does not fit, the fastest one that does, CP chosen as well.
    if (setup->model == "analytic" && setup->hardware.gpus_per_domain > 0) {
      const models::Layout& l = setup->layout;
      models::LayoutSearch search{l.gpus(), setup->hardware.gpus_per_domain, 0, l.virtual_stages};
      search.cp = l.cp;
      std::string note =
          models::layout_gap_note(setup->workload, setup->hardware, l, search, options_);
      if (note.empty()) {
        note = models::layout_fit_note(setup->workload, setup->hardware, l, search, options_);
      }
      if (!note.empty()) fmt::print(stderr, "note: {}\n", note);
    }
    if (json_) {
      std::fputs((to_json(*setup, *rows).dump(2) + "\n").c_str(), stdout);
    } else if (csv_) {
      print_csv(*rows);
    } else {
      print_table(*setup, *rows);
    }
    return 0;
  }

 private:
  Result<Setup> load() const {
    const bool shape = micro_batch_ > 0 || global_batch_ > 0 || seq_len_ > 0 ||
                       !recompute_.empty() || sp_on_ || sp_off_ || hidden_dropout_ >= 0 ||
                       attention_dropout_ >= 0 || layers_per_chunk_ > 0 || vp_ != 1 ||
                       account_embedding_ || account_loss_ || first_layers_ > 0 ||
                       last_layers_ > 0 || cp_ > 0;
    const bool flags =
        !workload_.empty() || !profile_.empty() || tp_ > 0 || pp_ > 0 || dp_ > 0 || shape;
    if (!scenario_.empty()) {
      if (flags) {
        return Error::bad_input("give either a scenario or --workload/--profile/--tp/--pp/--dp");
      }
      auto s = sim::load_scenario(scenario_, overrides_);
      if (!s.ok()) return s.error();
      return Setup{s->workload, s->layout, s->hardware, s->step_model};
    }
    if (workload_.empty() || profile_.empty() || tp_ <= 0 || pp_ <= 0 || dp_ <= 0) {
      return Error::bad_input(
          "ntpsim step needs a scenario file, or --workload, --profile, --tp, --pp and --dp");
    }
    if (!overrides_.empty()) {
      return Error::bad_input(fmt::format(
          "--set {} applies to a scenario file; without one, give the value with a flag "
          "(--micro-batch, --global-batch, --seq-len, --recompute, --sequence-parallel, ...)",
          overrides_.front()));
    }
    const fs::path data = sim::default_data_dir();
    const YamlContext ctx("command line");
    Setup s;
    auto w = models::read_workload(YAML::Node(workload_), "--workload", ctx,
                                   {(data / "models" / "workloads").string()});
    if (!w.ok()) return w.error();
    auto h = models::read_hardware(YAML::Node(profile_), "--profile", ctx,
                                   {(data / "models" / "profiles").string()});
    if (!h.ok()) return h.error();
    s.workload = *w;
    s.hardware = *h;
    s.layout.tp = tp_;
    s.layout.cp = std::max(1, cp_);
    s.layout.pp = pp_;
    s.layout.dp = dp_;
    s.layout.virtual_stages = vp_;
    s.layout.account_for_embedding = account_embedding_;
    s.layout.account_for_loss = account_loss_;
    s.layout.first_stage_layers = first_layers_;
    s.layout.last_stage_layers = last_layers_;
    models::Workload& wl = s.workload;
    if (micro_batch_ > 0) wl.micro_batch = micro_batch_;
    if (global_batch_ > 0) wl.global_batch = global_batch_;
    if (seq_len_ > 0) wl.seq_len = seq_len_;
    if (recompute_ == "none") wl.recompute = models::Recompute::kNone;
    if (recompute_ == "selective") wl.recompute = models::Recompute::kSelective;
    if (recompute_ == "full") wl.recompute = models::Recompute::kFull;
    if (sp_on_) wl.sequence_parallel = true;
    if (sp_off_) wl.sequence_parallel = false;
    if (hidden_dropout_ >= 0 || attention_dropout_ >= 0) {
      // The model stores dropout's masks for both places or neither.
      const double hidden = hidden_dropout_ >= 0 ? hidden_dropout_ : attention_dropout_;
      const double attention = attention_dropout_ >= 0 ? attention_dropout_ : hidden_dropout_;
      if ((hidden > 0) != (attention > 0)) {
        return Error::bad_input(fmt::format(
            "--hidden-dropout {} and --attention-dropout {}: the step model has dropout in both "
            "places or in neither; give both as 0 or both above 0",
            hidden, attention));
      }
      wl.dropout = hidden > 0;
    }
    const auto& l = s.layout;
    if (layers_per_chunk_ > 0) {
      // Megatron-LM counts the embedding and loss as layers here too when they are counted in
      // the split.
      const int64_t units = models::pipeline_units(wl, l);
      const int64_t per_stage = static_cast<int64_t>(l.pp) * layers_per_chunk_;
      if (units % per_stage != 0) {
        return Error::bad_input(fmt::format(
            "--num-layers-per-virtual-pipeline-stage {}: {} layers do not split into PP {} "
            "stages of chunks of {} layers",
            layers_per_chunk_, units, l.pp, layers_per_chunk_));
      }
      s.layout.virtual_stages = static_cast<int>(units / per_stage);
    }
    if (l.tp > wl.heads) {
      return Error::bad_input(
          fmt::format("--tp {} exceeds the workload's {} attention heads", l.tp, wl.heads));
    }
    if (wl.micro_batch > wl.global_batch) {
      return Error::bad_input(fmt::format("micro-batch {} exceeds the global batch {}",
                                          wl.micro_batch, wl.global_batch));
    }
    if (static_cast<int64_t>(l.dp) * wl.micro_batch > wl.global_batch) {
      return Error::bad_input(fmt::format(
          "--dp {} replicas need at least {} sequences per iteration (one micro-batch of {} "
          "each); the global batch is {}",
          l.dp, static_cast<int64_t>(l.dp) * wl.micro_batch, wl.micro_batch, wl.global_batch));
    }
    if (const models::SplitError e = models::check_pipeline_split(wl, l); !e.field.empty()) {
      return Error::bad_input(fmt::format("pipeline split ({}): {}", e.field, e.message));
    }
    if (const models::SplitError e = models::check_context_split(wl, l); !e.field.empty()) {
      return Error::bad_input(fmt::format("--cp {}: {}", l.cp, e.message));
    }
    return s;
  }

  Result<std::vector<Row>> compute(const Setup& s) const {
    std::unique_ptr<models::StepModel> model;
    const models::AnalyticStepModel* analytic = nullptr;
    if (s.model == "analytic") {
      auto check = models::make_step_model("analytic", s.workload, s.layout, s.hardware);
      if (!check.ok()) return check.error();
      auto a =
          std::make_unique<models::AnalyticStepModel>(s.workload, s.layout, s.hardware, options_);
      analytic = a.get();
      model = std::move(a);
    } else {
      auto m = models::make_step_model(s.model, s.workload, s.layout, s.hardware);
      if (!m.ok()) return m.error();
      model = std::move(*m);
    }
    const models::PowerModel power(s.hardware);
    const double target = model->healthy_iteration_s();
    const double max_ratio = model->max_power_ratio();
    std::vector<Row> rows;
    // Down to the memory bound whichever model runs (the proportional model alone allows TP1).
    const int fit = models::min_tp(s.workload, s.layout, s.hardware, options_.flash_attention);
    const int lowest = std::max(model->min_tp(), fit > 0 ? fit : model->nominal_tp());
    for (int t = model->nominal_tp(); t >= lowest; --t) {
      Row r;
      r.tp = t;
      r.runs_as = analytic != nullptr ? analytic->effective_tp(t) : t;
      if (analytic != nullptr) r.breakdown = analytic->breakdown(r.runs_as, 1.0, 1.0);
      r.iteration_s = model->replica_iteration_s(t, 1.0, 1.0);
      r.share_at_tdp = models::max_batch_share(*model, t, 1.0, target);
      r.share_at_max = models::max_batch_share(*model, t, max_ratio, target);
      r.power_for_full = models::power_ratio_for(*model, t, 1.0, target);
      r.perf_per_watt = r.power_for_full <= max_ratio ? power.perf_per_watt(r.power_for_full) : 0;
      r.memory_bytes =
          models::memory_at(s.workload, s.layout, s.hardware, t, options_.flash_attention)
              .total_bytes;
      const double gpus = static_cast<double>(t) * s.layout.cp * s.layout.pp;
      r.tokens_per_s_per_gpu =
          s.workload.tokens_per_iteration() / s.layout.dp / (r.iteration_s * std::max(1.0, gpus));
      rows.push_back(r);
    }
    return rows;
  }

  // What a performance engineer should not miss: an MFU no real run reaches or one that says the
  // layout leaves the GPUs waiting, and a smaller TP degree that fits memory and gives more
  // tokens/s per GPU than the nominal one (the layout is the input's choice; `ntpsim plan`
  // chooses layouts).
  static std::vector<std::string> notes(const Setup& s, const std::vector<Row>& rows) {
    std::vector<std::string> out;
    if (rows.empty()) return out;
    const Row& h = rows.front();
    if (h.breakdown) {
      const double mfu = h.breakdown->mfu;
      const double best_gemm = s.hardware.gemm_efficiency;
      if (mfu > best_gemm) {
        out.push_back(fmt::format(
            "warning: MFU {:.1f}% exceeds the profile's best-shape GEMM efficiency {:.0f}%, "
            "which no training step can beat: check the workload and the profile",
            100 * mfu, 100 * best_gemm));
      } else if (mfu < 0.1) {
        const auto& b = *h.breakdown;
        const std::pair<const char*, double> parts[] = {{"exposed TP communication", b.tp_comm_s},
                                                        {"pipeline bubble", b.bubble_s},
                                                        {"exposed DP communication", b.dp_comm_s},
                                                        {"pipeline send/recv", b.pp_comm_s},
                                                        {"exposed CP K/V exchange", b.cp_comm_s}};
        const auto* worst =
            std::max_element(std::begin(parts), std::end(parts),
                             [](const auto& a, const auto& c) { return a.second < c.second; });
        out.push_back(
            fmt::format("warning: MFU {:.1f}% is implausibly low for a production layout: {} takes "
                        "{:.0f}% of the iteration",
                        100 * mfu, worst->first, 100 * worst->second / b.iteration_s));
      }
    }
    const Row* best = &h;
    for (const Row& r : rows) {
      if (r.tokens_per_s_per_gpu > best->tokens_per_s_per_gpu) best = &r;
    }
    if (best->tokens_per_s_per_gpu > 1.1 * h.tokens_per_s_per_gpu) {
      out.push_back(fmt::format(
          "note: TP{} fits in memory and gives {:.0f} tokens/s/GPU, {:.0f}% more than TP{} "
          "({:.0f}); keep TP{} only where the study needs it (`ntpsim plan` chooses layouts)",
          best->tp, best->tokens_per_s_per_gpu,
          100 * (best->tokens_per_s_per_gpu / h.tokens_per_s_per_gpu - 1), h.tp,
          h.tokens_per_s_per_gpu, h.tp));
    }
    return out;
  }

  static std::string power_text(const Row& r, double max_ratio) {
    if (r.power_for_full > max_ratio) return fmt::format(">{:.3f}", max_ratio);
    return fmt::format("{:.3f}", r.power_for_full);
  }

  void print_table(const Setup& s, const std::vector<Row>& rows) const {
    const auto& l = s.layout;
    const auto mem = models::memory_at(s.workload, l, s.hardware, l.tp, options_.flash_attention);
    std::vector<std::string> pipeline;
    if (l.virtual_stages > 1) pipeline.push_back(fmt::format("v={}", l.virtual_stages));
    if (l.account_for_embedding && l.account_for_loss) {
      pipeline.emplace_back("embedding and loss counted as layers");
    } else if (l.account_for_embedding) {
      pipeline.emplace_back("embedding counted as a layer");
    } else if (l.account_for_loss) {
      pipeline.emplace_back("loss counted as a layer");
    }
    if (l.first_stage_layers > 0) {
      pipeline.push_back(fmt::format("{} layers on the first stage", l.first_stage_layers));
    }
    if (l.last_stage_layers > 0) {
      pipeline.push_back(fmt::format("{} layers on the last stage", l.last_stage_layers));
    }
    fmt::print("ntpsim step: {} on {} ({}), TP{}{} x PP{} x DP{}{}, {} model\n", s.workload.name,
               s.hardware.name, s.hardware.origin, l.tp,
               l.cp > 1 ? fmt::format(" x CP{}", l.cp) : std::string(), l.pp, l.dp,
               pipeline.empty() ? "" : fmt::format(" ({})", fmt::join(pipeline, ", ")), s.model);
    fmt::print(
        "memory at TP{}: {:.1f} GB of {:.1f} GB usable per GPU{}; reduced degrees down to TP{}\n",
        l.tp, mem.total_bytes / 1e9, mem.usable_bytes / 1e9,
        mem.fits() ? "" : "  WARNING: the nominal layout does not fit",
        rows.empty() ? l.tp : rows.back().tp);
    if (!rows.empty()) {
      const Row& h = rows.front();
      if (h.breakdown) {
        fmt::print(
            "healthy: {:.3f} s/iteration, MFU {:.1f}%, {:.0f} tokens/s/GPU, {} micro-batches\n",
            h.iteration_s, 100 * h.breakdown->mfu, h.tokens_per_s_per_gpu,
            h.breakdown->microbatches);
      } else {
        fmt::print("healthy: {:.3f} s/iteration, {:.0f} tokens/s/GPU\n", h.iteration_s,
                   h.tokens_per_s_per_gpu);
      }
      if (h.breakdown && l.cp > 1) {
        fmt::print(
            "context parallel: CP{} ({}), {:.0f} tokens per rank and micro-batch, exposed K/V "
            "exchange {:.3f} s/iteration (in iter_s, not in the columns below)\n",
            l.cp, cp_comm_ == "allgather" ? "all-gather" : "ring", h.breakdown->rank_tokens,
            h.breakdown->cp_comm_s);
      }
    }
    fmt::print(
        "as: degree a replica with TP GPUs runs at (fastest t' <= TP); share: largest batch "
        "share keeping pace with healthy replicas (at TDP, at max power); power: least power "
        "(x TDP) for the full share\n\n");
    fmt::print(
        "{:>4} {:>4} {:>9} {:>9} {:>8} {:>8} {:>8} {:>8} {:>7} {:>8} {:>7} {:>7} {:>8} {:>9} {:>7} "
        "{:>9}\n",
        "TP", "as", "iter_s", "compute", "tp_comm", "pp_comm", "bubble", "dp_comm", "optim",
        "reshard", "MFU%", "share", "share@max", "power", "perf/W", "mem");
    const double max_ratio = s.hardware.tdp_w > 0 ? s.hardware.max_power_w / s.hardware.tdp_w : 1.0;
    for (const Row& r : rows) {
      const auto na = std::string("-");
      auto cell = [&](double v, int prec) {
        return r.breakdown ? fmt::format("{:.{}f}", v, prec) : na;
      };
      const models::StepBreakdown b = r.breakdown.value_or(models::StepBreakdown{});
      fmt::print(
          "{:>4} {:>4} {:>9.3f} {:>9} {:>8} {:>8} {:>8} {:>8} {:>7} {:>8} {:>7} {:>7.4f} {:>8.4f} "
          "{:>9} {:>7} {:>9}\n",
          r.tp, r.runs_as, r.iteration_s, cell(b.compute_s, 3), cell(b.tp_comm_s, 3),
          cell(b.pp_comm_s, 3), cell(b.bubble_s, 3), cell(b.dp_comm_s, 3), cell(b.optimizer_s, 3),
          cell(b.reshard_s, 4), cell(100 * b.mfu, 1), r.share_at_tdp, r.share_at_max,
          power_text(r, max_ratio),
          r.perf_per_watt > 0 ? fmt::format("{:.3f}", r.perf_per_watt) : na,
          fmt::format("{:.1f}GB", r.memory_bytes / 1e9));
    }
  }

  static void print_csv(const std::vector<Row>& rows) {
    fmt::print(
        "tp,runs_as_tp,iteration_s,compute_s,tp_comm_s,pp_comm_s,bubble_s,dp_comm_s,optimizer_s,"
        "reshard_s,mfu,share_at_tdp,share_at_max_power,power_ratio_for_full_share,"
        "perf_per_watt,memory_bytes,tokens_per_s_per_gpu\n");
    for (const Row& r : rows) {
      const models::StepBreakdown b = r.breakdown.value_or(models::StepBreakdown{});
      fmt::print(
          "{},{},{:.6g},{:.6g},{:.6g},{:.6g},{:.6g},{:.6g},{:.6g},{:.6g},{:.6g},{:.6g},{:.6g},"
          "{:.6g},{:.6g},{:.6g}\n",
          r.tp, r.runs_as, r.iteration_s, b.compute_s, b.tp_comm_s, b.pp_comm_s, b.bubble_s,
          b.dp_comm_s, b.optimizer_s, b.reshard_s, b.mfu, r.share_at_tdp, r.share_at_max,
          r.power_for_full, r.perf_per_watt, r.memory_bytes, r.tokens_per_s_per_gpu);
    }
  }

  nlohmann::json to_json(const Setup& s, const std::vector<Row>& rows) const {
    const auto& bi = build_info();
    nlohmann::json j;
    j["context"] = {
        {"version", bi.version}, {"git_sha", bi.git_sha}, {"build_type", bi.build_type}};
    j["workload"] = s.workload.name;
    j["profile"] = {{"name", s.hardware.name}, {"origin", s.hardware.origin}};
    j["layout"] = sim::layout_json(s.layout);
    j["model"] = s.model;
    j["options"] = {{"tp_overlap", options_.tp_overlap},
                    {"dp_overlap", options_.overlap_grad_reduce},
                    {"distributed_optimizer", options_.distributed_optimizer},
                    {"flash_attention", options_.flash_attention}};
    j["max_power_ratio"] = s.hardware.tdp_w > 0 ? s.hardware.max_power_w / s.hardware.tdp_w : 1.0;
    nlohmann::json out = nlohmann::json::array();
    for (const Row& r : rows) {
      nlohmann::json row = {{"tp", r.tp},
                            {"runs_as_tp", r.runs_as},
                            {"iteration_s", r.iteration_s},
                            {"share_at_tdp", r.share_at_tdp},
                            {"share_at_max_power", r.share_at_max},
                            {"power_ratio_for_full_share", r.power_for_full},
                            {"full_share_reachable", r.perf_per_watt > 0},
                            {"perf_per_watt", r.perf_per_watt},
                            {"memory_bytes", r.memory_bytes},
                            {"tokens_per_s_per_gpu", r.tokens_per_s_per_gpu}};
      if (r.breakdown) {
        const auto& b = *r.breakdown;
        row["breakdown"] = {{"compute_s", b.compute_s},
                            {"tp_comm_s", b.tp_comm_s},
                            {"pp_comm_s", b.pp_comm_s},
                            {"bubble_s", b.bubble_s},
                            {"dp_comm_s", b.dp_comm_s},
                            {"optimizer_s", b.optimizer_s},
                            {"reshard_s", b.reshard_s},
                            {"mfu", b.mfu},
                            {"tokens_per_s_per_gpu", b.tokens_per_s_per_gpu},
                            {"microbatches", b.microbatches}};
        if (s.layout.cp > 1) {
          row["breakdown"]["cp_comm_s"] = b.cp_comm_s;
          row["breakdown"]["rank_tokens"] = b.rank_tokens;
        }
      }
      out.push_back(row);
    }
    j["rows"] = out;
    return j;
  }

  std::string scenario_;
  std::vector<std::string> overrides_;
  std::string workload_;
  std::string profile_;
  int tp_ = 0;
  int cp_ = 0;  // 0: not given (1)
  std::string cp_comm_ = "p2p";
  int pp_ = 0;
  int dp_ = 0;
  int vp_ = 1;
  std::string model_;
  models::StepOptions options_;
  bool unfused_ = false;
  int layers_per_chunk_ = 0;
  bool account_embedding_ = false;
  bool account_loss_ = false;
  int first_layers_ = 0;
  int last_layers_ = 0;
  int micro_batch_ = 0;
  int global_batch_ = 0;
  int seq_len_ = 0;
  std::string recompute_;
  bool sp_on_ = false;
  bool sp_off_ = false;
  double hidden_dropout_ = -1;  // < 0: not given
  double attention_dropout_ = -1;
  bool no_dp_overlap_ = false;
  bool no_dist_opt_ = false;
  bool json_ = false;
  bool csv_ = false;
};

NTPSIM_REGISTER_COMMAND("step", StepCommand)

}  // namespace
}  // namespace ntpsim::cli
