// Users' OAuth tokens for user-scoped remote MCP servers, kept in the store's
// credentials (kind "oauth", named after the server), each sealed with the
// vault key together with its user and server: SQLite, or PostgreSQL so that
// a user who connected through one replica is connected on all of them.
#pragma once

#include <memory>

#include "harness/core/clock.hpp"
#include "harness/mcp/oauth.hpp"

namespace harness::pii {
class vault_sealer;
}
namespace harness::store {
class task_store;
}

namespace harness::secrets {

std::shared_ptr<mcp::user_token_store> stored_oauth_tokens(std::shared_ptr<store::task_store> store,
                                                           std::shared_ptr<const pii::vault_sealer> sealer,
                                                           core::clock& clock);

}  // namespace harness::secrets
