// A small command-line parser for ntpcal (CLI11 is not available on GPU machines that have only
// the CUDA toolkit). Options are declared with their help text; values are read as lists of
// integers, sizes ("64K", "1G": binary multiples, as nccl-tests), numbers or words.
// Unknown options, missing values and malformed numbers are errors (exit 2).
// Thread safety: one thread.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "models/base/status.h"

namespace ntpsim::ntpcal {

class Args {
 public:
  // Declares an option taking a value ("--reps") or a flag (takes_value = false).
  void option(const std::string& name, const std::string& help, const std::string& default_text = "",
              bool takes_value = true);
  // Declares `short_name` ("-b") as another spelling of the declared option `name`; the value may
  // follow as the next argument or be attached ("-b8", as getopt allows nccl-tests users).
  void alias(const std::string& short_name, const std::string& name);
  // Parses argv[first..argc).
  Status parse(int argc, char** argv, int first);
  std::string help() const;

  bool has(const std::string& name) const { return values_.count(name) != 0; }
  std::string text(const std::string& name) const;  // value or the declared default
  Result<int64_t> integer(const std::string& name) const;
  Result<double> number(const std::string& name) const;
  Result<std::vector<int64_t>> integers(const std::string& name) const;  // "1,2,8" or "2-8"
  Result<std::vector<int64_t>> sizes(const std::string& name) const;     // "1K,64M"
  Result<std::vector<double>> numbers(const std::string& name) const;
  std::vector<std::string> words(const std::string& name) const;          // comma-separated

 private:
  struct Decl {
    std::string help, default_text;
    bool takes_value = true;
    std::string short_name;
  };
  std::map<std::string, Decl> decls_;
  std::map<std::string, std::string> aliases_;  // "-b" -> "--min-bytes"
  std::vector<std::string> order_;
  std::map<std::string, std::string> values_;
};

// "64K" -> 65536, "1G" -> 2^30, "4096" -> 4096 (K, M, G, T binary; optional trailing "B").
Result<int64_t> parse_size(const std::string& text);

}  // namespace ntpsim::ntpcal
