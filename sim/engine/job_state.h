// The cluster as one strategy run sees it: which GPUs are down, which TP groups the job uses, and
// at which degree each group can run (DESIGN.md §3.1, §3.4).
//
// Kept incrementally so per-event work is proportional to what changed (no cluster scans):
//  - per GPU: a down counter (overlapping failures of a GPU, its node and its domain) and its
//    owning TP group (-1 = idle; in-domain spare swaps move GPUs between groups);
//  - per TP group: failed GPUs k, and its bucket: (in the job or free) x degree(k), or excluded
//    (spare domains a strategy may not use). Buckets are intrusive doubly linked lists over the
//    group arrays (O(1) insert/erase, "any member" = the most recently inserted), so the job's
//    degree histogram is the bucket sizes.
// `reassign` re-picks the job's groups under the strategy's MembershipRules: in-domain swaps,
// then drop unusable members, fill up to R*P from the best free groups and trade worse members
// for better free groups (not in fixed mini-batch mode, where the free healthy groups stay free
// and count as whole spare replicas instead), then (jobs that may shrink) keep only whole
// replicas.
// Invariants: a group is in exactly one bucket; job members <= R*P; k[g] = down GPUs owned by g.
// Ownership: a value, reused across runs through reset() (the per-GPU and per-group arrays are
// allocated by the first reset, none after it).
// Thread safety: none; one per thread.
#pragma once

#include <cstdint>
#include <vector>

#include "models/base/huge_pages.h"
#include "sim/cluster/topology.h"
#include "sim/cluster/layout.h"
#include "sim/strategies/strategy.h"

namespace ntpsim::sim {

class JobState {
 public:
  explicit JobState(const JobLayout& layout);

  // (Every query below REQUIRES a reset first.)
  // All GPUs up; the job holds the first R*P groups; groups of spare domains are free (or
  // excluded when !rules.use_spare_domains). `rules` must outlive the next reset.
  void reset(const MembershipRules& rules);
  // After a run, a hint that makes the next reset cheaper: `down` holds GPU ranges that may be
  // down (EventSchedule::unrepaired: after a run through every event, the only ones). Brings
  // every GPU in them back up; when that leaves no GPU down and no in-domain swap moved a GPU
  // to another group, the per-GPU array is back in its initial state and the next reset skips
  // copying it (a large cluster's biggest array). Otherwise nothing more: the reset copies it.
  // Either way the next call must be reset().
  void clean_up(const std::vector<GpuRange>& down);

  // A failure takes `gpus`: returns true when a job member lost a GPU it was using.
  bool fail(GpuRange gpus);
  // A repair gives `gpus` back (each GPU's down counter drops by one).
  void repair(GpuRange gpus);
  // Re-picks the job's groups (see top).
  void reassign();
  // fail(gpus), then reassign() when it hit the job: the same state, bucket-list order included.
  // The usual interruption (one GPU of a whole job fails and an idle GPU of its domain is up)
  // takes a short path: the GPU's group swaps in the domain's lowest-index idle GPU and moves to
  // the head of its list, where the failure's move out and the swap's move back leave it.
  // Without swaps, a group that one failed GPU makes unusable goes straight to the free list
  // where reassign would drop it, before reassign's fill and trim.
  bool fail_and_reassign(GpuRange gpus);
  // Of the last reassign: the job was whole (R*P members at the full degree) right after the
  // in-domain swaps, before any free group joined (Coverage::kInDomainSpares).
  bool whole_after_in_domain_swaps() const { return whole_after_in_domain_; }
  // A hint, no effect on the state: starts loading the first GPU of `gpus` (the next event's) so
  // that its cache miss overlaps the work before that event is applied.
  void prefetch(GpuRange gpus) const {
    if (gpus.first >= 0 && gpus.first < layout_.cluster_gpus) {
      __builtin_prefetch(&gpu_[static_cast<size_t>(gpus.first)], 1);
    }
  }
  // Job members per degree, index 0..T (0 = unusable members, only between fail and reassign).
  const std::vector<int32_t>& histogram() const { return hist_; }
  // A hash of the histogram, kept as groups move (sum over d of hist[d] x a fixed pseudo-random
  // weight of d, modulo 2^64): equal histograms have equal hashes, and different ones almost
  // never do, so a lookup keyed by the histogram compares the whole of it only on a hash match.
  uint64_t histogram_hash() const { return hist_hash_; }
  // The histogram in compact form, for an exact comparison later: the mask of its non-empty
  // degrees (histogram_mask_words() words; bit d of word d / 64) and, for each of those degrees
  // d, its count in counts[d] (the other entries of counts, T + 1 in all, are left as they are:
  // the mask says they are zero). A job's members sit at a few degrees, so this copies and
  // compares a few counts rather than T + 1.
  size_t histogram_mask_words() const { return static_cast<size_t>(tp_) / 64 + 1; }
  void save_histogram(uint64_t* mask, int32_t* counts) const;
  // The histogram is the one save_histogram stored in (mask, counts).
  bool histogram_equals(const uint64_t* mask, const int32_t* counts) const;
  // Every one of the R*P members runs at the full degree T: then the histogram is exactly
  // {T: R*P} (members never exceed R*P), so two whole histograms are equal.
  bool whole() const { return hist_[static_cast<size_t>(tp_)] == layout_.job_groups; }
  int64_t job_members() const { return members_; }
  int64_t failed_gpus() const { return failed_gpus_; }
  // Whole DP replicas the free groups at the full degree form (free full-degree groups / P): the
  // spare replicas of fixed mini-batch mode (MembershipRules::spare_replicas).
  int64_t spare_replicas() const { return index_quotient(free_full_, layout_.pp); }
  // For timelines: the lowest degree among the domain's job groups (0 = none in the job) and the
  // domain's down GPUs.
  int domain_min_degree(int domain) const;
  int domain_failed_gpus(int domain) const;

 private:
  int degree_of(int64_t g) const { return rules_->degree_by_failed[k_[g]]; }
  int bucket_for(bool in_job, int degree) const { return in_job ? tp_ + 1 + degree : degree; }
  bool job_bucket(int bucket) const { return bucket > tp_ && bucket != excluded_bucket_; }
  bool in_job(int64_t g) const { return job_bucket(bucket_[g]); }
  void place(int64_t g, int bucket);   // moves g to `bucket`, keeping hist_, members_, masks
  // The counts kept per bucket (histogram and its hash, members, free groups at degree T) as
  // `n` groups join `bucket` (n < 0: leave it).
  void count_in(int bucket, int64_t n) {
    if (bucket > tp_ && bucket != excluded_bucket_) {
      add_to_hist(bucket - tp_ - 1, static_cast<int32_t>(n));
      members_ += n;
    }
    if (bucket == tp_) free_full_ += n;
  }
  // `n` times place(any_in(from), to), done in one walk: the same lists (the moved groups at
  // the head of `to`'s in reverse order), histogram, counts and masks. REQUIRES: `from` holds
  // at least n groups.
  void move_heads(int from, int to, int64_t n);
  int32_t any_in(int bucket) const { return head_[bucket]; }
  void set_mask_bit(int bucket, bool non_empty);
  // After k[g] changed: moves g from `bucket`, its bucket read before the change (a store to
  // k_ may alias bucket_ for the compiler, which would otherwise read it again), to its degree's.
  void rebucket(int64_t g, int bucket);
  bool fail_gpu(int64_t gpu);          // fail() of one GPU
  void swap_in_domain_spares(int64_t g);  // REQUIRES: track_swaps_
  // fail_and_reassign's short paths; false (nothing changed) where they do not apply.
  bool swap_on_failure(int64_t gpu);
  bool drop_on_failure(int64_t gpu);
  // reassign's steps after the in-domain swaps and the unusable members' leaving: fill, trade
  // and (jobs that may shrink) trim to whole replicas.
  void fill_and_trim();
  void to_head(int64_t g);  // moves g to the head of its bucket's list
  int best_free_degree() const;        // highest degree >= 1 with a free group, 0 = none
  int worst_member_degree() const;     // lowest degree >= 1 with a member, 0 = none
  int next_member_degree(int d) const; // lowest degree > d with a member, T + 1 = none
  // True when every usable group, member or free, runs at the full degree T.
  bool all_usable_at_full_degree() const;
  // reassign's fill and whole-replica trim for that case, without the moves that cancel.
  void fill_whole_replicas_at_full_degree();

  JobLayout layout_;
  int tp_;
  int excluded_bucket_;
  const MembershipRules* rules_ = nullptr;
  struct Gpu {
    int32_t owner = -1;  // TP group using it, or -1 (idle)
    uint16_t down = 0;   // failures currently covering it
  };
  // Per GPU (one cache line access per GPU event), on huge pages where the system gives them: a
  // large cluster's events land on random GPUs.
  using GpuArray = std::vector<Gpu, HugePageAllocator<Gpu>>;
  GpuArray gpu_;
  // gpu_ equals its initial state (the same for both Initial entries: it does not depend on
  // the rules), set by clean_up; and whether a swap changed an owner since the last reset.
  bool gpus_initial_ = false;
  bool owners_moved_ = false;
  std::vector<int16_t> k_;              // per group: failed GPUs it owns
  // Per domain, words_per_domain_ words each: bit i set when the domain's GPU i is down
  // (down_bits_), or idle and up (idle_up_bits_). In-domain swaps walk these bits instead of the
  // domain's GPUs: the failed GPUs of a group and the idle GPUs that can replace them.
  int words_per_domain_ = 1;
  bool track_swaps_ = false;  // this run swaps idle GPUs in: the bits are kept
  // A group that loses one GPU leaves the full degree, so reassign swaps the GPU out (with
  // track_swaps_): fail_and_reassign's short path applies.
  bool swaps_on_failure_ = false;
  // Without swaps, a group that loses one GPU is unusable: reassign drops it (the other short
  // path).
  bool drops_on_failure_ = false;
  std::vector<uint64_t> down_bits_;
  std::vector<uint64_t> idle_up_bits_;
  // A GPU's word in its domain's bitmasks and its bit there.
  struct GpuBit {
    size_t word;
    uint64_t mask;
  };
  GpuBit gpu_bit(int64_t gpu) const;
  // Takes the lowest-index idle GPU that is up from a domain's idle bits `idle`, searching from
  // word `w` on (the words before it are known empty; `w` is left at the word it came from):
  // its index in the domain with its bit cleared, or -1 when none is left.
  int take_idle(uint64_t* idle, int& w);
  std::vector<int16_t> bucket_;         // per group
  std::vector<int32_t> next_;           // per group: next in its bucket's list, -1 = end
  std::vector<int32_t> prev_;           // per group: previous, -1 = it is the head
  std::vector<int32_t> head_;           // per bucket: most recently inserted group, -1 = empty
  // Bit d set when free[d] (job[d]) is non-empty: best/worst degree lookups in O(T/64).
  std::vector<uint64_t> free_mask_;
  std::vector<uint64_t> job_mask_;
  std::vector<int32_t> hist_;  // job members per degree; bit d of job_mask_ = hist_[d] > 0
  std::vector<uint64_t> hist_weight_;  // per degree, for hist_hash_
  uint64_t hist_hash_ = 0;
  void add_to_hist(int d, int32_t delta) {
    hist_[d] += delta;
    hist_hash_ += hist_weight_[d] * static_cast<uint64_t>(static_cast<int64_t>(delta));
  }
  std::vector<int32_t> damaged_scratch_;  // damaged members during in-domain swaps
  // The state reset() builds, per value of rules.use_spare_domains (the only rule it depends
  // on), kept after the first build so that later resets copy it instead of re-placing every
  // group: the same arrays, bucket-list order included.
  struct Initial {
    bool built = false;
    GpuArray gpu;
    std::vector<int16_t> k, bucket;
    std::vector<int32_t> next, prev, head, hist;
    std::vector<uint64_t> free_mask, job_mask, down_bits, idle_up_bits;
    int64_t members = 0, free_full = 0;
    uint64_t hist_hash = 0;
  };
  Initial initial_[2];
  void allocate();  // sizes every array for the layout (the first reset)
  void build_initial(const MembershipRules& rules);
  // f(saved, live) for each array of the state and its copy in `init`; the swap bits only when
  // `swap_bits` (a run without in-domain swaps neither reads nor keeps them), the per-GPU array
  // only when `gpus`.
  template <typename F>
  void for_each_array(Initial& init, bool swap_bits, bool gpus, F f) {
    if (gpus) f(init.gpu, gpu_);
    f(init.k, k_);
    f(init.bucket, bucket_);
    f(init.next, next_);
    f(init.prev, prev_);
    f(init.head, head_);
    f(init.hist, hist_);
    f(init.free_mask, free_mask_);
    f(init.job_mask, job_mask_);
    if (swap_bits) {
      f(init.down_bits, down_bits_);
      f(init.idle_up_bits, idle_up_bits_);
    }
  }
  int64_t members_ = 0;
  int64_t free_full_ = 0;  // free groups at the full degree T
  int64_t failed_gpus_ = 0;
  bool whole_after_in_domain_ = false;
};

}  // namespace ntpsim::sim
