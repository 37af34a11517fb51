#include "models/base/build_info.h"

#include "ntpsim_version.h"

namespace ntpsim {

const BuildInfo& build_info() {
  static const BuildInfo kInfo{NTPSIM_VERSION, NTPSIM_GIT_SHA, NTPSIM_BUILD_TYPE,
#if defined(__SANITIZE_ADDRESS__)
                               true
#else
                               false
#endif
  };
  return kInfo;
}

}  // namespace ntpsim
