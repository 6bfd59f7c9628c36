#!/usr/bin/env bash
# thumbd linked as the package ships it (the Swift runtime in, no RPATH, bound at start) from the
# objects of a build SwiftPM has already made, for `make test`'s package test: it costs a link
# instead of a second compile of everything (the release build, about 430 s on 2 cores).
#
#   Scripts/package/link-static.sh [CONFIGURATION]      (default debug) → prints the binary's path
#
# SwiftPM cannot do this itself: `--static-swift-stdlib` also changes how every module is compiled
# (against the runtime's static module folder), and in a build folder made without it SwiftPM
# recompiles only some modules, leaving a mix no link accepts, in either mode, afterwards. So the
# link is run here, outside SwiftPM's state: the product's own link command from SwiftPM's build
# manifest (.build/CONFIGURATION.yaml), written to .build-package/static/thumbd, with the static
# runtime and the libraries the static Foundation needs, as swift-autolink-extract reads them from
# a probe compiled against it (so they follow the toolchain, not a list written here).
set -euo pipefail

here=$(cd "$(dirname "$0")/../.." && pwd)
configuration=${1:-debug}
manifest=$here/.build/$configuration.yaml
out=$here/.build-package/static
fail() { printf 'link-static: %s\n' "$*" >&2; exit 1; }

# Up to date (a no-op after make test's build), and the manifest is this package's, not the last
# one built into the same folder (the benchmarks').
"${SWIFT:-swift}" build -c "$configuration" --product thumbd >&2
[ -f "$manifest" ] || fail "no $manifest after building thumbd"
mkdir -p "$out"

# The libraries a program importing Foundation links against the static runtime.
probe=$out/probe
printf 'import Foundation\nprint(Date())\n' > "$probe.swift"
swiftc -static-stdlib -c "$probe.swift" -o "$probe.o"
autolink=$(dirname "$(readlink -f "$(command -v swiftc)")")/swift-autolink-extract
[ -x "$autolink" ] || fail "swift-autolink-extract is not beside swiftc"
read -r -a runtime <<< "$("$autolink" "$probe.o" -o - | tr '\n' ' ')"

# thumbd's link command, with its output here, no RPATH, the static runtime and binding at start.
python3 - "$manifest" "$out/thumbd" "$configuration" > "$out/link-args" <<'EOF'
import json, re, sys
manifest, output, configuration = sys.argv[1:4]
lines = open(manifest).read().split("\n")
# "C.thumbd-<the target triple's four parts>-<configuration>.exe": thumbd's own, not thumbd-fuzz's.
command = re.compile(r'^  "C\.thumbd(-[^-"]+){4}-' + re.escape(configuration) + r'\.exe":$')
starts = [i for i, line in enumerate(lines) if command.match(line)]
if len(starts) != 1:
    sys.exit("link-static: thumbd's link command is not in the manifest (found %d)" % len(starts))
args = next(json.loads(line.strip()[len("args:"):]) for line in lines[starts[0]:starts[0] + 12] if line.strip().startswith("args:"))
kept, skip = [], 0
for i, arg in enumerate(args):
    if skip:
        skip -= 1
    elif arg == "-o":
        kept += ["-o", output]
        skip = 1
    elif arg == "-Xlinker" and i + 1 < len(args) and args[i + 1].startswith("-rpath"):
        skip = 1
    else:
        kept.append(arg)
print("\n".join(kept + ["-static-stdlib", "-Xlinker", "-z", "-Xlinker", "now"]))
EOF
mapfile -t link < "$out/link-args"
# Twice: these are archives, which the linker reads once each in order, and they need each other
# both ways (CoreFoundation needs _FoundationICU, listed before it).
"${link[@]}" "${runtime[@]}" "${runtime[@]}" 2> >(grep -v "the use of \`mktemp' is dangerous" >&2)
echo "$out/thumbd"
