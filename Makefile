# Nebula's entry point for building, running, testing and linting.
#
#   make deps    check (and install, where allowed) the Debian packages below
#   make run     build cmd/nebula-demo into bin/ and run it; pass flags with ARGS="-frames 300"
#   make test    go vet, the race-enabled tests with real OpenGL, every benchmark once (-short), the simulation tests on arm64, 386 and amd64-v3, the demo's sync test, a short fuzz pass
#   make stress  tests run N times while every core is kept busy: make stress TESTS='./engine:^TestProfile ./timing:.' N=20
#   make stress-suite  the whole make test (bash .ci/run) in RUNS fresh clones while every core is kept busy; RUNS=2
#   make bench   all benchmarks, then the real-time pacer benchmark with a fixed count
#   make lint    gofmt, go vet, staticcheck
#   make api     at a release: record the public API in api/ as the change log's latest version (CONTRIBUTING.md)
#   make image   the match server's container image (deploy/Dockerfile) with podman; IMAGE=name:tag
#   make bench-physics  cmd/nebula-physics beside Rapier and Jolt on the shared physics scenes (not part of test)
#   make bench-joints   bench-physics's scenes with joints (nebula-scene/2) only, with their joint errors
#   make server  build cmd/nebula-server, the dedicated game server, as a static binary (CGO_ENABLED=0) into bin/
#   make loadtest  N servers of 4 bots each on loopback: matches per core, memory per match, tick p99 (not part of test); LOAD_MATCHES=4,8,16
#   make deps-physics   check for node and npm (bench-physics's reference engines), installing Debian's if missing
#
# GL and window code needs an X display. Where $DISPLAY is empty, the targets
# that need one run under xvfb-run (Xvfb with Mesa's llvmpipe renderer).

GO ?= go
BIN_DIR := bin
DEMO := $(BIN_DIR)/nebula-demo
SERVER := $(BIN_DIR)/nebula-server
ARGS ?=

# Debian packages the build and the tests need, in one place:
#   gcc libc6-dev pkg-config            cgo, and pkg-config for go-gl/gl's "#cgo pkg-config: gl"
#   libx11-dev libxcursor-dev libxrandr-dev libxinerama-dev libxi-dev libxxf86vm-dev
#                                       headers and libraries GLFW's X11 backend is compiled against
#   libgl1-mesa-dev libgl1-mesa-dri     libGL and its headers; Mesa's software (llvmpipe) driver
#   xvfb xauth                          a virtual X display for tests and headless machines (xvfb-run)
#   xdotool                             drives windows in the window tests
#   jwm                                 a small window manager: Xvfb has none, and without one
#                                       nothing minimises, restores or politely closes a window
#   qemu-user                           qemu-aarch64, which runs the arm64 build of the engine's
#                                       and the demo scene's tests (scripts/crossarch.sh)
#   podman                              builds the server's container image (make image, and
#                                       the test that builds it, unpacks it and runs its binary)
#   vorbis-tools                        oggenc, which makes the Ogg Vorbis files the sound
#                                       decoder's tests read (engine/sound/decode)
#   libasound2-dev                      ALSA's headers and library, which the audio output
#                                       (ebitengine/oto, engine/sound/device) is compiled against
#   pulseaudio pulseaudio-utils libasound2-plugins
#                                       a real audio server for the device's test (a null sink,
#                                       recorded from its monitor with parecord), reached from
#                                       ALSA through its pulse plugin
DEB_PACKAGES := gcc libc6-dev pkg-config \
	libx11-dev libxcursor-dev libxrandr-dev libxinerama-dev libxi-dev libxxf86vm-dev \
	libgl1-mesa-dev libgl1-mesa-dri \
	xvfb xauth xdotool jwm \
	qemu-user \
	podman \
	vorbis-tools \
	libasound2-dev pulseaudio pulseaudio-utils libasound2-plugins

# The Agones SDK server (its local mode) that the Agones tests run against
# (internal/agones, cmd/nebula-server): its binary, or a wrapper that execs
# it, outside the repository, so no default: make test
# AGONES_SDK_SERVER=PATH. Without it those tests skip with a line saying so.
AGONES_SDK_SERVER ?=

# Pinned linter; `go run pkg@version` does not touch go.mod.
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2

# The screen is spelled out rather than left to xvfb-run's default (which
# differs between distributions and versions): the GL tests need a 24-bit
# TrueColor visual and room for their windows. -noreset: by default Xvfb
# resets whenever its last client disconnects, and a test that connects
# during the reset is refused ("Failed to open display"), about one run in
# four when GL test packages open and close windows back to back.
XVFB_RUN := xvfb-run -a -s "-screen 0 1280x1024x24 -noreset"
ifeq ($(DISPLAY),)
WITH_DISPLAY := $(XVFB_RUN)
else
WITH_DISPLAY :=
endif

# Benchmarks whose names start with BenchmarkPacer sleep through real frames,
# so `-bench=.` would spend minutes growing b.N; they run on their own with a
# fixed count instead. RE2 has no negative lookahead, so "every benchmark not
# starting with BenchmarkPacer" is spelled out.
BENCH_ALL_BUT_PACER := ^Benchmark([^P]|P[^a]|Pa[^c]|Pac[^e]|Pace[^r]|(|P|Pa|Pac|Pace)$$)
PACER_BENCH := ^BenchmarkPacer
PACER_BENCHTIME := 1440x

# Physics benchmark: cmd/nebula-physics beside the reference engines'
# runners (Rapier's deterministic build, Jolt), all reading the same
# nebula-scene/1 and /2 files. PHYSICS_DIR is the folder with FORMAT.md, scenes/
# and anchors/, kept outside this repository: pass it, make bench-physics
# PHYSICS_DIR=DIR (its README explains the anchors, which install their pinned
# npm packages into ~/.cache on first use). compare.mjs runs (run, scene,
# engine) round-robin and prints min / median of each figure, and for
# scenes with joints a table of their errors (max / mean after the last
# step / peak); scripts/physics-ratios.mjs then prints the ratios to Rapier,
# with the joint errors beside them. make bench-physics runs the piles
# and the joint scenes; make bench-joints only PHYSICS_JOINT_SCENES.
PHYSICS_DIR ?=
PHYSICS_JOINT_SCENES ?= pendulum chain-50 ragdolls-100 bridge-40 hinge-motor joint-types
PHYSICS_SCENES ?= pile-1000 pile-4000 spheres-1000 $(PHYSICS_JOINT_SCENES)
PHYSICS_RUNS ?= 3
PHYSICS_ANCHORS ?= rapier jolt
PHYSICS_RUNNER := $(BIN_DIR)/nebula-physics
PHYSICS_JSON ?= $(BIN_DIR)/bench-physics.json

# The match server's container image (deploy/Dockerfile: the static
# binary FROM scratch), built with podman from a folder holding only the
# binary. deploy/fleet.yaml names this image; push it where the cluster
# pulls from and change the name there.
IMAGE ?= nebula-server:dev
IMAGE_DIR := $(BIN_DIR)/image

.PHONY: help deps build run test stress stress-suite bench lint api clean deps-physics bench-physics bench-joints server loadtest image

help:
	@sed -n 's/^#   \(make .*\)/\1/p' $(firstword $(MAKEFILE_LIST))

deps:
	@.ci/debian-deps.sh $(DEB_PACKAGES)

build: deps
	$(GO) build ./...

run: deps
	@mkdir -p $(BIN_DIR)
	$(GO) build -o $(DEMO) ./cmd/nebula-demo
ifeq ($(DISPLAY),)
	@echo 'make run: no $$DISPLAY, running under $(XVFB_RUN)'
endif
	$(WITH_DISPLAY) $(DEMO) $(ARGS)

# The test packages run one at a time (-p 1): the window tests of several
# packages share one X server, its keyboard and its pointer, and the GL
# tests share two cores with Mesa's rasteriser threads. Run side by side,
# one package's key presses, pointer moves and load landed in another's
# windows and frames (a key held for seconds, a frame with a burst of
# ticks). Each package still fails on its own after 5 minutes.
#
# scripts/crossarch.sh then runs the pure-Go simulation packages' tests
# (engine, engine/detmath, engine/anim, engine/replay, engine/rollback,
# engine/physics and its scene format, the demo scene with its golden
# hash) again as GOARCH=arm64 under qemu-aarch64, GOARCH=386 and
# GOAMD64=v3 builds, where Go fuses multiply-adds: the same hashes and
# bits on every build. About 3 minutes here with a warm build cache, most
# of it arm64's tests under qemu; one line per architecture. An
# architecture this machine cannot run (no IA-32 emulation in its kernel,
# no qemu-aarch64) is skipped with a line saying why; crossarch_test.sh
# checks that with fake emulators.
#
# Every benchmark runs once (-benchtime 1x), the pacer's too, with -short:
# the match benchmarks then play short matches (benchSize). A benchmark
# that no longer builds or fails its own checks fails make test. About
# 60 s, most of it the demo's matches and windows.
#
# -timeout only catches a hang: the demo's package alone takes about 210 s
# under -race on a 2-core machine, so the limit per package is 10 minutes.
test: deps
	$(GO) vet ./...
	# The public API against the last release's (api/): an incompatible
	# change not named in CHANGELOG.md's Unreleased section fails.
	$(GO) run ./internal/apicheck
	AGONES_SDK_SERVER='$(AGONES_SDK_SERVER)' NEBULA_REQUIRE_GL=1 NEBULA_REQUIRE_AUDIO=1 $(WITH_DISPLAY) $(GO) test -race -p 1 -timeout 10m ./...
	NEBULA_REQUIRE_GL=1 $(WITH_DISPLAY) $(GO) test -short -run='^$$' -bench=. -benchtime=1x -p 1 -timeout 5m ./...
	GO=$(GO) scripts/crossarch_test.sh
	GO=$(GO) scripts/crossarch.sh
	# The demo's sync tests at full length (3,600 ticks of the scene and
	# 600 of the physics mode, 8 deep), which the race detector makes too
	# slow to run above.
	$(GO) test -run='^TestSyncTest(Physics)?$$' -count=1 ./cmd/nebula-demo
	# Fuzz budgets are counts of runs (about 10 s each here), not
	# durations: at a -fuzztime deadline Go 1.26's fuzz coordinator can
	# fail a target with "context deadline exceeded" and no finding
	# (golang/go#75804, fixed in Go 1.27), which a busy worker makes
	# likely. Minimising a new input is bounded the same way.
	$(GO) test -run='^$$' -fuzz=FuzzLoopTick -fuzztime=50000x -fuzzminimizetime=100x ./timing
	$(GO) test -run='^$$' -fuzz=FuzzOpen -fuzztime=100000x -fuzzminimizetime=100x ./engine/replay
	$(GO) test -run='^$$' -fuzz=FuzzTornTail -fuzztime=10000x -fuzzminimizetime=100x ./engine/replay
	$(GO) test -run='^$$' -fuzz=FuzzRestore -fuzztime=10000x -fuzzminimizetime=100x ./engine
	$(GO) test -run='^$$' -fuzz=FuzzReadMessage -fuzztime=60000x -fuzzminimizetime=100x ./engine/netplay/wire
	$(GO) test -run='^$$' -fuzz=FuzzOpen -fuzztime=100000x -fuzzminimizetime=100x ./engine/netplay/token
	$(GO) test -run='^$$' -fuzz=FuzzStreamRead -fuzztime=30000x -fuzzminimizetime=100x ./engine/netplay/seal
	$(GO) test -run='^$$' -fuzz=FuzzPacketsOpen -fuzztime=30000x -fuzzminimizetime=100x ./engine/netplay/seal
	$(GO) test -run='^$$' -fuzz=FuzzParsePacket -fuzztime=150000x -fuzzminimizetime=100x ./engine/netplay/udp
	$(GO) test -run='^$$' -fuzz=FuzzConnReceive -fuzztime=25000x -fuzzminimizetime=100x ./engine/netplay/udp
	$(GO) test -run='^$$' -fuzz=FuzzClientMessages -fuzztime=12000x -fuzzminimizetime=100x ./engine/netplay
	$(GO) test -run='^$$' -fuzz=FuzzDecodeWatchLine -fuzztime=20000x -fuzzminimizetime=100x ./internal/agones
	$(GO) test -run='^$$' -fuzz=FuzzFromDocument -fuzztime=5000x -fuzzminimizetime=100x ./engine/model
	$(GO) test -run='^$$' -fuzz=FuzzBytes -fuzztime=30000x -fuzzminimizetime=100x ./engine/sound/decode
	$(GO) test -run='^$$' -fuzz=FuzzStream -fuzztime=30000x -fuzzminimizetime=100x ./engine/sound/decode
	# Physics: the names are anchored, as FuzzCollide is also the start
	# of FuzzCollideMesh's (-fuzz must match one target).
	$(GO) test -run='^$$' -fuzz='^FuzzCollide$$' -fuzztime=120000x -fuzzminimizetime=100x ./engine/physics
	$(GO) test -run='^$$' -fuzz='^FuzzCollideMesh$$' -fuzztime=120000x -fuzzminimizetime=100x ./engine/physics
	$(GO) test -run='^$$' -fuzz='^FuzzContactsUnmarshal$$' -fuzztime=60000x -fuzzminimizetime=100x ./engine/physics
	$(GO) test -run='^$$' -fuzz='^FuzzPairs$$' -fuzztime=35000x -fuzzminimizetime=100x ./engine/physics
	$(GO) test -run='^$$' -fuzz='^FuzzQueries$$' -fuzztime=3000x -fuzzminimizetime=100x ./engine/physics
	$(GO) test -run='^$$' -fuzz='^FuzzAddCompound$$' -fuzztime=20000x -fuzzminimizetime=100x ./engine/physics
	$(GO) test -run='^$$' -fuzz='^FuzzConvexHull$$' -fuzztime=20000x -fuzzminimizetime=100x ./engine/physics
	$(GO) test -run='^$$' -fuzz='^FuzzHeightField$$' -fuzztime=20000x -fuzzminimizetime=100x ./engine/physics
	$(GO) test -run='^$$' -fuzz='^FuzzParse$$' -fuzztime=100000x -fuzzminimizetime=100x ./engine/physics/scene

# The tests that touch time, windows or sockets (scripts/stress.sh's
# default set, or TESTS='PKG:REGEX ...'), N times each while one spinning
# process per core competes for the CPU; pass and fail counts per test.
N ?= 20
TESTS ?=
stress: deps
	GO=$(GO) N=$(N) TESTS='$(TESTS)' scripts/stress.sh

# The whole suite as CI runs it (bash .ci/run in a fresh clone of HEAD),
# RUNS times, with one spinning process per core for the whole run: no
# test may rely on an idle machine. One line per run: pass or FAIL, and
# its wall time. Not part of test (it runs test).
RUNS ?= 2
stress-suite: deps
	RUNS=$(RUNS) scripts/stress-suite.sh

# The dedicated server needs no cgo, no GL and no Debian package: a
# static binary that runs anywhere (a container FROM scratch).
server:
	@mkdir -p $(BIN_DIR)
	CGO_ENABLED=0 $(GO) build -o $(SERVER) ./cmd/nebula-server

# cmd/nebula-loadtest starts LOAD_MATCHES (each count in turn) servers on
# loopback with 4 bot players each, at 60 Hz, and prints a table per
# count: the servers' CPU (matches per core), resident memory per match
# and tick time. About 25 s per count; the figures are this machine's,
# and only as steady as its other load.
LOAD_MATCHES ?= 4,8,16
LOAD_ARGS ?=
loadtest: server
	$(GO) run ./cmd/nebula-loadtest -server $(SERVER) -matches $(LOAD_MATCHES) $(LOAD_ARGS)

bench: deps
	$(WITH_DISPLAY) $(GO) test -run='^$$' -bench='$(BENCH_ALL_BUT_PACER)' -benchmem ./...
	$(GO) test -run='^$$' -bench='$(PACER_BENCH)' -benchtime=$(PACER_BENCHTIME) ./timing

# node 18 or later and npm run the reference engines. Debian's packages
# are installed only when a command is missing (a node from elsewhere,
# such as NodeSource's, which bundles npm, is kept).
deps-physics:
	@if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then \
		.ci/debian-deps.sh nodejs npm; \
	fi
	@node -e 'const v = +process.versions.node.split(".")[0]; if (v < 18) { console.error("deps-physics: node " + process.version + " is too old; the anchors need 18 or later"); process.exit(1) }'

bench-physics: deps-physics
	@test -n "$(PHYSICS_DIR)" -a -f "$(PHYSICS_DIR)/anchors/compare.mjs" || { \
		echo "bench-physics: PHYSICS_DIR=\"$(PHYSICS_DIR)\" has no anchors/compare.mjs; run make bench-physics PHYSICS_DIR=DIR, DIR the folder with the nebula-scene scenes/ and the reference runners' anchors/"; exit 1; }
	@mkdir -p $(BIN_DIR)
	$(GO) build -o $(PHYSICS_RUNNER) ./cmd/nebula-physics
	node $(PHYSICS_DIR)/anchors/compare.mjs --runs $(PHYSICS_RUNS) --json $(PHYSICS_JSON) \
		$(foreach a,$(PHYSICS_ANCHORS),--engine $(a)) --engine "nebula=$(PHYSICS_RUNNER)" \
		$(foreach s,$(PHYSICS_SCENES),$(PHYSICS_DIR)/scenes/$(s).json)
	node scripts/physics-ratios.mjs $(PHYSICS_JSON) $(firstword $(PHYSICS_ANCHORS))

# The scenes with joints, their runs kept apart from bench-physics's.
bench-joints:
	$(MAKE) bench-physics PHYSICS_SCENES="$(PHYSICS_JOINT_SCENES)" PHYSICS_JSON=$(BIN_DIR)/bench-joints.json

image: deps
	@mkdir -p $(IMAGE_DIR)
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags='-s -w' -o $(IMAGE_DIR)/nebula-server ./cmd/nebula-server
	podman build -t $(IMAGE) -f deploy/Dockerfile $(IMAGE_DIR)

lint: deps
	@unformatted="$$(gofmt -l .)"; \
	if [ -n "$$unformatted" ]; then \
		echo "gofmt: these files are not formatted (run gofmt -w on them):"; \
		echo "$$unformatted"; \
		exit 1; \
	fi
	$(GO) vet ./...
	$(GO) run $(STATICCHECK) ./...

# At a release, once CHANGELOG.md's Unreleased entries are under the new
# version's heading: record the public API as that version's
# (api/nebula.export for apidiff, api/nebula.txt to read). CONTRIBUTING.md.
api:
	$(GO) run ./internal/apicheck -write

clean:
	rm -rf $(BIN_DIR)
