#include "models/layout_search.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "models/base/check.h"
#include "models/memory_model.h"

namespace ntpsim::models {

namespace {

// Every layout of one CP degree (the search's rules), keeping in `best` the first one with a
// strictly higher rate than any before it: earlier candidates win ties. `aligned`: skip a TP
// degree whose CP groups fit in a domain's GPU count but straddle two domains
// (cp_groups_in_domains): the step model charges their K/V ring on the scale-out network, and an
// operator places CP groups inside domains where the sizes allow.
void search_at_cp(const Workload& w, const HardwareProfile& h, const LayoutSearch& search,
                  const StepOptions& options, int cp, bool aligned,
                  std::optional<LayoutChoice>& best, double& best_rate) {
  if (!check_context_split(w, Layout{.cp = cp}).field.empty()) return;
  const int max_tp = std::min({search.domain_gpus, w.heads, w.ffn});
  for (int tp = 1; tp <= max_tp; ++tp) {
    // Megatron-LM splits heads and FFN evenly over the TP ranks.
    if (w.heads % tp != 0 || w.ffn % tp != 0) continue;
    if (search.exact_gpus && search.gpus % (int64_t{tp} * cp) != 0) continue;
    const int groups_per_domain = search.domain_gpus / tp;
    if (aligned && cp <= groups_per_domain && !cp_groups_in_domains(search.domain_gpus, tp, cp)) {
      continue;
    }
    // TP groups the domains hold, CP of them per pipeline stage of a replica.
    const int64_t fit_groups = search.domains > 0 ? (search.domain_gpus / tp) * search.domains / cp
                                                  : std::numeric_limits<int64_t>::max();
    const int64_t groups =
        search.exact_gpus ? search.gpus / (int64_t{tp} * cp) : fit_groups;  // PP x DP
    if (groups > fit_groups) continue;
    for (int64_t pp = 1; pp <= std::min<int64_t>(groups, w.layers); ++pp) {
      // Megatron-LM's even split of the layers over the stages.
      if (w.layers % pp != 0) continue;
      if (search.exact_gpus && groups % pp != 0) continue;
      const int64_t dp = search.exact_gpus
                             ? groups / pp
                             : std::min<int64_t>(groups / pp, w.global_batch / w.micro_batch);
      if (dp < 1 || dp * w.micro_batch > w.global_batch) continue;
      Layout l{.tp = tp, .pp = static_cast<int>(pp), .dp = static_cast<int>(dp), .cp = cp};
      if (pp > 1 && w.layers % (pp * search.virtual_stages) == 0) {
        l.virtual_stages = search.virtual_stages;
      }
      if (!memory_at(w, l, h, tp, options.flash_attention).fits()) continue;
      const StepBreakdown b = AnalyticStepModel(w, l, h, options).breakdown(tp, 1.0, 1.0);
      // Per GPU at a fixed GPU count; the whole job's tokens/s when filling the domains.
      const double rate =
          b.tokens_per_s_per_gpu * (search.exact_gpus ? 1.0 : static_cast<double>(l.gpus()));
      if (!best || rate > best_rate) {
        best = LayoutChoice{l, b};
        best_rate = rate;
      }
    }
  }
}

std::string layout_name(const Layout& l) {
  return fmt::format("TP {}{} x PP {}{} x DP {}", l.tp,
                     l.cp > 1 ? fmt::format(" x CP {}", l.cp) : "", l.pp,
                     l.virtual_stages > 1 ? fmt::format(" (v {})", l.virtual_stages) : "", l.dp);
}

}  // namespace

std::optional<LayoutChoice> fastest_layout(const Workload& w, const HardwareProfile& h,
                                           const LayoutSearch& search, const StepOptions& options) {
  NTPSIM_CHECK(search.domain_gpus >= 1);
  NTPSIM_CHECK(search.exact_gpus ? search.gpus >= 1 : search.domains >= 1);
  NTPSIM_CHECK(search.cp >= 0 && search.max_cp >= 0);
  std::optional<LayoutChoice> best;
  double best_rate = 0;
  if (search.cp >= 1) {
    search_at_cp(w, h, search, options, search.cp, false, best, best_rate);
    return best;
  }
  // CP chosen: every degree up to the GPUs a replica may span (TP 1) and half the sequence (two
  // chunks per rank), ascending, so a tie keeps the smaller CP; CP groups that straddle domains
  // while fitting in one are skipped (search_at_cp). Context parallelism runs on fused attention
  // only.
  if (!options.flash_attention) {
    search_at_cp(w, h, search, options, 1, false, best, best_rate);
    return best;
  }
  int64_t top = std::min<int64_t>(
      search.exact_gpus ? search.gpus : int64_t{search.domain_gpus} * search.domains,
      w.seq_len / 2);
  if (search.max_cp > 0) top = std::min<int64_t>(top, search.max_cp);
  top = std::max<int64_t>(top, 1);
  for (int64_t cp = 1; cp <= top; ++cp) {
    if (search.exact_gpus && search.gpus % cp != 0) continue;
    search_at_cp(w, h, search, options, static_cast<int>(cp), true, best, best_rate);
  }
  return best;
}

std::string layout_gap_note(const Workload& w, const HardwareProfile& h, const Layout& chosen,
                            const LayoutSearch& search, const StepOptions& options) {
  NTPSIM_CHECK(search.exact_gpus && chosen.cp == search.cp &&
               static_cast<int64_t>(chosen.tp) * chosen.cp * chosen.pp * chosen.dp == search.gpus);
  if (!memory_at(w, chosen, h, chosen.tp, options.flash_attention).fits()) return {};
  const std::optional<LayoutChoice> best = fastest_layout(w, h, search, options);
  if (!best) return {};
  const StepBreakdown now = AnalyticStepModel(w, chosen, h, options).breakdown(chosen.tp, 1, 1);
  if (best->healthy.tokens_per_s_per_gpu <= 1.1 * now.tokens_per_s_per_gpu) return {};
  return fmt::format(
      "layout {} runs at MFU {:.1f}% ({:.0f} tokens/s/GPU); the step model's fastest layout of "
      "the same {} GPUs, {}, reaches MFU {:.1f}% ({:.0f} tokens/s/GPU, {:.0f}% more). The "
      "scenario's layout is kept (the study may need it); `ntpsim step --tp/--pp/--dp` compares "
      "layouts",
      layout_name(chosen), 100 * now.mfu, now.tokens_per_s_per_gpu, search.gpus,
      layout_name(best->layout), 100 * best->healthy.mfu, best->healthy.tokens_per_s_per_gpu,
      100 * (best->healthy.tokens_per_s_per_gpu / now.tokens_per_s_per_gpu - 1));
}

std::string layout_fit_note(const Workload& w, const HardwareProfile& h, const Layout& chosen,
                            const LayoutSearch& search, const StepOptions& options) {
  NTPSIM_CHECK(search.exact_gpus && chosen.gpus() == search.gpus);
  const MemoryBreakdown mem = memory_at(w, chosen, h, chosen.tp, options.flash_attention);
  if (mem.fits()) return {};
  LayoutSearch any_cp = search;
  any_cp.cp = 0;
  const std::optional<LayoutChoice> best = fastest_layout(w, h, any_cp, options);
  const std::string needs =
      fmt::format("layout {} needs {:.1f} GB per GPU at TP {}, more than the {:.1f} GB usable",
                  layout_name(chosen), mem.total_bytes / 1e9, chosen.tp, mem.usable_bytes / 1e9);
  if (!best) {
    return fmt::format(
        "{}; no layout of the same {} GPUs fits (TP inside a domain of {}, any PP, {}): give "
        "more GPUs{}",
        needs, search.gpus, search.domain_gpus,
        !options.flash_attention ? "DP and CP 1: context parallelism needs fused attention"
        : search.max_cp > 0      ? fmt::format("CP up to {} and DP", search.max_cp)
                                 : std::string("CP and DP"),
        w.recompute == Recompute::kFull ? " or a shorter sequence"
                                        : ", a shorter sequence or full activation recompute");
  }
  const MemoryBreakdown fit =
      memory_at(w, best->layout, h, best->layout.tp, options.flash_attention);
  return fmt::format(
      "{}; the step model's fastest layout of the same {} GPUs that fits, {}, needs {:.1f} GB "
      "and reaches MFU {:.1f}% ({:.0f} tokens/s/GPU); `ntpsim step --tp/--cp/--pp/--dp` "
      "compares layouts",
      needs, search.gpus, layout_name(best->layout), fit.total_bytes / 1e9, 100 * best->healthy.mfu,
      best->healthy.tokens_per_s_per_gpu);
}

}  // namespace ntpsim::models
