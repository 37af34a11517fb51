// libFuzzer target: the failure-trace parsers of sim/failures/trace.h, built twice:
// NTPSIM_FUZZ_TRACE_CSV=1 fuzzes parse_csv_trace, =0 parse_infinitehbd_trace.
//
// Properties of an accepted trace: faults sorted by start, every start and repair finite and
// non-negative, node and kind indices in range, span >= every start and end, names printable as
// JSON (valid UTF-8: results files carry kind names; dump throws otherwise); and the trace
// survives the CSV writer: to_csv_trace -> parse_csv_trace gives the same faults (starts exactly,
// repairs within the rounding of end - start), nodes, kinds and span.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "sim/failures/fit.h"
#include "sim/failures/trace.h"
#include "tests/fuzz/fuzz_util.h"

#ifndef NTPSIM_FUZZ_TRACE_CSV
#error "define NTPSIM_FUZZ_TRACE_CSV to 0 (InfiniteHBD JSON) or 1 (ntpsim CSV)"
#endif

namespace {

using namespace ntpsim;

void check_invariants(const sim::TraceData& t) {
  FUZZ_REQUIRE(std::isfinite(t.span_s) && t.span_s >= 0, fmt::format("span {}", t.span_s));
  double previous = 0;
  for (size_t i = 0; i < t.faults.size(); ++i) {
    const sim::TraceFault& f = t.faults[i];
    const std::string where =
        fmt::format("fault {}: start {} repair {} span {}", i, f.start_s, f.repair_s, t.span_s);
    FUZZ_REQUIRE(std::isfinite(f.start_s) && f.start_s >= 0 && f.start_s >= previous, where);
    FUZZ_REQUIRE(std::isfinite(f.repair_s) && f.repair_s >= 0, where);
    FUZZ_REQUIRE(f.start_s <= t.span_s, where);
    FUZZ_REQUIRE(f.start_s + f.repair_s <= t.span_s * (1 + 1e-12), where);
    FUZZ_REQUIRE(f.node >= 0 && static_cast<size_t>(f.node) < t.node_names.size(), where);
    FUZZ_REQUIRE(f.kind < t.kind_names.size(), where);
    previous = f.start_s;
  }
  FUZZ_REQUIRE(!nlohmann::json(t.node_names).dump().empty(), "node names");
  FUZZ_REQUIRE(!nlohmann::json(t.kind_names).dump().empty(), "kind names");
  FUZZ_REQUIRE(t.open_faults >= 0 && t.open_faults <= static_cast<int64_t>(t.faults.size()),
               fmt::format("open faults {}", t.open_faults));
}

void check_round_trip(const sim::TraceData& t) {
  const Result<std::string> csv = sim::to_csv_trace(t);
  if (!csv.ok()) {  // names the CSV cannot carry
    fuzz::require_bad_input(csv.error());
    return;
  }
  const Result<sim::TraceData> back = sim::parse_csv_trace(*csv, "round-trip.csv");
  FUZZ_REQUIRE(back.ok(), "written CSV does not parse: " + (back.ok() ? "" : back.error().message) +
                              "\n" + *csv);
  FUZZ_REQUIRE(back->faults.size() == t.faults.size(), *csv);
  FUZZ_REQUIRE(back->node_names == t.node_names, *csv);
  FUZZ_REQUIRE(back->kind_names == t.kind_names, *csv);
  FUZZ_REQUIRE(back->span_s == t.span_s, fmt::format("span {} -> {}", t.span_s, back->span_s));
  for (size_t i = 0; i < t.faults.size(); ++i) {
    const sim::TraceFault& a = t.faults[i];
    const sim::TraceFault& b = back->faults[i];
    const std::string where = fmt::format("fault {}: ({}, {}) -> ({}, {})", i, a.start_s,
                                          a.repair_s, b.start_s, b.repair_s);
    FUZZ_REQUIRE(a.start_s == b.start_s && a.node == b.node && a.kind == b.kind, where);
    FUZZ_REQUIRE(a.has_component == b.has_component, where);
    FUZZ_REQUIRE(!a.has_component || a.component == b.component, where);
    // end - start is recomputed from a printed end: exact to the rounding of the span's scale.
    FUZZ_REQUIRE(std::fabs(a.repair_s - b.repair_s) <= 1e-12 * std::max(1.0, t.span_s) * 4, where);
  }
}

// load_trace's checks and the model fit (ntpsim trace --fit) on the parsed trace: each either
// succeeds or is bad input, and a fit writes a model with finite rates.
void check_fit(const sim::TraceData& parsed) {
  sim::TraceData t = parsed;
  const Status checked = sim::check_trace(t);
  if (!checked.ok()) {
    fuzz::require_bad_input(checked.error());
    return;
  }
  sim::FitOptions o;
  o.bootstrap = 0;  // the p-values' refits are the same code as the fit itself
  // The regime fits (an 18-parameter likelihood with a central-difference Hessian) cost about
  // 25 CPU-ms per pooled fault in a release build and 15-20 times that under ASan: a 20-fault
  // log took 7-12 s, past the 10 s bound per input. Up to 12 pooled faults they still run here;
  // a larger log takes the fit's own "regimes not fitted" path, as --max-regime-faults does.
  o.max_regime_faults = 12;
  const Result<sim::TraceFit> f = sim::fit_trace(t, o);
  if (!f.ok()) {
    fuzz::require_bad_input(f.error());
    return;
  }
  FUZZ_REQUIRE(f->kinds.size() == t.kind_names.size(), "one fitted process per kind");
  for (const sim::KindFit& k : f->kinds) {
    FUZZ_REQUIRE(std::isfinite(k.process_rate.per_s) && k.process_rate.per_s >= 0, "finite rate");
  }
  FUZZ_REQUIRE(sim::fitted_failures_yaml(*f).find("failures:\n  processes:\n") != std::string::npos,
               "yaml");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text = fuzz::as_text(data, size);
  const Result<sim::TraceData> t = NTPSIM_FUZZ_TRACE_CSV
                                       ? sim::parse_csv_trace(text, "fuzz.csv")
                                       : sim::parse_infinitehbd_trace(text, "fuzz.json");
  if (!t.ok()) {
    fuzz::require_bad_input(t.error());
    return 0;
  }
  check_invariants(*t);
  check_round_trip(*t);
  check_fit(*t);
  return 0;
}
