#include "approval_desk.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <boost/asio/this_coro.hpp>

#include "harness/agent/errors.hpp"
#include "harness/core/ids.hpp"

namespace harness::agent {
namespace {

constexpr std::size_t decided_kept = 256;

std::int64_t epoch_after(const core::clock& clock, std::chrono::milliseconds wait) {
  return clock.epoch_ms() + wait.count();
}

}  // namespace

approval_desk::approval_desk(core::clock& clock, std::chrono::milliseconds timeout, hooks on)
    : clock_(clock), timeout_(timeout), on_(std::move(on)), budget_(timeout) {}

boost::asio::awaitable<policy::approval_answer> approval_desk::ask(policy::approval_request request) {
  if (closed_) co_return policy::approval_answer{policy::approval_outcome::cancelled, closed_why_, false, {}};
  if (auto no = budget_.refusal(pending().size(), "this task")) {
    co_return policy::approval_answer{policy::approval_outcome::denied, std::move(*no), false, {}};
  }
  const auto started = clock_.steady_now();
  auto executor = co_await boost::asio::this_coro::executor;
  auto e = std::make_shared<entry>();
  nlohmann::json arguments = on_.shown ? on_.shown(request.arguments) : std::move(request.arguments);
  e->view = {core::make_id("appr_"),    std::move(request.tool), std::move(arguments),         std::move(request.code),
             std::move(request.reason), clock_.epoch_ms(),       epoch_after(clock_, timeout_)};
  e->timer = clock_.make_timer(executor);
  e->timer->expires_at(clock_.steady_now() + timeout_);
  pending_.push_back(e);
  if (on_.requested) on_.requested(e->view);
  const bool expired = co_await e->timer->wait();
  if (!e->answer) {
    e->answer = expired ? policy::approval_answer{policy::approval_outcome::timed_out,
                                                  fmt::format("no decision within {} ms", timeout_.count()),
                                                  false,
                                                  {}}
                        : policy::approval_answer{policy::approval_outcome::cancelled, closed_why_, false, {}};
  }
  budget_.spent(clock_.steady_now() - started);
  std::erase(pending_, e);
  decided_.emplace_back(e->view.id, std::string(policy::to_string(e->answer->outcome)));
  if (decided_.size() > decided_kept) decided_.pop_front();
  if (on_.decided) on_.decided(e->view, *e->answer);
  co_return *e->answer;
}

result<approval_view> approval_desk::decide(const std::string& id, const approval_decision& decision) {
  auto it = std::find_if(pending_.begin(), pending_.end(), [&](const auto& e) { return e->view.id == id; });
  if (it == pending_.end() || (*it)->answer) {
    auto done = std::find_if(decided_.begin(), decided_.end(), [&](const auto& d) { return d.first == id; });
    if (it != pending_.end() || done != decided_.end()) {
      std::string how = it != pending_.end() ? std::string(policy::to_string((*it)->answer->outcome)) : done->second;
      return make_error(agent::errc::approval_decided, fmt::format("approval '{}' was decided already ({})", id, how),
                        "GET /tasks/{id} lists the approvals still pending");
    }
    return make_error(agent::errc::approval_not_found, fmt::format("this task has no approval '{}'", id),
                      "GET /tasks/{id} lists the approvals still pending, with their ids");
  }
  auto& e = **it;
  e.answer =
      policy::approval_answer{decision.approve ? policy::approval_outcome::approved : policy::approval_outcome::denied,
                              decision.reason, decision.approve && decision.for_task, decision.key_id};
  e.timer->cancel();  // the waiting ask() goes on with the answer
  return e.view;
}

void approval_desk::close(std::string why) {
  if (closed_) return;
  closed_ = true;
  closed_why_ = std::move(why);
  for (auto& e : pending_) {
    if (e->answer) continue;
    e->answer = policy::approval_answer{policy::approval_outcome::cancelled, closed_why_, false, {}};
    e->timer->cancel();
  }
}

bool approval_desk::waiting() const {
  return std::any_of(pending_.begin(), pending_.end(), [](const auto& e) { return !e->answer; });
}

void approval_desk::cancel_waiting(std::string why) {
  for (auto& e : pending_) {
    if (e->answer) continue;
    e->answer = policy::approval_answer{policy::approval_outcome::cancelled, why, false, {}};
    e->timer->cancel();
  }
}

boost::asio::awaitable<std::optional<nlohmann::json>> approval_desk::elicit(nlohmann::json params) {
  (void)params;
  co_return nlohmann::json{{"action", "decline"}};
}

std::vector<approval_view> approval_desk::pending() const {
  std::vector<approval_view> out;
  for (const auto& e : pending_) {
    if (!e->answer) out.push_back(e->view);
  }
  return out;
}

}  // namespace harness::agent
