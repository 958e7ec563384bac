#!/usr/bin/env bash
# Build libtorch_shim.so against the installed `torch` Python package.
# Usage: build.sh OUTPUT_DIR   (prints the library's path)
set -euo pipefail
out="${1:-.}"
here="$(cd "$(dirname "$0")" && pwd)"
torch="$(python3 -c 'import os, torch; print(os.path.dirname(torch.__file__))')"
cuda="$(dirname "$(dirname "$(command -v nvcc)")")"
g++ -O2 -std=c++17 -shared -fPIC "$here/torch_shim.cpp" \
    -I"$torch/include" -I"$cuda/include" -L"$torch/lib" -lc10 -lc10_cuda \
    -Wl,-rpath,"$torch/lib" -o "$out/libtorch_shim.so"
echo "$out/libtorch_shim.so"
