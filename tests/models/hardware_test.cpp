// Tests of models/hardware.cpp: profile resolution, strict keys, units, round trip.
#include "models/hardware.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

namespace ntpsim::models {
namespace {

const std::vector<std::string> kDirs{std::string(NTPSIM_SOURCE_DIR) + "/models/profiles"};

Result<HardwareProfile> read_text(const std::string& text) {
  auto node = load_yaml_string(text, "test.yaml");
  if (!node.ok()) return node.error();
  YamlContext ctx("test.yaml");
  return read_hardware((*node)["hardware"], "hardware", ctx, kDirs);
}

// Every profile in models/profiles/ (the folder is the list: a new profile is tested by adding
// its file), read by its name, which is the file's stem.
std::vector<std::string> shipped_profiles() {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(kDirs.front())) {
    if (e.is_regular_file() && e.path().extension() == ".yaml") {
      names.push_back(e.path().stem().string());
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

TEST(Hardware, EveryShippedProfileReads) {
  const auto names = shipped_profiles();
  // The default scenario's profile is among them, so an unreadable folder cannot pass.
  ASSERT_NE(std::find(names.begin(), names.end(), "gb200-nvl72"), names.end());
  for (const auto& name : names) {
    auto h = read_text("hardware: " + name);
    ASSERT_TRUE(h.ok()) << name << ": " << h.error().message;
    EXPECT_EQ(h->name, name);
    EXPECT_GT(h->peak_bf16_flops, 1e14);
    EXPECT_GE(h->max_power_w, h->tdp_w);
    EXPECT_GT(h->scale_up.bw_per_gpu_Bps, h->scale_out.bw_per_gpu_Bps);
  }
}

TEST(Hardware, Gb200ValuesAndUnits) {
  auto h = read_text("hardware: gb200-nvl72");
  ASSERT_TRUE(h.ok()) << h.error().message;
  EXPECT_DOUBLE_EQ(h->peak_bf16_flops, 2.5e15);
  EXPECT_DOUBLE_EQ(h->hbm_bytes, 186e9);
  EXPECT_DOUBLE_EQ(h->hbm_bw_Bps, 8e12);
  EXPECT_DOUBLE_EQ(h->tdp_w, 1200);
  EXPECT_DOUBLE_EQ(h->max_power_w, 1560);
  EXPECT_EQ(h->gpus_per_domain, 72);
  EXPECT_DOUBLE_EQ(h->scale_up.bw_per_gpu_Bps, 900e9);
  EXPECT_DOUBLE_EQ(h->scale_up.collectives.at("all_reduce").bus_bw_Bps, 839e9);
  EXPECT_DOUBLE_EQ(h->scale_up.alpha_s, 3e-6);
  EXPECT_EQ(h->gemm.sm_count, 148);
  EXPECT_EQ(h->origin, "spec");
}

// The Hopper and Ampere profiles carry the capacity the device reports (nvidia-smi MiB), not
// the datasheet's "80GB" read as 10^9 bytes.
TEST(Hardware, CapacityAsTheDeviceReports) {
  auto h100 = read_text("hardware: h100-sxm");
  auto a100 = read_text("hardware: a100-sxm-80gb");
  ASSERT_TRUE(h100.ok() && a100.ok());
  EXPECT_DOUBLE_EQ(h100->hbm_bytes, 81559.0 * 1048576);
  EXPECT_DOUBLE_EQ(a100->hbm_bytes, 80.0 * 1073741824);
}

TEST(Hardware, UnknownKeySuggestsNearest) {
  auto h = read_text(
      "hardware:\n  name: x\n  peak_bf16_tflops: 1000\n  hbm: 80GB\n  hbm_bw: 3TB/s\n"
      "  tdp: 700W\n  tdpp: 800W\n  scale_up: {bw_per_gpu: 450GB/s}\n"
      "  scale_out: {bw_per_gpu: 50GB/s}\n");
  ASSERT_FALSE(h.ok());
  EXPECT_NE(h.error().message.find("test.yaml:7:3"), std::string::npos) << h.error().message;
  EXPECT_NE(h.error().message.find("hardware.tdpp"), std::string::npos) << h.error().message;
  EXPECT_NE(h.error().message.find("did you mean \"tdp\""), std::string::npos) << h.error().message;
  EXPECT_EQ(h.error().exit_code, ExitCode::kBadInput);
}

TEST(Hardware, BadUnitNamesField) {
  auto h = read_text(
      "hardware:\n  name: x\n  peak_bf16_tflops: 1000\n  hbm: 80GB\n  hbm_bw: 3TB\n"
      "  tdp: 700W\n  scale_up: {bw_per_gpu: 450GB/s}\n  scale_out: {bw_per_gpu: 50GB/s}\n");
  ASSERT_FALSE(h.ok());
  EXPECT_NE(h.error().message.find("test.yaml:5:11: hardware.hbm_bw"), std::string::npos)
      << h.error().message;
}

TEST(Hardware, NestedCollectiveAndGroupSizes) {
  auto h = read_text(
      "hardware:\n  name: x\n  peak_bf16_tflops: 1000\n  hbm: 80GB\n  hbm_bw: 3TB/s\n  tdp: 700W\n"
      "  scale_up:\n    bw_per_gpu: 450GB/s\n    collectives:\n"
      "      all_gather: {alpha: 4us, bus_bw: 300GB/s, group_sizes: {8: {alpha: 5us, bus_bw: "
      "350GB/s}}}\n"
      "  scale_out: {bw_per_gpu: 50GB/s}\n");
  ASSERT_TRUE(h.ok()) << h.error().message;
  const auto& c = h->scale_up.collectives.at("all_gather");
  EXPECT_DOUBLE_EQ(c.alpha_s, 4e-6);
  EXPECT_DOUBLE_EQ(c.by_group_size.at(8).bus_bw_Bps, 350e9);
  EXPECT_DOUBLE_EQ(h->max_power_w, 700);  // defaults to tdp

  auto bad = read_text(
      "hardware:\n  name: x\n  peak_bf16_tflops: 1000\n  hbm: 80GB\n  hbm_bw: 3TB/s\n  tdp: 700W\n"
      "  scale_up:\n    bw_per_gpu: 450GB/s\n    collectives:\n      all_reduc: {alpha: 4us}\n"
      "  scale_out: {bw_per_gpu: 50GB/s}\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("did you mean \"all_reduce\""), std::string::npos)
      << bad.error().message;
}

TEST(Hardware, UnknownProfileNameListsKnown) {
  auto h = read_text("hardware: gb200-nvl27");
  ASSERT_FALSE(h.ok());
  EXPECT_NE(h.error().message.find("did you mean \"gb200-nvl72\""), std::string::npos)
      << h.error().message;
  EXPECT_NE(h.error().message.find("h100-sxm"), std::string::npos);
}

TEST(Hardware, FilePathAndRoundTrip) {
  auto a = read_text("hardware: " + kDirs[0] + "/h100-sxm.yaml");
  ASSERT_TRUE(a.ok()) << a.error().message;
  YAML::Node wrapped;
  wrapped["hardware"] = to_yaml(*a);
  auto b = read_text(YAML::Dump(wrapped));
  ASSERT_TRUE(b.ok()) << b.error().message;
  EXPECT_EQ(b->name, a->name);
  EXPECT_NEAR(b->peak_bf16_flops, a->peak_bf16_flops, 1e-9 * a->peak_bf16_flops);
  EXPECT_NEAR(b->hbm_bw_Bps, a->hbm_bw_Bps, 1e-5 * a->hbm_bw_Bps);
  EXPECT_NEAR(b->scale_up.collectives.at("all_reduce").bus_bw_Bps, 480e9, 1.0);
  EXPECT_EQ(b->gemm.sm_count, 132);
  EXPECT_NEAR(b->memory.reserved_bytes, 3e9, 1.0);
}

TEST(Hardware, FabricContentionAndTopologyRoundTrip) {
  auto a = read_text("hardware: " + kDirs[0] + "/a100-sxm-80gb.yaml");
  ASSERT_TRUE(a.ok()) << a.error().message;
  EXPECT_EQ(a->scale_up.comm_sms, 24);
  EXPECT_EQ(a->scale_out.domains_per_leaf, 20);
  EXPECT_EQ(a->scale_out.oversubscription, 1.0);
  a->scale_out.oversubscription = 2.5;
  YAML::Node wrapped;
  wrapped["hardware"] = to_yaml(*a);
  auto b = read_text(YAML::Dump(wrapped));
  ASSERT_TRUE(b.ok()) << b.error().message;
  EXPECT_EQ(b->scale_up.comm_sms, 24);
  EXPECT_EQ(b->scale_out.domains_per_leaf, 20);
  EXPECT_EQ(b->scale_out.oversubscription, 2.5);
  // Oversubscription below 1 has no physical meaning.
  auto bad = read_text(
      "hardware:\n  name: x\n  peak_bf16_tflops: 1000\n  hbm: 80GB\n  hbm_bw: 3TB/s\n"
      "  tdp: 700W\n  scale_up: {bw_per_gpu: 450GB/s}\n"
      "  scale_out: {bw_per_gpu: 50GB/s, oversubscription: 0.5}\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("hardware.scale_out.oversubscription"), std::string::npos)
      << bad.error().message;
}

TEST(Hardware, MaxPowerBelowTdpIsAnError) {
  auto h = read_text(
      "hardware:\n  name: x\n  peak_bf16_tflops: 1000\n  hbm: 80GB\n  hbm_bw: 3TB/s\n"
      "  tdp: 700W\n  max_power: 600W\n  scale_up: {bw_per_gpu: 450GB/s}\n"
      "  scale_out: {bw_per_gpu: 50GB/s}\n");
  ASSERT_FALSE(h.ok());
  EXPECT_NE(h.error().message.find("hardware.max_power"), std::string::npos) << h.error().message;
}

}  // namespace
}  // namespace ntpsim::models

namespace ntpsim::models {
namespace {

// Provenance: synthetic and mixed profiles read, keep their per-part origins through to_yaml,
// and carry a warning; spec and measured ones do not; an unknown origin is an error.
TEST(Hardware, OriginAndFieldOriginsRoundTripAndWarn) {
  const std::string body =
      "  peak_bf16_tflops: 989\n  hbm: 141GB\n  hbm_bw: 4.8TB/s\n  tdp: 700W\n"
      "  scale_up: {bw_per_gpu: 450GB/s}\n  scale_out: {bw_per_gpu: 50GB/s}\n";
  auto h = read_text("hardware:\n  name: h200-synthetic\n  origin: synthetic\n" + body +
                     "  field_origins: {gemm: synthetic, scale_up: measured, other: spec}\n");
  ASSERT_TRUE(h.ok()) << h.error().message;
  EXPECT_EQ(h->origin, "synthetic");
  EXPECT_EQ(h->field_origins.at("scale_up"), "measured");
  EXPECT_EQ(origin_warning(*h),
            "hardware profile 'h200-synthetic' has origin synthetic: gemm were fitted from "
            "synthetic data, not measured");
  YAML::Node wrapped;
  wrapped["hardware"] = to_yaml(*h);
  auto back = read_text(YAML::Dump(wrapped));
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->origin, "synthetic");
  EXPECT_EQ(back->field_origins, h->field_origins);

  auto measured = read_text("hardware:\n  name: m\n  origin: measured\n" + body);
  ASSERT_TRUE(measured.ok());
  EXPECT_EQ(origin_warning(*measured), "");
  auto mixed = read_text("hardware:\n  name: x\n  origin: mixed\n" + body);
  ASSERT_TRUE(mixed.ok());
  EXPECT_NE(origin_warning(*mixed).find("origin mixed"), std::string::npos);
  auto bad = read_text("hardware:\n  name: x\n  origin: guessed\n" + body);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("hardware.origin"), std::string::npos) << bad.error().message;
  auto bad_part = read_text("hardware:\n  name: x\n" + body + "  field_origins: {gemm: guessed}\n");
  ASSERT_FALSE(bad_part.ok());
  EXPECT_NE(bad_part.error().message.find("hardware.field_origins.gemm"), std::string::npos)
      << bad_part.error().message;
}

TEST(Hardware, MeasuredSectionAndGemmTableRoundTrip) {
  auto h = read_text(
      "hardware:\n  name: h200-measured\n  origin: measured\n  peak_bf16_tflops: 989\n"
      "  hbm: 141GB\n  hbm_bw: 4.8TB/s\n  tdp: 700W\n"
      "  scale_up: {bw_per_gpu: 450GB/s}\n  scale_out: {bw_per_gpu: 50GB/s}\n"
      "  gemm:\n    table:\n      - {m: 4096, n: 4096, k: 4096, tflops: 760}\n"
      "      - {m: 1024, n: 8192, k: 8192, tflops: 640.5}\n"
      "  measured:\n    context: \"8x H200, CUDA 13, host x\"\n    gemm_max_rel_error: 0.031\n"
      "    gemm_r2: 0.994\n    points: 42\n");
  ASSERT_TRUE(h.ok()) << h.error().message;
  ASSERT_EQ(h->gemm.table.size(), 2u);
  EXPECT_DOUBLE_EQ(h->gemm.table[1].flops_per_s, 640.5e12);
  EXPECT_EQ(h->measured.points, 42);
  YAML::Node wrapped;
  wrapped["hardware"] = to_yaml(*h);
  auto back = read_text(YAML::Dump(wrapped));
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->origin, "measured");
  EXPECT_EQ(back->measured.context, "8x H200, CUDA 13, host x");
  EXPECT_DOUBLE_EQ(back->measured.gemm_r2, 0.994);
  ASSERT_EQ(back->gemm.table.size(), 2u);
  EXPECT_DOUBLE_EQ(back->gemm.table[0].k, 4096);

  auto bad = read_text(
      "hardware:\n  name: x\n  peak_bf16_tflops: 989\n  hbm: 141GB\n  hbm_bw: 4.8TB/s\n"
      "  tdp: 700W\n  scale_up: {bw_per_gpu: 450GB/s}\n  scale_out: {bw_per_gpu: 50GB/s}\n"
      "  gemm:\n    table:\n      - {m: 4096, n: 4096, tflops: 760}\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("hardware.gemm.table[0]"), std::string::npos)
      << bad.error().message;
  EXPECT_NE(bad.error().message.find("\"k\""), std::string::npos) << bad.error().message;
}

}  // namespace
}  // namespace ntpsim::models
