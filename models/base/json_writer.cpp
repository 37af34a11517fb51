#include "models/base/json_writer.h"

#include <array>
#include <charconv>
#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>

#include "models/base/check.h"

namespace ntpsim {

void JsonWriter::newline_indent(size_t level) {
  out_ += '\n';
  out_.append(level * static_cast<size_t>(indent_), ' ');
}

void JsonWriter::before_item() {
  Frame& f = frames_.back();
  if (f.items > 0) out_ += ',';
  if (indent_ >= 0) newline_indent(frames_.size());
  ++f.items;
}

void JsonWriter::before_value() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (frames_.empty()) {
    NTPSIM_CHECK_MSG(!wrote_root_, "a JSON document has one root value");
    wrote_root_ = true;
    return;
  }
  NTPSIM_CHECK_MSG(!frames_.back().object, "a value in an object needs its key first");
  before_item();
}

JsonWriter& JsonWriter::key(std::string_view k) {
  NTPSIM_CHECK_MSG(!frames_.empty() && frames_.back().object && !after_key_,
                   "a key belongs in an object, before its value");
  before_item();
  write_string(k);
  out_ += ':';
  if (indent_ >= 0) out_ += ' ';
  after_key_ = true;
  return *this;
}

JsonWriter& JsonWriter::begin_object() {
  before_value();
  out_ += '{';
  frames_.push_back({0, true});
  return *this;
}

JsonWriter& JsonWriter::begin_array() {
  before_value();
  out_ += '[';
  frames_.push_back({0, false});
  return *this;
}

void JsonWriter::end_container(bool object) {
  NTPSIM_CHECK_MSG(!frames_.empty() && frames_.back().object == object && !after_key_,
                   "JSON containers must close in the order they opened");
  const int64_t items = frames_.back().items;
  frames_.pop_back();
  if (items > 0 && indent_ >= 0) newline_indent(frames_.size());
  out_ += object ? '}' : ']';
}

JsonWriter& JsonWriter::end_object() {
  end_container(true);
  return *this;
}

JsonWriter& JsonWriter::end_array() {
  end_container(false);
  return *this;
}

JsonWriter& JsonWriter::value(double v) {
  before_value();
  if (!std::isfinite(v)) {
    out_ += "null";
    return *this;
  }
  // nlohmann's own shortest round-trip formatter, the one its serializer calls for doubles.
  char buf[64];
  const char* end = nlohmann::detail::to_chars(buf, buf + sizeof buf, v);
  out_.append(buf, static_cast<size_t>(end - buf));
  return *this;
}

namespace {

// Decimal, as nlohmann writes integers.
template <typename Int>
void append_integer(std::string& out, Int v) {
  char buf[24];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, static_cast<size_t>(r.ptr - buf));
}

}  // namespace

JsonWriter& JsonWriter::value(int64_t v) {
  before_value();
  append_integer(out_, v);
  return *this;
}

JsonWriter& JsonWriter::value(uint64_t v) {
  before_value();
  append_integer(out_, v);
  return *this;
}

JsonWriter& JsonWriter::value(bool v) {
  before_value();
  out_ += v ? "true" : "false";
  return *this;
}

JsonWriter& JsonWriter::null() {
  before_value();
  out_ += "null";
  return *this;
}

JsonWriter& JsonWriter::value(std::string_view v) {
  before_value();
  write_string(v);
  return *this;
}

namespace {

// Bytes that a JSON string cannot hold as they are, or that need nlohmann's UTF-8 check:
// control characters, the quote, the backslash and everything above ASCII.
constexpr std::array<bool, 256> kNotPlain = [] {
  std::array<bool, 256> t{};
  for (size_t c = 0; c < 256; ++c) t[c] = c < 0x20 || c >= 0x80 || c == '"' || c == '\\';
  return t;
}();

}  // namespace

void JsonWriter::write_string(std::string_view s) {
  // Printable ASCII other than the quote and the backslash stands for itself; anything else
  // (escapes, multi-byte UTF-8, invalid bytes) goes through nlohmann, so it is escaped, or
  // refused, exactly as a tree's dump would.
  for (const char c : s) {
    if (kNotPlain[static_cast<unsigned char>(c)]) {
      out_ += nlohmann::json(std::string(s)).dump();
      return;
    }
  }
  const size_t at = out_.size();
  out_.resize(at + s.size() + 2);
  char* p = out_.data() + at;
  p[0] = '"';
  std::memcpy(p + 1, s.data(), s.size());
  p[s.size() + 1] = '"';
}

JsonWriter& JsonWriter::value(const nlohmann::ordered_json& tree) {
  before_value();
  const std::string text = tree.dump(indent_);
  if (indent_ <= 0 || frames_.empty()) {
    out_ += text;
    return *this;
  }
  // The tree was laid out from column 0; here each of its lines starts one level per open
  // container further in. Raw newlines in a dump are layout only (strings escape theirs).
  const size_t pad = frames_.size() * static_cast<size_t>(indent_);
  size_t from = 0;
  for (size_t nl = text.find('\n'); nl != std::string::npos; nl = text.find('\n', from)) {
    out_.append(text, from, nl + 1 - from);
    out_.append(pad, ' ');
    from = nl + 1;
  }
  out_.append(text, from, std::string::npos);
  return *this;
}

}  // namespace ntpsim
