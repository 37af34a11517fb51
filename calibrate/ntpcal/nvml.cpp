#include "calibrate/ntpcal/nvml.h"

#include <dlfcn.h>

#include <algorithm>
#include <chrono>

namespace ntpsim::ntpcal {
namespace {

// The subset of nvml.h used here (NVML API, stable C ABI). nvmlReturn_t is an int enum with
// NVML_SUCCESS = 0 and NVML_ERROR_INSUFFICIENT_SIZE = 7; nvmlDevice_t is an opaque pointer;
// NVML_CLOCK_SM = 1, NVML_CLOCK_MEM = 2; NVML_TEMPERATURE_GPU = 0.
using nvmlReturn_t = int;
using nvmlDevice_t = void*;
constexpr nvmlReturn_t kNvmlSuccess = 0;
constexpr nvmlReturn_t kNvmlInsufficientSize = 7;
constexpr int kNvmlClockSm = 1;
constexpr int kNvmlClockMem = 2;
constexpr int kNvmlTemperatureGpu = 0;

using InitFn = nvmlReturn_t (*)();
using ShutdownFn = nvmlReturn_t (*)();
using ErrorStringFn = const char* (*)(nvmlReturn_t);
using ByTextFn = nvmlReturn_t (*)(const char*, nvmlDevice_t*);
using DriverVersionFn = nvmlReturn_t (*)(char*, unsigned);
using UIntFn = nvmlReturn_t (*)(nvmlDevice_t, unsigned*);
using ULLFn = nvmlReturn_t (*)(nvmlDevice_t, unsigned long long*);
using IntFn = nvmlReturn_t (*)(nvmlDevice_t, int*);
using ClockFn = nvmlReturn_t (*)(nvmlDevice_t, int, unsigned*);
using RangeFn = nvmlReturn_t (*)(nvmlDevice_t, unsigned*, unsigned*);
using EccFn = nvmlReturn_t (*)(nvmlDevice_t, int*, int*);
using ProcessesFn = nvmlReturn_t (*)(nvmlDevice_t, unsigned*, void*);
using SetLimitFn = nvmlReturn_t (*)(nvmlDevice_t, unsigned);

bool milli(UIntFn fn, void* dev, double& out) {
  unsigned v = 0;
  if (fn == nullptr || dev == nullptr || fn(dev, &v) != kNvmlSuccess) return false;
  out = v / 1000.0;
  return true;
}

bool clock(ClockFn fn, void* dev, int which, double& out) {
  unsigned v = 0;
  if (fn == nullptr || dev == nullptr || fn(dev, which, &v) != kNvmlSuccess) return false;
  out = v;
  return true;
}

}  // namespace

// Every entry point, looked up once after nvmlInit; a missing one stays null and its query
// reports "not available".
struct Nvml::Api {
  ErrorStringFn error_string = nullptr;
  ShutdownFn shutdown = nullptr;
  ByTextFn by_pci = nullptr, by_uuid = nullptr;
  DriverVersionFn driver_version = nullptr;
  UIntFn power = nullptr, limit = nullptr, enforced = nullptr, default_limit = nullptr;
  ULLFn energy = nullptr, reasons = nullptr;
  ClockFn clock_now = nullptr, clock_max = nullptr, temperature = nullptr;
  RangeFn range = nullptr;
  EccFn ecc = nullptr;
  IntFn compute_mode = nullptr;
  ProcessesFn processes = nullptr;
  SetLimitFn set_limit = nullptr;
};

Nvml::Nvml() : api_(std::make_unique<Api>()) {
  handle_ = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (handle_ == nullptr) {
    status_ = "NVML unavailable: libnvidia-ml.so.1 not found (no NVIDIA driver)";
    return;
  }
  const auto sym = [this](const char* name) { return dlsym(handle_, name); };
  const auto init = reinterpret_cast<InitFn>(sym("nvmlInit_v2"));
  Api& a = *api_;
  a.error_string = reinterpret_cast<ErrorStringFn>(sym("nvmlErrorString"));
  if (init == nullptr) {
    status_ = "NVML unavailable: nvmlInit_v2 missing";
    return;
  }
  const nvmlReturn_t rc = init();
  if (rc != kNvmlSuccess) {
    status_ = std::string("NVML unavailable: nvmlInit failed: ") +
              (a.error_string ? a.error_string(rc) : "unknown error");
    return;
  }
  initialized_ = true;
  status_ = "available";
  a.shutdown = reinterpret_cast<ShutdownFn>(sym("nvmlShutdown"));
  a.by_pci = reinterpret_cast<ByTextFn>(sym("nvmlDeviceGetHandleByPciBusId_v2"));
  a.by_uuid = reinterpret_cast<ByTextFn>(sym("nvmlDeviceGetHandleByUUID"));
  a.driver_version = reinterpret_cast<DriverVersionFn>(sym("nvmlSystemGetDriverVersion"));
  a.power = reinterpret_cast<UIntFn>(sym("nvmlDeviceGetPowerUsage"));
  a.limit = reinterpret_cast<UIntFn>(sym("nvmlDeviceGetPowerManagementLimit"));
  a.enforced = reinterpret_cast<UIntFn>(sym("nvmlDeviceGetEnforcedPowerLimit"));
  a.default_limit = reinterpret_cast<UIntFn>(sym("nvmlDeviceGetPowerManagementDefaultLimit"));
  a.energy = reinterpret_cast<ULLFn>(sym("nvmlDeviceGetTotalEnergyConsumption"));
  a.reasons = reinterpret_cast<ULLFn>(sym("nvmlDeviceGetCurrentClocksEventReasons"));
  if (a.reasons == nullptr)
    a.reasons = reinterpret_cast<ULLFn>(sym("nvmlDeviceGetCurrentClocksThrottleReasons"));
  a.clock_now = reinterpret_cast<ClockFn>(sym("nvmlDeviceGetClockInfo"));
  a.clock_max = reinterpret_cast<ClockFn>(sym("nvmlDeviceGetMaxClockInfo"));
  a.temperature = reinterpret_cast<ClockFn>(sym("nvmlDeviceGetTemperature"));
  a.range = reinterpret_cast<RangeFn>(sym("nvmlDeviceGetPowerManagementLimitConstraints"));
  a.ecc = reinterpret_cast<EccFn>(sym("nvmlDeviceGetEccMode"));
  a.compute_mode = reinterpret_cast<IntFn>(sym("nvmlDeviceGetComputeMode"));
  a.processes = reinterpret_cast<ProcessesFn>(sym("nvmlDeviceGetComputeRunningProcesses_v3"));
  a.set_limit = reinterpret_cast<SetLimitFn>(sym("nvmlDeviceSetPowerManagementLimit"));
}

Nvml::~Nvml() {
  if (initialized_ && api_->shutdown != nullptr) api_->shutdown();
  if (handle_ != nullptr) dlclose(handle_);
}

void* Nvml::device_for_pci(const std::string& bus_id) const {
  nvmlDevice_t dev = nullptr;
  if (!available() || api_->by_pci == nullptr || api_->by_pci(bus_id.c_str(), &dev) != kNvmlSuccess)
    return nullptr;
  return dev;
}

void* Nvml::device_for_uuid(const std::string& uuid) const {
  nvmlDevice_t dev = nullptr;
  if (!available() || api_->by_uuid == nullptr || api_->by_uuid(uuid.c_str(), &dev) != kNvmlSuccess)
    return nullptr;
  return dev;
}

std::string Nvml::driver_version() const {
  char buf[96] = {0};
  if (!available() || api_->driver_version == nullptr ||
      api_->driver_version(buf, sizeof buf) != kNvmlSuccess)
    return {};
  return buf;
}

bool Nvml::power_w(void* dev, double& watts) const {
  return milli(api_->power, dev, watts);
}
bool Nvml::energy_j(void* dev, double& joules) const {
  unsigned long long mj = 0;
  if (api_->energy == nullptr || dev == nullptr || api_->energy(dev, &mj) != kNvmlSuccess)
    return false;
  joules = static_cast<double>(mj) / 1000.0;
  return true;
}
bool Nvml::sm_clock_mhz(void* dev, double& mhz) const {
  return clock(api_->clock_now, dev, kNvmlClockSm, mhz);
}
bool Nvml::max_sm_clock_mhz(void* dev, double& mhz) const {
  return clock(api_->clock_max, dev, kNvmlClockSm, mhz);
}
bool Nvml::max_mem_clock_mhz(void* dev, double& mhz) const {
  return clock(api_->clock_max, dev, kNvmlClockMem, mhz);
}
bool Nvml::temperature_c(void* dev, double& celsius) const {
  return clock(api_->temperature, dev, kNvmlTemperatureGpu, celsius);
}
bool Nvml::clock_event_reasons(void* dev, unsigned long long& mask) const {
  return api_->reasons != nullptr && dev != nullptr && api_->reasons(dev, &mask) == kNvmlSuccess;
}
bool Nvml::power_limit_w(void* dev, double& watts) const {
  return milli(api_->limit, dev, watts);
}
bool Nvml::enforced_power_limit_w(void* dev, double& watts) const {
  return milli(api_->enforced, dev, watts);
}
bool Nvml::default_power_limit_w(void* dev, double& watts) const {
  return milli(api_->default_limit, dev, watts);
}
bool Nvml::power_limit_range_w(void* dev, double& min_w, double& max_w) const {
  unsigned lo = 0, hi = 0;
  if (api_->range == nullptr || dev == nullptr || api_->range(dev, &lo, &hi) != kNvmlSuccess)
    return false;
  min_w = lo / 1000.0;
  max_w = hi / 1000.0;
  return true;
}
bool Nvml::ecc_enabled(void* dev, std::string& mode) const {
  int current = 0, pending = 0;
  if (api_->ecc == nullptr || dev == nullptr || api_->ecc(dev, &current, &pending) != kNvmlSuccess)
    return false;
  mode = current != 0 ? "on" : "off";
  return true;
}
bool Nvml::compute_mode(void* dev, std::string& mode) const {
  int m = 0;
  if (api_->compute_mode == nullptr || dev == nullptr ||
      api_->compute_mode(dev, &m) != kNvmlSuccess)
    return false;
  static const char* const kNames[] = {"default", "exclusive_thread", "prohibited",
                                       "exclusive_process"};
  mode = m >= 0 && m < 4 ? kNames[m] : std::to_string(m);
  return true;
}
bool Nvml::compute_processes(void* dev, int& count) const {
  // Asked with room for none: NVML answers with the count (INSUFFICIENT_SIZE when there are some).
  unsigned n = 0;
  if (api_->processes == nullptr || dev == nullptr) return false;
  const nvmlReturn_t rc = api_->processes(dev, &n, nullptr);
  if (rc != kNvmlSuccess && rc != kNvmlInsufficientSize) return false;
  count = static_cast<int>(n);
  return true;
}

std::string Nvml::set_power_limit_w(void* dev, double watts) const {
  if (!available() || dev == nullptr) return status_.empty() ? "NVML unavailable" : status_;
  if (api_->set_limit == nullptr) return "nvmlDeviceSetPowerManagementLimit missing";
  const nvmlReturn_t rc = api_->set_limit(dev, static_cast<unsigned>(watts * 1000.0 + 0.5));
  if (rc == kNvmlSuccess) return {};
  return std::string("nvmlDeviceSetPowerManagementLimit: ") +
         (api_->error_string ? api_->error_string(rc) : "error") +
         " (setting power limits needs root)";
}

PowerSampler::PowerSampler(const Nvml& nvml, void* device, int period_ms)
    : nvml_(nvml), device_(device), period_ms_(period_ms) {}

PowerSampler::~PowerSampler() {
  if (running_.load()) stop();
}

void PowerSampler::start() {
  power_w_.clear();
  early_power_w_.clear();
  clock_mhz_.clear();
  temp_c_.clear();
  reasons_ = 0;
  energy0_j_ = energy1_j_ = -1.0;
  window_s_ = 0.0;
  if (!nvml_.available() || device_ == nullptr) return;
  running_ = true;
  thread_ = std::thread([this] {
    using Clock = std::chrono::steady_clock;
    const auto t0 = Clock::now();
    Clock::time_point window_start{};
    while (running_.load()) {
      const bool settled = Clock::now() - t0 >= std::chrono::seconds(1);
      if (settled && energy0_j_ < 0) {
        double e = 0;
        if (nvml_.energy_j(device_, e)) {
          energy0_j_ = e;
          window_start = Clock::now();
        }
      }
      double p = 0, c = 0, t = 0;
      unsigned long long r = 0;
      if (nvml_.power_w(device_, p)) (settled ? power_w_ : early_power_w_).push_back(p);
      if (nvml_.sm_clock_mhz(device_, c)) clock_mhz_.push_back(c);
      if (nvml_.temperature_c(device_, t)) temp_c_.push_back(t);
      if (nvml_.clock_event_reasons(device_, r)) reasons_ |= r;
      std::this_thread::sleep_for(std::chrono::milliseconds(period_ms_));
    }
    double e = 0;
    if (energy0_j_ >= 0 && nvml_.energy_j(device_, e)) {
      energy1_j_ = e;
      window_s_ = std::chrono::duration<double>(Clock::now() - window_start).count();
    }
  });
}

calibrate::PowerStats PowerSampler::stop() {
  calibrate::PowerStats s;
  if (running_.exchange(false) && thread_.joinable()) thread_.join();
  std::vector<double>& used = power_w_.empty() ? early_power_w_ : power_w_;
  if (used.empty()) return s;
  s.samples = static_cast<int>(used.size());
  double sum = 0;
  for (const double p : used) sum += p;
  s.mean_w = sum / static_cast<double>(used.size());
  s.max_w = *std::max_element(used.begin(), used.end());
  if (energy1_j_ >= energy0_j_ && energy0_j_ >= 0 && window_s_ >= 0.5) {
    s.mean_w = (energy1_j_ - energy0_j_) / window_s_;
    s.max_w = std::max(s.max_w, s.mean_w);
    s.energy_based = true;
  }
  if (!clock_mhz_.empty()) {
    double c = 0;
    for (const double v : clock_mhz_) c += v;
    s.sm_clock_mean_mhz = c / static_cast<double>(clock_mhz_.size());
  }
  if (!temp_c_.empty()) s.temp_max_c = *std::max_element(temp_c_.begin(), temp_c_.end());
  s.clock_event_reasons = reasons_;
  return s;
}

}  // namespace ntpsim::ntpcal
