// The host's files as a sandbox sees them (execution::sandbox_files), built on
// the skill library and the workspace store: what the app hands to the agent
// manager and the execution service.
#pragma once

#include <memory>

#include "harness/execution/sandbox_files.hpp"

namespace harness::skills {

class skill_library;
class workspace_store;

// skills(user): the user's skills (path "/skills/<name>") then the examples
// ("/skills/examples/<name>"); a user's skill with a broken SKILL.md is
// listed with the problem as its description, so the model can fix it.
// init_files(user, workspace): the skills' init files followed by the workspace's.
// apply(...): apply_exec_files(...).to_sandbox_json().
// Either store may be null (its part is then empty, or refused on apply).
// Every call does blocking filesystem work.
std::shared_ptr<execution::sandbox_files> create_sandbox_files(std::shared_ptr<skill_library> skills,
                                                               std::shared_ptr<workspace_store> workspaces);

}  // namespace harness::skills
