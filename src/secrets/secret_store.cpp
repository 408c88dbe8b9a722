#include "harness/secrets/secret_store.hpp"

#include <nlohmann/json.hpp>

#include "harness/core/json_parse.hpp"
#include "harness/core/utf8.hpp"
#include "harness/pii/vault_seal.hpp"
#include "harness/secrets/errors.hpp"
#include "harness/store/task_store.hpp"

namespace harness::secrets {
namespace asio = boost::asio;
using nlohmann::json;

namespace {

constexpr const char* kind = "secret";
constexpr std::size_t min_value = 8;
constexpr std::size_t max_value = 16384;

bool valid_utf8_without_nul(std::string_view s) {
  return s.find('\0') == std::string_view::npos && core::utf8_valid(s);
}

}  // namespace

status check_secret_name(std::string_view name) {
  if (valid_secret_name(name)) return {};
  return make_error(errc::invalid_secret_name, "invalid secret name",
                    "use 1-64 letters, digits and '_', not starting with a digit (like GITHUB_TOKEN)");
}

status check_secret_value(std::string_view value) {
  if (value.size() < min_value || value.size() > max_value) {
    return make_error(
        errc::invalid_secret_value,
        "a secret's value must be 8 to 16384 bytes long (this one has " + std::to_string(value.size()) + ")",
        "tool results are searched for the value and it is replaced there: a shorter value would "
        "replace ordinary text");
  }
  if (!valid_utf8_without_nul(value)) {
    return make_error(errc::invalid_secret_value, "a secret's value must be UTF-8 text without NUL bytes",
                      "encode binary values (base64) before storing them");
  }
  return {};
}

std::string seal_secret(const pii::vault_sealer& sealer, const std::string& user, const std::string& name,
                        const std::string& value) {
  return sealer.seal(json{{"user", user}, {"name", name}, {"value", value}}).dump();
}

result<std::string> open_secret(const pii::vault_sealer& sealer, const std::string& user, const std::string& name,
                                const std::string& sealed) {
  auto unreadable = [&](const std::string& why) {
    return make_error(errc::secret_unreadable, "the stored secret " + name + " does not open: " + why,
                      "set it again (mcp-harness secrets set, or PUT /secrets/" + name + ")");
  };
  json stored = core::parse_json(sealed);
  if (stored.is_discarded()) return unreadable("not JSON");
  auto opened = sealer.open(stored);
  if (!opened) return unreadable(opened.error().message);
  // Sealed together with its user and name: a row copied to another user, or
  // a plain (never sealed) object, does not pass as that user's secret.
  if (!opened->is_object() || !stored.contains("sealed") || opened->value("user", "") != user ||
      opened->value("name", "") != name || !(*opened)["value"].is_string()) {
    return unreadable("it was not sealed for this user and name");
  }
  return (*opened)["value"].get<std::string>();
}

secret_store::secret_store(std::shared_ptr<store::task_store> store, std::shared_ptr<const pii::vault_sealer> sealer,
                           core::clock& clock, std::function<void(const std::string&, const std::string&)> changed)
    : store_(std::move(store)), sealer_(std::move(sealer)), clock_(clock), changed_(std::move(changed)) {}

asio::awaitable<status> secret_store::set(std::string user, std::string name, std::string value) {
  if (auto ok = check_secret_name(name); !ok) co_return ok;
  if (auto ok = check_secret_value(value); !ok) co_return ok;
  store::credential_record record{user, kind, name, seal_secret(*sealer_, user, name, value), clock_.epoch_ms()};
  auto stored = co_await store_->put_credential(std::move(record));
  if (stored && changed_) changed_(user, name);
  co_return stored;
}

asio::awaitable<result<std::vector<secret_entry>>> secret_store::list(std::string user) {
  auto rows = co_await store_->list_credentials(std::move(user), kind);
  if (!rows) co_return rows.error();
  std::vector<secret_entry> out;
  for (const auto& row : *rows) out.push_back({row.name, row.updated_ms});
  co_return out;
}

asio::awaitable<status> secret_store::remove(std::string user, std::string name) {
  if (auto ok = check_secret_name(name); !ok) co_return ok;
  auto removed = co_await store_->delete_credential(user, kind, name);
  if (!removed) co_return removed.error();
  if (!*removed) {
    co_return make_error(errc::secret_not_found, "no secret named " + name + " for this user",
                         "GET /secrets lists the names set");
  }
  if (changed_) changed_(user, name);
  co_return status{};
}

asio::awaitable<result<std::map<std::string, std::string>>> secret_store::values(std::string user,
                                                                                 std::vector<std::string> names) {
  std::map<std::string, std::string> out;
  for (const auto& name : names) {
    auto row = co_await store_->get_credential(user, kind, name);
    if (!row) co_return row.error();
    if (!*row) continue;
    auto value = open_secret(*sealer_, user, name, (*row)->sealed);
    if (!value) co_return value.error();
    out.emplace(name, std::move(*value));
  }
  co_return out;
}

}  // namespace harness::secrets
