#include "calibrate/ntpcal/nvml.h"

#include <dlfcn.h>

#include <algorithm>
#include <chrono>

namespace ntpsim::ntpcal {
namespace {

// The subset of nvml.h used here (NVML API, stable C ABI). nvmlReturn_t is an int enum with
// NVML_SUCCESS = 0; nvmlDevice_t is an opaque pointer; NVML_CLOCK_SM = 1.
using nvmlReturn_t = int;
using nvmlDevice_t = void*;
constexpr nvmlReturn_t kNvmlSuccess = 0;
constexpr int kNvmlClockSm = 1;

using InitFn = nvmlReturn_t (*)();
using ShutdownFn = nvmlReturn_t (*)();
using ErrorStringFn = const char* (*)(nvmlReturn_t);
using ByPciFn = nvmlReturn_t (*)(const char*, nvmlDevice_t*);
using DriverVersionFn = nvmlReturn_t (*)(char*, unsigned);
using UIntFn = nvmlReturn_t (*)(nvmlDevice_t, unsigned*);
using ClockFn = nvmlReturn_t (*)(nvmlDevice_t, int, unsigned*);
using RangeFn = nvmlReturn_t (*)(nvmlDevice_t, unsigned*, unsigned*);
using SetLimitFn = nvmlReturn_t (*)(nvmlDevice_t, unsigned);

}  // namespace

template <typename F>
F Nvml::sym(const char* name) const {
  if (handle_ == nullptr) return nullptr;
  return reinterpret_cast<F>(dlsym(handle_, name));
}

Nvml::Nvml() {
  handle_ = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (handle_ == nullptr) {
    status_ = "NVML unavailable: libnvidia-ml.so.1 not found (no NVIDIA driver)";
    return;
  }
  auto init = sym<InitFn>("nvmlInit_v2");
  if (init == nullptr) {
    status_ = "NVML unavailable: nvmlInit_v2 missing";
    return;
  }
  const nvmlReturn_t rc = init();
  if (rc != kNvmlSuccess) {
    auto err = sym<ErrorStringFn>("nvmlErrorString");
    status_ = std::string("NVML unavailable: nvmlInit failed: ") + (err ? err(rc) : "unknown error");
    return;
  }
  initialized_ = true;
  status_ = "available";
}

Nvml::~Nvml() {
  if (initialized_) {
    if (auto shutdown = sym<ShutdownFn>("nvmlShutdown")) shutdown();
  }
  if (handle_ != nullptr) dlclose(handle_);
}

void* Nvml::device_for_pci(const std::string& bus_id) const {
  if (!available()) return nullptr;
  auto fn = sym<ByPciFn>("nvmlDeviceGetHandleByPciBusId_v2");
  nvmlDevice_t dev = nullptr;
  if (fn == nullptr || fn(bus_id.c_str(), &dev) != kNvmlSuccess) return nullptr;
  return dev;
}

std::string Nvml::driver_version() const {
  if (!available()) return {};
  auto fn = sym<DriverVersionFn>("nvmlSystemGetDriverVersion");
  char buf[96] = {0};
  if (fn == nullptr || fn(buf, sizeof buf) != kNvmlSuccess) return {};
  return buf;
}

namespace {

bool milli(UIntFn fn, void* dev, double& out) {
  unsigned v = 0;
  if (fn == nullptr || dev == nullptr || fn(dev, &v) != kNvmlSuccess) return false;
  out = v / 1000.0;
  return true;
}

bool clock(ClockFn fn, void* dev, double& out) {
  unsigned v = 0;
  if (fn == nullptr || dev == nullptr || fn(dev, kNvmlClockSm, &v) != kNvmlSuccess) return false;
  out = v;
  return true;
}

}  // namespace

bool Nvml::power_w(void* dev, double& watts) const {
  return milli(sym<UIntFn>("nvmlDeviceGetPowerUsage"), dev, watts);
}
bool Nvml::sm_clock_mhz(void* dev, double& mhz) const {
  return clock(sym<ClockFn>("nvmlDeviceGetClockInfo"), dev, mhz);
}
bool Nvml::max_sm_clock_mhz(void* dev, double& mhz) const {
  return clock(sym<ClockFn>("nvmlDeviceGetMaxClockInfo"), dev, mhz);
}
bool Nvml::power_limit_w(void* dev, double& watts) const {
  return milli(sym<UIntFn>("nvmlDeviceGetPowerManagementLimit"), dev, watts);
}
bool Nvml::default_power_limit_w(void* dev, double& watts) const {
  return milli(sym<UIntFn>("nvmlDeviceGetPowerManagementDefaultLimit"), dev, watts);
}
bool Nvml::power_limit_range_w(void* dev, double& min_w, double& max_w) const {
  auto fn = sym<RangeFn>("nvmlDeviceGetPowerManagementLimitConstraints");
  unsigned lo = 0, hi = 0;
  if (fn == nullptr || dev == nullptr || fn(dev, &lo, &hi) != kNvmlSuccess) return false;
  min_w = lo / 1000.0;
  max_w = hi / 1000.0;
  return true;
}

std::string Nvml::set_power_limit_w(void* dev, double watts) const {
  if (!available() || dev == nullptr) return status_.empty() ? "NVML unavailable" : status_;
  auto fn = sym<SetLimitFn>("nvmlDeviceSetPowerManagementLimit");
  if (fn == nullptr) return "nvmlDeviceSetPowerManagementLimit missing";
  const nvmlReturn_t rc = fn(dev, static_cast<unsigned>(watts * 1000.0 + 0.5));
  if (rc == kNvmlSuccess) return {};
  auto err = sym<ErrorStringFn>("nvmlErrorString");
  return std::string("nvmlDeviceSetPowerManagementLimit: ") + (err ? err(rc) : "error") +
         " (setting power limits needs root)";
}

PowerSampler::PowerSampler(const Nvml& nvml, void* device, int period_ms)
    : nvml_(nvml), device_(device), period_ms_(period_ms) {}

PowerSampler::~PowerSampler() {
  if (running_.load()) stop();
}

void PowerSampler::start() {
  power_w_.clear();
  clock_mhz_.clear();
  if (!nvml_.available() || device_ == nullptr) return;
  running_ = true;
  thread_ = std::thread([this] {
    while (running_.load()) {
      double p = 0, c = 0;
      if (nvml_.power_w(device_, p)) power_w_.push_back(p);
      if (nvml_.sm_clock_mhz(device_, c)) clock_mhz_.push_back(c);
      std::this_thread::sleep_for(std::chrono::milliseconds(period_ms_));
    }
  });
}

calibrate::PowerStats PowerSampler::stop() {
  calibrate::PowerStats s;
  if (running_.exchange(false) && thread_.joinable()) thread_.join();
  if (power_w_.empty()) return s;
  s.samples = static_cast<int>(power_w_.size());
  double sum = 0;
  for (const double p : power_w_) sum += p;
  s.mean_w = sum / static_cast<double>(power_w_.size());
  s.max_w = *std::max_element(power_w_.begin(), power_w_.end());
  if (!clock_mhz_.empty()) {
    double c = 0;
    for (const double v : clock_mhz_) c += v;
    s.sm_clock_mean_mhz = c / static_cast<double>(clock_mhz_.size());
  }
  return s;
}

}  // namespace ntpsim::ntpcal
