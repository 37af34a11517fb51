// Test helper: `render_fixture DOCUMENT.json OUT.html` writes the report of a results or plan
// document with reports/ alone (no engine), so the headless-browser tests do not depend on the
// simulator building. The report goes through write_report_files, as `ntpsim report` does.
#include <cstdio>

#include "reports/report.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: render_fixture DOCUMENT.json OUT.html\n");
    return 2;
  }
  auto doc = ntpsim::reports::load_document(argv[1]);
  if (!doc.ok()) {
    std::fprintf(stderr, "render_fixture: %s\n", doc.error().message.c_str());
    return static_cast<int>(doc.error().exit_code);
  }
  const ntpsim::Status st = ntpsim::reports::write_report_files(*doc, argv[1], argv[2], "");
  if (!st.ok()) {
    std::fprintf(stderr, "render_fixture: %s\n", st.error().message.c_str());
    return static_cast<int>(st.error().exit_code);
  }
  return 0;
}
