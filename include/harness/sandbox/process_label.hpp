// Which process made a sandbox container, so that a start-up sweep removes
// only what a process that is gone left behind. Several harness processes
// may share one Docker engine and one SANDBOX_OWNER (a server and the
// `mcp-harness mcp` processes MCP clients start, each with its warm pool):
// without this, each one's start-up sweep removed the others' live sandboxes.
#pragma once

#include <string>

namespace harness::sandbox {

// Label key on every sandbox container; value: this_process().
inline constexpr const char* process_label = "org.mcp-harness.process";

// "<boot id><pid namespace>/<pid>/<start time>" of the running process
// `pid` (of the caller's PID namespace): the boot id and the start time
// (clock ticks after boot, /proc/<pid>/stat) tell a live process from a
// later one that reuses its pid. Empty when /proc cannot say (no such
// process, or a zombie).
std::string process_label_of(long pid);

// process_label_of(the calling process), worked out once.
const std::string& this_process();

// Whether `label` (a this_process() value) names a process still running on
// this machine, this one included. False for an empty or malformed label,
// one of another boot or PID namespace (a harness in another container: its
// processes cannot be looked up from here, so its containers are swept as
// before), and a pid that is gone or now another process's.
bool process_alive(const std::string& label);

}  // namespace harness::sandbox
