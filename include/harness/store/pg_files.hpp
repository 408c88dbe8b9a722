// Skills and task workspaces in PostgreSQL (STORE_URL): each file a row of
// the table `files`, so that every replica sharing the database sees the same
// users' skills and the same task workspaces. The skill library and the
// workspace store are the skills component's own (same rules, errors and
// JSON); only where the bytes live changes. The shipped example skills stay
// on disk (<SKILLS_DIR>/examples, the same checkout on every replica).
//
// A separate target (harness::store_files) so that the task store does not
// depend on the skills component; only the app links both.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "harness/core/error.hpp"
#include "harness/skills/file_folders.hpp"
#include "harness/skills/skill_library.hpp"
#include "harness/skills/workspace_store.hpp"

namespace harness::store {

// The folders of `kind` ("skills": one per user; "workspace": one per task)
// on one connection of their own (blocking; a mutex serializes its use, and a
// broken connection is reset before the next statement, as the task store
// does). Brings the schema up to date first. Errors: store_open_failed,
// store_too_new, store_migration_failed.
result<std::shared_ptr<skills::folder_set>> open_pg_folders(const std::string& url, std::string_view kind);

result<std::unique_ptr<skills::skill_library>> create_pg_skill_library(const std::string& url,
                                                                       skills::skill_config config);

result<std::unique_ptr<skills::workspace_store>> create_pg_workspace_store(const std::string& url,
                                                                           skills::workspace_config config);

}  // namespace harness::store
