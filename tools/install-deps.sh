#!/usr/bin/env bash
# Installs the Debian packages ntpsim needs to build and test (Debian 12 / Ubuntu 22.04+).
#
#   tools/install-deps.sh                 install what is missing (needs root; says what it does)
#   tools/install-deps.sh --with-browser  also chromium (headless screenshots of HTML reports)
#   tools/install-deps.sh --with-fuzz     also clang and libFuzzer's runtime (tools/fuzz.sh)
#   tools/install-deps.sh --check         only report what is missing; exit 1 if anything is
#
# Idempotent: installed packages (dpkg status "install ok installed") are skipped, and with
# nothing missing it needs no root and changes nothing. CUDA is optional and not installed here (ntpcal builds when
# /usr/local/cuda exists).
set -euo pipefail

packages=(
  build-essential cmake ninja-build git pkg-config
  libyaml-cpp-dev libcli11-dev libfmt-dev libeigen3-dev libboost-graph-dev nlohmann-json3-dev
  libgtest-dev libgmock-dev libbenchmark-dev libopenmpi-dev openmpi-bin
)
check_only=0

usage() {
  sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'
}

for arg in "$@"; do
  case "$arg" in
    --with-browser) packages+=(chromium) ;;
    --with-fuzz) packages+=(clang libclang-rt-14-dev) ;;
    --check) check_only=1 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "install-deps: unknown option '$arg'" >&2; usage >&2; exit 2 ;;
  esac
done

if ! command -v dpkg >/dev/null 2>&1; then
  echo "install-deps: dpkg not found: this script supports Debian-based systems only" >&2
  exit 1
fi

missing=()
for p in "${packages[@]}"; do
  # "install ok installed" is the only state in which the package is really present.
  if [ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)" != "install ok installed" ]; then
    missing+=("$p")
  fi
done

if [ "${#missing[@]}" -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages are installed"
  exit 0
fi

echo "install-deps: missing: ${missing[*]}"
if [ "$check_only" -eq 1 ]; then
  echo "install-deps: run 'sudo tools/install-deps.sh' to install them" >&2
  exit 1
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "install-deps: must run as root to install packages (try: sudo $0 $*)" >&2
  exit 1
fi

export DEBIAN_FRONTEND=noninteractive
echo "install-deps: apt-get update"
apt-get update -q
echo "install-deps: apt-get install ${missing[*]}"
apt-get install -y -q --no-install-recommends "${missing[@]}"
echo "install-deps: installed ${#missing[@]} package(s)"
