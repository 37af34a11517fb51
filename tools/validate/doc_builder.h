// Internal to tools/validate: the Markdown document under construction and the study sections
// that fill it (paper_sections.cpp: the NTP paper's figures; checks_sections.cpp: closed forms and
// the InfiniteHBD replay). Not a public API.
// Ownership: a Doc owns its text and charts. Thread safety: none (one Doc per run).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "models/base/status.h"
#include "tools/validate/chart.h"
#include "tools/validate/document.h"

namespace ntpsim::validate {

// One published statement against ntpsim's number.
struct Claim {
  std::string statement;  // what the source says
  std::string source;     // where
  std::string published;  // its number
  std::string ntpsim;     // ours
  std::string difference;
  std::string tolerance;  // as asserted in tests/validation
  bool agrees = true;     // within the stated tolerance
};

struct Doc {
  ValidateOptions options;
  std::string body;                         // Markdown after the context block
  std::vector<Claim> claims;                // summary table, in order
  std::map<std::string, std::string> svgs;  // file name -> SVG text
  std::vector<std::string> seeds;           // "scenario: seed, replications" lines

  // Scenario path relative to the repository root -> absolute path.
  std::string scenario(const std::string& rel) const;
  // Adds a chart file and returns the Markdown that shows it.
  std::string chart(const std::string& file, const ChartSpec& spec,
                    const std::vector<Series>& series);
  // Adds a claim to the summary and returns its table row.
  std::string claim(const Claim& c);
  int samples(int full, int quick) const { return options.quick ? quick : full; }
};

// Markdown table header for claims.
std::string claim_header();
std::string pct(double fraction, int decimals = 1);

Status paper_sections(Doc& doc);  // Fig. 3, 4, 6, 7, 10 and GB200 NVL72
Status check_sections(Doc& doc);  // closed forms, Little's law, Young/Daly, InfiniteHBD
Status step_sections(Doc& doc);   // step time against published Megatron-LM runs
Status recovery_sections(Doc& doc);  // recovery costs against Llama 3 and FT-HSDP
Status backtest_section(Doc& doc);  // a failure model fitted from the InfiniteHBD log
Status llama3_rates_section(Doc& doc);  // fitted rates by kind against Llama 3's Table 5

}  // namespace ntpsim::validate
