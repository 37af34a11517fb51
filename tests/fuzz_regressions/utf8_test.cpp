// Fuzz finding (fuzz_scenario): a scenario whose name held a byte that is not UTF-8 (0xA3) loaded,
// and printing it as JSON (`ntpsim check --json`, results files) threw nlohmann type_error 316,
// which terminated the program. YAML text is now refused up front unless it is valid UTF-8.
#include "models/base/utf8.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "models/base/yaml_reader.h"
#include "sim/scenario/loader.h"

namespace ntpsim {
namespace {

TEST(Utf8, ValidTextPasses) {
  EXPECT_FALSE(first_invalid_utf8("").has_value());
  EXPECT_FALSE(first_invalid_utf8("plain ASCII\n").has_value());
  EXPECT_FALSE(
      first_invalid_utf8("TP·PP×DP, 30 °C, \xF0\x9F\x98\x80, \xF4\x8F\xBF\xBF").has_value());
}

TEST(Utf8, InvalidSequencesAreFound) {
  EXPECT_EQ(first_invalid_utf8("h\xA3x"), 1u);            // lone continuation byte
  EXPECT_EQ(first_invalid_utf8("ab\xC0\xAF"), 2u);        // overlong '/'
  EXPECT_EQ(first_invalid_utf8("\xE0\x80\xAF"), 0u);      // overlong, 3 bytes
  EXPECT_EQ(first_invalid_utf8("x\xED\xA0\x80"), 1u);     // UTF-16 surrogate U+D800
  EXPECT_EQ(first_invalid_utf8("\xF4\x90\x80\x80"), 0u);  // above U+10FFFF
  EXPECT_EQ(first_invalid_utf8("ok\xE2\x82"), 2u);        // truncated at the end
  EXPECT_EQ(first_invalid_utf8("\xC3\xA9\xFF"), 2u);      // 0xFF never appears in UTF-8
}

TEST(Utf8, PositionIsOneBased) {
  const TextPosition p = position_of("ab\ncd\xA3", 5);
  EXPECT_EQ(p.line, 2);
  EXPECT_EQ(p.column, 3);
}

TEST(Utf8, YamlTextMustBeUtf8) {
  const Result<YAML::Node> n = load_yaml_string("a: 1\nname: h\xA3x\n", "x.yaml");
  ASSERT_FALSE(n.ok());
  EXPECT_EQ(n.error().exit_code, ExitCode::kBadInput);
  EXPECT_EQ(n.error().message, "x.yaml:2:8: not valid UTF-8 (byte 0xA3); save the file as UTF-8");
  // Escapes in double-quoted YAML strings decode to UTF-8 and stay accepted.
  const Result<YAML::Node> e = load_yaml_string("name: \"h\\xA3x\"\n", "e.yaml");
  ASSERT_TRUE(e.ok()) << e.error().message;
  EXPECT_EQ((*e)["name"].as<std::string>(), "h\xC2\xA3x");
}

TEST(Utf8, ScenarioReproducerIsBadInput) {
  // The crashing input from fuzz_scenario, byte for byte (hgx-h100-16k.yaml with one byte of its
  // name changed to 0xA3).
  const std::string path =
      std::string(NTPSIM_SOURCE_DIR) + "/tests/fuzz_regressions/inputs/scenario_invalid_utf8.yaml";
  sim::LoadOptions options;
  options.data_dir = NTPSIM_SOURCE_DIR;
  const Result<sim::Scenario> s = sim::load_scenario(path, options);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().exit_code, ExitCode::kBadInput);
  EXPECT_EQ(s.error().message, path + ":10:8: not valid UTF-8 (byte 0xA3); save the file as UTF-8");
}

TEST(Utf8, OverrideMustBeUtf8) {
  const std::string path = std::string(NTPSIM_SOURCE_DIR) + "/scenarios/quickstart.yaml";
  sim::LoadOptions options;
  options.data_dir = NTPSIM_SOURCE_DIR;
  options.overrides = {"name=caf\xE9"};
  const Result<sim::Scenario> s = sim::load_scenario(path, options);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().exit_code, ExitCode::kBadInput);
  EXPECT_NE(s.error().message.find("not valid UTF-8 (byte 0xE9)"), std::string::npos)
      << s.error().message;
}

}  // namespace
}  // namespace ntpsim
