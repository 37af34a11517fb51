// NVML through dlopen("libnvidia-ml.so.1"): power, SM clock and power-limit queries for ntpcal.
//
// The CUDA toolkit here ships neither nvml.h nor an NVML stub, so the few entry points used are
// declared by hand (their C signatures are stable across NVML versions) and resolved at run time.
// Where the library or a GPU is absent every query reports "NVML unavailable" and the harness
// records no power; nothing fails because of it. Only `set_power_limit_w` changes a GPU setting,
// and only `ntpcal power --set-power-limits` calls it.
// `PowerSampler` polls power and SM clock on a background thread while a measurement runs.
// Thread safety: one Nvml per process; its queries are safe from several threads (NVML is);
// a PowerSampler is started and stopped by one thread.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "calibrate/backend.h"

namespace ntpsim::ntpcal {

class Nvml {
 public:
  Nvml();
  ~Nvml();
  Nvml(const Nvml&) = delete;
  Nvml& operator=(const Nvml&) = delete;

  bool available() const { return handle_ != nullptr && initialized_; }
  // "available", or "NVML unavailable: <why>".
  const std::string& status() const { return status_; }

  // The NVML device for a PCI bus id ("0000:3B:00.0", from cudaDeviceGetPCIBusId) or a UUID
  // ("GPU-..."); nullptr when unavailable.
  void* device_for_pci(const std::string& bus_id) const;
  void* device_for_uuid(const std::string& uuid) const;

  std::string driver_version() const;                 // "" when unavailable
  bool power_w(void* dev, double& watts) const;       // board power (a 1 s average on Hopper+)
  // Energy since the driver loaded, in joules (Volta+); differences give exact mean power.
  bool energy_j(void* dev, double& joules) const;
  bool sm_clock_mhz(void* dev, double& mhz) const;     // current SM clock
  bool max_sm_clock_mhz(void* dev, double& mhz) const;
  bool max_mem_clock_mhz(void* dev, double& mhz) const;
  bool temperature_c(void* dev, double& celsius) const;
  // Bit mask of nvmlClocksEventReason* (why the clock is below its maximum now): 0x4 SW power
  // cap, 0x8 HW slowdown, 0x20 SW thermal, 0x40 HW thermal, 0x80 HW power brake.
  bool clock_event_reasons(void* dev, unsigned long long& mask) const;
  bool power_limit_w(void* dev, double& watts) const;           // management limit (what -pl sets)
  bool enforced_power_limit_w(void* dev, double& watts) const;  // the limit in force now
  bool default_power_limit_w(void* dev, double& watts) const;
  bool power_limit_range_w(void* dev, double& min_w, double& max_w) const;
  bool ecc_enabled(void* dev, std::string& mode) const;   // "on" / "off"
  bool compute_mode(void* dev, std::string& mode) const;  // "default", "exclusive_process", ...
  bool compute_processes(void* dev, int& count) const;    // processes with a CUDA context
  // Needs root. Returns "" on success, else NVML's message.
  std::string set_power_limit_w(void* dev, double watts) const;

 private:
  struct Api;  // entry points, resolved once when the library is loaded
  void* handle_ = nullptr;
  bool initialized_ = false;
  std::string status_;
  std::unique_ptr<Api> api_;
};

// Samples power, SM clock, temperature and clock-event reasons every `period_ms` between start()
// and stop(). The mean power is the energy counter's difference over [start + 1 s, stop] when
// the run lasts at least 1.5 s (NVML's power reading is a 1 s average on Hopper and later, so
// earlier samples still show the power from before the run), else the mean of the samples
// taken after the first second, else of all samples.
class PowerSampler {
 public:
  PowerSampler(const Nvml& nvml, void* device, int period_ms = 5);
  ~PowerSampler();
  PowerSampler(const PowerSampler&) = delete;
  PowerSampler& operator=(const PowerSampler&) = delete;

  void start();
  // Stops sampling and returns the statistics (samples == 0 when NVML is unavailable).
  calibrate::PowerStats stop();

 private:
  const Nvml& nvml_;
  void* device_;
  int period_ms_;
  std::atomic<bool> running_{false};
  std::thread thread_;
  std::vector<double> power_w_;        // after the first second
  std::vector<double> early_power_w_;  // within the first second
  std::vector<double> clock_mhz_;
  std::vector<double> temp_c_;
  unsigned long long reasons_ = 0;
  double energy0_j_ = -1.0, energy1_j_ = -1.0, window_s_ = 0.0;
};

}  // namespace ntpsim::ntpcal
