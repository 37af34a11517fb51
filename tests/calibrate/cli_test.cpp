// `ntpsim fit`, `ntpcal-synth` and `ntpcal` run as programs: exit codes and messages.
// ntpcal's no-GPU behaviour is checked only on machines without an NVIDIA device.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "calibrate_test_util.h"
#include "models/base/yaml_reader.h"
#include "models/hardware.h"

namespace ntpsim::calibrate {
namespace {

namespace fs = std::filesystem;

struct ProgramRun {
  int exit_code = -1;
  std::string out, err;
};

ProgramRun run(const std::string& program, const std::string& args) {
  const std::string out = test::scratch_path("out.txt"), err = test::scratch_path("err.txt");
  const std::string cmd = "'" + program + "' " + args + " > '" + out + "' 2> '" + err + "'";
  const int status = std::system(cmd.c_str());
  ProgramRun r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = test::read_text(out);
  r.err = test::read_text(err);
  return r;
}

TEST(FitCli, FitsSyntheticFilesIntoALoadableProfile) {
  const std::string dir = fs::path(test::scratch_path("x")).parent_path().string();
  const ProgramRun synth = run(NTPCAL_SYNTH_BIN, "'" + dir + "' --seed 3");
  ASSERT_EQ(synth.exit_code, 0) << synth.err;
  const std::string profile = dir + "/fitted.yaml";
  const ProgramRun fit = run(NTPSIM_BIN, "fit '" + dir + "/synthetic-gemm.csv' '" + dir + "/synthetic-power.csv' '" + dir +
                                      "/synthetic-collectives.csv' '" + dir + "/synthetic-reshard.csv' --base h200-sxm -o '" +
                                      profile + "' --report '" + dir + "/report.csv'");
  ASSERT_EQ(fit.exit_code, 0) << fit.err;
  EXPECT_NE(fit.out.find("gemm bf16: rate"), std::string::npos);
  EXPECT_NE(fit.out.find("WARNING"), std::string::npos);  // synthetic input is called out
  auto node = load_yaml_file(profile);
  ASSERT_TRUE(node.ok());
  auto h = models::read_hardware(*node, "", YamlContext(profile), {});
  ASSERT_TRUE(h.ok()) << h.error().message;
  EXPECT_EQ(h->origin, "measured");
  EXPECT_NEAR(h->power_elasticity, 0.35, 0.03);
  EXPECT_NE(test::read_text(profile).find("SYNTHETIC"), std::string::npos);
  EXPECT_NE(test::read_text(dir + "/report.csv").find("fit,what,measured_s,predicted_s,rel_error"), std::string::npos);
}

TEST(FitCli, MalformedRawFileIsExit2WithFileAndLine) {
  const std::string raw = test::scratch_path("bad.csv");
  {
    std::ofstream f(raw);
    f << "# format: ntpcal-raw/1\n# kind: reshard\n"
         "fabric,tp,k,bytes_per_rank,busiest_bytes,reps,time_median_s,time_p10_s,time_p90_s,time_min_s,time_max_s\n"
         "scale_up,8,1,1000,1000,3,1e-4,1e-4,1e-4,1e-4,1e-4\n"
         "scale_up,8,1,2000,2000,3,fast,1e-4,1e-4,1e-4,1e-4\n";
  }
  const ProgramRun r = run(NTPSIM_BIN, "fit '" + raw + "' -o '" + test::scratch_path("p.yaml") + "'");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(raw + ":5:26: column 'time_median_s': 'fast' is not a number"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(test::scratch_path("p.yaml")));
  const ProgramRun missing = run(NTPSIM_BIN, "fit /nonexistent.csv -o '" + test::scratch_path("p.yaml") + "'");
  EXPECT_EQ(missing.exit_code, 2);
  const ProgramRun base = run(NTPSIM_BIN, "fit '" + raw + "' --base h200-sx -o x.yaml");
  EXPECT_EQ(base.exit_code, 2);
}

#ifdef NTPCAL_BIN
TEST(NtpcalCli, OptionsAreCheckedBeforeTheGpu) {
  EXPECT_EQ(run(NTPCAL_BIN, "gemm --help").exit_code, 0);
  const ProgramRun bad = run(NTPCAL_BIN, "gemm --bogus 1");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("unknown option '--bogus'"), std::string::npos);
  EXPECT_EQ(run(NTPCAL_BIN, "gemm --hidden 4096 --heads 32").exit_code, 2);  // needs --ffn --seq --tp
  EXPECT_EQ(run(NTPCAL_BIN, "collectives --min-bytes 1X").exit_code, 2);
  EXPECT_EQ(run(NTPCAL_BIN, "frobnicate").exit_code, 2);
}

TEST(NtpcalCli, NoGpuIsAClearMessageAndExit2) {
  if (fs::exists("/dev/nvidiactl") || fs::exists("/dev/nvidia0")) GTEST_SKIP() << "this machine has an NVIDIA GPU";
  const std::string out = test::scratch_path("gemm.csv");
  const ProgramRun r = run(NTPCAL_BIN, "gemm --out '" + out + "'");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("ntpcal: error: no CUDA GPU found"), std::string::npos) << r.err;
  EXPECT_EQ(run(NTPCAL_BIN, "power").exit_code, 2);
  EXPECT_EQ(run(NTPCAL_BIN, "collectives").exit_code, 2);
  EXPECT_EQ(run(NTPCAL_BIN, "reshard").exit_code, 2);
}
#endif

}  // namespace
}  // namespace ntpsim::calibrate
