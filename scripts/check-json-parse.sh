#!/usr/bin/env bash
# Fails (and lists the places) when product code parses JSON without the depth
# limit: every parser of JSON from outside goes through core::parse_json
# (src/core/json_parse.cpp) or the strict body parser built on the same limit
# (src/http/strict_json.cpp). nlohmann's own parse has no limit, and a value
# nested 400,000 deep overflows the stack of whatever copies or prints it.
# Run by ctest as Format.JsonIsParsedWithADepthLimit, so CI checks it.
set -euo pipefail
cd "$(dirname "$0")/.."
found=$(git grep -nE '(json::parse|json::sax_parse|json::from_(cbor|msgpack|bson|ubjson|bjdata))[[:space:]]*\(' -- src include \
  ':!src/core/json_parse.cpp' ':!src/http/strict_json.cpp' | grep -vE '^[^:]+:[0-9]+:[[:space:]]*//' || true)
if [ -n "$found" ]; then
  echo "JSON parsed without the depth limit; use core::parse_json (harness/core/json_parse.hpp):"
  echo "$found"
  exit 1
fi
echo "every parse of JSON in src/ and include/ has the depth limit"
