#!/usr/bin/env bash
# `make dist`: the release archive, kairos-<version>-linux-x86_64.tar.gz, from what `make java`,
# `make cpp-build` and `make vsix` built. It unpacks anywhere (a prefix such as ~/.local or
# /opt/kairos) and runs without root and without a JDK:
#   bin/        kairos, kairos-probe, kairos-link-emulator
#   include/, lib/   the runtime's headers, static libraries and the CMake package Kairos
#   share/kairos/    kairos.jar, kairos-language-server.jar, the pinned clang-format, and java/:
#                    the Java runtime both jars run on, trimmed by jlink to the modules they use
#   share/kairos/kairos-<version>.vsix   the VS Code extension, which finds the runtime and the
#                    clang-format of the release when its `kairos` is on the PATH
#   share/doc/kairos/  README, LICENSE, NOTICE, the licences of what the release carries, docs/
#   share/bash-completion/completions/kairos, share/man/man1/kairos.1
# Beside the archive, kairos_<version>_amd64.deb: the same files under /usr, for apt install; and
# kairos-<version>-linux-x64.vsix: the extension on its own, with the same Java runtime and
# clang-format inside (for a machine without the release, or Java).
# Usage: scripts/dist.sh BUILD_DIR CPP_BUILD_DIR VSCODE_EXTENSION_DIR VSIX
set -euo pipefail
cd "$(dirname "$0")/.."

build=${1:?build directory}
cpp_build=${2:?C++ build directory}
vscode=${3:?the VS Code extension directory}
vsix=${4:?the packaged VS Code extension}

version=$(sed -n 's|^  <version>\(.*\)</version>$|\1|p' pom.xml | head -n 1)
[[ -n $version ]] || { echo "dist: error: no <version> in pom.xml" >&2; exit 1; }
cli_jar=generator/target/kairos.jar
server_jar=language-server/target/kairos-language-server.jar
for built in "$cli_jar" "$server_jar"; do
  [[ -f $built ]] || { echo "dist: error: $built is not built (make java)" >&2; exit 1; }
done

name=kairos-$version
dist=$build/dist
stage=$dist/$name
rm -rf "$stage"
mkdir -p "$stage"

# The runtime, the CMake package, the command, the pinned clang-format and the programs: the
# same files `make install` puts in a prefix.
cmake --install "$cpp_build" --prefix "$stage" >/dev/null
share=$stage/share/kairos
cp "$server_jar" "$share/kairos-language-server.jar"

# One Java runtime for both jars: the modules jdeps finds they use.
modules=$(jdeps --multi-release 17 --ignore-missing-deps --print-module-deps \
  "$cli_jar" "$server_jar" 2>/dev/null)
echo "dist: Java runtime of the modules $modules"
jlink --add-modules "$modules" --strip-debug --no-man-pages --no-header-files --compress=2 \
  --generate-cds-archive --output "$share/java"
# The class data archive of heaps above 32 GB, where the JVM cannot compress object pointers: not
# the commands' (10 MB).
rm -f "$share/java/lib/server/classes_nocoops.jsa"

# Shell completion and the man page, from the same picocli definitions as `kairos help`.
mkdir -p "$stage/share/bash-completion/completions" "$stage/share/man/man1"
"$stage/bin/kairos" completion bash >"$stage/share/bash-completion/completions/kairos"
"$stage/bin/kairos" manual >"$stage/share/man/man1/kairos.1"
gzip -9 -n -f "$stage/share/man/man1/kairos.1"
version_line=$("$stage/bin/kairos" --version | head -n 1)
# The class data archive those runs recorded names this directory's jar: Java would ignore it
# where the release is unpacked, and the launcher would not record one of its own there.
rm -f "$share/kairos.jsa"

# What the release carries of others, and its documentation.
doc=$stage/share/doc/kairos
mkdir -p "$doc/licenses" "$doc/docs"
cp README.md LICENSE NOTICE "$doc/"
cp licenses/* "$doc/licenses/"
cp docs/*.md "$doc/docs/"
cp -r examples "$doc/examples"
rm -rf "$doc/examples"/*/build

# The VS Code extension: in the release, as `make vsix` packs it; beside the archive, a linux-x64
# package (as extensions that carry native code are) with the runtime and clang-format inside.
cp "$vsix" "$share/$name.vsix"
clang_format_dir=$(basename "$(dirname "$(ls "$share"/clang-format-*/clang-format)")")
rm -rf "$vscode/server/java" "$vscode/server/clang-format-"*
cp -a "$share/java" "$vscode/server/java"
cp -a "$share/$clang_format_dir" "$vscode/server/$clang_format_dir"
cp "$server_jar" "$vscode/server/kairos-ls.jar"
platform_vsix=$name-linux-x64.vsix
(cd "$vscode" && npx vsce package --no-dependencies --target linux-x64 --out "$platform_vsix" \
  >/dev/null)
mv "$vscode/$platform_vsix" "$dist/$platform_vsix"
rm -rf "$vscode/server/java" "$vscode/server/$clang_format_dir"

archive=$dist/$name-linux-x86_64.tar.gz
tar -C "$dist" --owner=0 --group=0 --numeric-owner -czf "$archive" "$name"

# The Debian package: the same tree with /usr as its prefix (the launcher and the CMake package
# find their files relative to themselves), Debian's copyright file beside the licences.
deb=$dist/kairos_${version}_amd64.deb
deb_root=$dist/deb
rm -rf "$deb_root"
mkdir -p "$deb_root/DEBIAN" "$deb_root/usr"
cp -a "$stage/." "$deb_root/usr/"
# Depends: what its programs load (the Java runtime: zlib; kairos-probe: OpenSSL 3 and ddsc).
# Recommends: what builds the nodes kairos generates; Suggests: channels and kairos keys.
cat >"$deb_root/DEBIAN/control" <<CONTROL
Package: kairos
Version: $version
Architecture: amd64
Maintainer: The Kairos developers <kairos@kairos.dev>
Installed-Size: $(du -sk "$deb_root/usr" | cut -f 1)
Depends: libc6 (>= 2.34), libstdc++6 (>= 12), libgcc-s1, zlib1g, libssl3,
 libddsc0debian | libddsc0t64
Recommends: g++ (>= 4:12) | clang (>= 1:15), cmake (>= 3.25), ninja-build, libssl-dev
Suggests: cyclonedds-dev, cyclonedds-tools, openssl
Section: devel
Priority: optional
Description: toolchain for distributed real-time C++ systems of TMOs
 Kairos checks before deployment that every deadline of a model of time-triggered
 message-triggered objects holds (RMS, EDF, MLF, MUF, RMS+MLF), generates its C++
 (types, marshalling, stubs, skeletons, static schedules) and links it against a
 real-time runtime that enforces the schedule it checked. The package carries the
 kairos command and language server on their own Java runtime, the runtime's
 headers, libraries and CMake package, kairos-probe, the link emulator and the
 VS Code extension.
CONTROL
cat >"$deb_root/usr/share/doc/kairos/copyright" <<COPYRIGHT
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: Kairos
Comment: What the package carries of others, and under which licence, is in NOTICE; their
 licence texts are in licenses/.

Files: *
Copyright: The Kairos developers
License: Apache-2.0
 On Debian systems the full text of the Apache License 2.0 is in
 /usr/share/common-licenses/Apache-2.0; it is also in LICENSE beside this file.
COPYRIGHT
dpkg-deb --root-owner-group -Zxz --build "$deb_root" "$deb" >/dev/null
rm -rf "$deb_root"

echo "dist: $archive ($(du -h "$archive" | cut -f 1)), $deb ($(du -h "$deb" | cut -f 1))," \
  "$dist/$platform_vsix ($(du -h "$dist/$platform_vsix" | cut -f 1)); $version_line"
