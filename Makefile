# Hush: every target a newcomer needs. `make test` and `make demo` install
# missing Debian packages themselves (as root, or through sudo).

SWIFT       ?= swift
BUILD_FLAGS ?=
# Debian packages the build and tests need. pkg-config finds the C libraries;
# the sqlcipher command line is used by tests that prove the database is unreadable.
DEB_PACKAGES := pkg-config libsodium-dev libsqlcipher-dev sqlcipher libqrencode-dev
# What only the tests need: the relay's PostgreSQL tests start a throwaway
# cluster (scripts/postgres-test-cluster) in a temporary directory on a free
# loopback port, as the unprivileged `postgres` user when run as root, and
# remove it when the test process exits.
# The OpenAPI contract test (scripts/openapi-contract-test) installs schemathesis from PyPI into
# a virtualenv under .build-schemathesis.
TEST_DEB_PACKAGES := postgresql python3 python3-venv
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: all deps build docs test test-fast test-openapi soak vectors bench demo clean fuzz fuzz-build fuzz-seeds test-asan test-tsan man completions install uninstall

all: build

deps:
	@missing=""; \
	for p in $(DEB_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "Installing missing Debian packages:$$missing"; \
	  $(SUDO) apt-get update && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y --no-install-recommends $$missing; \
	fi

build: deps
	$(SWIFT) build $(BUILD_FLAGS)

test: deps
	$(MAKE) deps DEB_PACKAGES="$(TEST_DEB_PACKAGES)"
	# schemathesis (for the OpenAPI contract test below) downloads from PyPI while the build
	# compiles: about a minute of waiting on the network on a clean clone; the test waits for it.
	scripts/openapi-contract-test --install &
	$(SWIFT) build --build-tests $(BUILD_FLAGS)
	# Four runs (see PROCESS_SUITES, POOL_SUITES): the in-process suites, those that wait on processes, the async ones on relay
	# processes, and those that need Swift's shared thread pool to themselves.
	$(SWIFT) test --skip-build $(BUILD_FLAGS) $(addprefix --skip ,$(PROCESS_SUITES) $(RELAY_PROCESS_SUITES) $(POOL_SUITES))
	$(SWIFT) test --skip-build $(BUILD_FLAGS) $(addprefix --filter ,$(PROCESS_SUITES)) $(addprefix --skip ,$(RELAY_PROCESS_SUITES))
	$(SWIFT) test --skip-build $(BUILD_FLAGS) $(addprefix --filter ,$(RELAY_PROCESS_SUITES))
	$(SWIFT) test --skip-build $(BUILD_FLAGS) $(addprefix --filter ,$(POOL_SUITES))
	$(SWIFT) run --skip-build $(BUILD_FLAGS) hush vectors
	# The directory's key blinding, recomputed without libsodium (docs/PROTOCOL.md §20.9).
	scripts/check-directory-blinding Vectors/protocol/device-directory.json
	# docs/relay-openapi.yaml against a real relay: schemathesis, bounded (about 2 minutes at most).
	scripts/openapi-contract-test "$$($(SWIFT) build --show-bin-path $(BUILD_FLAGS))/hush"
	# A short fuzz pass over every target (the test suite above replayed the corpora).
	$(MAKE) fuzz FUZZ_SECONDS=$(FUZZ_SECONDS_IN_TEST)
	# HushKit's documentation builds, and every public symbol has a doc comment.
	$(MAKE) docs

# HushKit's DocC documentation (Sources/HushKit/HushKit.docc and the symbol
# reference) into .build/docs/HushKit.doccarchive; fails when a public symbol
# has no doc comment, or when the public API differs from docs/HushKit-API.txt
# (semantic versioning: see scripts/api-surface.py). Preview: `docc preview Sources/HushKit/HushKit.docc
# --additional-symbol-graph-dir .build/docs/symbols`.
DOCS_DIR := .build/docs
docs: deps
	$(MAKE) deps DEB_PACKAGES=python3
	$(SWIFT) package dump-symbol-graph --minimum-access-level public $(BUILD_FLAGS) > /dev/null
	rm -rf $(DOCS_DIR)/symbols && mkdir -p $(DOCS_DIR)/symbols
	cp "$$($(SWIFT) build --show-bin-path $(BUILD_FLAGS))/../symbolgraph/HushKit.symbols.json" $(DOCS_DIR)/symbols/
	python3 scripts/doc-coverage.py $(DOCS_DIR)/symbols/HushKit.symbols.json
	python3 scripts/api-surface.py $(DOCS_DIR)/symbols/HushKit.symbols.json --check docs/HushKit-API.txt
	docc convert Sources/HushKit/HushKit.docc --additional-symbol-graph-dir $(DOCS_DIR)/symbols \
	  --fallback-display-name HushKit --fallback-bundle-identifier org.hush.HushKit \
	  --warnings-as-errors --output-path $(DOCS_DIR)/HushKit.doccarchive
	@echo "HushKit documentation: $(DOCS_DIR)/HushKit.doccarchive"

# The suites whose synchronous tests wait on processes they spawn (the `hush`
# binary, the relay, the sqlcipher command line, openssl, a writer killed with -9).
# They run apart from the in-process suites: Swift's cooperative thread pool has
# one thread per core, a synchronous test waiting on a child process holds one,
# and two of them at once starve every async test of the same run (a relay in
# the test process that stops answering, timeouts that fire while their task
# cannot run). On 2 busy cores that failed runs of `make test`.
PROCESS_SUITES := HushEndToEndTests 'HushCLITests\.HushCLITests' MisleadingMessageTests HushBinaryTests ServeProcessTests \
	TLSPolicyTests CrashConsistencyTests SubprocessTests 'HushDatabaseTests\.EncryptionAtRestTests' StoreEncryptionAtRestTests ConnectionLockTests
# Async suites on real relay processes: they need the cooperative pool, so they
# run apart from PROCESS_SUITES too (the two end-to-end ones are skipped there).
# With two cores the synchronous tests hold both of the pool's threads nearly
# all the time, so an async test beside them waits for one of them to end:
# HushKitTests' logins stalled for over a minute between the relay's challenge
# and the answer, and the relay refused the expired challenge (CI, stop 42).
RELAY_PROCESS_SUITES := HushKitTests StaleConnectionTests TypingOverLiveSocketTests
# Suites that prove the daemon leaves Swift's shared thread pool free while
# commands wait for slow clients: their forwarding must get a pool thread
# within a bound. Beside the other in-process suites (crypto vectors, Argon2id,
# corpora replays holding both of its threads on two cores for minutes) it did
# not get one in 120 s (a clean-clone CI run, s54), so they run on their own.
POOL_SUITES := BoundedOutputTests

# The in-process tests only, for the edit-build-test loop (under 30 s after the build):
# PROCESS_SUITES are skipped, and PostgreSQL's cluster is processes that take seconds to
# start, so the relay's storage tests run on the in-memory and SQLCipher drivers only.
# `make test` runs everything.
test-fast: deps
	$(SWIFT) build --build-tests $(BUILD_FLAGS)
	@echo "test-fast: skipping $(PROCESS_SUITES) $(RELAY_PROCESS_SUITES) $(POOL_SUITES) and the PostgreSQL driver"
	@start=$$(date +%s); \
	HUSH_TEST_SKIP_POSTGRES=1 $(SWIFT) test --skip-build $(BUILD_FLAGS) $(addprefix --skip ,$(PROCESS_SUITES) $(RELAY_PROCESS_SUITES) $(POOL_SUITES)); status=$$?; \
	echo "test-fast: the tests took $$(( $$(date +%s) - start )) s after the build"; exit $$status

# The OpenAPI contract test alone (part of `make test`).
test-openapi: deps
	$(MAKE) deps DEB_PACKAGES="$(TEST_DEB_PACKAGES)"
	$(SWIFT) build $(BUILD_FLAGS) --product hush
	scripts/openapi-contract-test "$$($(SWIFT) build --show-bin-path $(BUILD_FLAGS))/hush"

# The soaks at full size: the kill -9 soak (alice and bob exchange SOAK_MESSAGES messages while
# `hush send`, `hush sync` and the relay are killed at random) and the fault soak (three users
# through a proxy that corrupts, duplicates, delays and cuts, with kills and a full disk).
# And the shared-home soak: a long-running `hush listen` beside one-shot `send`/`history`/`sync`
# processes on one home, and `hush audit relay` beside a live relay under load then killed with -9,
# in bursts of SOAK_MESSAGES messages past the databases' checkpoint threshold.
# Loopback only, bounded.
# `make test` runs them with 30, 36 and 260 messages. Replay a run with HUSH_SOAK_SEED=N.
SOAK_MESSAGES ?= 400
soak: deps
	$(SWIFT) build --build-tests $(BUILD_FLAGS)
	HUSH_SOAK_MESSAGES=$(SOAK_MESSAGES) $(SWIFT) test --skip-build $(BUILD_FLAGS) --filter 'KillSoakTests|FaultSoakTests|SharedHomeTests'

# Fuzzing with libFuzzer and AddressSanitizer (Fuzz/, a package of its own).
# Each target runs FUZZ_SECONDS from its committed seeds, FUZZ_JOBS targets at once
# (default: one per core; libFuzzer uses one); `make test` runs FUZZ_SECONDS_IN_TEST
# per target. A crash stops with the input in Fuzz/Findings.
FUZZ_SECONDS ?= 300
FUZZ_SECONDS_IN_TEST ?= 8
FUZZ_TARGETS ?= sealed-sender ratchet session-state content padding address bundle safety-number keystore relay-request vector-file attachment-blob devices
fuzz-build: deps
	cd Fuzz && $(SWIFT) build -c debug --sanitize=fuzzer -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library --product HushFuzz
fuzz: fuzz-build
	Fuzz/run-fuzz $(FUZZ_SECONDS) $(FUZZ_TARGETS)
# Regenerates the seed corpora from the real encoders and Vectors/protocol.
fuzz-seeds: deps
	$(SWIFT) build --build-tests $(BUILD_FLAGS)
	HUSH_WRITE_FUZZ_SEEDS=1 HUSH_FUZZ_SEED_TARGETS="$(TARGETS)" $(SWIFT) test --skip-build $(BUILD_FLAGS) --filter FuzzSeedTests

# The whole suite under AddressSanitizer, and the relay and messenger suites
# under ThreadSanitizer, each in a build directory of its own.
test-asan: deps
	$(SWIFT) build --build-tests --sanitize=address --build-path .build-asan
	ASAN_OPTIONS=detect_leaks=0:suppressions=$(CURDIR)/Tests/asan-suppressions.txt $(SWIFT) test --skip-build --sanitize=address --build-path .build-asan
test-tsan: deps
	$(SWIFT) build --build-tests --sanitize=thread --build-path .build-tsan
	$(SWIFT) test --skip-build --sanitize=thread --build-path .build-tsan --filter 'HushRelayTests|HushMessengerTests'

vectors: build
	$(SWIFT) run --skip-build $(BUILD_FLAGS) hush vectors $(VECTORS)

# What only the benchmarks need: wrk drives the relay from C, and the relay suite
# measures the PostgreSQL driver on a throwaway cluster.
BENCH_DEB_PACKAGES := wrk postgresql
# Release builds link the Swift runtime and Foundation into the binary: a dynamically linked
# `hush` spent a third of its start in the dynamic loader (perf), and every one-shot command,
# through a daemon or not, pays its start. Both builds take the same flags, so they share one
# build of every module.
RELEASE_FLAGS := -c release --static-swift-stdlib
bench: deps
	$(MAKE) deps DEB_PACKAGES="$(BENCH_DEB_PACKAGES)"
	# Release builds of the benchmark and of `hush` (the e2e suite times the real binary).
	$(SWIFT) build $(RELEASE_FLAGS) --product HushBench
	$(SWIFT) build $(RELEASE_FLAGS) --product hush
	$(SWIFT) run $(RELEASE_FLAGS) --skip-build HushBench $(BENCH)

demo: build
	$(SWIFT) run --skip-build $(BUILD_FLAGS) hush demo

# Installing `hush` with a man page per command and shell completions, both
# generated from the command-line definitions (swift-argument-parser's
# generate-manual plugin and --generate-completion-script), so they cannot
# drift from `hush help`. PREFIX and DESTDIR as usual:
#   make install                       # /usr/local, may need sudo
#   make install PREFIX=$$HOME/.local
#   make install DESTDIR=/tmp/stage PREFIX=/usr
PREFIX        ?= /usr/local
DESTDIR       ?=
CONFIGURATION ?= release
BINDIR        := $(DESTDIR)$(PREFIX)/bin
MAN1DIR       := $(DESTDIR)$(PREFIX)/share/man/man1
BASHCOMPDIR   := $(DESTDIR)$(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR    := $(DESTDIR)$(PREFIX)/share/zsh/site-functions
FISHCOMPDIR   := $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d
MAN_OUTPUT    := .build/plugins/GenerateManual/outputs/hush
COMPLETIONS   := .build/completions
# The pages carry the date of the last commit, so the same tree gives the same pages.
MAN_DATE      ?= $(shell git log -1 --format=%cs 2>/dev/null || date +%F)
# A release `hush` is linked as `make bench` links it (RELEASE_FLAGS).
STATIC_FLAG    = $(if $(filter release,$(CONFIGURATION)),--static-swift-stdlib)
HUSH_BIN       = $(shell $(SWIFT) build -c $(CONFIGURATION) $(STATIC_FLAG) --show-bin-path)/hush

man: deps
	rm -rf $(MAN_OUTPUT)
	$(SWIFT) package plugin generate-manual --multi-page --configuration $(CONFIGURATION) --date $(MAN_DATE)

completions: deps
	$(SWIFT) build -c $(CONFIGURATION) $(STATIC_FLAG) --product hush
	mkdir -p $(COMPLETIONS)
	$(HUSH_BIN) --generate-completion-script bash > $(COMPLETIONS)/hush
	$(HUSH_BIN) --generate-completion-script zsh > $(COMPLETIONS)/_hush
	$(HUSH_BIN) --generate-completion-script fish > $(COMPLETIONS)/hush.fish

install: man completions
	install -d $(BINDIR) $(MAN1DIR) $(BASHCOMPDIR) $(ZSHCOMPDIR) $(FISHCOMPDIR)
	install -m 755 $(HUSH_BIN) $(BINDIR)/hush
	install -m 644 $(MAN_OUTPUT)/*.1 $(MAN1DIR)/
	install -m 644 $(COMPLETIONS)/hush $(BASHCOMPDIR)/hush
	install -m 644 $(COMPLETIONS)/_hush $(ZSHCOMPDIR)/_hush
	install -m 644 $(COMPLETIONS)/hush.fish $(FISHCOMPDIR)/hush.fish

uninstall:
	rm -f $(BINDIR)/hush $(MAN1DIR)/hush.1 $(MAN1DIR)/hush.*.1 $(BASHCOMPDIR)/hush $(ZSHCOMPDIR)/_hush $(FISHCOMPDIR)/hush.fish

clean:
	$(SWIFT) package clean
