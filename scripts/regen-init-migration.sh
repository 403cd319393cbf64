#!/usr/bin/env bash
# Pre-release only: rebuild the single initial migration from the tables.ts
# files. Once a release has shipped, use `make migrations` (adds a new one).
set -euo pipefail
cd "$(dirname "$0")/.."
exec 9>/tmp/plinth-migrations.lock
flock 9
BUN=${BUN:-.tools/node_modules/.bin/bun}
rm -rf db/migrations/*.sql db/migrations/meta
"$BUN" x drizzle-kit generate --name init >/dev/null
"$BUN" scripts/embed-migrations.ts
