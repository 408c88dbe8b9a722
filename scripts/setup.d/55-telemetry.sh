# Tracing: the OTLP test receiver decodes exported spans with the official
# OpenTelemetry protobuf definitions, from the committed lock file.
if [ "${HARNESS_SETUP:-all}" != server ]; then
  npm_ci "$HARNESS_ROOT/tests/telemetry"
fi
