#!/usr/bin/env bash
# Shared set-up of tools/run.sh and tools/test.sh: installs the Debian packages bouss
# needs (when root or passwordless sudo is available; otherwise prints the one apt-get
# line to run and stops), then configures and builds a Release build in build/, reusing
# it when it is already there. CUDA is used when nvcc is found (PATH or /usr/local/cuda);
# BOUSS_CUDA_ARCH picks the GPU architecture (default 90: H100/H200).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BOUSS_BUILD_DIR:-$root/build}

packages=(cmake g++ make pkg-config libnetcdf-dev libhdf5-dev netcdf-bin nlohmann-json3-dev
          libspdlog-dev libcli11-dev libgtest-dev zlib1g-dev libfftw3-dev libblas-dev liblapack-dev libopenmpi-dev openmpi-bin libnetcdf-mpi-dev libhdf5-openmpi-dev python3-h5py python3-matplotlib python3-netcdf4 python3-numpy ffmpeg
          python3-xarray)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "bouss setup: installing ${missing[*]}"
  if [ "$(id -u)" -eq 0 ]; then
    apt_get=(apt-get)
  elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
    apt_get=(sudo apt-get)
  else
    echo "bouss setup: missing packages; run this once, then try again:" >&2
    echo "  sudo apt-get update && sudo apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  "${apt_get[@]}" update -qq
  "${apt_get[@]}" install -y -qq "${missing[@]}"
fi

# A build folder made for another source folder (a copy of a built checkout, `cp -a`) would
# build that folder's sources and run its binary: never. One inside this checkout is this
# checkout's to remake; one elsewhere (BOUSS_BUILD_DIR) may serve the other tree: stop.
if [ -f "$build/CMakeCache.txt" ]; then
  made_for=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$build/CMakeCache.txt")
  if [ -n "$made_for" ] && [ "$(cd "$made_for" 2>/dev/null && pwd -P)" != "$(cd "$root" && pwd -P)" ]; then
    case "$(cd "$build" && pwd -P)/" in
      "$(cd "$root" && pwd -P)"/*)
        echo "bouss setup: $build was configured for the sources in $made_for, not $root: building it again here"
        rm -rf "$build" ;;
      *)
        echo "bouss setup: $build was configured for the sources in $made_for, not $root: remove it or set BOUSS_BUILD_DIR to another folder" >&2
        exit 1 ;;
    esac
  fi
fi
if [ ! -f "$build/CMakeCache.txt" ]; then
  cuda_args=()
  if command -v nvcc >/dev/null || [ -x /usr/local/cuda/bin/nvcc ]; then
    cuda_args=(-DCMAKE_CUDA_ARCHITECTURES="${BOUSS_CUDA_ARCH:-90}")
  fi
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release "${cuda_args[@]}"
fi
cmake --build "$build" -j"$(nproc)"
