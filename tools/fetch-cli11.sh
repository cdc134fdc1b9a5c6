#!/usr/bin/env bash
# Fetches CLI11 header releases other than the system's from Debian's archive (trixie's
# 2.4 series, which Ubuntu 24.04 also ships, and sid's, the newest packaged release) and
# unpacks each into DIR/<version>/include. CI builds a strata CLI against each and runs the
# CLI tests with it (STRATA_CLI11_COMPAT), so an option name a newer CLI11 refuses is
# caught here, not on a user's machine. Prints the include directories, ';'-separated.
# Usage: tools/fetch-cli11.sh DIR [SUITE ...]   (default suites: trixie sid)
set -euo pipefail
dir=${1:?usage: tools/fetch-cli11.sh DIR [SUITE ...]}
shift
suites=${*:-trixie sid}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
mkdir -p "$dir"
dirs=()
for suite in $suites; do
  index="$dir/Packages-$suite"
  curl -fsSL --retry 3 "$mirror/dists/$suite/main/binary-all/Packages.xz" | xz -dc >"$index"
  file=$(awk '/^Package: libcli11-dev$/ {p = 1} p && /^Filename:/ {print $2; exit}' "$index")
  [ -n "$file" ] || { echo "fetch-cli11: no libcli11-dev in $suite" >&2; exit 1; }
  deb="$dir/$(basename "$file")"
  [ -s "$deb" ] || curl -fsSL --retry 3 -o "$deb" "$mirror/$file"
  stage="$dir/stage-$suite"
  rm -rf "$stage" && mkdir -p "$stage"
  dpkg-deb -x "$deb" "$stage"
  version=$(sed -n 's/^#define CLI11_VERSION "\(.*\)"/\1/p' "$stage/usr/include/CLI/Version.hpp")
  [ -n "$version" ] || { echo "fetch-cli11: no CLI11_VERSION in $deb" >&2; exit 1; }
  rm -rf "${dir:?}/$version" && mkdir -p "$dir/$version"
  mv "$stage/usr/include" "$dir/$version/include" && rm -rf "$stage"
  echo "fetch-cli11: CLI11 $version from $suite" >&2
  dirs+=("$(cd "$dir/$version/include" && pwd)")
done
(IFS=';'; echo "${dirs[*]}")
