# Kairos: two commands for everyone — `make demo` and `make test`. Everything else here is
# what those two are made of, and can be run alone.

BUILD      := build
STAGE      := $(abspath $(BUILD)/prefix)
# Where `make install` puts Kairos: make install PREFIX=/opt/kairos
PREFIX     := /usr/local
CPP_GCC    := $(BUILD)/cpp
CPP_CLANG  := $(BUILD)/cpp-clang
DEMO_MODEL := examples/avionics/avionics.tmo
DEMO_OUT   := $(BUILD)/demo/avionics
# The commit the build is of, which `kairos --version` says ("-dirty" with uncommitted changes).
COMMIT     := $(shell git describe --always --dirty --abbrev=12 2>/dev/null || echo unknown)
MVN        := mvn -B -ntp -Dkairos.commit=$(COMMIT)
CMAKE_GEN  := -G Ninja

.PHONY: all setup setup-tests build java java-test cpp cpp-build cpp-clang install demo demo-lan soak test test-java test-cpp test-e2e e2e \
        bench bench-peers bench-lsp vsix dist test-editors studio studio-build format check-format clean

all: build

# What Kairos needs to build and run (scripts/setup.sh); what only the tests need, with their
# Python tools in the virtual environment $(VENV) (scripts/setup-tests.sh).
VENV       := $(BUILD)/venv
setup:
	@scripts/setup.sh

setup-tests: setup
	@scripts/setup-tests.sh

build: setup java cpp

# The Java side: language, language server and the kairos CLI (tests run in `make test`).
# The language server editors start: java -jar language-server/target/kairos-language-server.jar
java:
	$(MVN) -q install -DskipTests
	@# The launcher's class data sharing archive holds the classes of the run that records it: one
	@# that generates loads what check and generate use (a missing clang-format fails it after that).
	@out=$$(mktemp -d) && ./kairos generate $(DEMO_MODEL) -o $$out > /dev/null 2>&1; rm -rf $$out

# The C++ runtime with g++ (the default compiler), installed into $(STAGE) for node builds and
# the tests (with the kairos command, when `make java` has built it).
cpp: cpp-build
	cmake --install $(CPP_GCC) --prefix $(STAGE) > /dev/null

cpp-build:
	cmake -S . -B $(CPP_GCC) $(CMAKE_GEN) -DCMAKE_CXX_COMPILER=g++ -DKAIROS_PLATFORMS="linux;sim"
	cmake --build $(CPP_GCC)

# The release archive, $(BUILD)/dist/kairos-VERSION-linux-x86_64.tar.gz: unpacked anywhere, it runs
# without root and without a JDK (it carries a Java runtime made by jlink); scripts/dist.sh lists
# what is in it, docs/install.md says how to use it.
dist: java cpp-build vsix
	scripts/dist.sh $(BUILD) $(CPP_GCC) $(VSCODE) $(VSIX)

# Kairos for use outside this checkout: the runtime, the CMake package `Kairos` (with
# kairos_generate) and the kairos command, into $(PREFIX) (docs/cmake.md).
install: setup java cpp-build
	cmake --install $(CPP_GCC) --prefix $(PREFIX)

# The same runtime and tests with clang++ (the benchmarks are built with g++ only): both compilers
# must accept it without warnings.
cpp-clang:
	cmake -S . -B $(CPP_CLANG) $(CMAKE_GEN) -DCMAKE_CXX_COMPILER=clang++ -DKAIROS_PLATFORMS="linux;sim" \
	  -DKAIROS_BUILD_BENCH=OFF
	cmake --build $(CPP_CLANG)

demo: build
	@echo "== kairos check: will every deadline of the mission computer hold?"
	./kairos check $(DEMO_MODEL) --html $(DEMO_OUT)/report.html
	@echo "== the same verdict as a page with a timeline per node: $(DEMO_OUT)/report.html"
	@echo "== kairos run: both nodes on this host as deployed (cores that share a CPU analysed"
	@echo "== together), generated, built and run for 2 s, calling each other through their gates"
	@echo "== (mission1 over TCP to mission2, mission2 over UDS to mission1); docs/deploy.md"
	./kairos run $(DEMO_MODEL) --share-cpus --duration 2s -o $(DEMO_OUT)

# The demo system for 10 minutes under kairos run with a CPU hog on every CPU, stopped with SIGTERM:
# no hard miss, every node's summary and timings written (SOAK_DURATION=seconds to change it).
soak: build
	scripts/soak.sh

# The same mission computer on a LAN on one machine: each node in a network namespace of its own,
# joined by a link with the model's latency, jitter and bandwidth (tc netem where the kernel has
# it, else kairos-link-emulator), talking TCP; gate round trips beside their analysed bounds
# (docs/lan.md). Needs root.
demo-lan: build
	python3 tools/lan/demo_lan.py --out $(BUILD)/demo-lan

# Benchmarks print figures beside baselines measured in the same run (see bench/README.md).
# The cubit peers (gRPC C++, Cyclone DDS) are built only when their packages are installed; this
# target installs them first, so that `make bench` always runs them beside the raw baselines.
BENCH_PEER_PACKAGES := libgrpc++-dev protobuf-compiler-grpc protobuf-compiler libprotobuf-dev \
                       cyclonedds-dev cyclonedds-tools
CUBIT_JSON := $(BUILD)/bench/cubit.json
MT_CUBIT_JSON := $(BUILD)/bench/mt_cubit.json
INVERSION_JSON := $(BUILD)/bench/inversion.json
KOKYU_JSON := $(BUILD)/bench/kokyu_regions_linux.json

bench: setup-tests bench-peers cpp bench-lsp
	@command -v cyclictest >/dev/null || (apt-get update -q && apt-get install -y -q rt-tests)
	$(CPP_GCC)/bench/kairos_bench_handoff_latency
	$(CPP_GCC)/bench/kairos_bench_release_lateness
	@mkdir -p $(dir $(CUBIT_JSON))
	$(CPP_GCC)/bench/kairos_bench_cubit --samples 20000 --json $(CUBIT_JSON)
	$(CPP_GCC)/bench/kairos_bench_mt_cubit --json $(MT_CUBIT_JSON)
	$(CPP_GCC)/bench/kairos_bench_inversion --json $(INVERSION_JSON)
	$(CPP_GCC)/bench/kairos_bench_kokyu_regions_linux --samples 5 --cpu 1 \
	  --unthrottled --json $(KOKYU_JSON)
	python3 bench/cubit_plot.py $(CUBIT_JSON) $(MT_CUBIT_JSON) $(INVERSION_JSON) $(KOKYU_JSON)
	$(VENV)/bin/python bench/channels.py --json $(BUILD)/bench/channels.json

# The language server's live schedulability on a 1,000-TMO model, beside `kairos check` in-process.
KAIROS_JAR := generator/target/kairos.jar
LANGUAGE_SERVER_JAR := language-server/target/kairos-language-server.jar
bench-lsp: java
	java -cp $(KAIROS_JAR):$(LANGUAGE_SERVER_JAR) bench/lsp/LspLatency.java --tmos 1000
	java -cp $(KAIROS_JAR):$(LANGUAGE_SERVER_JAR) bench/lsp/LspLatency.java --tmos 1000 --files 20

bench-peers:
	@missing=$$(for p in $(BENCH_PEER_PACKAGES); do dpkg-query -W -f='$${Status}' $$p 2>/dev/null \
	  | grep -q "install ok installed" || echo $$p; done); \
	if [ -n "$$missing" ]; then echo "bench: installing $$missing"; \
	  apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $$missing; fi

# Every suite in turn, each timed (scripts/timed-suites.sh prints where the time went).
test:
	@MAKE="$(MAKE)" scripts/timed-suites.sh setup setup-tests check-format test-java test-cpp \
	  test-editors dist studio-build e2e
	@echo "== all test suites passed"

test-java:
	$(MVN) install

test-cpp: setup-tests cpp cpp-clang
	ctest --test-dir $(CPP_GCC) --output-on-failure --no-tests=error
	ctest --test-dir $(CPP_CLANG) --output-on-failure --no-tests=error

test-e2e: java cpp e2e

# The VS Code extension (editors/vscode): its npm packages from the registry (installed again
# only when package-lock.json changes), the language-server jar inside, packaged by @vscode/vsce.
VSCODE     := editors/vscode
VSIX       := $(BUILD)/editors/kairos.vsix

$(VSCODE)/node_modules/.package-lock.json: $(VSCODE)/package-lock.json
	cd $(VSCODE) && npm ci --no-audit --no-fund

vsix: java $(VSCODE)/node_modules/.package-lock.json
	mkdir -p $(VSCODE)/server $(dir $(VSIX))
	cp $(LANGUAGE_SERVER_JAR) $(VSCODE)/server/kairos-ls.jar
	cp LICENSE $(VSCODE)/LICENSE
	cd $(VSCODE) && npm run --silent build && npx vsce package --no-dependencies --out kairos.vsix
	mv $(VSCODE)/kairos.vsix $(VSIX)

# The extension's own tests (grammar, Java discovery); the packaged .vsix is checked in e2e.
test-editors: vsix
	cd $(VSCODE) && npm test --silent

# Kairos Studio (editors/theia): an Eclipse Theia browser application that runs the extension
# of `make vsix` unpacked (the same files, not a copy of its sources). Its npm packages are
# installed again only when package-lock.json changes; native modules (keytar, drivelist,
# @theia/ffmpeg) compile against the headers of the node in use, never downloaded ones.
THEIA           := editors/theia
STUDIO          := $(BUILD)/studio
STUDIO_PLUGINS  := $(STUDIO)/plugins
STUDIO_WORKSPACE := $(BUILD)/studio-workspace
STUDIO_PORT     ?= 3000
NODE_PREFIX      = $(abspath $(dir $(shell command -v node))..)

$(THEIA)/node_modules/.package-lock.json: $(THEIA)/package-lock.json
	cd $(THEIA) && if [ -f $(NODE_PREFIX)/include/node/node.h ]; then \
	  export npm_config_nodedir=$(NODE_PREFIX); fi; npm ci --no-audit --no-fund

# Production bundles (esbuild, minified, no source maps) into $(THEIA)/lib.
$(THEIA)/lib/backend/main.js: $(THEIA)/node_modules/.package-lock.json $(THEIA)/package.json
	cd $(THEIA) && npx theia build --mode production

studio-build: vsix $(THEIA)/lib/backend/main.js
	rm -rf $(STUDIO_PLUGINS)/kairos && mkdir -p $(STUDIO_PLUGINS)/kairos
	python3 -m zipfile -e $(VSIX) $(STUDIO_PLUGINS)/kairos

# Serves the Studio on localhost:$(STUDIO_PORT) with a workspace of the examples. The copy is made
# once, so edits survive a restart; delete $(STUDIO_WORKSPACE) for fresh examples.
studio: studio-build
	@test -d $(STUDIO_WORKSPACE) || cp -r examples $(STUDIO_WORKSPACE)
	@echo "== Kairos Studio: open http://studio.localhost:$(STUDIO_PORT)/ (Ctrl+C stops it)"
	cd $(THEIA) && THEIA_CONFIG_DIR=$(abspath $(STUDIO)/config) node lib/backend/main.js \
	  $(abspath $(STUDIO_WORKSPACE)) --hostname=127.0.0.1 --port=$(STUDIO_PORT) \
	  --plugins=local-dir:$(abspath $(STUDIO_PLUGINS))

# The end-to-end suites alone, against what is already built; the slowest twenty are named at the
# end, to keep `make test` within its half hour.
e2e: setup-tests
	PATH="$(abspath $(VENV))/bin:$$PATH" $(VENV)/bin/python -m pytest -v --durations=20 tests/e2e

# Formatters: clang-format for C++, google-java-format (through Spotless) for Java.
# clang-format is the pinned one that kairos generate uses too (installed on first use), never the
# one on the PATH. Golden files are compared byte for byte by their tests: not reformatted.
CLANG_FORMAT := scripts/clang-format.sh
# The script and style of the check report's page, formatted by the extension's Prettier.
REPORT_PAGE := reports/src/main/resources/dev/kairos/reports/report
CPP_SOURCES = $(shell git ls-files '*.cpp' '*.hpp' ':!:generator/src/test/resources/golden/**')

format: $(VSCODE)/node_modules/.package-lock.json
	$(CLANG_FORMAT) -i $(CPP_SOURCES)
	$(MVN) -q spotless:apply
	cd $(VSCODE) && npm run --silent format
	$(VSCODE)/node_modules/.bin/prettier --config $(VSCODE)/.prettierrc.json --write $(REPORT_PAGE)

check-format: $(VSCODE)/node_modules/.package-lock.json
	$(CLANG_FORMAT) --dry-run -Werror $(CPP_SOURCES)
	$(MVN) -q spotless:check
	cd $(VSCODE) && npm run --silent format:check
	$(VSCODE)/node_modules/.bin/prettier --config $(VSCODE)/.prettierrc.json --check $(REPORT_PAGE)

clean:
	rm -rf $(BUILD) $(VSCODE)/out $(VSCODE)/out-test $(VSCODE)/server $(THEIA)/lib $(THEIA)/src-gen
	$(MVN) -q clean
