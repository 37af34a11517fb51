// Test helper: `render_fixture RESULTS.json OUT.html` writes the HTML report with reports/ alone
// (no engine), so the headless-browser test does not depend on the simulator building.
#include <cstdio>

#include "reports/report.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: render_fixture RESULTS.json OUT.html\n");
    return 2;
  }
  auto results = ntpsim::reports::load_results(argv[1]);
  if (!results.ok()) {
    std::fprintf(stderr, "render_fixture: %s\n", results.error().message.c_str());
    return static_cast<int>(results.error().exit_code);
  }
  const ntpsim::Status st = ntpsim::reports::write_html(*results, argv[2]);
  if (!st.ok()) {
    std::fprintf(stderr, "render_fixture: %s\n", st.error().message.c_str());
    return static_cast<int>(st.error().exit_code);
  }
  return 0;
}
