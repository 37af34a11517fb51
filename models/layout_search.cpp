#include "models/layout_search.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "models/base/check.h"
#include "models/memory_model.h"

namespace ntpsim::models {

std::optional<LayoutChoice> fastest_layout(const Workload& w, const HardwareProfile& h,
                                           const LayoutSearch& search, const StepOptions& options) {
  NTPSIM_CHECK(search.domain_gpus >= 1);
  NTPSIM_CHECK(search.exact_gpus ? search.gpus >= 1 : search.domains >= 1);
  NTPSIM_CHECK(search.cp >= 1);
  std::optional<LayoutChoice> best;
  const int cp = search.cp;
  if (!check_context_split(w, Layout{.cp = cp}).field.empty()) return best;
  double best_rate = 0;
  const int max_tp = std::min({search.domain_gpus, w.heads, w.ffn});
  for (int tp = 1; tp <= max_tp; ++tp) {
    // Megatron-LM splits heads and FFN evenly over the TP ranks.
    if (w.heads % tp != 0 || w.ffn % tp != 0) continue;
    if (search.exact_gpus && search.gpus % (int64_t{tp} * cp) != 0) continue;
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
  auto name = [](const Layout& l) {
    return fmt::format("TP {}{} x PP {}{} x DP {}", l.tp,
                       l.cp > 1 ? fmt::format(" x CP {}", l.cp) : "", l.pp,
                       l.virtual_stages > 1 ? fmt::format(" (v {})", l.virtual_stages) : "", l.dp);
  };
  return fmt::format(
      "layout {} runs at MFU {:.1f}% ({:.0f} tokens/s/GPU); the step model's fastest layout of "
      "the same {} GPUs, {}, reaches MFU {:.1f}% ({:.0f} tokens/s/GPU, {:.0f}% more). The "
      "scenario's layout is kept (the study may need it); `ntpsim step --tp/--pp/--dp` compares "
      "layouts",
      name(chosen), 100 * now.mfu, now.tokens_per_s_per_gpu, search.gpus, name(best->layout),
      100 * best->healthy.mfu, best->healthy.tokens_per_s_per_gpu,
      100 * (best->healthy.tokens_per_s_per_gpu / now.tokens_per_s_per_gpu - 1));
}

}  // namespace ntpsim::models
