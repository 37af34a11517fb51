#include "tools/ntpsim/help_examples.h"

#include <map>
#include <vector>

namespace ntpsim::cli {

std::string help_examples(const std::string& command) {
  // Paths with a '/' are relative to the repository root; the others are the reader's own files.
  static const std::map<std::string, std::vector<std::string>> kExamples = {
      {"check",
       {"ntpsim check scenarios/quickstart.yaml",
        "ntpsim check scenarios/quickstart.yaml --set layout.dp=24 --set cluster.domains=384 "
        "--json"}},
      {"strategies", {"ntpsim strategies"}},
      {"run",
       {"ntpsim run scenarios/quickstart.yaml",
        "ntpsim run scenarios/quickstart.yaml --replications 50 --threads 2 --out r.json "
        "--report r.html",
        "ntpsim run scenarios/quickstart.yaml --set cluster.spare_domains=4 --seed 7 -q --csv "
        "r.csv --timeline t.json"}},
      {"sensitivity",
       {"ntpsim sensitivity scenarios/quickstart.yaml --replications 10 --samples 32",
        "ntpsim sensitivity scenarios/quickstart.yaml --set strategies=[spare_substitution,ntp] "
        "--out s.json --csv tornado.csv"}},
      {"sweep",
       {"ntpsim sweep scenarios/quickstart.yaml --vary cluster.spare_domains=0:4:1 --out s.json",
        "ntpsim sweep scenarios/quickstart.yaml --vary checkpoint.interval=10min,30min,1h --vary "
        "cluster.spare_domains=0,2 --report s.html",
        "ntpsim sweep scenarios/quickstart.yaml --vary cluster.spare_domains=0:8:2 --resume "
        "s.progress"}},
      {"report",
       {"ntpsim report r.json -o r.html", "ntpsim report r.json -o r.md --timeline t.json",
        "ntpsim report s.json --format csv -o s.csv"}},
      {"step",
       {"ntpsim step scenarios/quickstart.yaml",
        "ntpsim step --workload llama3-405b --profile gb200-nvl72 --tp 64 --pp 16 --dp 28",
        "ntpsim step scenarios/quickstart.yaml --set layout.tp=56 --json"}},
      {"plan",
       {"ntpsim plan scenarios/plans/405b-15t-60d.yaml --out p.json --report p.html",
        "ntpsim plan scenarios/plans/spares-32k-goodput95.yaml --threads 2 --resume p.progress -v",
        "ntpsim plan scenarios/plans/405b-15t-60d.yaml --seed 7 -q --csv p.csv"}},
      {"validate", {"ntpsim validate --quick --out VALIDATION.md", "ntpsim validate"}},
      {"fit",
       {"ntpsim fit calibrate/recorded/synthetic-gemm.csv "
        "calibrate/recorded/synthetic-collectives.csv calibrate/recorded/synthetic-power.csv "
        "calibrate/recorded/synthetic-reshard.csv -o my-gb200.yaml --base gb200-nvl72"}},
      {"trace",
       {"ntpsim trace faults.json --nodes 400",
        "ntpsim trace faults.json --nodes 400 --to-csv faults.csv"}},
  };
  const auto it = kExamples.find(command);
  if (it == kExamples.end()) return "";
  std::string text = "\nExamples:\n";
  for (const auto& e : it->second) text += "  " + e + "\n";
  return text;
}

}  // namespace ntpsim::cli
