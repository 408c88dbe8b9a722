#include "run_slots.hpp"

#include <fmt/format.h>

#include "harness/execution/errors.hpp"

namespace harness::execution {
namespace {

void decrement(std::map<std::string, std::size_t>& counts, const std::string& name) {
  auto it = counts.find(name);
  if (it != counts.end() && --it->second == 0) counts.erase(it);
}

std::size_t count_of(const std::map<std::string, std::size_t>& counts, const std::string& name) {
  auto it = counts.find(name);
  return it == counts.end() ? 0 : it->second;
}

}  // namespace

run_slots::slot::slot(run_slots& owner, std::string user, std::string key)
    : owner_(owner), user_(std::move(user)), key_(std::move(key)) {
  ++owner_.by_user_[user_];
  if (!key_.empty()) ++owner_.by_key_[key_];
}

run_slots::slot::~slot() {
  decrement(owner_.by_user_, user_);
  if (!key_.empty()) decrement(owner_.by_key_, key_);
  owner_.freed_.notify_all();
}

run_slots::run_slots(boost::asio::any_io_executor executor, core::clock& clock, run_slot_limits limits)
    : clock_(clock), limits_(limits), freed_(std::move(executor), clock) {}

bool run_slots::has_room(const std::string& user, const std::string& key) const {
  if (count_of(by_user_, user) >= limits_.per_user) return false;
  return key.empty() || count_of(by_key_, key) < limits_.per_key;
}

std::size_t run_slots::running_of_user(const std::string& user) const {
  return count_of(by_user_, user);
}

boost::asio::awaitable<result<std::unique_ptr<run_slots::slot>>> run_slots::acquire(std::string user, std::string key) {
  const auto until = clock_.steady_now() + limits_.wait;
  while (!has_room(user, key)) {
    const bool freed = co_await freed_.wait_until(until);
    if (!freed && !has_room(user, key)) {
      const bool user_full = count_of(by_user_, user) >= limits_.per_user;
      co_return make_error(execution::errc::too_many_running,
                           user_full
                               ? fmt::format("user '{}' already runs {} one-shot sandboxes", user, limits_.per_user)
                               : fmt::format("API key {} already runs {} one-shot sandboxes", key, limits_.per_key),
                           user_full ? "wait for one to finish, or keep a session (sessionId) for repeated blocks "
                                       "(SANDBOX_MAX_RUNNING_PER_USER)"
                                     : "wait for one to finish (SANDBOX_MAX_RUNNING_PER_KEY)");
    }
  }
  co_return std::make_unique<slot>(*this, std::move(user), std::move(key));
}

}  // namespace harness::execution
