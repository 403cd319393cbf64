# Plinth. `make run` and `make test` work on a machine with only Node and npm:
# the pinned Bun comes from the npm registry into .tools/ when no bun of that
# version is on PATH, and Chromium (browser tests) from Debian's packages.

BUN_VERSION := 1.4.5
SYSTEM_BUN := $(shell command -v bun 2>/dev/null)
ifeq ($(SYSTEM_BUN),)
BUN := $(CURDIR)/.tools/node_modules/.bin/bun
else ifeq ($(shell $(SYSTEM_BUN) --version 2>/dev/null),$(BUN_VERSION))
BUN := $(SYSTEM_BUN)
else
BUN := $(CURDIR)/.tools/node_modules/.bin/bun
endif
CHROMIUM := /usr/bin/chromium

.PHONY: run test test-pg build bench install chromium typecheck lint format migrations docs clean

run: install
	$(BUN) src/main.ts serve

test: install chromium
	$(BUN) x tsc --noEmit -p .
	$(BUN) x biome ci --colors=off .
	@bash scripts/run-tests.sh "$(BUN)"

# The whole suite again on a real PostgreSQL server that this target starts
# (Debian's postgresql, a temp cluster on loopback) and stops afterwards.
test-pg: install chromium
	@bash scripts/run-tests.sh "$(BUN) scripts/with-postgres.ts $(BUN)"

build: dist/plinth

dist/plinth: install $(shell find src db docs -type f 2>/dev/null) package.json
	$(BUN) build --compile --minify --sourcemap src/main.ts --outfile dist/plinth

bench: install build
	@command -v wrk >/dev/null || (apt-get update -qq && apt-get install -y -qq wrk >/dev/null)
	$(BUN) bench/run.ts
	$(BUN) bench/cards.ts
	$(BUN) bench/crm.ts
	$(BUN) bench/email.ts
	$(BUN) scripts/with-postgres.ts $(BUN) bench/email.ts
	$(BUN) bench/bookings.ts
	$(BUN) scripts/with-postgres.ts $(BUN) bench/bookings.ts
	$(BUN) bench/bookings.ts --http
	$(BUN) bench/survey-page.ts
	$(BUN) bench/deck-page.ts
	$(BUN) bench/chat.ts
	$(BUN) bench/brain.ts
	$(BUN) bench/events.ts

typecheck: install
	$(BUN) x tsc --noEmit -p .

# Biome is the authority on layout and the linter (biome.json); `make test`
# runs its check, `make format` applies its formatting and safe fixes.
lint: install
	$(BUN) x biome ci --colors=off .

format: install
	$(BUN) x biome check --write .

# Regenerate SQL migrations from the tables.ts files and re-embed them.
# NAME=<what changed> names the migration files (make migrations NAME=crm).
migrations: install
	$(BUN) x drizzle-kit generate $(if $(NAME),--name $(NAME))
	$(BUN) x drizzle-kit generate --config drizzle.pg.config.ts $(if $(NAME),--name $(NAME))
	$(BUN) scripts/embed-migrations.ts

docs: install
	$(BUN) scripts/gen-tools-doc.ts

install: $(BUN) node_modules/.installed

$(CURDIR)/.tools/node_modules/.bin/bun:
	@echo "Installing Bun $(BUN_VERSION) from the npm registry into .tools/"
	@mkdir -p .tools
	@echo '{"private":true}' > .tools/package.json
	@npm install --prefix .tools --no-audit --no-fund --silent --no-save bun@$(BUN_VERSION) >/dev/null
	@test "$$($@ --version)" = "$(BUN_VERSION)"

node_modules/.installed: package.json bun.lock $(BUN)
	$(BUN) install --frozen-lockfile
	@touch $@

# Browser tests drive Debian's Chromium through playwright-core.
chromium:
	@test -x $(CHROMIUM) || { \
	  echo "Installing Debian's chromium for the browser tests"; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq chromium >/dev/null; }

clean:
	rm -rf dist .tools node_modules
