#!/usr/bin/env bash
# `npm run screenshots`: refreshes the images in docs/screenshots/ (README.md and docs/PLAYING.md show them) by
# running the browser tests that take them, told to write there (e2e/screenshots.ts).
# `npm test` writes the same images to .test-results/screenshots/ and leaves docs/ alone.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/node_modules/.bin:$PATH"
vite build --logLevel warn
SCREENSHOT_DIR=docs/screenshots bash scripts/netns.sh vitest run --config vitest.e2e.config.ts \
  e2e/start-screen.test.ts e2e/host-dashboard.test.ts e2e/items.test.ts e2e/invite-render.test.ts \
  e2e/looks.test.ts e2e/touch.test.ts e2e/direct-message.test.ts e2e/chat.test.ts
git status --short docs/screenshots
