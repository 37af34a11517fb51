// The scanner of tests/cli/error_paths_test.cpp's meta-test: the string literals of a C++ call's
// argument list (or of a whole file), and the fixed text of an fmt message literal. A lexer for
// the code ntpsim writes (string and character literals, // comments), not a C++ parser: raw
// strings and /* */ comments are read as code. Pure functions, no state.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace ntpsim::cli_test {

// The string literals of the argument list opening at src[open] == '(' (up to its matching ')'),
// or with `whole_file` of all of `src`; adjacent literals joined as the compiler joins them.
// Character literals and // comments are skipped, so '(' or '"' inside them does not confuse it.
inline std::vector<std::string> call_literals(const std::string& src, size_t open,
                                              bool whole_file = false) {
  std::vector<std::string> out;
  int depth = 0;
  bool joining = false;  // the previous token was a string literal
  for (size_t i = open; i < src.size(); ++i) {
    const char c = src[i];
    if (c == '"') {
      std::string lit;
      for (++i; i < src.size() && src[i] != '"'; ++i) {
        if (src[i] == '\\' && i + 1 < src.size()) {
          ++i;
          lit += src[i] == 'n' ? '\n' : src[i] == 't' ? '\t' : src[i];
        } else {
          lit += src[i];
        }
      }
      if (joining) {
        out.back() += lit;
      } else {
        out.push_back(lit);
      }
      joining = true;
    } else if (c == '\'') {
      i += (i + 1 < src.size() && src[i + 1] == '\\') ? 3 : 2;
      joining = false;
    } else if (c == '/' && i + 1 < src.size() && src[i + 1] == '/') {
      i = src.find('\n', i);
      if (i == std::string::npos) break;
    } else if (c != ' ' && c != '\n' && c != '\t' && c != '\r') {
      joining = false;
      if (c == '(') ++depth;
      if (c == ')' && --depth == 0 && !whole_file) break;
    }
  }
  return out;
}

// The fixed text of a message literal: its parts between fmt placeholders ("{}", "{:.2f}"), each
// without the separators (" ", ":", ";", ",") that join it to what the message puts around it.
inline std::vector<std::string> fixed_parts(const std::string& literal) {
  std::vector<std::string> parts;
  std::string part;
  const auto flush = [&parts, &part] {
    const size_t b = part.find_first_not_of(" :;,");
    const size_t e = part.find_last_not_of(" :;,");
    if (b != std::string::npos) parts.push_back(part.substr(b, e + 1 - b));
    part.clear();
  };
  for (size_t i = 0; i < literal.size(); ++i) {
    const size_t close = literal[i] == '{' ? literal.find('}', i) : std::string::npos;
    if (close == std::string::npos) {
      part += literal[i];
      continue;
    }
    flush();
    i = close;
  }
  flush();
  return parts;
}

}  // namespace ntpsim::cli_test
