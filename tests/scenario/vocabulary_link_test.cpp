// A binary that calls nothing of the strategies or failures but the scenario loader and printer
// (as the scenario fuzzer does) still reads strategy names and trace formats: linking ntpsim_sim
// keeps the files that provide them (sim/scenario/vocabulary.h), through the `--undefined` link
// options of ntpsim_sim_strategies and ntpsim_sim_failures. (Here other archive members may pull
// those files in too; the scenario fuzzer's link is where the options matter.) A vocabulary
// missing from a binary aborts at its first lookup, so these tests would fail.
#include <gtest/gtest.h>

#include <string>

#include "sim/scenario/loader.h"
#include "sim/scenario/printer.h"

namespace ntpsim::sim {
namespace {

std::string source(const std::string& rel) {
  return std::string(NTPSIM_SOURCE_DIR) + "/" + rel;
}

TEST(VocabularyLink, StrategiesAreProvidedToTheReaderAndPrinter) {
  auto s = load_scenario(source("scenarios/quickstart.yaml"));
  ASSERT_TRUE(s.ok()) << s.error().message;
  ASSERT_FALSE(s->strategies.empty());
  // Every registered parameter is filled with its default, and printed in registry order.
  EXPECT_FALSE(s->strategies.front().params.empty());
  const std::string text = to_yaml_text(*s);
  EXPECT_NE(text.find("resume: "), std::string::npos) << text;
}

TEST(VocabularyLink, UnknownStrategyListsTheRegisteredOnes) {
  auto s = load_scenario(source("scenarios/quickstart.yaml"), {"strategies=[no_such_strategy]"});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("unknown strategy \"no_such_strategy\""), std::string::npos)
      << s.error().message;
  EXPECT_NE(s.error().message.find("checkpoint_restart"), std::string::npos) << s.error().message;
}

TEST(VocabularyLink, TraceFormatsAreProvidedToTheReader) {
  auto s = load_scenario(source("scenarios/stepfun-trace-h100.yaml"));
  ASSERT_TRUE(s.ok()) << s.error().message;
  ASSERT_TRUE(s->failures.trace.has_value());
  EXPECT_EQ(s->failures.trace->format, "infinitehbd");
  auto bad = load_scenario(source("scenarios/stepfun-trace-h100.yaml"),
                           {"failures.trace.format=no_such_format"});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("infinitehbd"), std::string::npos) << bad.error().message;
  EXPECT_NE(bad.error().message.find("csv"), std::string::npos) << bad.error().message;
}

}  // namespace
}  // namespace ntpsim::sim
