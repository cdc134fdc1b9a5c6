#!/bin/sh
# What a manylinux_2_28 image lacks for building strata's Python package (cibuildwheel's
# before-all, packaging/cibuildwheel.toml): zlib's headers, and nlohmann-json >= 3.9
# (ordered_json; EPEL 8 has only 3.6), installed from its release archive, checksum checked.
set -eu
dnf install -y zlib-devel
version=3.11.3
sha256=d6c65aca6b1ed68e7a182f4757257b107ae403032760ed6ef121c9d55e81757d
curl -fsSL -o /tmp/json.tar.xz "https://github.com/nlohmann/json/releases/download/v$version/json.tar.xz"
echo "$sha256  /tmp/json.tar.xz" | sha256sum -c -
tar -xJf /tmp/json.tar.xz -C /tmp  # a json/ directory
cmake -S /tmp/json -B /tmp/json/build -DJSON_BuildTests=OFF -DCMAKE_INSTALL_PREFIX=/usr/local
cmake --install /tmp/json/build
