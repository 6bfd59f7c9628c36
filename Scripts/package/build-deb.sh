#!/usr/bin/env bash
# `make package`: dist/thumbd_VERSION_amd64.deb from a release build with the Swift runtime linked in.
#
#   Scripts/package/build-deb.sh [DIST_DIR]          (default dist)
#
# 1. swift build -c release --static-swift-stdlib --disable-local-rpath --product thumbd, and ArgumentParser's
#    generate-manual tool (with PACKAGE_BINARY set, that thumbd instead, and a debug generate-manual);
# 2. lays out the package's tree in .build-package/thumbd/stage with `make install-files` (the same
#    rules as `make install`), the man pages (generate-manual reads `thumbd --experimental-dump-help`)
#    and the bash, zsh and fish completions (`thumbd --generate-completion-script`), so neither can
#    drift from --help;
# 3. packs it with debhelper (packaging/debian): Depends from dpkg-shlibdeps, the conffile, the
#    unit enabled the Debian way, the thumbd user made in postinst.
# 4. lintian: any error fails it.
# Refuses to pack a binary that links a Swift library dynamically or carries an RPATH, or whose
# --version is not packaging/debian/changelog's.
set -euo pipefail

here=$(cd "$(dirname "$0")/../.." && pwd)
dist=$(mkdir -p "${1:-dist}" && cd "${1:-dist}" && pwd)
swift=${SWIFT:-swift}
scratch=$here/.build
work=$here/.build-package/thumbd
cd "$here"

say() { printf 'package: %s\n' "$*" >&2; }
fail() { say "$*"; exit 1; }

# stdout carries the .deb's path alone; the builds talk on stderr.
if [ -n "${PACKAGE_BINARY:-}" ]; then
  # make test's: a thumbd already linked as the release is (Scripts/package/link-static.sh).
  # ArgumentParser's generate-manual, a tool run here and not shipped, comes from the debug build.
  thumbd=$PACKAGE_BINARY
  "$swift" build --product generate-manual >&2
  bin=$("$swift" build --show-bin-path)
else
  # The Makefile's RELEASE flags, so `make run` and `make package` share one build.
  read -r -a release <<< "${RELEASE_FLAGS:--c release --static-swift-stdlib --disable-local-rpath -Xlinker -z -Xlinker now}"
  "$swift" build "${release[@]}" --product thumbd >&2
  "$swift" build "${release[@]}" --product generate-manual >&2
  bin=$("$swift" build "${release[@]}" --show-bin-path)
  thumbd=$bin/thumbd
fi

version=$("$thumbd" --version | head -1 | awk '{print $2}')
changelog_version=$(dpkg-parsechangelog -l packaging/debian/changelog -S Version)
[ "$version" = "$changelog_version" ] ||
  fail "thumbd --version says $version but packaging/debian/changelog's last entry is $changelog_version: add an entry"

# The Swift runtime must be inside the binary: no libswift*/libFoundation*/libdispatch/libBlocksRuntime
# needed, and no RPATH pointing into a toolchain a server does not have.
swift_needed=$(readelf -d "$thumbd" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' |
  grep -E '^lib(swift|Foundation|_Foundation|dispatch|BlocksRuntime)' || true)
[ -z "$swift_needed" ] || fail "$thumbd links Swift libraries dynamically: $swift_needed"
if readelf -d "$thumbd" | grep -qE '\((RPATH|RUNPATH)\)'; then
  fail "$thumbd carries an RPATH: $(readelf -d "$thumbd" | grep -E 'RPATH|RUNPATH')"
fi

rm -rf "$work"
mkdir -p "$work/stage"
stage=$work/stage
make --no-print-directory -s install-files DESTDIR="$stage" PREFIX=/usr SYSCONFDIR=/etc \
  UNITDIR=/lib/systemd/system BINARY="$thumbd" >/dev/null

# The man pages carry the changelog's date, so the same source makes the same package.
changelog_date=$(date -u -d "@$(dpkg-parsechangelog -l packaging/debian/changelog -S Timestamp)" +%Y-%m-%d)
mkdir -p "$stage/usr/share/man/man1"
"$bin/generate-manual" "$thumbd" --multi-page --date "$changelog_date" --output-directory "$stage/usr/share/man/man1"
python3 Scripts/package/tidy-manpages.py "$stage/usr/share/man/man1"

# Completion scripts are sourced, not run: bash's loses the #! line the generator gives it.
completions() { "$thumbd" --generate-completion-script "$1" | sed '1{/^#!/d}'; }
install -d "$stage/usr/share/bash-completion/completions" "$stage/usr/share/zsh/vendor-completions" \
  "$stage/usr/share/fish/vendor_completions.d"
completions bash > "$stage/usr/share/bash-completion/completions/thumbd"
completions zsh > "$stage/usr/share/zsh/vendor-completions/_thumbd"
completions fish > "$stage/usr/share/fish/vendor_completions.d/thumbd.fish"

install -d "$stage/usr/share/doc/thumbd"
Scripts/package/write-copyright.sh "$scratch" > "$stage/usr/share/doc/thumbd/copyright"
install -m 0644 README.md "$stage/usr/share/doc/thumbd/README.md"
cp -a docs "$stage/usr/share/doc/thumbd/docs"
install -m 0644 config/nginx/*.conf -D -t "$stage/usr/share/doc/thumbd/examples/nginx"
install -m 0644 -D packaging/lintian-overrides "$stage/usr/share/lintian/overrides/thumbd"

cp -a packaging/debian "$work/debian"
# PACKAGE_COMPRESSION: dpkg-deb's -Z/-z for a package made only to be tried (make test); xz otherwise.
(cd "$work" && DIST_DIR="$dist" DEB_COMPRESSION="${PACKAGE_COMPRESSION:-}" debian/rules binary) >&2

deb=$dist/thumbd_${version}_amd64.deb
[ -f "$deb" ] || fail "debhelper wrote no $deb"

# Errors fail the package; the warnings kept are listed, with why, in packaging/README.md.
command -v lintian >/dev/null 2>&1 || fail "lintian is not installed (apt-get install lintian): the package is unchecked"
say "lintian $(basename "$deb")"
lintian --fail-on error --tag-display-limit 0 "$deb" >&2 || fail "lintian reports errors in $deb"
echo "$deb"
