#include "harness/secrets/oauth_tokens.hpp"

#include <nlohmann/json.hpp>

#include "harness/core/json_parse.hpp"
#include "harness/secrets/secret_store.hpp"
#include "harness/store/task_store.hpp"

namespace harness::secrets {
namespace {

namespace asio = boost::asio;
using nlohmann::json;

constexpr const char* kind = "oauth";

// Sealed under this name, not the bare server's: a user's secret of the same
// name does not open as their tokens.
std::string sealed_name(const std::string& server) {
  return "oauth:" + server;
}

class stored_tokens final : public mcp::user_token_store {
 public:
  stored_tokens(std::shared_ptr<store::task_store> store, std::shared_ptr<const pii::vault_sealer> sealer,
                core::clock& clock)
      : store_(std::move(store)), sealer_(std::move(sealer)), clock_(clock) {}

  asio::awaitable<result<json>> load(std::string user, std::string server) override {
    auto row = co_await store_->get_credential(user, kind, server);
    if (!row) co_return row.error();
    if (!*row) co_return json();
    auto text = open_secret(*sealer_, user, sealed_name(server), (*row)->sealed);
    if (!text) {
      co_return make_error(text.error().code, "the kept OAuth tokens for " + server + " do not open",
                           "connect again (POST /connections/" + server + ")");
    }
    auto value = core::parse_json(*text);
    if (value.is_discarded()) co_return json();  // not ours to read: as if none were kept
    co_return value;
  }

  asio::awaitable<status> save(std::string user, std::string server, json value) override {
    if (value.is_null()) {
      auto removed = co_await store_->delete_credential(user, kind, server);
      if (!removed) co_return removed.error();
      co_return status{};
    }
    store::credential_record record{user, kind, server, seal_secret(*sealer_, user, sealed_name(server), value.dump()),
                                    clock_.epoch_ms()};
    co_return co_await store_->put_credential(std::move(record));
  }

 private:
  std::shared_ptr<store::task_store> store_;
  std::shared_ptr<const pii::vault_sealer> sealer_;
  core::clock& clock_;
};

}  // namespace

std::shared_ptr<mcp::user_token_store> stored_oauth_tokens(std::shared_ptr<store::task_store> store,
                                                           std::shared_ptr<const pii::vault_sealer> sealer,
                                                           core::clock& clock) {
  return std::make_shared<stored_tokens>(std::move(store), std::move(sealer), clock);
}

}  // namespace harness::secrets
