# Two commands do all the set-up on a fresh machine: `make run` and `make test`.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STACK := $(PY) scripts/stack.py
LOCALES := $(wildcard locale/*/LC_MESSAGES/django.po)
MO := $(LOCALES:.po=.mo)

# The long API fuzz run: many generated requests per operation, site and visitor/member.
FUZZ_EXAMPLES ?= 300

.PHONY: run test screenshots bench fuzz soak lint typecheck vitest pytest assets messages makemessages chromium caddy clean

run: $(VENV)/.installed node_modules/.installed assets messages
	$(STACK) run

test: $(VENV)/.installed node_modules/.installed assets messages chromium caddy
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	npm run --silent typecheck
	npm run --silent test
	$(STACK) test $(PYTEST_ARGS)

# The main screens of both demo sites at 390 and 1280 px into docs/screenshots/ and
# docs/screenshots.md, on a throwaway database (scripts/screenshots.py).
screenshots: $(VENV)/.installed node_modules/.installed assets messages chromium
	$(STACK) test scripts/screenshots.py -q -p no:randomly

fuzz: $(VENV)/.installed node_modules/.installed assets messages
	FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) $(STACK) test apps/common/tests/test_fuzz_api.py $(PYTEST_ARGS)

# Ten minutes of members on two sites (bench/bench_soak.py); SOAK_MINUTES, SOAK_USERS.
soak: $(VENV)/.installed node_modules/.installed assets messages
	$(STACK) exec -- $(PY) -m bench --only soak $(BENCH_ARGS)

bench: $(VENV)/.installed node_modules/.installed assets messages chromium
	$(STACK) exec -- $(PY) -m bench $(BENCH_ARGS)

$(VENV)/.installed: requirements.txt
	$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' || { echo "Python >= 3.11 is needed"; exit 1; }
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.txt
	touch $@

node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	touch $@

assets: node_modules/.installed
	npm run --silent build

messages: $(MO)

locale/%/LC_MESSAGES/django.mo: locale/%/LC_MESSAGES/django.po
	@command -v msgfmt >/dev/null || $(MAKE) --no-print-directory gettext
	msgfmt --check-format -o $@ $<

gettext:
	@if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gettext >/dev/null; \
	else echo "msgfmt is missing: install it with: sudo apt-get install gettext"; exit 1; fi

makemessages: $(VENV)/.installed
	$(PY) manage.py makemessages --all --no-obsolete --ignore=node_modules --ignore=.venv --ignore=static --ignore=.data

# Browser tests drive Debian's Chromium; root installs it, anyone else is told how.
chromium:
	@if command -v chromium >/dev/null; then exit 0; fi; \
	if [ "$$(id -u)" = 0 ]; then \
		echo "Installing Debian's chromium for the browser tests"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	else \
		echo "The browser tests need Debian's Chromium: run  sudo apt-get install chromium  and then make test again."; \
		exit 1; \
	fi

# The HTTPS test (tests/test_tls.py) runs Debian's Caddy in front of the test server; root
# installs it, anyone else is told how. The package's own service is not left running.
caddy:
	@if command -v caddy >/dev/null; then exit 0; fi; \
	if [ "$$(id -u)" = 0 ]; then \
		echo "Installing Debian's caddy for the HTTPS test"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq caddy >/dev/null; \
		if command -v systemctl >/dev/null && systemctl is-active --quiet caddy 2>/dev/null; then \
			systemctl disable --now caddy >/dev/null 2>&1 || true; \
		fi; \
	else \
		echo "The HTTPS test needs Debian's Caddy: run  sudo apt-get install caddy  and then make test again."; \
		exit 1; \
	fi

clean:
	rm -rf static/dist staticfiles node_modules/.installed $(VENV)/.installed
