#!/usr/bin/env bash
# Writes the package's /usr/share/doc/thumbd/copyright to stdout: thumbd's own notice, then every
# library linked into /usr/bin/thumbd with its version and licence. The list is read from the build's
# checkouts (what SwiftPM resolved), never typed by hand, so a new dependency cannot be left out.
# An Apache-2.0 library is named with its NOTICE (the licence text is Debian's common-licenses copy);
# any other licence is copied in full. A checkout whose licence is neither fails the package.
#
#   Scripts/package/write-copyright.sh SCRATCH_PATH > copyright
set -euo pipefail

scratch=${1:?usage: write-copyright.sh SCRATCH_PATH}
resolved=$(dirname "$0")/../../Package.resolved
swift_license=$(dirname "$(dirname "$(readlink -f "$(command -v swiftc)")")")/share/swift/LICENSE.txt

# The package's address as Package.resolved records it (the checkout's own remote is a local mirror).
resolved_location() {
  python3 -c 'import json, sys
pins = json.load(open(sys.argv[1])).get("pins", [])
print(next((p["location"] for p in pins if p["identity"] == sys.argv[2].lower()), ""))' "$resolved" "$1"
}
indent() { sed -e 's/^[[:space:]]*$/./' -e 's/^/ /'; }
license_file() { find "$1" -maxdepth 1 -type f \( -iname 'LICENSE' -o -iname 'LICENSE.txt' -o -iname 'LICENSE.md' -o -iname 'COPYING' \) | head -1; }

cat <<'HEAD'
thumbd, an image thumbnail daemon and command-line tool.

Copyright 2026 the thumbd developers.
No licence to copy, modify or redistribute thumbd itself has been published yet: all rights are
reserved. The libraries below are each under their own licence, which applies to their part of
/usr/bin/thumbd.

The Apache License, Version 2.0, is in /usr/share/common-licenses/Apache-2.0.

Libraries linked into /usr/bin/thumbd
=====================================

HEAD

swift_version=$(swiftc --version 2>/dev/null | sed -n 's/.*Swift version \([0-9.]*\).*/\1/p' | head -1)
echo "* The Swift runtime and standard library, Foundation and Dispatch (Swift ${swift_version:-unknown}),"
echo "  https://www.swift.org: Apache License 2.0 with the Runtime Library Exception, which reads:"
# The exception alone: the licence itself is Debian's common-licenses copy (lintian refuses a second).
if [ -f "$swift_license" ] && grep -q "Runtime Library Exception" "$swift_license"; then
  sed -n '/Runtime Library Exception to the Apache/,$p' "$swift_license" | tail -n +2 | sed '/^[[:space:]]*$/d' | indent
else
  echo " (see https://swift.org/LICENSE.txt)"
fi
echo

for checkout in "$scratch"/checkouts/*/; do
  name=$(basename "$checkout")
  version=$(git -C "$checkout" describe --tags --exact-match 2>/dev/null || git -C "$checkout" rev-parse --short=12 HEAD)
  url=$(resolved_location "$name")
  license=$(license_file "$checkout")
  if [ -z "$license" ]; then
    echo "write-copyright: $name has no licence file" >&2
    exit 1
  fi
  if grep -q "Apache License" "$license" && grep -q "Version 2.0" "$license"; then
    echo "* $name $version${url:+, $url}: Apache License 2.0."
    for notice in "$checkout"/NOTICE.txt "$checkout"/NOTICE; do
      if [ -f "$notice" ]; then echo "  Its NOTICE:"; indent < "$notice"; fi
    done
  elif grep -qi "Permission is hereby granted" "$license" || grep -qi "Permission to use, copy, modify" "$license"; then
    echo "* $name $version${url:+, $url}:"
    indent < "$license"
  else
    echo "write-copyright: $name: licence in $license not recognised (Apache-2.0, MIT or ISC expected)" >&2
    exit 1
  fi
  echo
done

cat <<'TAIL'
System libraries
================

The image codecs, Little CMS, SQLite, zlib and the C libraries /usr/bin/thumbd uses are Debian's own
packages, named in the package's Depends; their licences are in /usr/share/doc/ of each.
TAIL
