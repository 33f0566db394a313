# The two set-up commands of the README:
#   make demo   install dependencies, build, run the default example
#   make test   install dependencies, build, run every C++ and Python test
PYTHON := /usr/bin/python3
BUILD_DIR := build
JOBS ?= 2
DEMO ?= examples/spheres_on_plate

.PHONY: all deps test-deps benchmark-deps configure build demo test cpp-test python-test clean format

all: build

deps:
	@bash scripts/install_dependencies.sh

test-deps:
	@bash scripts/install_dependencies.sh --test-tools

benchmark-deps:
	@bash scripts/install_benchmark_dependencies.sh

configure: deps
	@if [ ! -f $(BUILD_DIR)/build.ninja ]; then \
	  cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=Release \
	        -DPython3_EXECUTABLE=$(PYTHON); \
	fi

build: configure
	cmake --build $(BUILD_DIR) -j$(JOBS)

demo: build
	$(BUILD_DIR)/bin/tessera run $(DEMO)

cpp-test: build test-deps
	cd $(BUILD_DIR) && ctest --output-on-failure -j$(JOBS)

python-test: build test-deps
	PYTHONPATH=$(CURDIR)/$(BUILD_DIR)/python $(PYTHON) -m pytest -q tests/python $(wildcard applications/*/tests/python)

test: cpp-test python-test

format:
	find kernel applications tests benchmarks -name '*.h' -o -name '*.cpp' | xargs clang-format -i

clean:
	rm -rf $(BUILD_DIR)
