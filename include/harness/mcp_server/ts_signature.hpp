// TypeScript declarations of MCP tools, generated from their JSON Schemas, for
// the describe_tools tool: models write better code against typed signatures
// than against raw JSON Schema, and a declaration is a fraction of the schema's
// size. Also used by GET /tools/{name} for the dashboard.
//
// Schemas come from MCP servers and are untrusted: nothing here throws, a
// keyword of the wrong type reads as `unknown`, and depth, work and output are
// capped, so a hostile schema gives a short declaration, never a crash.
//
// Schema -> type: string, number/integer -> number, boolean, null; enum and
// const -> literals; items -> T[], prefixItems / an items array -> [A, B];
// properties + required -> { a: A; b?: B } (required first, in `required`
// order), additionalProperties -> [key: string]: T, no properties ->
// Record<string, T>; a type array, anyOf, oneOf -> A | B; allOf -> A & B;
// nullable -> | null; a local $ref ("#/$defs/X", "#/definitions/X", any "#/..."
// pointer) is inlined, and a $ref back into a definition being inlined prints
// its name (X). Anything else -> unknown.
#pragma once

#include <cstddef>
#include <string>

#include <nlohmann/json.hpp>

namespace harness::mcp_server {

// Schemas nested deeper than this render as `unknown`.
inline constexpr std::size_t max_schema_depth = 8;
// The most bytes ts_declaration returns; a longer one is cut at a member
// boundary, and "…" marks where.
inline constexpr std::size_t max_declaration_bytes = 8192;

// The tool as a TypeScript declaration, for code that calls it with callMCPTool:
//   /** <description, wrapped at 100 columns, `*/` escaped> */
//   declare function fs__read_file(args: { path: string; head?: number /* lines */ }): Promise<{ content: string }>;
// `tool` is a tools/list entry, {name, description?, inputSchema?, outputSchema?}.
// The Promise type comes from outputSchema when the tool has one (callMCPTool
// then returns structuredContent), else it is `unknown`; so is a missing
// inputSchema. Property descriptions (cut at 80 characters) and defaults
// (40) become one-line comments, in both types.
// A name that is not an identifier is made one (`a-b.c` -> `a_b_c`) and the doc
// comment then says the name to pass to callMCPTool. The description is cut at
// 2 KiB so that the signature always fits in max_declaration_bytes.
std::string ts_declaration(const nlohmann::json& tool);

// One line for search results, without description or comments:
//   fs__read_file(args: { path: string; head?: number }): { content: string }
// The name is the tool's own (characters outside A-Z a-z 0-9 _ $ . - become _).
// At most `max_chars` characters (code points); a longer line is cut at a clean
// boundary and ends in "…".
std::string ts_signature_line(const nlohmann::json& tool, std::size_t max_chars = 240);

}  // namespace harness::mcp_server
