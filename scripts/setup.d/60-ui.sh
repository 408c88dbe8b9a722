# The dashboard's browser tests (tests/ui/): Debian's chromium, driven by
# playwright-core from the committed lock file (never a downloaded browser).
# Only the tests need them: ./scripts/run.sh sets HARNESS_SETUP=server and skips this.
if [ "${HARNESS_SETUP:-all}" != server ]; then
  need_apt chromium
  npm_ci "$HARNESS_ROOT/tests/ui"
fi
