// Policy chains: a strategy written as the recovery actions an operator tries, in order, on each
// interrupting failure, each with its own cost (README.md, "Policy chains"):
//   swap_in_domain             the damaged domain's idle GPUs replace its failed ones (spare_swap)
//   replace_with_spare_domain  free healthy TP groups (spare domains', or unused groups of job
//                              domains) replace damaged ones (spare_swap)
//   add_spare_replica          fixed mini-batch: free healthy TP groups never replace damaged
//                              ones; they form whole extra DP replicas that carry the batch share
//                              the damaged replicas give up (with reduce_tp only; joins as part
//                              of its reconfiguration)
//   reduce_tp                  damaged groups run at a reduced TP degree: ntp, or ntp_power_boost
//                              with power_boost: true (reconfigure)                      terminal
//   drop_replica               damaged replicas leave: dp_drop (reconfigure)             terminal
//   restart                    roll back to the last checkpoint and re-form the groups from the
//                              healthy GPUs: checkpoint_restart (restart)                terminal
// A terminal action always applies (when the job cannot run at all, it stalls until repairs), so
// nothing after it could ever be tried: a chain ends with exactly one terminal action. The engine
// re-picks the job's groups in one fixed order (JobState::reassign: in-domain idle GPUs, then free
// groups, then what the terminal action's rules allow), so the non-terminal actions are listed in
// that order. reduce_tp and drop_replica decide the same thing (what a damaged group does) and
// are never combined, nor are replace_with_spare_domain and add_spare_replica (both decide what
// a free healthy group does).
//
// Per interruption the engine reports how far re-picking got (Coverage); the chain answers with
// the kind of the first action that resolved it, precomputed per Coverage at construction:
//   kInDomainSpares -> spare swap if swap_in_domain is listed, else the terminal action's kind
//                      (a restart re-forms groups from the domain's idle GPUs as part of it);
//   kFreeGroups     -> spare swap if replace_with_spare_domain is listed, else the terminal's;
//   kShort          -> the terminal action's kind (restart, or reconfigure).
// Shapes, degrees and power ratios are the terminal action's strategy's (built through the
// registry), so a one-action chain is that strategy, and [swap_in_domain,
// replace_with_spare_domain, restart] is spare_substitution with its default fallback
// (tests/sim/chain_test.cpp checks these metric for metric). Per event a chain costs what
// spare_substitution costs: one forwarded shape call and a table lookup.
#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "models/base/check.h"
#include "models/base/yaml_reader.h"
#include "sim/strategies/ntp.h"
#include "sim/strategies/plugin.h"

namespace ntpsim::sim {
namespace {

constexpr const char* kSwapInDomain = "swap_in_domain";
constexpr const char* kReplaceWithSpareDomain = "replace_with_spare_domain";
constexpr const char* kAddSpareReplica = "add_spare_replica";
constexpr const char* kReduceTp = "reduce_tp";
constexpr const char* kDropReplica = "drop_replica";
constexpr const char* kRestart = "restart";
constexpr const char* kPowerBoost = "power_boost";
constexpr const char* kUseSpareDomains = "use_spare_domains";

class PolicyChain final : public Strategy {
 public:
  PolicyChain(const std::string& name, const std::string& label, MembershipRules rules,
              std::unique_ptr<Strategy> terminal, std::array<RecoveryKind, 3> kinds)
      : Strategy(name, label, std::move(rules), terminal->shape_context()),
        terminal_(std::move(terminal)),
        kinds_(kinds) {}

  JobShape shape(const std::vector<int32_t>& hist) const override { return terminal_->shape(hist); }
  JobShape shape_counted(const std::vector<int32_t>& hist, int64_t usable) const override {
    return terminal_->shape_counted(hist, usable);
  }
  RecoveryKind recovery(Coverage c) const override { return kinds_[static_cast<size_t>(c)]; }
  double power_ratio(int degree) const override { return terminal_->power_ratio(degree); }

 private:
  std::unique_ptr<Strategy> terminal_;
  std::array<RecoveryKind, 3> kinds_;  // indexed by Coverage
};

// The registered strategy a terminal action runs as, given its options.
std::string terminal_strategy(const ChainStep& step) {
  if (step.action == kReduceTp) {
    const auto it = step.params.find(kPowerBoost);
    const bool boost = it != step.params.end() && std::holds_alternative<bool>(it->second) &&
                       std::get<bool>(it->second);
    return boost ? "ntp_power_boost" : "ntp";
  }
  if (step.action == kDropReplica) return "dp_drop";
  return "checkpoint_restart";
}

std::vector<ChainActionInfo> build_actions() {
  std::vector<ChainActionInfo> a;
  a.push_back({kSwapInDomain,
               "the damaged domain's idle GPUs (G mod T, e.g. 8 of 72 with TP 64) replace its "
               "failed GPUs",
               "detection + spare_swap, the in-flight iteration lost",
               false,
               {}});
  ChainActionInfo replace{kReplaceWithSpareDomain,
                          "free healthy TP groups (spare domains', or unused groups of job "
                          "domains) replace damaged groups",
                          "detection + spare_swap, the in-flight iteration lost",
                          false,
                          {}};
  replace.needs_terminal_flag = kUseSpareDomains;
  a.push_back(std::move(replace));
  ChainActionInfo add{kAddSpareReplica,
                      "fixed mini-batch: free healthy TP groups form whole extra DP replicas that "
                      "carry the batch share damaged replicas give up (up to the global batch); "
                      "damaged groups stay in the job (with reduce_tp)",
                      "none of its own: the spare replicas join in reduce_tp's reconfiguration",
                      false,
                      {}};
  add.needs_terminal_flag = kUseSpareDomains;
  a.push_back(std::move(add));
  ChainActionInfo reduce{kReduceTp,
                         "damaged TP groups run at a reduced degree (as ntp; with power_boost as "
                         "ntp_power_boost)",
                         "detection + reconfigure, the in-flight iteration lost; repairs rejoin "
                         "with a planned reconfigure",
                         true,
                         {}};
  reduce.params.push_back({kPowerBoost,
                           ParamKind::kBool,
                           "boost the surviving GPUs of damaged groups (ntp_power_boost)",
                           "",
                           "false",
                           0,
                           0,
                           {}});
  for (auto& spec : ntp_param_specs(true)) reduce.params.push_back(std::move(spec));
  reduce.only_with = kPowerBoost;
  reduce.only_with_params = {"max_power", "domain_budget"};
  a.push_back(std::move(reduce));
  const StrategyInfo* dp = find_strategy("dp_drop");
  const StrategyInfo* cr = find_strategy("checkpoint_restart");
  NTPSIM_CHECK(dp != nullptr && cr != nullptr);
  a.push_back({kDropReplica,
               "damaged DP replicas leave; healthy groups are repacked into whole replicas (as "
               "dp_drop)",
               "detection + reconfigure, the in-flight iteration lost; repairs rejoin with a "
               "planned reconfigure",
               true, dp->params});
  a.push_back({kRestart,
               "roll back to the last checkpoint; the groups are re-formed from each domain's "
               "healthy GPUs (as checkpoint_restart)",
               "detection + restart + restore, work since the last checkpoint lost", true,
               cr->params});
  return a;
}

// The value of `spec` in validated parameters.
ParamValue value_of(const StrategyParams& p, const ParamSpec& spec) {
  switch (spec.kind) {
    case ParamKind::kBool:
      return p.flag(spec.name);
    case ParamKind::kInt:
      return p.integer(spec.name);
    case ParamKind::kChoice:
      return p.choice(spec.name);
    case ParamKind::kFraction:
    case ParamKind::kDuration:
    case ParamKind::kNumber:
      return p.number(spec.name);
  }
  return p.number(spec.name);
}

struct Parsed {
  bool swap = false, replace = false, add_replicas = false;
  const ChainStep* terminal = nullptr;
  StrategyConfig terminal_cfg;  // the terminal action's strategy with its options
  RecoveryKind terminal_kind = RecoveryKind::kRestart;
};

// The chain checked (check_chain, the actions' options) and split into its parts.
Result<Parsed> parse(const std::vector<ChainStep>& chain) {
  std::vector<std::string> names;
  for (const auto& step : chain) names.push_back(step.action);
  if (auto problem = check_chain(names)) {
    if (problem->index >= chain.size())
      return Error::bad_input(fmt::format("chain: {}", problem->message));
    return Error::bad_input(fmt::format("chain[{}]: {}", problem->index, problem->message));
  }
  Parsed out;
  for (size_t i = 0; i < chain.size(); ++i) {
    const ChainStep& step = chain[i];
    const ChainActionInfo* info = find_chain_action(step.action);
    NTPSIM_CHECK(info != nullptr);
    for (const auto& param : step.params) {
      // A named reference, not a structured binding: clang before 16 cannot capture those.
      const std::string& key = param.first;
      const bool known = std::any_of(info->params.begin(), info->params.end(),
                                     [&](const ParamSpec& p) { return p.name == key; });
      if (!known) {
        return Error::bad_input(
            fmt::format("chain[{}].{}: {} has no option '{}'", i, key, step.action, key));
      }
    }
    if (step.action == kSwapInDomain) out.swap = true;
    if (step.action == kReplaceWithSpareDomain) out.replace = true;
    if (step.action == kAddSpareReplica) out.add_replicas = true;
    if (info->terminal) out.terminal = &step;
  }
  const ChainStep& t = *out.terminal;
  const size_t ti = chain.size() - 1;
  const ChainActionInfo* tinfo = find_chain_action(t.action);
  if (!tinfo->only_with.empty()) {
    const auto flag = t.params.find(tinfo->only_with);
    if (flag != t.params.end() && !std::holds_alternative<bool>(flag->second)) {
      return Error::bad_input(
          fmt::format("chain[{}].{}: wrong value type (true or false)", ti, tinfo->only_with));
    }
    const bool on = flag != t.params.end() && std::get<bool>(flag->second);
    for (const auto& key : tinfo->only_with_params) {
      if (!on && t.params.count(key) != 0) {
        return Error::bad_input(
            fmt::format("chain[{}].{}: applies only with {}: true", ti, key, tinfo->only_with));
      }
    }
  }
  const std::string impl = terminal_strategy(t);
  const StrategyInfo* info = find_strategy(impl);
  NTPSIM_CHECK(info != nullptr);
  out.terminal_cfg = StrategyConfig{impl, impl, {}, {}};
  for (const auto& spec : info->params) {
    const auto it = t.params.find(spec.name);
    if (it != t.params.end()) out.terminal_cfg.params.emplace(spec.name, it->second);
  }
  auto params = StrategyParams::make(out.terminal_cfg);
  if (!params.ok()) {
    return Error::bad_input(fmt::format("chain[{}]: {}", ti, params.error().message));
  }
  for (size_t i = 0; i < ti; ++i) {
    const std::string& flag = find_chain_action(chain[i].action)->needs_terminal_flag;
    if (!flag.empty() && !params->flag(flag)) {
      return Error::bad_input(fmt::format("chain[{}].{}: false contradicts {} earlier in the chain",
                                          ti, flag, chain[i].action));
    }
  }
  out.terminal_kind = t.action == kRestart ? RecoveryKind::kRestart : RecoveryKind::kReconfigure;
  return out;
}

}  // namespace

const std::vector<ChainActionInfo>& chain_actions() {
  static const std::vector<ChainActionInfo> kActions = build_actions();
  return kActions;
}

const ChainActionInfo* find_chain_action(const std::string& name) {
  for (const auto& a : chain_actions()) {
    if (a.name == name) return &a;
  }
  return nullptr;
}

std::optional<ChainProblem> check_chain(const std::vector<std::string>& actions) {
  const auto& all = chain_actions();
  if (actions.empty()) {
    return ChainProblem{0,
                        "a chain lists at least one action; it ends with a terminal action "
                        "(reduce_tp, drop_replica or restart)"};
  }
  // Position of each action in the table: non-terminal ones must follow that order.
  auto rank = [&](const std::string& name) {
    for (size_t i = 0; i < all.size(); ++i) {
      if (all[i].name == name) return i;
    }
    return all.size();
  };
  std::vector<std::string> names;
  for (const auto& a : all) names.push_back(a.name);
  std::string list;
  for (const auto& n : names) {
    if (!list.empty()) list += ", ";
    list += n;
  }
  size_t terminal_at = actions.size();  // index of the first terminal action
  for (size_t i = 0; i < actions.size(); ++i) {
    const std::string& name = actions[i];
    const size_t r = rank(name);
    if (r == all.size()) {
      const std::string near = nearest_key(name, names);
      return ChainProblem{
          i, fmt::format("unknown action \"{}\"{}; known: {}", name,
                         near.empty() ? "" : fmt::format(" (did you mean \"{}\"?)", near), list)};
    }
    for (size_t j = 0; j < i; ++j) {
      if (actions[j] == name) {
        return ChainProblem{i, fmt::format("\"{}\" is listed twice (first at chain[{}])", name, j)};
      }
    }
    const bool terminal = all[r].terminal;
    if (terminal_at < actions.size()) {
      const std::string& t = actions[terminal_at];
      if (terminal) {
        const bool pair =
            (t == kReduceTp && name == kDropReplica) || (t == kDropReplica && name == kReduceTp);
        if (pair) {
          return ChainProblem{
              i, fmt::format("\"{}\" and \"{}\" (chain[{}]) are incompatible: both decide what a "
                             "damaged group does (run at a reduced degree, or leave with its "
                             "replica); keep one",
                             name, t, terminal_at)};
        }
        return ChainProblem{
            i, fmt::format("a second terminal action \"{}\" after \"{}\" (chain[{}]): a chain "
                           "ends with exactly one of reduce_tp, drop_replica, restart",
                           name, t, terminal_at)};
      }
      return ChainProblem{
          i, fmt::format("\"{}\" after the terminal action \"{}\" (chain[{}]) can never be tried: "
                         "a terminal action always applies (it stalls the job when it cannot "
                         "run), so it ends the chain",
                         name, t, terminal_at)};
    }
    if (terminal) {
      terminal_at = i;
      for (size_t j = 0; j < i; ++j) {
        if (actions[j] == kAddSpareReplica && name != kReduceTp) {
          return ChainProblem{
              i, fmt::format("\"{}\" with \"{}\" (chain[{}]): spare replicas carry the batch "
                             "share that reduced-TP replicas give up, so add_spare_replica needs "
                             "reduce_tp; {} already re-forms whole replicas from free groups "
                             "(use replace_with_spare_domain)",
                             name, kAddSpareReplica, j, name)};
        }
      }
      continue;
    }
    for (size_t j = 0; j < i; ++j) {
      const bool spare_pair = (actions[j] == kReplaceWithSpareDomain && name == kAddSpareReplica) ||
                              (actions[j] == kAddSpareReplica && name == kReplaceWithSpareDomain);
      if (spare_pair) {
        return ChainProblem{
            i, fmt::format("\"{}\" and \"{}\" (chain[{}]) are incompatible: both decide what a "
                           "free healthy group does (replace a damaged group, or join a whole "
                           "extra replica); keep one",
                           name, actions[j], j)};
      }
    }
    for (size_t j = 0; j < i; ++j) {
      if (rank(actions[j]) > r) {
        return ChainProblem{
            i, fmt::format("\"{}\" must come before \"{}\" (chain[{}]): the engine tries a "
                           "domain's idle GPUs before free groups",
                           name, actions[j], j)};
      }
    }
  }
  if (terminal_at == actions.size()) {
    return ChainProblem{actions.size(),
                        "no terminal action: end the chain with reduce_tp, drop_replica or "
                        "restart (what happens when no spare is left)"};
  }
  return std::nullopt;
}

Result<std::unique_ptr<Strategy>> make_chain_strategy(const std::string& name,
                                                      const std::string& label,
                                                      const std::vector<ChainStep>& chain,
                                                      const StrategyBuildContext& ctx) {
  auto parsed = parse(chain);
  if (!parsed.ok()) {
    return Error::bad_input(fmt::format("strategies.{}.{}", name, parsed.error().message));
  }
  auto terminal = make_strategy(parsed->terminal_cfg, ctx);
  if (!terminal.ok()) return terminal.error();
  MembershipRules rules = (*terminal)->rules();
  rules.in_domain_spares = rules.in_domain_spares || parsed->swap;
  rules.use_spare_domains = rules.use_spare_domains || parsed->replace || parsed->add_replicas;
  rules.spare_replicas = parsed->add_replicas;
  const RecoveryKind t = parsed->terminal_kind;
  NTPSIM_CHECK((*terminal)->recovery(Coverage::kShort) == t);
  const std::array<RecoveryKind, 3> kinds = {parsed->swap ? RecoveryKind::kSwap : t,
                                             parsed->replace ? RecoveryKind::kSwap : t, t};
  return std::unique_ptr<Strategy>(std::make_unique<PolicyChain>(
      name, label, std::move(rules), std::move(terminal.value()), kinds));
}

// Per interruption: absorbed by in-domain idle GPUs with probability q (when the chain swaps or
// re-forms in-domain), else by a free group while the cluster is not short (when
// replace_with_spare_domain is listed), else by the terminal action. The loss per interruption
// is the mix of those actions' losses; the throughput factor is the terminal strategy's own
// closed form at no interruptions (its degraded running between failures).
Result<double> screen_chain(const ScreenInputs& in, const std::vector<ChainStep>& chain) {
  auto parsed = parse(chain);
  if (!parsed.ok()) return parsed.error();
  auto params = StrategyParams::make(parsed->terminal_cfg);
  if (!params.ok()) return params.error();
  const StrategyPlugin* plugin = find_strategy_plugin(parsed->terminal_cfg.name);
  NTPSIM_CHECK(plugin != nullptr);
  ScreenInputs quiet = in;
  quiet.interruptions_per_s = 0;
  double running = plugin->screen(quiet, *params);
  // Fixed mini-batch: the spare replicas make up the batch the degraded replicas give up.
  if (parsed->add_replicas) running = std::min(1.0, running + in.spare_replicas / in.dp);
  const bool restart = parsed->terminal_kind == RecoveryKind::kRestart;
  const double terminal_loss = restart ? in.restart_loss_s : in.reconfigure_loss_s;
  const double q = parsed->swap || restart ? in.in_domain_cover : 0.0;
  const double in_domain_loss = parsed->swap ? in.swap_loss_s : terminal_loss;
  const double free = parsed->replace ? 1 - in.short_probability : 0.0;
  const double rest_loss = free * in.swap_loss_s + (1 - free) * terminal_loss;
  const double loss = q * in_domain_loss + (1 - q) * rest_loss;
  return (1 - in.interruptions_per_s * loss) * running;
}

namespace {

// A shipped chain: spares first (in-domain, then spare domains), then NTP; its parameters are
// reduce_tp's (ntp's, or ntp_power_boost's), less use_spare_domains, which the chain implies.
template <bool kBoost>
std::vector<ChainStep> spares_then_ntp_chain(const StrategyParams& p) {
  ChainStep reduce{kReduceTp, {}};
  for (const auto& spec : ntp_param_specs(kBoost)) {
    if (spec.name == kUseSpareDomains) continue;
    reduce.params.emplace(spec.name, value_of(p, spec));
  }
  reduce.params.emplace(kPowerBoost, kBoost);
  reduce.params.emplace(kUseSpareDomains, true);
  return {ChainStep{kSwapInDomain, {}}, ChainStep{kReplaceWithSpareDomain, {}}, std::move(reduce)};
}

template <bool kBoost>
StrategyPlugin spares_then_ntp_plugin() {
  StrategyPlugin p;
  std::vector<ParamSpec> table;
  for (auto& spec : ntp_param_specs(kBoost)) {
    if (spec.name != kUseSpareDomains) table.push_back(std::move(spec));
  }
  const char* name = kBoost ? "spares_then_ntp_power_boost" : "spares_then_ntp";
  p.info = {name,
            kBoost ? "Swap an in-domain idle GPU while the domain has one, else a spare domain's "
                     "group, else run the damaged group at reduced TP with boosted power"
                   : "Swap an in-domain idle GPU while the domain has one, else a spare domain's "
                     "group, else run the damaged group at reduced TP (NTP)",
            std::move(table),
            kBoost ? "swap_in_domain -> replace_with_spare_domain -> reduce_tp (power_boost: true)"
                   : "swap_in_domain -> replace_with_spare_domain -> reduce_tp"};
  p.make = [](const std::string& label, const StrategyParams& params,
              const StrategyBuildContext& ctx) -> Result<std::unique_ptr<Strategy>> {
    return make_chain_strategy(kBoost ? "spares_then_ntp_power_boost" : "spares_then_ntp", label,
                               spares_then_ntp_chain<kBoost>(params), ctx);
  };
  p.screen = [](const ScreenInputs& in, const StrategyParams& params) {
    auto g = screen_chain(in, spares_then_ntp_chain<kBoost>(params));
    NTPSIM_CHECK(g.ok());
    return *g;
  };
  return p;
}

NTPSIM_REGISTER_STRATEGY(spares_then_ntp_plugin<false>())
NTPSIM_REGISTER_STRATEGY(spares_then_ntp_plugin<true>())

}  // namespace
}  // namespace ntpsim::sim
