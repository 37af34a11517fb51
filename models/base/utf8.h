// UTF-8 validation of text read from users (YAML files and overrides, CSV traces).
//
// Everything ntpsim reads may end up in JSON output (results, `ntpsim check --json`), and JSON
// text must be valid UTF-8: nlohmann::json::dump throws on anything else. Readers therefore refuse
// invalid UTF-8 up front as bad input, naming where the first bad byte is.
// Thread safety: pure functions.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace ntpsim {

// The offset of the first byte that does not belong to a well-formed UTF-8 sequence (RFC 3629:
// no overlong forms, no UTF-16 surrogates, nothing above U+10FFFF, no truncated sequence), or
// nullopt when all of `text` is valid.
std::optional<size_t> first_invalid_utf8(std::string_view text);

// `text` without its leading UTF-8 byte order mark (EF BB BF), if it has one: editors on Windows
// write one, and it is not part of the first line (a CSV header, a YAML key).
std::string_view without_utf8_bom(std::string_view text);

// 1-based line and column (in bytes) of `offset` in `text`.
struct TextPosition {
  int line = 1;
  int column = 1;
};
TextPosition position_of(std::string_view text, size_t offset);

}  // namespace ntpsim
