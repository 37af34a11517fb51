// load_yaml_string / load_yaml_file and the exact integer reader (models/base/yaml_reader.h):
// what yaml-cpp would accept by accident is refused with a located message.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <fmt/format.h>

#include "models/base/yaml_reader.h"

namespace ntpsim {
namespace {

std::string error_of(const std::string& text) {
  auto r = load_yaml_string(text, "f.yaml");
  EXPECT_FALSE(r.ok()) << text;
  return r.ok() ? std::string() : r.error().message;
}

TEST(YamlStrict, AnUnterminatedQuotedStringIsAnErrorAtItsLine) {
  EXPECT_NE(error_of("a: 1\nname: \"unclosed\nb: 2\nc: 3\n")
                .find("f.yaml:2:7: name: the quoted string has no closing \""),
            std::string::npos)
      << error_of("a: 1\nname: \"unclosed\nb: 2\nc: 3\n");
  EXPECT_NE(error_of("a:\n  - 'open\n  - x\n")
                .find("f.yaml:2:5: a[0]: the quoted string has no "
                      "closing '"),
            std::string::npos)
      << error_of("a:\n  - 'open\n  - x\n");
  // Closed strings, escaped quotes and quotes over several lines stay valid.
  EXPECT_TRUE(load_yaml_string("a: \"x \\\" y\"\nb: 'it''s'\nc: \"two\n  lines\"\n", "f").ok());
}

TEST(YamlStrict, ASecondDocumentIsAnError) {
  EXPECT_NE(error_of("a: 1\n---\nb: 2\n").find("f.yaml:3:1: a second YAML document"),
            std::string::npos)
      << error_of("a: 1\n---\nb: 2\n");
  EXPECT_TRUE(load_yaml_string("---\na: 1\n", "f").ok());  // one explicit document is fine
}

// yaml-cpp links an alias to its node without copying it: an alias inside its own node made a
// cycle that overflowed the stack of every reader (fuzz_hardware finding), and aliases of aliases
// multiply what the readers walk. Both are refused at the alias; shared nodes that are complete
// before their aliases stay valid.
TEST(YamlStrict, CyclicAndExplodingAliasesAreRefusedAtTheAlias) {
  EXPECT_NE(error_of("a: &x\n  b: *x\n").find("f.yaml:2:6: an alias inside the node it refers to"),
            std::string::npos)
      << error_of("a: &x\n  b: *x\n");
  EXPECT_NE(error_of("- &s [1, [2, *s]]\n").find("f.yaml:1:14: an alias inside the node"),
            std::string::npos)
      << error_of("- &s [1, [2, *s]]\n");
  // Ten levels of ten aliases each: 10^10 nodes to walk from about 300 bytes.
  std::string laughs = "l0: &l0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i <= 10; ++i) {
    laughs += fmt::format("l{}: &l{} [", i, i);
    for (int j = 0; j < 10; ++j) laughs += fmt::format("{}*l{}", j == 0 ? "" : ", ", i - 1);
    laughs += "]\n";
  }
  const std::string message = error_of(laughs);
  EXPECT_NE(message.find("aliases expand the document by more than 1000000 nodes"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("f.yaml:6:"), std::string::npos) << message;  // 10^6 passed in l5
  // Shared nodes, and a name defined again after its first node is complete, stay valid.
  const auto ok = load_yaml_string(
      "base: &b {tp: 8, pp: 2}\nrun: *b\nlist: [*b, *b]\nagain: &b [1, 2]\nlast: *b\n", "f.yaml");
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  EXPECT_EQ((*ok)["list"][1]["pp"].as<int>(), 2);
  EXPECT_EQ((*ok)["last"][1].as<int>(), 2);
}

// yaml-cpp 0.7's LoadAll yields empty documents without end for these (a fuzz_plan corpus input
// hung `ntpsim plan`): each is one bad-input answer.
TEST(YamlStrict, InputsThatNeverEndForLoadAllAreAnswered) {
  for (const char* text : {", x", ", deVVVVVVV\x11VVnt7\n"}) {
    const auto r = load_yaml_string(text, "f.yaml");
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_EQ(r.error().exit_code, ExitCode::kBadInput) << text;
  }
}

TEST(YamlStrict, AByteOrderMarkIsSkipped) {
  auto r = load_yaml_string("\xEF\xBB\xBFname: x\n", "f");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ((*r)["name"].Scalar(), "x");
}

TEST(YamlStrict, NulBytesAndDeepNestingAreLocated) {
  EXPECT_NE(error_of(std::string("a: 1\nb: 2\nc: x\0y\n", 17)).find("f.yaml:3:5: a NUL byte"),
            std::string::npos);
  const std::string deep = "a: 1\nb: " + std::string(100000, '[') + std::string(100000, ']') + "\n";
  EXPECT_NE(error_of(deep).find("f.yaml:2:1004: YAML nested deeper than 1000 levels"),
            std::string::npos)
      << error_of(deep);
  std::string dashes = "a:\n";
  for (int i = 0; i < 1200; ++i) dashes += "- ";
  dashes += "x\n";
  EXPECT_NE(error_of(dashes).find("f.yaml:2:"), std::string::npos) << error_of(dashes);
}

TEST(YamlStrict, EverySyntaxErrorNamesALine) {
  for (const std::string text : {"a: [1, 2\n", "a: {b: 1\n", "a: b: c\n", "- a\nb: 1\n"}) {
    const std::string e = error_of(text);
    EXPECT_EQ(e.rfind("f.yaml:", 0), 0u) << e;
    EXPECT_NE(e.find_first_of("0123456789"), std::string::npos) << e;
  }
}

TEST(YamlStrict, NullOnTheCommandLineIsNotEmptyFile) {
  // Every spelling that reads as null, not only the literal words.
  for (const char* v : {"null", "~", "NULL", "!!null", "#x", "---", "..."}) {
    auto r = load_yaml_value(v, "--set horizon=v", "horizon");
    ASSERT_FALSE(r.ok()) << v;
    EXPECT_EQ(r.error().message,
              "--set horizon=v:1:1: horizon: null is not a value (remove the field from the file "
              "to use its default)")
        << v;
  }
  // A value placed at its position in a file is reported there.
  auto r = load_yaml_value("\n\n    ~", "plan.yaml", "horizon");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message.rfind("plan.yaml:3:5: horizon: null is not a value", 0), 0u)
      << r.error().message;
}

TEST(YamlStrict, DevicesAndDirectoriesAreNamed) {
  auto dev = load_yaml_file("/dev/null");
  ASSERT_FALSE(dev.ok());
  EXPECT_NE(dev.error().message.find("/dev/null: is a device, expected a YAML file"),
            std::string::npos)
      << dev.error().message;
  auto dir = load_yaml_file("/");
  ASSERT_FALSE(dir.ok());
  EXPECT_NE(dir.error().message.find("is a directory"), std::string::npos);
}

TEST(YamlStrict, EchoedInputIsClipped) {
  const std::string big(200000, 'x');
  const std::string clipped = clip_for_message(big);
  EXPECT_LT(clipped.size(), 200u);
  EXPECT_NE(clipped.find("(200000 bytes in all)"), std::string::npos);
  std::string utf8;
  for (int i = 0; i < 100; ++i) utf8 += "\xc3\xa9";
  const std::string cut = clip_for_message(utf8, 81);
  EXPECT_EQ(cut.find("..."), 80u);  // cut before the character the limit falls into
}

// A kept reading is reused only while its file holds the same bytes (file_memo.h, the scenario
// loader's kept trees): the comparison is exact, one block at a time.
TEST(FileHasBytes, ExactlyTheSameBytesAndNothingElse) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                    ("ntpsim_file_has_bytes_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "f.yaml").string();
  // Longer than one 8 KiB block, so that a difference in a later block is seen.
  std::string text;
  for (int i = 0; i < 2000; ++i) {
    text += 'k';
    text += std::to_string(i);
    text += ": v\n";
  }
  std::ofstream(path, std::ios::binary) << text;
  EXPECT_TRUE(file_has_bytes(path, text));
  std::string changed = text;
  changed[changed.size() - 3] = 'w';  // same size, last block differs
  EXPECT_FALSE(file_has_bytes(path, changed));
  changed = text;
  changed[5] = 'x';  // first block differs
  EXPECT_FALSE(file_has_bytes(path, changed));
  EXPECT_FALSE(file_has_bytes(path, text.substr(0, text.size() - 1)));
  EXPECT_FALSE(file_has_bytes(path, text + "\n"));
  EXPECT_FALSE(file_has_bytes((dir / "missing.yaml").string(), text));
  EXPECT_FALSE(file_has_bytes(dir.string(), ""));  // a directory is not a file of no bytes
  std::ofstream(path, std::ios::binary | std::ios::trunc);
  EXPECT_TRUE(file_has_bytes(path, ""));
  EXPECT_FALSE(file_has_bytes(path, "a"));
  std::filesystem::remove_all(dir);
}

TEST(ExactInteger, DigitsAreExactAndTheRangeIsInt64) {
  auto a = parse_exact_integer("9007199254740993");  // 2^53 + 1: not a double
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(*a, 9007199254740993LL);
  auto b = parse_exact_integer("9223372036854775807");
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(*b, INT64_MAX);
  auto c = parse_exact_integer("-9223372036854775808");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(*c, INT64_MIN);
  EXPECT_FALSE(parse_exact_integer("9223372036854775808").ok());  // 2^63
  EXPECT_FALSE(parse_exact_integer("99999999999999999999999").ok());
  EXPECT_EQ(*parse_exact_integer("+12"), 12);
  EXPECT_EQ(*parse_exact_integer("010"), 10);  // decimal, never octal
  EXPECT_EQ(*parse_exact_integer("16M"), 16000000);
  EXPECT_EQ(*parse_exact_integer("1e3"), 1000);
  EXPECT_FALSE(parse_exact_integer("1e17").ok());  // beyond 2^53: not exact in this form
  EXPECT_FALSE(parse_exact_integer("1.5").ok());
  EXPECT_FALSE(parse_exact_integer("abc").ok());
  EXPECT_FALSE(parse_exact_integer("").ok());
}

TEST(ExactInteger, MapReaderKeepsEveryDigitAndRefusesTwoToTheSixtyThree) {
  auto node = load_yaml_string("seed: 9007199254740993\nbig: 9223372036854775808\n", "s.yaml");
  ASSERT_TRUE(node.ok());
  const YamlContext ctx("s.yaml");
  auto r = MapReader::make(*node, "", ctx);
  ASSERT_TRUE(r.ok());
  int64_t seed = 0;
  ASSERT_TRUE(r->integer("seed", seed, true, 0, INT64_MAX).ok());
  EXPECT_EQ(seed, 9007199254740993LL);
  int64_t big = 0;
  const Status st = r->integer("big", big, true, 0, INT64_MAX);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("s.yaml:2:6: big:"), std::string::npos) << st.error().message;
}

// A context remembers whether, and first for which field, a location was asked of nodes that
// carry no marks; its copies share that record, and marked fields do not set it.
TEST(YamlContextTest, RemembersTheFirstFieldLocatedWithoutMarks) {
  auto node = load_yaml_string("a: 1\nb: {c: 2, d: 3}\n", "s.yaml");
  ASSERT_TRUE(node.ok());
  YamlContext ctx("s.yaml");
  ctx.set_marked("b", false);
  const YamlContext copy = ctx;
  EXPECT_EQ(ctx.locate((*node)["a"], "a").line, 1);
  EXPECT_FALSE(copy.gave_unmarked_location());
  EXPECT_EQ(copy.first_unmarked_path(), "");
  (void)copy.locate((*node)["b"]["d"], "b.d");
  (void)ctx.locate((*node)["b"]["c"], "b.c");
  EXPECT_TRUE(ctx.gave_unmarked_location());
  EXPECT_EQ(ctx.first_unmarked_path(), "b.d");
  EXPECT_EQ(copy.first_unmarked_path(), "b.d");
}

}  // namespace
}  // namespace ntpsim
