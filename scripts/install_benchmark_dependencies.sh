#!/usr/bin/env bash
# Installs, with apt, the peer codes the side-by-side benchmarks in benchmarks/
# and applications/*/benchmarks/ run against: LAMMPS (`lmp`), LIGGGHTS
# (`liggghts`) and CalculiX (`ccx`). Not part of `make test`: the test suite
# never needs them. Idempotent, like install_dependencies.sh.
set -euo pipefail

packages=(lammps liggghts calculix-ccx
  python3-scipy   # nonsmooth_settling_benchmark.py: overlaps by a k-d tree
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if ((${#missing[@]} == 0)); then
  exit 0
fi

echo "install_benchmark_dependencies: installing ${missing[*]}"
SUDO=""
if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
