#include "sim/failures/process.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <functional>
#include <limits>
#include <numeric>

#include "models/base/check.h"

namespace ntpsim::sim {
namespace {

// Candidate times at or past this are "never" (Time::never() is about 9.22e12 s).
constexpr double kHorizonS = 9.0e12;
constexpr double kMinLifetimeS = 1e-6;

// Non-negative seconds below kHorizonS to the nearest microsecond, as Duration::from_seconds does,
// without its libm round() call and saturation checks (this runs twice per event).
Duration micros_of(double s) { return Duration::micros(static_cast<int64_t>(s * 1e6 + 0.5)); }

const char* class_name(Component c) {
  switch (c) {
    case Component::kGpu: return "gpu";
    case Component::kNode: return "node";
    case Component::kDomain: return "domain";
    case Component::kPod: return "pod";
  }
  return "unknown";
}

// Marks `count` distinct units of `units` in `bits`, drawn uniformly from `s`. Rejection sampling
// over the sparser side, so it costs O(units / 64 + min(count, units - count)) draws on average.
void choose_subset(Stream& s, int64_t units, int64_t count, std::vector<uint64_t>& bits) {
  const bool invert = count > units / 2;
  const int64_t draws = invert ? units - count : count;
  bits.assign(static_cast<size_t>((units + 63) / 64), invert ? ~uint64_t{0} : 0);
  for (int64_t taken = 0; taken < draws;) {
    const auto u = static_cast<int64_t>(s.uniform_int(static_cast<uint64_t>(units)));
    uint64_t& word = bits[static_cast<size_t>(u >> 6)];
    const uint64_t mask = uint64_t{1} << (u & 63);
    const bool set = (word & mask) != 0;
    if (set == invert) {  // not yet chosen (chosen = flipped from the initial state)
      word ^= mask;
      ++taken;
    }
  }
  if (invert && (units & 63) != 0) bits.back() &= (uint64_t{1} << (units & 63)) - 1;
}

}  // namespace

RepairSampler repair_sampler(const RepairDist& d) {
  RepairSampler r;
  r.mean_s = d.mean_s;
  if (d.distribution == "fixed") {
    r.dist = RepairSampler::Dist::kFixed;
  } else if (d.distribution == "exponential") {
    r.dist = RepairSampler::Dist::kExponential;
  } else if (d.distribution == "lognormal") {
    r.dist = RepairSampler::Dist::kLognormal;
    r.sigma = d.sigma;
    r.mu = lognormal_mu_for_mean(r.mean_s, r.sigma);
  } else if (d.distribution == "weibull") {
    r.dist = RepairSampler::Dist::kWeibull;
    r.shape = d.shape;
    r.scale = weibull_scale_for_mean(r.mean_s, r.shape);
  } else {
    NTPSIM_CHECK(d.distribution == "empirical" && !d.values_s.empty());
    r.dist = RepairSampler::Dist::kEmpirical;
    r.values_s = d.values_s;
  }
  return r;
}

double RepairSampler::draw(Stream& s) const {
  switch (dist) {
    case Dist::kFixed: return mean_s;
    case Dist::kExponential: return s.exponential(mean_s);
    case Dist::kLognormal: return s.lognormal(mu, sigma);
    case Dist::kWeibull: return s.weibull(shape, scale);
    case Dist::kEmpirical: return values_s[s.uniform_int(values_s.size())];
  }
  NTPSIM_CHECK_MSG(false, "unknown repair distribution");
  return 0.0;
}

Time EventGenerator::peek() {
  if (head_ >= buffer_.size()) {
    buffer_.clear();
    head_ = 0;
    refill();
    if (buffer_.empty()) return Time::never();
  }
  return buffer_[head_].time;
}

void EventGenerator::pop(FailureEvent& out) {
  static_assert(sizeof(FailureEvent) == 64, "a FailureEvent field was added: copy it below");
  NTPSIM_CHECK(head_ < buffer_.size());
  // Field by field, in the widths `refill` wrote them: the batch was usually written just now,
  // and a whole-struct copy would read it back in wider words, which store-to-load forwarding
  // does not serve (the load waits for the stores to retire). The compiler fence (it emits no
  // instruction) keeps the compiler from merging the two adjacent 8-byte copies into one
  // 16-byte load, which would stall in the same way.
  const FailureEvent& e = buffer_[head_++];
  out.time = e.time;
  out.component = e.component;
  out.unit = e.unit;
  std::atomic_signal_fence(std::memory_order_seq_cst);
  out.gpus.first = e.gpus.first;
  out.gpus.count = e.gpus.count;
  out.kind = e.kind;
  out.repair = e.repair;
  out.interrupts = e.interrupts;
}

ProcessGenerator::ProcessGenerator(const FailureProcess& p, const Topology& t, uint16_t kind_base,
                                   uint64_t seed, uint64_t replication,
                                   const std::string& stream_suffix)
    : topology_(&t),
      component_(p.component),
      units_(t.units(p.component)),
      exponential_(p.distribution == "exponential" || p.distribution == "hawkes"),
      hawkes_(p.distribution == "hawkes"),
      kind_base_(kind_base),
      burst_probability_(p.burst_probability),
      burst_size_(p.largest_burst_size()),
      burst_sizes_(p.burst_sizes),
      arrivals_(seed, replication,
                std::string("failures.") + class_name(p.component) + stream_suffix),
      kind_stream_(seed, replication,
                   std::string("kinds.") + class_name(p.component) + stream_suffix),
      burst_stream_(seed, replication,
                    std::string("bursts.") + class_name(p.component) + stream_suffix),
      repair_stream_(seed, replication,
                     std::string("repair.") + class_name(p.component) + stream_suffix),
      regime_stream_(seed, replication,
                     std::string("regime.") + class_name(p.component) + stream_suffix),
      deferred_stream_(seed, replication,
                       std::string("deferred.") + class_name(p.component) + stream_suffix),
      visit_stream_(seed, replication,
                    std::string("visits.") + class_name(p.component) + stream_suffix),
      shared_stream_(seed, replication,
                     std::string("shared.") + class_name(p.component) + stream_suffix) {
  NTPSIM_CHECK(units_ > 0);
  double cumulative = 0.0;
  for (const FailureKind& k : p.kinds) {
    Kind kind;
    cumulative += k.share;
    kind.cumulative_share = cumulative;
    kind.interrupts = k.interrupts;
    kind.repair = repair_sampler(k.repair);
    kinds_.push_back(std::move(kind));
  }
  NTPSIM_CHECK(!kinds_.empty());
  // Rounding of the shares must never leave a gap at the top: the last kind with a positive share
  // takes everything above its predecessors (kinds of share 0 after it are never drawn).
  size_t last = kinds_.size() - 1;
  while (last > 0 && p.kinds[last].share <= 0.0) --last;
  for (size_t i = last; i < kinds_.size(); ++i) kinds_[i].cumulative_share = 2.0;

  const auto lemons = static_cast<int64_t>(std::llround(p.lemon_fraction * static_cast<double>(units_)));
  if (lemons > 0) {
    Stream lemon_stream(seed, replication, std::string("lemons.") + class_name(p.component) + stream_suffix);
    choose_subset(lemon_stream, units_, lemons, lemon_bits_);
    lemon_list_.reserve(static_cast<size_t>(lemons));
    for (int64_t u = 0; u < units_; ++u) {
      if (is_lemon(u)) lemon_list_.push_back(u);
    }
  }
  const double rate = p.rate_per_unit_s;
  const double multiplier = p.lemon_multiplier;
  lemon_multiplier_ = multiplier;
  const auto n_lemons = static_cast<double>(lemon_list_.size());
  const double weighted_units = static_cast<double>(units_) - n_lemons + n_lemons * multiplier;
  total_rate_ = rate * weighted_units;
  lemon_pick_probability_ = weighted_units > 0.0 ? n_lemons * multiplier / weighted_units : 0.0;
  if (hawkes_) {
    // Immigrants at (1 - branching) of the long-run rate; each failure adds branching x decay to
    // the intensity, so it triggers `branching` failures on average and the long-run rate of the
    // class is total_rate_: a failure goes to a unit that is up (pick_up_unit), never thinned.
    background_rate_ = total_rate_ * (1.0 - p.branching - p.slow_branching);
    decay_ = 1.0 / p.excitation_mean_s;
    jump_ = p.branching * decay_;
    if (p.slow_branching > 0.0) {  // two time scales: a second, independent excitation
      slow_decay_ = 1.0 / p.slow_excitation_mean_s;
      slow_jump_ = p.slow_branching * slow_decay_;
    }
    if (p.regime_high_share > 0.0) {
      // Immigrant rates mu_low and mu_high = ratio x mu_low whose time average (the states'
      // shares) is background_rate_, so the class's long-run rate is still total_rate_. Spells
      // are exponential: high of the stated mean, low of mean high x (1 - share) / share, so the
      // chain spends `share` of its time high; it starts in its stationary law.
      regime_ = true;
      const double share = p.regime_high_share;
      state_rate_[0] = background_rate_ / (1.0 - share + share * p.regime_rate_ratio);
      state_rate_[1] = state_rate_[0] * p.regime_rate_ratio;
      state_mean_s_[1] = p.regime_high_mean_s;
      state_mean_s_[0] = p.regime_high_mean_s * (1.0 - share) / share;
      repair_scale_[0] = p.regime_low_repair_scale;
      repair_scale_[1] = p.regime_high_repair_scale;
      state_repairs_ = p.regime_state_repairs;
      for (int st = 0; st < 2 && state_repairs_; ++st) {
        state_repair_[st] = repair_sampler(p.regime_repair[st]);
      }
      state_ = regime_stream_.bernoulli(share) ? 1 : 0;
      switch_at_s_ = regime_stream_.exponential(state_mean_s_[state_]);
    }
  }

  if (p.deferred_share > 0.0) {
    deferred_ = true;
    deferred_share_ = p.deferred_share;
    visit_interval_s_ = p.visit_interval_s;
    next_visit_s_ = visit_stream_.exponential(visit_interval_s_);  // Poisson from time 0
  }
  if (p.shared_repair_probability > 0.0) {
    shared_ = true;
    shared_probability_ = p.shared_repair_probability;
    shared_window_s_ = p.shared_repair_window_s;
  }

  if (p.has_partner_delays()) {
    delays_ = true;
    at_once_share_ = p.partner_at_once_share;
    delay_after_s_ = p.partner_delay_after_s;
    delay_excess_mean_s_ = p.partner_delay_mean_s - p.partner_delay_after_s;
  }
  up_at_s_.assign(static_cast<size_t>(units_), 0.0);
  buffer_.reserve(static_cast<size_t>(burst_size_));
  if (!exponential_ && rate > 0.0) {
    const bool weibull = p.distribution == "weibull";
    auto law_for = [&](double unit_rate) {
      const double mean = unit_rate > 0.0 ? 1.0 / unit_rate : 1.0;  // unused when the rate is 0
      return weibull ? LifetimeLaw::weibull_with_mean(mean, p.shape) : LifetimeLaw::lognormal_with_mean(mean, p.shape);
    };
    law_normal_ = law_for(rate);
    law_lemon_ = law_for(rate * multiplier);
    normal_fails_ = true;
    lemon_fails_ = rate * multiplier > 0.0;
    std::vector<int32_t> normal, lemon;
    normal.reserve(static_cast<size_t>(units_) - lemon_list_.size());
    for (int64_t u = 0; u < units_; ++u) {
      if (!is_lemon(u)) normal.push_back(static_cast<int32_t>(u));
    }
    lemon.assign(lemon_list_.begin(), lemon_list_.end());
    pool_position_.assign(static_cast<size_t>(units_), -1);
    pool_normal_.reset(law_normal_, normal_fails_, std::move(normal), pool_position_, arrivals_);
    pool_lemon_.reset(law_lemon_, lemon_fails_, std::move(lemon), pool_position_, arrivals_);
    next_fail_s_.assign(static_cast<size_t>(units_), -1.0);
  }
}

double ProcessGenerator::draw_lifetime(int64_t unit) {
  const bool lemon = is_lemon(unit);
  if (!(lemon ? lemon_fails_ : normal_fails_)) return kHorizonS;  // never fails (multiplier 0)
  // At least one microsecond (the time resolution), so a unit's failures always move forward.
  return std::max(kMinLifetimeS, (lemon ? law_lemon_ : law_normal_).draw(arrivals_));
}

int64_t ProcessGenerator::pick_unit_exponential() {
  if (!lemon_list_.empty() && arrivals_.uniform01() < lemon_pick_probability_) {
    return lemon_list_[arrivals_.uniform_int(lemon_list_.size())];
  }
  for (;;) {
    const auto u = static_cast<int64_t>(arrivals_.uniform_int(static_cast<uint64_t>(units_)));
    if (!is_lemon(u)) return u;
  }
}

int64_t ProcessGenerator::pick_up_unit(double t_s) {
  // Rejection: a weighted pick redrawn until it is up is an exact draw from the weighted law
  // conditioned on being up. Rejections are bounded so a class mostly in repair costs at most one
  // O(units) pass, which draws from the same conditional law directly.
  constexpr int kMaxRejections = 64;
  for (int i = 0; i < kMaxRejections; ++i) {
    const int64_t u = pick_unit_exponential();
    if (up_at_s_[static_cast<size_t>(u)] <= t_s) return u;
  }
  auto weight = [&](int64_t u) {
    if (up_at_s_[static_cast<size_t>(u)] > t_s) return 0.0;
    return is_lemon(u) ? lemon_multiplier_ : 1.0;
  };
  double up_weight = 0.0;
  for (int64_t u = 0; u < units_; ++u) up_weight += weight(u);
  if (!(up_weight > 0.0)) return -1;
  double x = arrivals_.uniform01() * up_weight;
  int64_t last = -1;
  for (int64_t u = 0; u < units_; ++u) {
    const double w = weight(u);
    if (w <= 0.0) continue;
    last = u;
    if (x < w) return u;
    x -= w;
  }
  return last;  // rounding left x at the top: the last up unit of positive weight
}

double ProcessGenerator::hawkes_gap() {
  // Exact simulation of the exponential-kernel Hawkes process (Dassios and Zhao 2013): the next
  // immigrant and the next triggered failure are drawn separately and the earlier one wins. The
  // excess intensity E decays as E e^(-decay t), so the triggered failure arrives by t with
  // probability 1 - exp(-(E / decay)(1 - e^(-decay t))); inverted at a uniform draw, it never
  // arrives when 1 + decay ln(U) / E <= 0. Two draws per candidate, both from "failures.<class>".
  // With a second excitation, its triggered failure is drawn the same way (the three streams of
  // candidates are independent Poisson processes, so the earliest of the three is exact); it
  // costs a draw only once a slow excitation exists, so one-scale processes draw as before.
  // With regimes the immigrants arrive at the current state's rate; when no candidate comes
  // before the state changes, the excitations decay to the change, the state flips (its next
  // spell from "regime.<class>") and the candidates are drawn afresh from there: every candidate
  // stream is a Poisson process, so discarding the draws past the change is exact.
  double waited = 0.0;
  for (;;) {
    double gap = arrivals_.exponential(1.0 / (regime_ ? state_rate_[state_] : background_rate_));
    if (excess_ > 0.0) {
      const double d = 1.0 + decay_ * std::log(arrivals_.uniform01()) / excess_;
      if (d > 0.0) gap = std::min(gap, -std::log(d) / decay_);
    }
    if (slow_excess_ > 0.0) {
      const double d = 1.0 + slow_decay_ * std::log(arrivals_.uniform01()) / slow_excess_;
      if (d > 0.0) gap = std::min(gap, -std::log(d) / slow_decay_);
    }
    if (regime_ && now_s_ + waited + gap >= switch_at_s_ && switch_at_s_ < kHorizonS) {
      gap = std::max(0.0, switch_at_s_ - (now_s_ + waited));
      excess_ *= std::exp(-decay_ * gap);
      if (slow_excess_ > 0.0) slow_excess_ *= std::exp(-slow_decay_ * gap);
      waited += gap;
      state_ = 1 - state_;
      switch_at_s_ += regime_stream_.exponential(state_mean_s_[state_]);
      continue;
    }
    excess_ *= std::exp(-decay_ * gap);
    if (slow_excess_ > 0.0) slow_excess_ *= std::exp(-slow_decay_ * gap);
    return waited + gap;
  }
}

void ProcessGenerator::draw_candidates(double mean_gap) {
  // Each candidate follows the one before it (the first follows now_s_, the start).
  double t_s = ahead_count_ > 0 ? ahead_[(ahead_first_ + ahead_count_ - 1) % kLookahead].t_s
                                : now_s_;
  while (ahead_count_ < kLookahead && !past_horizon_) {
    Candidate& c = ahead_[(ahead_first_ + ahead_count_++) % kLookahead];
    t_s += arrivals_.exponential(mean_gap);
    c.t_s = t_s;
    if (!(t_s < kHorizonS)) {
      c.unit = -1;
      past_horizon_ = true;
      break;
    }
    c.unit = pick_unit_exponential();
    __builtin_prefetch(&up_at_s_[static_cast<size_t>(c.unit)]);
  }
}

void ProcessGenerator::refill() {
  if (exponential_) {
    if (!(total_rate_ > 0.0)) return;
    const double mean_gap = 1.0 / total_rate_;
    for (;;) {
      int64_t u = 0;
      if (hawkes_) {
        if (!next_drawn_) {
          now_s_ += hawkes_gap();
          next_drawn_ = true;
        }
        if (emit_partner_before(now_s_)) return;
        if (!(now_s_ < kHorizonS)) return;
        next_drawn_ = false;
        u = pick_up_unit(now_s_);
        if (u < 0) continue;  // every unit that can fail is in repair: dropped
      } else {
        draw_candidates(mean_gap);
        const Candidate& c = ahead_[ahead_first_];
        if (emit_partner_before(c.t_s)) return;
        now_s_ = c.t_s;
        u = c.unit;
        if (u < 0) return;  // past the horizon (the candidate stays: every later call returns)
        ahead_first_ = (ahead_first_ + 1) % kLookahead;
        --ahead_count_;
        if (up_at_s_[static_cast<size_t>(u)] > now_s_) continue;  // in repair: thinned
      }
      excess_ += jump_;  // 0 unless hawkes: a failure that happened excites the class
      slow_excess_ += slow_jump_;  // 0 unless a slow excitation
      emit(now_s_, u);
      return;
    }
  }
  while (!heap_.empty() && heap_.front().first != next_fail_s_[static_cast<size_t>(heap_.front().second)]) {
    std::pop_heap(heap_.begin(), heap_.end(), std::greater<>());  // stale: failed early in a burst
    heap_.pop_back();
  }
  const double t_heap = heap_.empty() ? kHorizonS : heap_.front().first;
  const double t_normal = pool_normal_.next_time();
  const double t_lemon = pool_lemon_.next_time();
  const double t = std::min({t_heap, t_normal, t_lemon});
  if (emit_partner_before(t)) return;
  if (!(t < kHorizonS)) return;
  int64_t u = 0;
  if (t == t_heap) {  // ties: repeat failures, then first failures of non-lemons, then lemons
    u = heap_.front().second;
    std::pop_heap(heap_.begin(), heap_.end(), std::greater<>());
    heap_.pop_back();
  } else if (t == t_normal) {
    u = pool_normal_.take(arrivals_, pool_position_);
  } else {
    u = pool_lemon_.take(arrivals_, pool_position_);
  }
  emit(t, u);
}

double ProcessGenerator::next_visit_after(double t_s) {
  while (next_visit_s_ <= t_s && next_visit_s_ < kHorizonS) {
    next_visit_s_ += visit_stream_.exponential(visit_interval_s_);
  }
  return next_visit_s_;
}

void ProcessGenerator::emit(double t_s, int64_t unit) {
  size_t k = 0;
  if (kinds_.size() > 1) {
    const double x = kind_stream_.uniform01();
    while (x >= kinds_[k].cumulative_share) ++k;
  }
  const Time when = Time::at(micros_of(t_s));
  add(t_s, when, unit, k, state_);
  if (burst_probability_ > 0.0 && burst_size_ > 1 && burst_stream_.bernoulli(burst_probability_)) {
    // With a size law the size is the next draw of the same stream (none is spent without one).
    const int size = burst_sizes_.empty()
                         ? burst_size_
                         : burst_sizes_[burst_stream_.uniform_int(burst_sizes_.size())];
    int64_t v = unit;
    int taken = 1;
    double start_s = t_s;  // with partner delays: the start of the partner before
    for (int64_t scanned = 1; taken < size && scanned < units_; ++scanned) {
      v = v + 1 == units_ ? 0 : v + 1;
      if (up_at_s_[static_cast<size_t>(v)] > t_s) continue;  // already in repair (or reserved)
      ++taken;
      if (delays_) {
        if (!burst_stream_.bernoulli(at_once_share_)) {
          start_s += delay_after_s_ + burst_stream_.exponential(delay_excess_mean_s_);
        }
        if (start_s > t_s) {
          if (start_s < kHorizonS) reserve(v, t_s, start_s, k);
          continue;
        }
      }
      add(t_s, when, v, k, state_);
    }
  }
}

void ProcessGenerator::add(double t_s, Time when, int64_t u, size_t k, int state) {
  const Kind& kind = kinds_[k];
  double repair_s = 0.0;
  double visit_s = -1.0;  // a deferred repair's visit, else < 0
  // One incident with the previous failure: its unit still down, this one within the window.
  const bool shares = shared_ && t_s - previous_s_ <= shared_window_s_ &&
                      previous_end_s_ > t_s && shared_stream_.bernoulli(shared_probability_);
  if (shares) {
    repair_s = previous_end_s_ - t_s;
  } else if (deferred_ && deferred_stream_.bernoulli(deferred_share_)) {
    visit_s = next_visit_after(t_s);  // down until the next maintenance visit
    repair_s = visit_s - t_s;
  } else {
    if (state_repairs_) {  // the law of the state the failure (or its burst) starts in
      repair_s = std::max(0.0, state_repair_[state].draw(repair_stream_));
    } else {
      repair_s = std::max(0.0, kind.repair.draw(repair_stream_));
    }
    if (regime_) repair_s *= repair_scale_[state];
  }
  up_at_s_[static_cast<size_t>(u)] = t_s + repair_s;
  // Filled in place: a local copied in would be written field by field and read back in wider
  // words, which the store-to-load forwarding of current cores does not serve.
  FailureEvent& e = buffer_.emplace_back();
  e.time = when;
  e.component = component_;
  e.unit = u;
  e.gpus = component_ == Component::kGpu ? GpuRange{u, 1} : topology_->blast_radius(component_, u);
  e.kind = static_cast<uint16_t>(kind_base_ + k);
  // Repairs past the horizon (a heavy tail) saturate like Duration::from_seconds. Repairs
  // ended by one visit end at one instant: the visit's microsecond, not the rounded
  // difference (which can miss it by one).
  e.repair = visit_s >= 0.0 && visit_s < kHorizonS ? micros_of(visit_s) - when.since_start()
             : repair_s < kHorizonS                ? micros_of(repair_s)
                                                   : Duration::from_seconds(repair_s);
  // A shared repair ends at the previous failure's instant, to the microsecond.
  if (shares && previous_end_s_ < kHorizonS) e.repair = previous_end_ - when.since_start();
  e.interrupts = kind.interrupts;
  if (shared_) {
    previous_s_ = t_s;
    previous_end_s_ = t_s + repair_s;
    previous_end_ = when.since_start() + e.repair;
  }
  if (!exponential_) {
    if (pool_position_[static_cast<size_t>(u)] >= 0) {  // a burst partner that never failed
      (is_lemon(u) ? pool_lemon_ : pool_normal_).remove(u, t_s, arrivals_, pool_position_);
    }
    // Strictly later than now even where doubles are coarser than a microsecond.
    const double next = std::max(t_s + repair_s + draw_lifetime(u), std::nextafter(t_s, kHorizonS));
    next_fail_s_[static_cast<size_t>(u)] = next;
    heap_.emplace_back(next, u);
    std::push_heap(heap_.begin(), heap_.end(), std::greater<>());
  }
}

void ProcessGenerator::reserve(int64_t u, double now_s, double start_s, size_t k) {
  up_at_s_[static_cast<size_t>(u)] = std::numeric_limits<double>::infinity();
  if (!exponential_) {
    if (pool_position_[static_cast<size_t>(u)] >= 0) {  // it leaves the first-failure pool now
      (is_lemon(u) ? pool_lemon_ : pool_normal_).remove(u, now_s, arrivals_, pool_position_);
    }
    next_fail_s_[static_cast<size_t>(u)] = -1.0;  // its heap entry, if any, is now stale
  }
  pending_.push_back(Partner{start_s, partner_sequence_++, u, static_cast<uint32_t>(k), state_});
  std::push_heap(pending_.begin(), pending_.end(), std::greater<>());
}

bool ProcessGenerator::emit_partner_before(double t_s) {
  if (pending_.empty() || pending_.front().start_s > t_s) return false;
  std::pop_heap(pending_.begin(), pending_.end(), std::greater<>());
  const Partner p = pending_.back();
  pending_.pop_back();
  add(p.start_s, Time::at(micros_of(p.start_s)), p.unit, p.kind, p.state);
  return true;
}

}  // namespace ntpsim::sim
