#!/usr/bin/env bash
# Installs, with apt, whatever Tessera needs to build and test that this machine
# lacks. Idempotent: a machine that has everything is left untouched and no
# package index is downloaded.
#
#   install_dependencies.sh               what the build and the demo need
#   install_dependencies.sh --test-tools  that, and the tools some tests check
#                                         against (ParaView's XDMF reader); a
#                                         test tool apt cannot install is a
#                                         warning, and its test is skipped
set -euo pipefail

packages=(
  g++ cmake ninja-build make pkg-config
  pybind11-dev python3-dev python3-numpy python3-pytest
  python3-matplotlib          # the coupled analyses' plots
  libboost-dev libeigen3-dev libmetis-dev libhdf5-dev nlohmann-json3-dev libgtest-dev
  python3-h5py                # reads the HDF5 results back in tests/python/test_hdf5_output.py
  clang libclang-rt-14-dev   # the libFuzzer target of the .mdpa parser
  libopenmpi-dev openmpi-bin  # distributed runs (TESSERA_WITH_MPI) and their mpirun tests
  petsc-dev                   # distributed and algebraic-multigrid linear solvers (TESSERA_WITH_PETSC);
                              # PETSc 3.18 with hypre, built on the same OpenMPI; ~80 packages
)
test_tools=(
  python3-paraview            # pvbatch: ParaView's own XDMF reader in test_hdf5_output.py
)

with_test_tools=false
for argument in "$@"; do
  case "$argument" in
    --test-tools) with_test_tools=true ;;
    *) echo "install_dependencies: unknown option '$argument' (expected --test-tools)" >&2; exit 2 ;;
  esac
done

missing_of() {
  local p
  for p in "$@"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
      echo "$p"
    fi
  done
}

mapfile -t missing < <(missing_of "${packages[@]}")
missing_tools=()
if $with_test_tools; then mapfile -t missing_tools < <(missing_of "${test_tools[@]}"); fi
if ((${#missing[@]} == 0 && ${#missing_tools[@]} == 0)); then
  exit 0
fi

SUDO=""
if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
if ((${#missing[@]} > 0)); then
  echo "install_dependencies: installing ${missing[*]}"
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
if ((${#missing_tools[@]} > 0)); then
  echo "install_dependencies: installing the test tools ${missing_tools[*]}"
  $SUDO apt-get install -y -qq --no-install-recommends "${missing_tools[@]}" ||
    echo "install_dependencies: warning: could not install ${missing_tools[*]}; the tests" \
         "that need them will be skipped" >&2
fi
