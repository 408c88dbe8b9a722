// Python stubs of MCP tools, generated from their JSON Schemas, for
// describe_tools with language "python": the twin of ts_signature.hpp for
// code that runs in the Python sandbox (docs/architecture/python-runtime.md).
//
// Schemas come from MCP servers and are untrusted: nothing here throws, a
// keyword of the wrong type reads as `Any`, and depth, work, classes and
// output are capped, so a hostile schema gives a short stub, never a crash.
//
// Schema -> type: string -> str, integer -> int, number -> float, boolean ->
// bool, null -> None; enum and const -> Literal[...]; items -> list[T],
// prefixItems -> tuple[A, B]; an object with properties -> a TypedDict class
// of its own (required keys plain, the others NotRequired[T]; keys that are
// not Python names in the functional form), additionalProperties or no
// properties -> dict[str, T]; a type array, anyOf, oneOf -> A | B; allOf ->
// its first member; nullable -> | None; a local $ref is inlined, and one back
// into a definition being inlined reads as Any. Anything else -> Any.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace harness::mcp_server {

// The tool as Python, for code that calls it with call_mcp_tool:
//   class FsReadFileArgs(TypedDict):
//       path: str
//       head: NotRequired[int]  # lines
//   async def fs__read_file(args: FsReadFileArgs) -> Any:
//       """<description>"""
// The return type comes from outputSchema when the tool has one (call_mcp_tool
// then returns structuredContent). At most max_declaration_bytes (the
// TypeScript limit), cut at a line and marked "# …".
std::string py_declaration(const nlohmann::json& tool);

}  // namespace harness::mcp_server
