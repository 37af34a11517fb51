// Workloads and profiles shared by the models tests (test helpers only).
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "models/hardware.h"
#include "models/workload.h"

namespace ntpsim::models::testing {

inline const std::vector<std::string>& profile_dirs() {
  static const std::vector<std::string> kDirs{std::string(NTPSIM_SOURCE_DIR) + "/models/profiles"};
  return kDirs;
}

inline HardwareProfile profile(const std::string& name) {
  YamlContext ctx("test");
  auto h = read_hardware(YAML::Node(name), "hardware", ctx, profile_dirs());
  EXPECT_TRUE(h.ok()) << (h.ok() ? "" : h.error().message);
  return h.ok() ? *h : HardwareProfile{};
}

// A GPT-style model (MHA, plain 4h FFN, Megatron's FLOP formula applies).
inline Workload gpt(int layers, int hidden, int heads, int seq, int vocab, int batch) {
  Workload w;
  w.name = "gpt";
  w.layers = layers;
  w.hidden = hidden;
  w.heads = heads;
  w.kv_heads = heads;
  w.ffn = 4 * hidden;
  w.gated_ffn = false;
  w.vocab = vocab;
  w.seq_len = seq;
  w.global_batch = batch;
  w.micro_batch = 1;
  w.recompute = Recompute::kSelective;
  w.sequence_parallel = true;
  return w;
}

}  // namespace ntpsim::models::testing
