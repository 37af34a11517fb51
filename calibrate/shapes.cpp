#include "calibrate/shapes.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <string>
#include <tuple>

#include "models/base/check.h"

namespace ntpsim::calibrate {
namespace {

// Collects shapes once each, in first-seen order, joining the labels of duplicates.
class ShapeSet {
 public:
  void add(GemmDType dtype, GemmLayout layout, int64_t m, int64_t n, int64_t k,
           const std::string& label) {
    const auto key = std::make_tuple(static_cast<int>(dtype), static_cast<int>(layout), m, n, k);
    const auto it = index_.find(key);
    if (it != index_.end()) {
      out_[it->second].label += "|" + label;
      return;
    }
    index_.emplace(key, out_.size());
    GemmRequest r;
    r.dtype = dtype;
    r.layout = layout;
    r.m = m;
    r.n = n;
    r.k = k;
    r.label = label;
    out_.push_back(r);
  }
  std::vector<GemmRequest> take() { return std::move(out_); }

 private:
  std::map<std::tuple<int, int, int64_t, int64_t, int64_t>, size_t> index_;
  std::vector<GemmRequest> out_;
};

}  // namespace

GemmLayout pass_layout(GemmDType dtype, Pass pass) {
  if (is_fp8(dtype)) return GemmLayout::kTN;
  switch (pass) {
    case Pass::kForward:
      return GemmLayout::kTN;
    case Pass::kDataGrad:
      return GemmLayout::kNN;
    case Pass::kWeightGrad:
      return GemmLayout::kNT;
  }
  return GemmLayout::kTN;
}

int64_t padded_vocab(int64_t vocab, int t) {
  const int64_t unit = 128 * static_cast<int64_t>(t);
  return (vocab + unit - 1) / unit * unit;
}

std::vector<GemmRequest> layer_shapes(const LayerDims& d, const std::vector<int>& tps,
                                      GemmDType dtype, bool backward) {
  NTPSIM_CHECK(d.hidden > 0 && d.heads > 0 && d.kv_heads > 0 && d.ffn > 0 && d.seq_len > 0 &&
               d.micro_batch > 0 && d.heads % d.kv_heads == 0);
  const int64_t head_dim = d.hidden / d.heads;
  const int64_t tokens = static_cast<int64_t>(d.seq_len) * d.micro_batch;
  ShapeSet set;
  for (const int t : tps) {
    NTPSIM_CHECK(t >= 1);
    const std::string tag = " tp=" + std::to_string(t);
    const int64_t q_cols = ceil_div(d.heads, t) * head_dim;
    const int64_t kv_cols = 2 * ceil_div(d.kv_heads, t) * head_dim;
    const int64_t ffn_cols = ceil_div(d.ffn, t);
    struct Fwd {
      const char* name;
      int64_t n, k;
    };
    const Fwd gemms[] = {{"qkv", q_cols + kv_cols, d.hidden},
                         {"attn_out", d.hidden, q_cols},
                         {"mlp_up", (d.gated_ffn ? 2 : 1) * ffn_cols, d.hidden},
                         {"mlp_down", d.hidden, ffn_cols},
                         {"lm_head", d.vocab > 0 ? padded_vocab(d.vocab, t) / t : 0, d.hidden}};
    for (const Fwd& g : gemms) {
      if (g.n == 0) continue;
      set.add(dtype, pass_layout(dtype, Pass::kForward), tokens, g.n, g.k,
              std::string(g.name) + ".fwd" + tag);
      if (backward) {
        set.add(dtype, pass_layout(dtype, Pass::kDataGrad), tokens, g.k, g.n,
                std::string(g.name) + ".dgrad" + tag);
        set.add(dtype, pass_layout(dtype, Pass::kWeightGrad), g.n, g.k, tokens,
                std::string(g.name) + ".wgrad" + tag);
      }
    }
  }
  return set.take();
}

Result<LayerDims> parse_flat_workload(const std::string& text, const std::string& name) {
  LayerDims d;
  d.kv_heads = 0;
  std::map<std::string, int*> ints = {{"hidden", &d.hidden},   {"heads", &d.heads},
                                      {"kv_heads", &d.kv_heads}, {"ffn", &d.ffn},
                                      {"seq_len", &d.seq_len}, {"micro_batch", &d.micro_batch},
                                      {"vocab", &d.vocab}};
  size_t pos = 0;
  int line_no = 0;
  while (pos <= text.size()) {
    const size_t nl = std::min(text.find('\n', pos), text.size());
    std::string line = text.substr(pos, nl - pos);
    pos = nl + 1;
    ++line_no;
    if (const size_t hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    if (line.empty() || line[0] == ' ' || line[0] == '\t') continue;  // comments, nested keys
    const size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    const std::string key = line.substr(0, colon);
    std::string value = line.substr(colon + 1);
    value.erase(0, value.find_first_not_of(" \t"));
    value.erase(value.find_last_not_of(" \t\r") + 1);
    const std::string where = name + ":" + std::to_string(line_no) + ": ";
    if (key == "gated_ffn") {
      if (value != "true" && value != "false") return Error::bad_input(where + "gated_ffn must be true or false");
      d.gated_ffn = value == "true";
      continue;
    }
    const auto it = ints.find(key);
    if (it == ints.end()) continue;
    char* end = nullptr;
    const long v = std::strtol(value.c_str(), &end, 10);
    if (value.empty() || *end != '\0' || v <= 0 || v > (1L << 30)) {
      return Error::bad_input(where + key + ": '" + value + "' is not a plain positive integer "
                              "(ntpcal reads only flat workload files)");
    }
    *it->second = static_cast<int>(v);
  }
  for (const char* need : {"hidden", "heads", "ffn", "seq_len"}) {
    if (*ints.at(need) <= 0) return Error::bad_input(name + ": no '" + need + ":' line");
  }
  if (d.kv_heads == 0) d.kv_heads = d.heads;
  if (d.heads % d.kv_heads != 0 || d.hidden % d.heads != 0) {
    return Error::bad_input(name + ": kv_heads must divide heads and heads must divide hidden");
  }
  return d;
}

std::vector<GemmRequest> grid_shapes(const std::vector<int64_t>& ms, const std::vector<int64_t>& ns,
                                     const std::vector<int64_t>& ks, GemmDType dtype,
                                     GemmLayout layout) {
  ShapeSet set;
  for (const int64_t m : ms) {
    for (const int64_t n : ns) {
      for (const int64_t k : ks) set.add(dtype, layout, m, n, k, "grid");
    }
  }
  return set.take();
}

std::vector<GemmRequest> square_shapes(const std::vector<int64_t>& sizes, GemmDType dtype,
                                       GemmLayout layout) {
  ShapeSet set;
  for (const int64_t s : sizes) set.add(dtype, layout, s, s, s, "square");
  return set.take();
}

std::vector<int64_t> geometric(int64_t lo, int64_t hi, double factor) {
  NTPSIM_CHECK(lo > 0 && lo <= hi && factor > 1.0);
  std::vector<int64_t> out;
  double v = static_cast<double>(lo);
  while (v <= static_cast<double>(hi) * (1.0 + 1e-12)) {
    const auto iv = static_cast<int64_t>(std::llround(v));
    if (out.empty() || iv != out.back()) out.push_back(iv);
    v *= factor;
  }
  return out;
}

}  // namespace ntpsim::calibrate
