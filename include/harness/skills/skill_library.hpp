// The skill library: reusable code that agents save from the sandbox, kept per
// user on the host, plus the shipped examples every user can read.
//
// Layout under skill_config::dir:
//   examples/<name>/SKILL.md, ...   shipped, read-only, visible to everyone
//   users/<userId>/<name>/...       one user's skills, never shown to another
// A skill is a folder with a SKILL.md (front matter `name` and `description`
// between `---` lines, then instructions) and its code files. In a sandbox the
// user's skills appear as /skills/<name>/ and the examples as
// /skills/examples/<name>/.
//
// Every method is thread-safe and does blocking filesystem work: call it from
// a worker thread, not from the I/O thread (small listings from a route are fine).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/bridge/runtime_session.hpp"
#include "harness/core/error.hpp"
#include "harness/skills/file_folders.hpp"
#include "harness/skills/file_rules.hpp"
#include "harness/skills/skills_config.hpp"

namespace harness::skills {

// The skill_not_found error for `name`. The HTTP layer answers a skill of a
// user the caller may not act for with this same error, so it cannot be probed.
error no_such_skill(std::string_view name);

class skill_library {
 public:
  virtual ~skill_library() = default;

  // The user's skills then the examples, each sorted by name:
  // [{name, description, files: [paths], updated: ISO-8601 UTC, owner: "user"|"example"}].
  // A folder without a valid SKILL.md is listed with a "problem" field
  // (a sentence) rather than hidden. Errors: invalid_user_id, storage_error.
  virtual result<nlohmann::json> list(const std::string& user_id) const = 0;

  // {name, description, skillMd, files: [{path, size}], updated, owner, problem?}:
  // the user's skill of that name, else the example. Errors: invalid_user_id,
  // invalid_skill_name, skill_not_found, storage_error.
  virtual result<nlohmann::json> get(const std::string& user_id, const std::string& name) const = 0;

  // The text of one file of the skill `get` would return (`path` as listed in
  // its files). Errors: those of get, and file_not_found for a path the
  // skill does not have.
  virtual result<std::string> read_file(const std::string& user_id, const std::string& name,
                                        const std::string& path) const = 0;

  // Deletes the user's skill folder. Errors: invalid_user_id,
  // invalid_skill_name, skill_read_only (an example), skill_not_found, storage_error.
  virtual status remove(const std::string& user_id, const std::string& name) = 0;

  // The user's skills for the `init` frame, root "skills", "<name>/<file>".
  // Whole skills are left out (with a log line naming them) when they would
  // pass the caps; an invalid user id gives none.
  virtual std::vector<bridge::init_file> init_files(const std::string& user_id) const = 0;

  // The shipped examples, root "skills", "examples/<name>/<file>", the same
  // for every user: the warm pool writes them into a sandbox before it is
  // claimed (bridge::prime_runtime), off the request's path.
  virtual std::vector<bridge::init_file> example_files() const = 0;

  // Validates, then writes, the root "skills" entries of an exec's changed
  // files (entries of other roots are ignored). Paths must be
  // "<skill-name>/<file...>"; "examples/..." is read-only. Each offending
  // entry is refused and reported, valid entries are written (atomically,
  // confined to the user's folder); deleting a skill's last file removes
  // its folder. An invalid user id refuses everything.
  virtual apply_report apply_changes(const std::string& user_id, const std::vector<bridge::file_change>& changes) = 0;
};

// Creates <dir>/users when missing; a missing <dir>/examples only means no
// examples (logged). Throws only if <dir>/users cannot be created: the server
// checks that first (core::ensure_writable_dir), so that it fails with a line
// naming SKILLS_DIR rather than an exception.
std::unique_ptr<skill_library> create_skill_library(skill_config config);

// The same library with the users' skills kept in `users` (one folder per
// user id; e.g. rows in PostgreSQL shared by replicas, harness/store/pg_files.hpp);
// the examples are still read from <config.dir>/examples.
std::unique_ptr<skill_library> create_skill_library(skill_config config, std::shared_ptr<folder_set> users);

}  // namespace harness::skills
