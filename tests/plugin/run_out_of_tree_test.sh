#!/usr/bin/env bash
# The out-of-tree plugin test: install Tessera from the build tree into a
# scratch prefix, build examples/out_of_tree_plugin against it with
# find_package(Tessera), then run the plugin's Python tests against the
# installed package (not the build tree).
set -euo pipefail
build_dir=$1
source_dir=$2
work="$build_dir/out_of_tree_test"
rm -rf "$work"
mkdir -p "$work"
cmake --install "$build_dir" --prefix "$work/prefix" > "$work/install.log"
cmake -S "$source_dir/examples/out_of_tree_plugin" -B "$work/plugin_build" -G Ninja \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$work/prefix" > "$work/configure.log"
cmake --build "$work/plugin_build" -j2 > "$work/build.log"
cd "$work"
PYTHONPATH="$work/prefix/lib/tessera/python:$work/plugin_build/python" \
  /usr/bin/python3 -m pytest -q -p no:cacheprovider "$source_dir/examples/out_of_tree_plugin/tests"
