// A streaming JSON writer for the large documents (the results' timeline, the Perfetto trace):
// it appends text to a string as values come, with no document tree in memory.
//
// Guarantee: the bytes equal nlohmann::json's dump(indent) of the same values in the same order
// (ordered keys): the same compact and pretty layouts, integers in decimal, doubles in
// nlohmann's shortest round-trip form ("1.0", "1e-05"), NaN and infinities as null, strings
// escaped as nlohmann escapes them (and invalid UTF-8 refused the same way, with
// nlohmann::json::type_error). So a document may move from a tree to this writer without any
// output changing; json_writer_test checks the equality on random values.
//
// Usage: begin_object(), then key()/value pairs, end_object(); arrays take values only. The
// caller keeps the nesting balanced (checked: a mismatch is a programming error).
// Ownership: writes into a string the caller owns. Thread safety: none (one writer per string).
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace ntpsim {

class JsonWriter {
 public:
  // indent < 0: compact (dump()); indent >= 0: pretty with that many spaces per level.
  explicit JsonWriter(std::string& out, int indent = -1) : out_(out), indent_(indent) {}

  JsonWriter& begin_object();
  JsonWriter& end_object();
  JsonWriter& begin_array();
  JsonWriter& end_array();
  // The key of the next value in the current object.
  JsonWriter& key(std::string_view k);

  JsonWriter& value(double v);
  JsonWriter& value(int64_t v);
  JsonWriter& value(uint64_t v);
  JsonWriter& value(int v) { return value(int64_t{v}); }
  JsonWriter& value(bool v);
  JsonWriter& value(std::string_view v);
  JsonWriter& value(const char* v) { return value(std::string_view(v)); }
  JsonWriter& value(const std::string& v) { return value(std::string_view(v)); }
  JsonWriter& null();
  // A whole tree, laid out as if it stood at this place in the document.
  JsonWriter& value(const nlohmann::ordered_json& tree);

  // key(k).value(v) in one call.
  template <typename T>
  JsonWriter& field(std::string_view k, const T& v) {
    key(k);
    return value(v);
  }

  // Every container closed.
  bool complete() const { return frames_.empty() && wrote_root_; }

 private:
  struct Frame {
    int64_t items = 0;  // values so far (an object counts its keys)
    bool object = false;
  };
  // Before an array's value or an object's key: the separator and the indentation.
  void before_item();
  // Before any value: after a key nothing; in an array before_item().
  void before_value();
  void end_container(bool object);
  void newline_indent(size_t level);
  void write_string(std::string_view s);

  std::string& out_;
  int indent_;
  std::vector<Frame> frames_;  // the open containers, outermost first
  bool after_key_ = false;
  bool wrote_root_ = false;
};

// The same calls as JsonWriter, building a tree (nlohmann::json or ordered_json) instead of text,
// so one function can both stream a document and hand it to code that reads trees.
template <typename Json>
class JsonTreeWriter {
 public:
  JsonTreeWriter& begin_object() {
    open(Json::object());
    return *this;
  }
  JsonTreeWriter& begin_array() {
    open(Json::array());
    return *this;
  }
  JsonTreeWriter& end_object() { return close(); }
  JsonTreeWriter& end_array() { return close(); }
  JsonTreeWriter& key(std::string_view k) {
    key_.assign(k);
    return *this;
  }
  template <typename T>
  JsonTreeWriter& value(const T& v) {
    if constexpr (std::is_convertible_v<const T&, std::string_view>) {
      place(Json(std::string(std::string_view(v))));
    } else {
      place(Json(v));
    }
    return *this;
  }
  JsonTreeWriter& null() {
    place(Json(nullptr));
    return *this;
  }
  template <typename T>
  JsonTreeWriter& field(std::string_view k, const T& v) {
    key(k);
    return value(v);
  }
  // The finished tree (every container closed).
  Json take() && { return std::move(root_); }

 private:
  // Open containers are reached through pointers to their last element, which stay valid:
  // only the innermost open container grows.
  Json* place(Json&& v) {
    if (open_.empty()) {
      root_ = std::move(v);
      return &root_;
    }
    Json& top = *open_.back();
    if (top.is_object()) return &(top[key_] = std::move(v));
    top.push_back(std::move(v));
    return &top.back();
  }
  void open(Json&& v) { open_.push_back(place(std::move(v))); }
  JsonTreeWriter& close() {
    open_.pop_back();
    return *this;
  }

  Json root_;
  std::vector<Json*> open_;
  std::string key_;
};

}  // namespace ntpsim
