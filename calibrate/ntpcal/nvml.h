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

  // The NVML device for a PCI bus id ("0000:3B:00.0", from cudaDeviceGetPCIBusId); nullptr when
  // unavailable.
  void* device_for_pci(const std::string& bus_id) const;

  std::string driver_version() const;                 // "" when unavailable
  bool power_w(void* dev, double& watts) const;        // current board power
  bool sm_clock_mhz(void* dev, double& mhz) const;     // current SM clock
  bool max_sm_clock_mhz(void* dev, double& mhz) const;
  bool power_limit_w(void* dev, double& watts) const;  // enforced limit now
  bool default_power_limit_w(void* dev, double& watts) const;
  bool power_limit_range_w(void* dev, double& min_w, double& max_w) const;
  // Needs root. Returns "" on success, else NVML's message.
  std::string set_power_limit_w(void* dev, double watts) const;

 private:
  template <typename F>
  F sym(const char* name) const;

  void* handle_ = nullptr;
  bool initialized_ = false;
  std::string status_;
};

// Samples power and SM clock every `period_ms` between start() and stop().
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
  std::vector<double> power_w_;
  std::vector<double> clock_mhz_;
};

}  // namespace ntpsim::ntpcal
