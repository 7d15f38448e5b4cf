# Two commands on a fresh machine: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test test-fast test-ts lint venv bench clean test-integrations integration-venvs system-deps dist

# The lab extension is built by the editable install: rebuild when its source changes.
LABEXT_SRC := labextension/package.json $(wildcard labextension/src/*.ts labextension/style/*.css)

$(STAMP): pyproject.toml $(LABEXT_SRC)
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@# Quiet on success; the whole pip log is shown when the install fails.
	@( $(BIN)/python -m pip install -q --upgrade pip && \
	   $(BIN)/python -m pip install -q -e '.[dev]' ) > $(VENV)/install.log 2>&1 \
	  || { cat $(VENV)/install.log; echo "make: installing into $(VENV) failed (log above)"; exit 1; }
	@touch $(STAMP)

venv: $(STAMP)

demo: $(STAMP)
	@$(BIN)/jupyter-memory demo
	@$(BIN)/jupyter-memory notebook-demo

# mypy --strict (pyproject.toml) on the whole package; import-linter: layers, domain
# order, facade above the domain services, no import cycles ([tool.importlinter]).
# The lab extension's lint (prettier, then eslint with type information) runs beside
# the Python checks, each on a core: on a fresh clone, without .mypy_cache or
# .eslintcache, mypy takes ~35 s and the lab's lint ~40 s of CPU. Its output is
# shown when it fails; make waits for both and fails if either failed.
lint: $(STAMP)
	@ts=$$(mktemp) || exit 1; \
	( cd labextension && PATH="$(CURDIR)/$(BIN):$$PATH" jlpm lint:check ) > $$ts 2>&1 & lab=$$!; \
	$(BIN)/ruff check -q jupyter_memory tests benchmarks && \
	$(BIN)/ruff format -q --check jupyter_memory tests benchmarks && \
	$(BIN)/mypy --no-error-summary jupyter_memory && \
	{ out=$$($(BIN)/lint-imports --no-cache 2>&1) || { echo "$$out"; false; }; } && \
	{ out=$$($(BIN)/deptry --no-ansi jupyter_memory 2>&1) || { echo "$$out"; false; }; }; py=$$?; \
	wait $$lab; labrc=$$?; [ $$labrc -eq 0 ] || { cat $$ts; echo "make: jlpm lint:check failed (above)"; }; \
	rm -f $$ts; [ $$py -eq 0 ] && [ $$labrc -eq 0 ]

# What the tests need from the system: Debian's chromium (browser suite) and CJK
# fonts (screenshots of Chinese text). As root they are installed with apt-get;
# otherwise make stops at once with the command to run.
SYSTEM_PACKAGES := chromium fonts-noto-cjk
system-deps:
	@missing=""; \
	command -v chromium >/dev/null 2>&1 || missing="$$missing chromium"; \
	{ command -v fc-list >/dev/null 2>&1 && fc-list :lang=zh | grep -q . ; } || missing="$$missing fonts-noto-cjk"; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    ( export DEBIAN_FRONTEND=noninteractive; apt-get update -qq && \
	      apt-get install -y -qq $(SYSTEM_PACKAGES) ) > /tmp/jupyter-memory-apt.log 2>&1 \
	      || { cat /tmp/jupyter-memory-apt.log; echo "make: apt-get install$$missing failed (log above)"; exit 1; }; \
	  else \
	    echo "make: the tests need$$missing from the system; run:"; \
	    echo "  sudo apt-get install -y $(SYSTEM_PACKAGES)"; exit 1; \
	  fi; \
	fi

# Bytecode is cached even where PYTHONDONTWRITEBYTECODE is set: the suite starts many
# Python processes (kernels, servers, CLI and writer subprocesses), each otherwise
# compiling the package again, and pytest would rewrite every test module's asserts again.
#
# pytest-xdist workers: most of the suite waits (on servers, Chromium, writer
# subprocesses, fsyncs), not on a core, so more workers than the two cores pay.
# --dist loadfile keeps a file's tests on one worker (its module fixtures start once);
# the browser folder makes two units, each with one lab and one Chromium
# (tests/support/xdist_units.py). Each worker has Jupyter and IPython folders of its
# own even for module- and session-scoped fixtures, which had shared ~/.ipython with
# every other worker (tests/support/process_dirs.py).
#
# The tests marked `kernel` (nbclient/jupyter_client kernels: tests/support/markers.py)
# run on the workers with the rest. They had been run afterwards in one process, because
# beside the workers a kernel test sometimes waited out a timeout for a kernel that
# looked idle (ipykernel's issue 1554 was suspected; ipykernel 7.4 has its fix). A
# wait found since was in the tests' client: the MCP loop test ran a cell inside asyncio.run,
# its sockets were then watched by two event loops, and the loop jupyter_core keeps per
# thread still watched their file descriptors after they closed, unknown to epoll; the
# next client whose socket got the same number never woke (60 s lost in one process,
# a failure where a wait was shorter). A test that leaves such a descriptor fails now
# (tests/support/event_loops.py); 5 of 5 runs of the kernel tests on 3 workers passed
# beside two CPU burners and another xdist run. nbclient waits up to 60 s for a cell's
# output after its reply and fails if it never comes, and a graceful shutdown waits up
# to 60 s for the kernel's atexit work, not 2.5 s before a SIGTERM (tests/support/kernels.py).
# TEST_WORKERS=N for another count of workers.
TEST_WORKERS ?= 3
#
# Temporary files (every tmp_path, memory home, kernel, server and browser profile) go to
# a folder of this run on tmpfs when /dev/shm has 4 GB free: the suite makes thousands of
# fsyncs, which wait on a disk other work shares. The files are real files on a local
# POSIX file system either way, and a test's SIGKILL loses nothing on either (only a power
# cut would tell them apart, and no test makes one). The folder goes when the run passes.
TEST_TMP_ON := $(shell [ -d /dev/shm ] && [ -w /dev/shm ] && \
  [ "$$(df -Pk /dev/shm 2>/dev/null | awk 'NR==2 {print $$4}')" -gt 4194304 ] 2>/dev/null && echo /dev/shm)
PYTEST := env -u PYTHONDONTWRITEBYTECODE $(BIN)/python -m pytest
SUITE := not jupyter_ai and not wheel
PYTEST_SUITE := $(PYTEST) -n $(TEST_WORKERS) --dist loadfile -m '$(SUITE)'
# Lint and the TypeScript tests run beside the suite (niced, into a log shown only when
# they fail): the suite mostly waits on servers, kernels and Chromium, and the two took
# about a minute of wall time before it on a 2-core machine.
test: system-deps $(STAMP) $(NODE_STAMP)
	@checks=$$(mktemp) || exit 1; \
	nice -n 5 $(MAKE) --no-print-directory lint test-ts >$$checks 2>&1 & checks_pid=$$!; \
	tmp=; if [ -n "$(TEST_TMP_ON)" ]; then \
	  tmp=$$(mktemp -d $(TEST_TMP_ON)/jupyter-memory-tests.XXXXXX) || exit 1; export TMPDIR=$$tmp; fi; \
	$(PYTEST_SUITE); rc=$$?; \
	wait $$checks_pid; checks_rc=$$?; \
	if [ $$checks_rc -ne 0 ]; then cat $$checks; echo "make: lint or the TypeScript tests failed (above)"; fi; \
	rm -f $$checks; \
	if [ -n "$$tmp" ]; then \
	  if [ $$rc -eq 0 ]; then rm -rf "$$tmp"; \
	  else echo "make: this run's temporary files are in $$tmp (tmpfs: remove it when done)"; fi; fi; \
	[ $$rc -eq 0 ] && [ $$checks_rc -eq 0 ]

# The inner loop: no browser, kernel, server or embedding model (markers added by what
# a test starts, tests/support/markers.py) and nothing marked slow; no lint, no system
# packages. `make test` runs all of these too. On the workers `make test` uses (the
# same --dist loadfile units): in one process the tests took 99 s of pytest on an idle
# 2-core machine, over the 90 s this loop is meant to take; about 86 s of that is CPU,
# which two cores share, and the rest waits (git, CLI subprocesses, fsyncs).
FAST_MARKERS := not browser and not kernel and not server and not model and not slow and not jupyter_ai and not wheel
test-fast: $(STAMP) test-ts
ifeq ($(TEST_TMP_ON),)
	@$(PYTEST) -n $(TEST_WORKERS) --dist loadfile -m '$(FAST_MARKERS)'
else
	@tmp=$$(mktemp -d $(TEST_TMP_ON)/jupyter-memory-tests.XXXXXX) || exit 1; \
	TMPDIR=$$tmp $(PYTEST) -n $(TEST_WORKERS) --dist loadfile -m '$(FAST_MARKERS)'; rc=$$?; \
	rm -rf "$$tmp"; exit $$rc
endif

# The lab extension's unit tests (vitest: the knowledge editor's state machine, the
# preview's diff; labextension/test/), type-checked first. Node packages are installed
# as the build installs them (jlpm install, from yarn.lock), again only when yarn.lock or
# package.json is newer than the last install (a second per run otherwise); quiet on success.
NODE_STAMP := labextension/node_modules/.jm-installed

$(NODE_STAMP): labextension/yarn.lock labextension/package.json | $(STAMP)
	@cd labextension && export PATH="$(CURDIR)/$(BIN):$$PATH" && \
	  { out=$$(jlpm install 2>&1) || { echo "$$out"; echo "make: jlpm install failed (above)"; exit 1; }; }
	@touch $@

test-ts: $(STAMP) $(NODE_STAMP)
	@cd labextension && export PATH="$(CURDIR)/$(BIN):$$PATH" && \
	  { out=$$(jlpm test 2>&1) || { echo "$$out"; exit 1; }; }

# sdist + wheel in dist/, with the production build of the lab extension (needs Node).
# Built again only when a file the sdist takes (what git would commit, as
# scripts/build_dist.py stages it) is newer than the last build.
DIST_STAMP := dist/.built
DIST_SRC := $(wildcard $(shell git ls-files --cached --others --exclude-standard 2>/dev/null))
dist: $(DIST_STAMP)
$(DIST_STAMP): pyproject.toml $(DIST_SRC) | $(STAMP)
	@rm -f dist/jupyter_memory-* $@
	@$(BIN)/python scripts/build_dist.py dist
	@touch $@

# Jupyter AI (its own venv: its server extensions must not load in the other
# suites' servers; persona, jupyter-server-mcp tools, mcp 1.x) and the mcp 2.x line.
# Installed again only when pyproject.toml changes, after the dev venv (whose
# editable install built the lab extension these editable installs then find
# built). --no-compile: these venvs serve only the pytest runs below, which write
# the bytecode of what they import (PYTHONDONTWRITEBYTECODE unset, as for `make
# test`), instead of pip compiling every module of every package first. `.ci/run`
# makes them (and dist) while `make test` runs.
INTEG := .venv-integrations
MCP2 := .venv-mcp2
INTEG_PYTEST := env -u PYTHONDONTWRITEBYTECODE LITELLM_LOCAL_MODEL_COST_MAP=True $(INTEG)/bin/python -m pytest -p no:cacheprovider
MCP2_PYTEST := env -u PYTHONDONTWRITEBYTECODE $(MCP2)/bin/python -m pytest -p no:cacheprovider

$(INTEG)/.installed: pyproject.toml | $(STAMP)
	@test -x $(INTEG)/bin/python || $(PYTHON) -m venv $(INTEG)
	@$(INTEG)/bin/python -m pip install -q --no-compile -e '.[dev,jupyter-ai]' > $(INTEG)/install.log 2>&1 \
	  || { cat $(INTEG)/install.log; echo "make: installing into $(INTEG) failed (log above)"; exit 1; }
	@touch $@

$(MCP2)/.installed: pyproject.toml | $(STAMP)
	@test -x $(MCP2)/bin/python || $(PYTHON) -m venv $(MCP2)
	@$(MCP2)/bin/python -m pip install -q --no-compile -e '.[mcp]' pytest hypothesis 'mcp>=2,<3' > $(MCP2)/install.log 2>&1 \
	  || { cat $(MCP2)/install.log; echo "make: installing into $(MCP2) failed (log above)"; exit 1; }
	@touch $@

integration-venvs: $(INTEG)/.installed $(MCP2)/.installed

# The three suites mostly wait (on servers, kernels, pip in the wheel's fresh venv),
# so they run at once, each into a log of its own, shown one after another when all
# have ended; make fails if any failed, naming which. Jupyter AI's venv runs the tests
# that need Jupyter AI (marked jupyter_ai) and %%ask beside its packages: the rest of
# tests/agents runs in `make test` (mcp 1.x) and in the mcp 2.x venv, and running it a
# third time here cost CI about two minutes of two cores. The wheel from `make dist` is
# installed in a fresh venv without Node: extensions, demo, a browser smoke test.
test-integrations: dist integration-venvs
	@logs=$$(mktemp -d $${TMPDIR:-/tmp}/jupyter-memory-integrations.XXXXXX) || exit 1; \
	{ $(INTEG_PYTEST) -m jupyter_ai tests/agents && $(INTEG_PYTEST) tests/magics/test_ask_magic.py; } \
	  > $$logs/jupyter-ai.log 2>&1 & ai=$$!; \
	$(MCP2_PYTEST) -m 'not jupyter_ai' tests/agents > $$logs/mcp2.log 2>&1 & mcp2=$$!; \
	JM_WHEEL="$$(ls dist/jupyter_memory-*.whl)" $(BIN)/python -m pytest -p no:cacheprovider -m wheel tests/packaging \
	  > $$logs/wheel.log 2>&1 & wheel=$$!; \
	failed=""; \
	for suite in jupyter-ai:$$ai mcp2:$$mcp2 wheel:$$wheel; do \
	  wait $${suite#*:} || failed="$$failed $${suite%%:*}"; \
	  echo "== $${suite%%:*}"; cat $$logs/$${suite%%:*}.log; \
	done; \
	rm -rf $$logs; \
	if [ -n "$$failed" ]; then echo "make: integration suites failed:$$failed (logs above)"; exit 1; fi
	@cat test-output/packaging/figures.json

bench: $(STAMP)
	@$(BIN)/python benchmarks/recall_bench.py

clean:
	rm -rf $(VENV) build dist .pytest_cache .mypy_cache .ruff_cache
