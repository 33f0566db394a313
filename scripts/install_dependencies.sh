#!/usr/bin/env bash
# Installs, with apt, whatever Tessera needs to build and test that this machine
# lacks. Idempotent: a machine that has everything is left untouched and no
# package index is downloaded.
set -euo pipefail

packages=(
  g++ cmake ninja-build make pkg-config
  pybind11-dev python3-dev python3-numpy python3-pytest
  python3-matplotlib          # the coupled analyses' plots
  libboost-dev libeigen3-dev libmetis-dev libhdf5-dev nlohmann-json3-dev libgtest-dev
  python3-h5py                # reads the HDF5 results back in tests/python/test_hdf5_output.py
  clang libclang-rt-14-dev   # the libFuzzer target of the .mdpa parser
)

missing=()
for p in "${packages[@]}"; do
  [[ "$p" == \#* ]] && continue
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if ((${#missing[@]} == 0)); then
  exit 0
fi

echo "install_dependencies: installing ${missing[*]}"
SUDO=""
if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
