#include "sim/engine/job_state.h"

#include <algorithm>
#include <bit>

#include "models/base/check.h"
#include "models/base/random.h"

namespace ntpsim::sim {

JobState::JobState(const JobLayout& layout)
    : layout_(layout), tp_(layout.tp), excluded_bucket_(2 * layout.tp + 2) {}

void JobState::allocate() {
  const JobLayout& layout = layout_;
  gpu_.assign(static_cast<size_t>(layout.cluster_gpus), Gpu{});
  k_.assign(static_cast<size_t>(layout.total_groups), 0);
  words_per_domain_ = (layout.gpus_per_domain + 63) / 64;
  down_bits_.assign(static_cast<size_t>(layout.domains()) * words_per_domain_, 0);
  idle_up_bits_.assign(down_bits_.size(), 0);
  bucket_.assign(static_cast<size_t>(layout.total_groups), -1);
  next_.assign(static_cast<size_t>(layout.total_groups), -1);
  prev_.assign(static_cast<size_t>(layout.total_groups), -1);
  head_.assign(static_cast<size_t>(excluded_bucket_) + 1, -1);
  hist_.assign(static_cast<size_t>(tp_) + 1, 0);
  hist_weight_.resize(hist_.size());
  for (size_t d = 0; d < hist_weight_.size(); ++d) {
    // SplitMix64 of the degree: well-mixed weights, so that the hash's high bits index a table.
    hist_weight_[d] = fmix64((d + 1) * 0x9e3779b97f4a7c15ULL);
  }
  free_mask_.assign(histogram_mask_words(), 0);
  job_mask_.assign(histogram_mask_words(), 0);
  damaged_scratch_.reserve(static_cast<size_t>(layout.total_groups));
}

void JobState::reset(const MembershipRules& rules) {
  NTPSIM_CHECK(static_cast<int>(rules.degree_by_failed.size()) == tp_ + 1);
  NTPSIM_CHECK(rules.degree_by_failed[0] == tp_);
  if (gpu_.empty()) allocate();
  rules_ = &rules;
  track_swaps_ = rules.in_domain_spares && layout_.idle_per_domain > 0;
  swaps_on_failure_ = track_swaps_ && rules.degree_by_failed[1] != tp_;
  drops_on_failure_ = !track_swaps_ && rules.degree_by_failed[1] == 0;
  failed_gpus_ = 0;
  whole_after_in_domain_ = false;
  Initial& init = initial_[rules.use_spare_domains ? 1 : 0];
  if (!init.built) {
    build_initial(rules);
    for_each_array(init, true, true, [](auto& saved, const auto& live) { saved = live; });
    gpus_initial_ = false;
    owners_moved_ = false;
    init.members = members_;
    init.free_full = free_full_;
    init.hist_hash = hist_hash_;
    init.built = true;
    return;
  }
  // Same sizes: element copies, no allocation.
  for_each_array(init, track_swaps_, !gpus_initial_, [](const auto& saved, auto& live) {
    std::copy(saved.begin(), saved.end(), live.begin());
  });
  gpus_initial_ = false;
  owners_moved_ = false;
  members_ = init.members;
  free_full_ = init.free_full;
  hist_hash_ = init.hist_hash;
}

void JobState::clean_up(const std::vector<GpuRange>& down) {
  if (owners_moved_ || gpu_.empty()) return;
  int64_t brought_up = 0;
  for (const GpuRange& r : down) {
    if (r.first < 0 || r.count <= 0 || r.end() > layout_.cluster_gpus) return;
    for (int64_t gpu = r.first; gpu < r.end(); ++gpu) {
      Gpu& u = gpu_[static_cast<size_t>(gpu)];
      brought_up += u.down != 0 ? 1 : 0;
      u.down = 0;
    }
  }
  // failed_gpus_ counts every GPU down: all of them were in `down` exactly when as many came up.
  if (brought_up == failed_gpus_) {
    gpus_initial_ = true;
    failed_gpus_ = 0;
  }
}

void JobState::save_histogram(uint64_t* mask, int32_t* counts) const {
  for (size_t w = 0; w < job_mask_.size(); ++w) {
    mask[w] = job_mask_[w];
    for (uint64_t bits = job_mask_[w]; bits != 0; bits &= bits - 1) {
      const size_t d = w * 64 + static_cast<size_t>(std::countr_zero(bits));
      counts[d] = hist_[d];
    }
  }
}

bool JobState::histogram_equals(const uint64_t* mask, const int32_t* counts) const {
  // Word by word: equal masks leave the same degrees zero on both sides; the others compared.
  for (size_t w = 0; w < job_mask_.size(); ++w) {
    if (mask[w] != job_mask_[w]) return false;
    for (uint64_t bits = job_mask_[w]; bits != 0; bits &= bits - 1) {
      const size_t d = w * 64 + static_cast<size_t>(std::countr_zero(bits));
      if (counts[d] != hist_[d]) return false;
    }
  }
  return true;
}

// All GPUs up; the job holds the first R*P groups; the spare domains' groups are free, or
// excluded when !rules.use_spare_domains.
void JobState::build_initial(const MembershipRules& rules) {
  const int G = layout_.gpus_per_domain, gpd = layout_.groups_per_domain;
  // Domain d: GPU q*T + t belongs to group d*gpd + q; the G mod T GPUs after them are idle.
  for (int d = 0; d < layout_.domains(); ++d) {
    Gpu* base = &gpu_[static_cast<size_t>(d) * G];
    for (int q = 0; q < gpd; ++q) {
      const auto owner = static_cast<int32_t>(d * gpd + q);
      for (int t = 0; t < tp_; ++t) base[q * tp_ + t] = Gpu{owner, 0};
    }
    for (int i = gpd * tp_; i < G; ++i) base[i] = Gpu{-1, 0};
  }
  std::fill(down_bits_.begin(), down_bits_.end(), 0);
  std::fill(idle_up_bits_.begin(), idle_up_bits_.end(), 0);
  for (int d = 0; d < layout_.domains(); ++d) {
    for (int i = gpd * tp_; i < G; ++i) {
      const GpuBit b = gpu_bit(int64_t{d} * G + i);
      idle_up_bits_[b.word] |= b.mask;
    }
  }
  std::fill(k_.begin(), k_.end(), 0);
  std::fill(bucket_.begin(), bucket_.end(), -1);
  std::fill(head_.begin(), head_.end(), -1);
  std::fill(hist_.begin(), hist_.end(), 0);
  hist_hash_ = 0;
  std::fill(free_mask_.begin(), free_mask_.end(), 0);
  std::fill(job_mask_.begin(), job_mask_.end(), 0);
  members_ = 0;
  free_full_ = 0;
  for (int64_t g = 0; g < layout_.total_groups; ++g) {
    if (g < layout_.job_groups) {
      place(g, bucket_for(true, tp_));
    } else if (g < layout_.pool_groups || rules.use_spare_domains) {
      place(g, bucket_for(false, tp_));
    } else {
      place(g, excluded_bucket_);
    }
  }
}

void JobState::set_mask_bit(int bucket, bool non_empty) {
  if (bucket == excluded_bucket_) return;
  const bool job = bucket > tp_;
  const int d = job ? bucket - tp_ - 1 : bucket;
  uint64_t& word = (job ? job_mask_ : free_mask_)[static_cast<size_t>(d / 64)];
  const uint64_t bit = uint64_t{1} << (d % 64);
  word = non_empty ? (word | bit) : (word & ~bit);
}

void JobState::place(int64_t g, int bucket) {
  const int old = bucket_[g];
  if (old == bucket) return;
  if (old >= 0) {
    const int32_t n = next_[g], p = prev_[g];
    if (p >= 0) next_[p] = n;
    else head_[old] = n;
    if (n >= 0) prev_[n] = p;
    if (head_[old] < 0) set_mask_bit(old, false);
    count_in(old, -1);
  }
  const int32_t h = head_[bucket];
  next_[g] = h;
  prev_[g] = -1;
  if (h >= 0) prev_[h] = static_cast<int32_t>(g);
  else set_mask_bit(bucket, true);
  head_[bucket] = static_cast<int32_t>(g);
  bucket_[g] = static_cast<int16_t>(bucket);
  count_in(bucket, 1);
}

void JobState::move_heads(int from, int to, int64_t n) {
  if (n <= 0 || from == to) return;
  // The list walk with the moved groups in registers; place() would reload each head it stored.
  int32_t g = head_[from];
  int32_t top = head_[to];
  for (int64_t i = 0; i < n; ++i) {
    NTPSIM_CHECK(g >= 0);
    const int32_t after = next_[g];
    next_[g] = top;
    prev_[g] = -1;
    if (top >= 0) prev_[top] = g;
    bucket_[g] = static_cast<int16_t>(to);
    top = g;
    g = after;
  }
  head_[from] = g;
  if (g >= 0) prev_[g] = -1;
  else set_mask_bit(from, false);
  head_[to] = top;
  set_mask_bit(to, true);
  // place()'s counts, n at a time (the hash's sum is exact modulo 2^64).
  count_in(from, -n);
  count_in(to, n);
}

JobState::GpuBit JobState::gpu_bit(int64_t gpu) const {
  const int64_t G = layout_.gpus_per_domain;
  const int64_t domain = index_quotient(gpu, G);
  const auto i = static_cast<uint64_t>(gpu - domain * G);  // >= 0: shifts, not divisions
  return {static_cast<size_t>(domain * words_per_domain_) + i / 64, uint64_t{1} << (i % 64)};
}

// Inlined into both swaps.
[[gnu::always_inline]] inline int JobState::take_idle(uint64_t* idle, int& w) {
  while (w < words_per_domain_ && idle[w] == 0) ++w;
  if (w == words_per_domain_) return -1;
  const int j = w * 64 + std::countr_zero(idle[w]);
  idle[w] &= idle[w] - 1;
  return j;
}

// Inlined into fail, repair and the swaps (once per event).
[[gnu::always_inline]] inline void JobState::rebucket(int64_t g, int bucket) {
  if (bucket == excluded_bucket_) return;
  place(g, bucket_for(job_bucket(bucket), degree_of(g)));
}

// One GPU of a failure: returns true when a job member lost a GPU it was using.
[[gnu::always_inline]] inline bool JobState::fail_gpu(int64_t gpu) {
  Gpu& u = gpu_[static_cast<size_t>(gpu)];
  if (u.down++ != 0) return false;
  ++failed_gpus_;
  const int32_t g = u.owner;
  if (track_swaps_) {
    const GpuBit b = gpu_bit(gpu);
    down_bits_[b.word] |= b.mask;
    if (g < 0) idle_up_bits_[b.word] &= ~b.mask;
  }
  if (g < 0) return false;
  const int bucket = bucket_[g];
  ++k_[g];
  rebucket(g, bucket);
  return job_bucket(bucket);
}

bool JobState::fail(GpuRange gpus) {
  NTPSIM_CHECK(gpus.first >= 0 && gpus.end() <= layout_.cluster_gpus);
  // One GPU (the usual failure) on its own path: fewer registers live than in the loop.
  if (gpus.count == 1) return fail_gpu(gpus.first);
  bool hit = false;
  for (int64_t gpu = gpus.first; gpu < gpus.end(); ++gpu) {
    hit |= fail_gpu(gpu);  // no short circuit: every GPU goes down
  }
  return hit;
}

void JobState::repair(GpuRange gpus) {
  NTPSIM_CHECK(gpus.first >= 0 && gpus.end() <= layout_.cluster_gpus);
  for (int64_t gpu = gpus.first; gpu < gpus.end(); ++gpu) {
    Gpu& u = gpu_[static_cast<size_t>(gpu)];
    NTPSIM_CHECK(u.down > 0);
    if (--u.down != 0) continue;
    --failed_gpus_;
    const int32_t g = u.owner;
    if (track_swaps_) {
      const GpuBit b = gpu_bit(gpu);
      down_bits_[b.word] &= ~b.mask;
      if (g < 0) idle_up_bits_[b.word] |= b.mask;
    }
    if (g < 0) continue;
    const int bucket = bucket_[g];
    --k_[g];
    rebucket(g, bucket);
  }
}

void JobState::swap_in_domain_spares(int64_t g) {
  const int G = layout_.gpus_per_domain;
  const auto domain = static_cast<size_t>(layout_.domain_of_group(g));
  Gpu* base = &gpu_[domain * G];
  uint64_t* down = &down_bits_[domain * words_per_domain_];
  uint64_t* idle = &idle_up_bits_[domain * words_per_domain_];
  const auto owner = static_cast<int32_t>(g);
  int left = k_[g];  // a local: the GPU array's stores cannot alias it, so it stays in a register
  // The group's failed GPUs in index order, each taking the lowest-index idle GPU that is up.
  int w_idle = 0;
  bool exhausted = false;
  for (int w = 0; w < words_per_domain_ && left > 0 && !exhausted; ++w) {
    for (uint64_t bits = down[w]; bits != 0 && left > 0; bits &= bits - 1) {
      const int i = w * 64 + std::countr_zero(bits);
      if (base[i].owner != owner) continue;
      const int j = take_idle(idle, w_idle);
      if (j < 0) {
        exhausted = true;
        break;
      }
      base[j].owner = owner;
      base[i].owner = -1;
      owners_moved_ = true;
      --left;
    }
  }
  const int bucket = bucket_[g];
  k_[g] = static_cast<int16_t>(left);
  rebucket(g, bucket);
}

int JobState::next_member_degree(int d) const {
  // Lowest degree > d with members (or T + 1 when none), from the bitmask.
  for (int x = d + 1; x <= tp_;) {
    const size_t w = static_cast<size_t>(x / 64);
    const uint64_t word = job_mask_[w] & (~uint64_t{0} << (x % 64));
    if (word != 0) return static_cast<int>(w * 64) + std::countr_zero(word);
    x = static_cast<int>(w * 64 + 64);
  }
  return tp_ + 1;
}

int JobState::best_free_degree() const {
  for (size_t w = free_mask_.size(); w-- > 0;) {
    uint64_t word = free_mask_[w];
    if (w == 0) word &= ~uint64_t{1};  // degree 0 = unusable
    if (word != 0) return static_cast<int>(w * 64 + 63 - std::countl_zero(word));
  }
  return 0;
}

int JobState::worst_member_degree() const {
  for (size_t w = 0; w < job_mask_.size(); ++w) {
    uint64_t word = job_mask_[w];
    if (w == 0) word &= ~uint64_t{1};
    if (word != 0) return static_cast<int>(w * 64 + std::countr_zero(word));
  }
  return 0;
}

void JobState::reassign() {
  // A whole job (R*P members at the full degree) has nothing to swap, drop, fill, trade or trim
  // (the steps below would each find no candidate): the common case of a repair while it runs.
  if (whole()) {
    whole_after_in_domain_ = true;
    return;
  }
  if (track_swaps_) {
    if (members_ - hist_[static_cast<size_t>(tp_)] == 1) {
      // One damaged member (the usual interruption): the list below would hold it alone.
      const int d = hist_[0] > 0 ? 0 : next_member_degree(0);
      swap_in_domain_spares(head_[bucket_for(true, d)]);
    } else {
      // The damaged members first (the swaps move them between lists), then their swaps.
      std::vector<int32_t>& damaged = damaged_scratch_;
      damaged.clear();
      for (int d = 0; d < tp_; d = next_member_degree(d)) {
        for (int32_t g = head_[bucket_for(true, d)]; g >= 0; g = next_[g]) damaged.push_back(g);
      }
      for (int32_t g : damaged) swap_in_domain_spares(g);
    }
  }
  whole_after_in_domain_ = whole();
  // Made whole by the swaps (the usual interruption with idle GPUs in the domain): as above,
  // nothing is left to do.
  if (whole_after_in_domain_) return;
  // Unusable members leave.
  move_heads(bucket_for(true, 0), bucket_for(false, 0), hist_[0]);
  fill_and_trim();
}

void JobState::fill_and_trim() {
  if (!rules_->needs_full_job && members_ < layout_.job_groups && all_usable_at_full_degree()) {
    fill_whole_replicas_at_full_degree();
    return;
  }
  // Fill up to R*P with the best free groups, and trade worse members for better free groups.
  while (true) {
    const int bf = best_free_degree();
    if (bf == 0) break;
    if (members_ < layout_.job_groups) {
      place(any_in(bucket_for(false, bf)), bucket_for(true, bf));
      continue;
    }
    if (rules_->spare_replicas) break;
    const int wm = worst_member_degree();
    if (wm == 0 || wm >= bf) break;
    const int32_t in = any_in(bucket_for(false, bf));
    place(any_in(bucket_for(true, wm)), bucket_for(false, wm));
    place(in, bucket_for(true, bf));
  }
  // A job that may shrink keeps whole replicas only (a full job, R*P members, is whole
  // replicas: no division needed to see it).
  if (!rules_->needs_full_job && members_ < layout_.job_groups) {
    const int64_t keep = index_quotient(members_, layout_.pp) * layout_.pp;
    while (members_ > keep) {
      const int wm = worst_member_degree();  // the worst until all its members left
      move_heads(bucket_for(true, wm), bucket_for(false, wm),
                 std::min<int64_t>(hist_[static_cast<size_t>(wm)], members_ - keep));
    }
  }
}

void JobState::to_head(int64_t g) {
  const int b = bucket_[g];
  const int32_t h = head_[b];
  if (h == g) return;
  const int32_t n = next_[g], p = prev_[g];  // p >= 0: g is not the head
  next_[p] = n;
  if (n >= 0) prev_[n] = p;
  next_[g] = h;
  prev_[g] = -1;
  prev_[h] = static_cast<int32_t>(g);
  head_[b] = static_cast<int32_t>(g);
}

// What fail then reassign do to a whole job when one of its GPUs fails and an idle GPU of the
// domain is up: fail moves the group g from the job's full-degree list to its degree(1) list
// (empty before: the job was whole); reassign sees one damaged member and swaps its one failed
// GPU for the domain's lowest-index idle GPU that is up, and place() moves g back to the head of
// the full-degree list. Every count, mask and the hash come back to their values (g's moves
// cancel); what remains is the swap, the GPU's down state and g at the head of its list.
bool JobState::swap_on_failure(int64_t gpu) {
  Gpu& u = gpu_[static_cast<size_t>(gpu)];
  const int32_t g = u.owner;
  if (u.down != 0 || g < 0 || !in_job(g)) return false;
  const int64_t G = layout_.gpus_per_domain;
  const int64_t domain = index_quotient(gpu, G);
  int w = 0;
  const int j = take_idle(&idle_up_bits_[static_cast<size_t>(domain * words_per_domain_)], w);
  if (j < 0) return false;  // no idle GPU up: reassign's general steps
  const GpuBit b = gpu_bit(gpu);
  down_bits_[b.word] |= b.mask;
  gpu_[static_cast<size_t>(domain * G + j)].owner = g;
  u.owner = -1;
  u.down = 1;
  ++failed_gpus_;
  owners_moved_ = true;
  to_head(g);
  whole_after_in_domain_ = true;
  return true;
}

// What fail then reassign do without in-domain swaps when a healthy member group g loses one
// GPU and one failed GPU makes a group unusable, with no unusable member before: fail moves g to
// the job's degree-0 list (empty before), and reassign, after nothing to swap, moves it on to
// the head of the free degree-0 list, then fills and trims. Moved there at once, g passes the
// same counts, masks and hash (its stop in the degree-0 list cancels).
bool JobState::drop_on_failure(int64_t gpu) {
  Gpu& u = gpu_[static_cast<size_t>(gpu)];
  const int32_t g = u.owner;
  if (u.down != 0 || g < 0 || k_[g] != 0 || !in_job(g)) return false;
  u.down = 1;
  ++failed_gpus_;
  k_[g] = 1;
  place(g, bucket_for(false, 0));
  whole_after_in_domain_ = false;  // g left the full degree: not whole
  fill_and_trim();
  return true;
}

bool JobState::fail_and_reassign(GpuRange gpus) {
  NTPSIM_CHECK(gpus.first >= 0 && gpus.end() <= layout_.cluster_gpus);
  if (gpus.count == 1) {
    if (swaps_on_failure_ && whole() && swap_on_failure(gpus.first)) return true;
    if (drops_on_failure_ && hist_[0] == 0 && drop_on_failure(gpus.first)) return true;
  }
  const bool hit = fail(gpus);
  if (hit) reassign();
  return hit;
}

bool JobState::all_usable_at_full_degree() const {
  const size_t top = static_cast<size_t>(tp_ / 64);
  const uint64_t top_bit = uint64_t{1} << (tp_ % 64);
  for (size_t w = 0; w < job_mask_.size(); ++w) {
    uint64_t allowed = w == top ? top_bit : 0;
    if (w == 0) allowed |= 1;  // degree 0: unusable, never a member here, ignored when free
    if ((job_mask_[w] & ~allowed) != 0 || (free_mask_[w] & ~allowed) != 0) return false;
  }
  return true;
}

// The general loops of reassign, with every usable group at degree T, move the first
// n = min(free groups at T, R*P - members) free groups into the job (trades never happen: all
// degrees are equal), then move members - keep back, keep = (members + n) rounded down to whole
// replicas. Both bucket lists are LIFO, so the trim first takes back the groups just added, in
// reverse order, which restores both lists exactly. The net effect, done here directly, is
// therefore the same state, list order included: add the first keep - members free groups when
// keep >= members, else drop members - keep from the head of the job's list.
void JobState::fill_whole_replicas_at_full_degree() {
  const int job_b = bucket_for(true, tp_), free_b = bucket_for(false, tp_);
  const int64_t m = members_;
  const int64_t room = layout_.job_groups - m;
  const int64_t n = std::min(free_full_, room);  // the free groups at T, counted by place()
  const int64_t keep = index_quotient(m + n, layout_.pp) * layout_.pp;
  if (keep >= m) {
    move_heads(free_b, job_b, keep - m);
  } else {
    move_heads(job_b, free_b, m - keep);
  }
}

int JobState::domain_min_degree(int domain) const {
  int lowest = 0;
  const int gpd = layout_.groups_per_domain;
  for (int64_t g = static_cast<int64_t>(domain) * gpd; g < static_cast<int64_t>(domain + 1) * gpd;
       ++g) {
    if (!in_job(g)) continue;
    const int d = bucket_[g] - tp_ - 1;
    lowest = lowest == 0 ? d : std::min(lowest, d);
  }
  return lowest;
}

int JobState::domain_failed_gpus(int domain) const {
  if (track_swaps_) {  // the domain's down bits are kept: count them
    const uint64_t* down = &down_bits_[static_cast<size_t>(domain) * words_per_domain_];
    int n = 0;
    for (int w = 0; w < words_per_domain_; ++w) n += std::popcount(down[w]);
    return n;
  }
  const int G = layout_.gpus_per_domain;
  int n = 0;
  const Gpu* base = &gpu_[static_cast<size_t>(domain) * G];
  for (int i = 0; i < G; ++i) n += base[i].down > 0 ? 1 : 0;
  return n;
}

}  // namespace ntpsim::sim
