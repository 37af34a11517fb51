// Atomic file output: the one way every ntpsim writer puts a finished file on disk.
//
// `write_file_atomic(path, text)` writes `text` to a temporary file in the target's folder
// (`<path>.tmp-<pid>-<n>`, so the rename stays on one file system and two writers never share a
// temporary), flushes it to the disk (fsync), and renames it over `path`. A reader therefore sees
// either the old file or the complete new one, never a half-written one; on any failure the
// temporary is removed and `path` is left untouched. Errors are runtime errors (exit 1) naming
// `path` and the operating system's reason; an empty path is bad input (exit 2).
//
// Ownership: the caller keeps `text`; nothing is retained. Thread safety: safe to call from
// several threads at once (each call uses its own temporary name).
#pragma once

#include <string>
#include <string_view>

#include "models/base/status.h"

namespace ntpsim {

Status write_file_atomic(const std::string& path, std::string_view text);

}  // namespace ntpsim
