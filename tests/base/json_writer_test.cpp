// JsonWriter writes the bytes nlohmann::json's dump writes for the same values: checked on
// random trees (every layout, doubles from random bit patterns, strings with escapes and UTF-8)
// and on the edge cases by name.
#include "models/base/json_writer.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "models/base/random.h"

namespace ntpsim {
namespace {

using ojson = nlohmann::ordered_json;

// Writes `j` through the writer's scalar calls (not value(tree)), as a streaming writer would.
void write_tree(JsonWriter& w, const ojson& j) {
  switch (j.type()) {
    case ojson::value_t::object:
      w.begin_object();
      for (const auto& [k, v] : j.items()) {
        w.key(k);
        write_tree(w, v);
      }
      w.end_object();
      break;
    case ojson::value_t::array:
      w.begin_array();
      for (const auto& v : j) write_tree(w, v);
      w.end_array();
      break;
    case ojson::value_t::number_float: w.value(j.get<double>()); break;
    case ojson::value_t::number_integer: w.value(j.get<int64_t>()); break;
    case ojson::value_t::number_unsigned: w.value(j.get<uint64_t>()); break;
    case ojson::value_t::boolean: w.value(j.get<bool>()); break;
    case ojson::value_t::string: w.value(j.get_ref<const std::string&>()); break;
    default: w.null(); break;
  }
}

std::string streamed(const ojson& j, int indent) {
  std::string out;
  JsonWriter w(out, indent);
  write_tree(w, j);
  EXPECT_TRUE(w.complete());
  return out;
}

double random_double(Stream& rng) {
  switch (rng.next_u64() % 6) {
    case 0: return std::bit_cast<double>(rng.next_u64());  // any bits: NaN, inf, subnormal
    case 1: return double(int64_t(rng.next_u64() % 2000001) - 1000000);  // whole numbers
    case 2: return rng.uniform01() * std::pow(10.0, double(rng.next_u64() % 40) - 20.0);
    case 3: return -rng.uniform01();
    case 4: return double(rng.next_u64() % 1000) / 8.0;
    default: return rng.uniform01() * 3.2e7;  // seconds in a year
  }
}

std::string random_string(Stream& rng) {
  static const char* const pieces[] = {"a", "Z", " ", "\"", "\\", "/", "\n", "\t", "\x01", "\x1f",
                                       "\x7f", "\xc3\xa9", "\xc3\x97", "\xe2\x82\xac",
                                       "\xf0\x9f\x98\x80", "degraded TP 32", "0"};
  std::string s;
  const uint64_t n = rng.next_u64() % 8;
  for (uint64_t i = 0; i < n; ++i) s += pieces[rng.next_u64() % std::size(pieces)];
  return s;
}

ojson random_tree(Stream& rng, int depth) {
  const uint64_t kind = depth >= 4 ? 2 + rng.next_u64() % 6 : rng.next_u64() % 8;
  switch (kind) {
    case 0: {
      ojson o = ojson::object();
      const uint64_t n = rng.next_u64() % 5;
      for (uint64_t i = 0; i < n; ++i) o[random_string(rng) + std::to_string(i)] =
                                          random_tree(rng, depth + 1);
      return o;
    }
    case 1: {
      ojson a = ojson::array();
      const uint64_t n = rng.next_u64() % 5;
      for (uint64_t i = 0; i < n; ++i) a.push_back(random_tree(rng, depth + 1));
      return a;
    }
    case 2: return ojson(random_double(rng));
    case 3: return ojson(int64_t(rng.next_u64()));
    case 4: return ojson(rng.next_u64());
    case 5: return ojson(rng.next_u64() % 2 == 0);
    case 6: return ojson(random_string(rng));
    default: return ojson(nullptr);
  }
}

TEST(JsonWriter, RandomTreesMatchDumpInEveryLayout) {
  Stream rng(2026, 0, "json_writer_test");
  for (int i = 0; i < 3000; ++i) {
    const ojson j = random_tree(rng, 0);
    for (const int indent : {-1, 0, 1, 2, 4}) {
      ASSERT_EQ(streamed(j, indent), j.dump(indent)) << "indent " << indent << " tree " << i;
    }
  }
}

TEST(JsonWriter, DoublesMatchDump) {
  const double cases[] = {0.0,
                          -0.0,
                          1.0,
                          -1.0,
                          0.1,
                          1e-5,
                          1e-4,
                          123456789012345.0,
                          1234567890123456.0,
                          1e21,
                          5e-324,
                          std::numeric_limits<double>::max(),
                          std::numeric_limits<double>::lowest(),
                          std::numeric_limits<double>::quiet_NaN(),
                          std::numeric_limits<double>::infinity(),
                          -std::numeric_limits<double>::infinity(),
                          31536000.0,
                          0.30000000000000004};
  for (const double d : cases) {
    std::string out;
    JsonWriter(out).value(d);
    EXPECT_EQ(out, ojson(d).dump()) << d;
  }
  Stream rng(7, 0, "json_writer_doubles");
  for (int i = 0; i < 200000; ++i) {
    const double d = std::bit_cast<double>(rng.next_u64());
    std::string out;
    JsonWriter(out).value(d);
    ASSERT_EQ(out, ojson(d).dump());
  }
}

TEST(JsonWriter, EmbeddedTreesTakeTheirPlacesIndentation) {
  Stream rng(11, 0, "json_writer_embedded");
  for (int i = 0; i < 500; ++i) {
    const ojson inner = random_tree(rng, 1);
    ojson whole = ojson::object();
    whole["a"] = ojson::array({1, inner});
    whole["b"] = inner;
    for (const int indent : {-1, 0, 1, 3}) {
      std::string out;
      JsonWriter w(out, indent);
      w.begin_object().key("a").begin_array().value(1).value(inner).end_array();
      w.key("b").value(inner).end_object();
      ASSERT_TRUE(w.complete());
      ASSERT_EQ(out, whole.dump(indent)) << "indent " << indent;
    }
  }
}

TEST(JsonWriter, InvalidUtf8IsRefusedAsDumpRefusesIt) {
  std::string out;
  JsonWriter w(out);
  w.begin_array();
  EXPECT_THROW(w.value(std::string_view("bad \xff byte")), nlohmann::json::type_error);
  EXPECT_THROW(ojson("bad \xff byte").dump(), nlohmann::json::type_error);
}

TEST(JsonWriter, EmptyContainersAndCompleteness) {
  for (const int indent : {-1, 1}) {
    std::string out;
    JsonWriter w(out, indent);
    EXPECT_FALSE(w.complete());
    w.begin_object().key("o").begin_object().end_object().key("a").begin_array().end_array();
    EXPECT_FALSE(w.complete());
    w.end_object();
    EXPECT_TRUE(w.complete());
    EXPECT_EQ(out, (ojson{{"o", ojson::object()}, {"a", ojson::array()}}).dump(indent));
  }
}

}  // namespace
}  // namespace ntpsim
