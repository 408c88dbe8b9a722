// The outbound HTTP client against real peers on loopback: node's HTTP,
// HTTPS and HTTP/2 servers, certificates from a CA made for the test, a
// forward proxy taken from the environment.
#include <cstdlib>

#include <gtest/gtest.h>
#include <boost/asio/steady_timer.hpp>
#include <nlohmann/json.hpp>

#include "harness/core/errors.hpp"
#include "harness/core/with_deadline.hpp"
#include "harness/net/address_guard.hpp"
#include "harness/net/errors.hpp"
#include "harness/net/http_client.hpp"
#include "net_test_support.hpp"
#include "support/run_sync.hpp"

namespace harness::net {
namespace {

namespace asio = boost::asio;
using harness::testing::run_sync;
using nlohmann::json;
using testing::test_ca;
using testing::test_server;

result<response> fetch(http_client& client, request r) {
  asio::io_context io;
  return run_sync(io, client.fetch(std::move(r)));
}

request get(std::string url) {
  request r;
  r.url = std::move(url);
  return r;
}

TEST(HttpClient, GetAndPostWithHeadersAndBodies) {
  test_server server;
  auto client = create_http_client(start_curl_loop());
  request r;
  r.method = "POST";
  r.url = server.url("127.0.0.1", "/echo?x=1");
  r.headers = {{"Content-Type", "application/json"}, {"X-Custom", "value"}};
  r.body = R"({"hello":"world"})";
  auto answer = fetch(*client, r);
  ASSERT_TRUE(answer) << answer.error().describe();
  EXPECT_EQ(answer->status, 200);
  EXPECT_EQ(answer->header("content-type").value_or(""), "application/json");
  auto echoed = json::parse(answer->body);
  EXPECT_EQ(echoed["method"], "POST");
  EXPECT_EQ(echoed["url"], "/echo?x=1");
  EXPECT_EQ(echoed["body"], r.body);
  EXPECT_EQ(echoed["headers"]["x-custom"], "value");
  EXPECT_EQ(echoed["headers"]["user-agent"].get<std::string>().rfind("mcp-harness/", 0), 0u);

  r.method = "DELETE";
  r.body.clear();
  auto deleted = fetch(*client, r);
  ASSERT_TRUE(deleted);
  EXPECT_EQ(json::parse(deleted->body)["method"], "DELETE");
}

// A request whose URL a remote party chose reaches only public addresses:
// checked on the address connected to, after DNS ("localhost" resolves here).
TEST(HttpClient, APublicOnlyRequestDoesNotReachLoopback) {
  test_server server;
  auto client = create_http_client(start_curl_loop());
  for (const char* host : {"127.0.0.1", "localhost"}) {
    auto r = get(server.url(host, "/echo"));
    r.public_only = true;
    auto refused = fetch(*client, r);
    ASSERT_FALSE(refused) << host;
    EXPECT_EQ(refused.error().code, net::errc::address_refused) << refused.error().describe();
    EXPECT_NE(refused.error().message.find("not on the public internet"), std::string::npos);
    EXPECT_NE(refused.error().hint.find("allowPrivateNetwork"), std::string::npos);
  }
  // The wrapper marks every request so; the same request unmarked goes through.
  auto guarded = public_only_client(client);
  EXPECT_FALSE(fetch(*guarded, get(server.url("127.0.0.1", "/echo"))));
  auto allowed = fetch(*client, get(server.url("127.0.0.1", "/echo")));
  ASSERT_TRUE(allowed) << allowed.error().describe();
  EXPECT_EQ(allowed->status, 200);
  // The refused ones never reached it: the echo and this look are all it saw.
  auto stats = fetch(*client, get(server.url("127.0.0.1", "/stats")));
  ASSERT_TRUE(stats);
  EXPECT_EQ(json::parse(stats->body)["requests"], 2) << stats->body;
}

TEST(HttpClient, AnyStatusIsAnAnswerAndRepeatedHeadersAreKept) {
  test_server server;
  auto client = create_http_client(start_curl_loop());
  auto answer = fetch(*client, get(server.url("127.0.0.1", "/status/401")));
  ASSERT_TRUE(answer);
  EXPECT_EQ(answer->status, 401);
  EXPECT_EQ(answer->header_values("x-test"), (std::vector<std::string>{"one", "two"}));
  EXPECT_EQ(answer->header_values("www-authenticate").size(), 2u);
  EXPECT_EQ(answer->header("x-test"), "two");
  EXPECT_EQ(answer->body, "status 401");
}

TEST(HttpClient, RefusesBadUrlsAndHeadersWithoutSendingThem) {
  auto client = create_http_client(start_curl_loop());
  auto ftp = fetch(*client, get("ftp://127.0.0.1/x"));
  ASSERT_FALSE(ftp);
  EXPECT_EQ(ftp.error().code, net::errc::bad_url);
  auto credentials = fetch(*client, get("http://user:secret@127.0.0.1:1/x"));
  ASSERT_FALSE(credentials);
  EXPECT_EQ(credentials.error().code, net::errc::bad_url);
  EXPECT_EQ(credentials.error().message.find("secret"), std::string::npos);
  request r = get("http://127.0.0.1:1/x");
  r.headers = {{"Authorization", "Bearer abc\r\nX-Injected: 1"}};
  auto injected = fetch(*client, r);
  ASSERT_FALSE(injected);
  EXPECT_EQ(injected.error().code, net::errc::bad_url);
  EXPECT_EQ(injected.error().message.find("abc"), std::string::npos);
}

TEST(HttpClient, ConnectionFailuresTimeoutsAndSizeLimitsAreClear) {
  test_server server;
  auto client = create_http_client(start_curl_loop());
  // A port nobody listens on (the server's own, after it is gone, would race).
  auto refused = fetch(*client, get("http://127.0.0.1:1/x?token=secret"));
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, net::errc::connection_failed);
  EXPECT_EQ(refused.error().message.find("secret"), std::string::npos) << "the query may carry secrets";

  request slow = get(server.url("127.0.0.1", "/slow?ms=5000"));
  slow.timeout = std::chrono::milliseconds(300);
  auto timed_out = fetch(*client, slow);
  ASSERT_FALSE(timed_out);
  EXPECT_EQ(timed_out.error().code, net::errc::timeout);

  request big = get(server.url("127.0.0.1", "/big?bytes=200000"));
  big.max_response_bytes = 100000;
  auto too_large = fetch(*client, big);
  ASSERT_FALSE(too_large);
  EXPECT_EQ(too_large.error().code, net::errc::response_too_large);

  auto cut = fetch(*client, get(server.url("127.0.0.1", "/cut")));
  ASSERT_FALSE(cut);
  EXPECT_EQ(cut.error().code, net::errc::connection_failed);
}

TEST(HttpClient, CancellingTheAwaitingCoroutineAbortsTheTransferAndClosesItsConnection) {
  test_server server;
  auto client = create_http_client(start_curl_loop());
  asio::io_context io;
  auto outcome = run_sync(io, [&]() -> asio::awaitable<std::optional<result<response>>> {
    auto fetching = client->fetch(get(server.url("127.0.0.1", "/hang")));
    co_return co_await core::with_deadline(core::real_clock(), std::move(fetching), std::chrono::milliseconds(300));
  }());
  EXPECT_FALSE(outcome) << "the deadline came first";
  // The server saw the connection go (polled: the close travels through its event loop).
  int abandoned = 0;
  for (int i = 0; i < 50 && abandoned == 0; ++i) {
    auto stats = fetch(*client, get(server.url("127.0.0.1", "/stats")));
    ASSERT_TRUE(stats);
    abandoned = json::parse(stats->body)["abandoned"].get<int>();
    if (abandoned == 0) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_EQ(abandoned, 1);
}

TEST(HttpClient, StoppingTheEngineCancelsWhatWaitsAndLaterRequests) {
  test_server server;
  auto loop = start_curl_loop();
  auto client = create_http_client(loop);
  asio::io_context io;
  // A request still out holds its client, and so the loop: stop_curl_loop ends it anyway.
  auto pending = asio::co_spawn(io, client->fetch(get(server.url("127.0.0.1", "/hang"))), asio::use_future);
  asio::steady_timer later(io, std::chrono::milliseconds(200));
  later.async_wait([&](boost::system::error_code) { stop_curl_loop(*loop); });
  io.run();
  auto outcome = pending.get();
  ASSERT_FALSE(outcome);
  EXPECT_EQ(outcome.error().code, core::errc::cancelled);
  auto after = fetch(*client, get(server.url("127.0.0.1", "/echo")));
  ASSERT_FALSE(after);
  EXPECT_EQ(after.error().code, core::errc::cancelled);
}

TEST(HttpClient, AFullQueueAnswersBusyAtOnce) {
  test_server server;
  client_options options;
  options.max_concurrent = 1;
  options.max_queued = 1;
  auto client = create_http_client(start_curl_loop(), options);
  asio::io_context io;
  auto outcomes = run_sync(io, [&]() -> asio::awaitable<std::vector<result<response>>> {
    auto executor = co_await asio::this_coro::executor;
    std::vector<std::future<result<response>>> futures;
    for (int i = 0; i < 3; ++i) {
      futures.push_back(
          asio::co_spawn(executor, client->fetch(get(server.url("127.0.0.1", "/slow?ms=300"))), asio::use_future));
    }
    // Let the three run to completion on this io_context.
    std::vector<result<response>> out;
    for (auto& f : futures) {
      while (f.wait_for(std::chrono::seconds(0)) != std::future_status::ready) {
        asio::steady_timer t(executor, std::chrono::milliseconds(10));
        co_await t.async_wait(asio::use_awaitable);
      }
      out.push_back(f.get());
    }
    co_return out;
  }());
  ASSERT_EQ(outcomes.size(), 3u);
  EXPECT_TRUE(outcomes[0]);
  EXPECT_TRUE(outcomes[1]) << "the second waited for the first";
  ASSERT_FALSE(outcomes[2]);
  EXPECT_EQ(outcomes[2].error().code, net::errc::busy);
}

TEST(HttpClient, StreamsArriveAsTheyComeAndASlowReaderHoldsTheSenderBack) {
  test_server server;
  curl_loop_options small;
  small.stream_buffer_bytes = 4096;  // the transfer pauses often
  auto client = create_http_client(start_curl_loop(small));
  asio::io_context io;
  run_sync(io, [&]() -> asio::awaitable<void> {
    request r = get(server.url("127.0.0.1", "/sse?events=3&gap=20"));
    auto stream = co_await client->open(r);
    EXPECT_TRUE(stream);
    if (!stream) co_return;
    EXPECT_EQ((*stream)->head().status, 200);
    EXPECT_EQ((*stream)->head().header("content-type").value_or(""), "text/event-stream");
    std::string all;
    while (true) {
      auto piece = co_await (*stream)->read();
      EXPECT_TRUE(piece);
      if (!piece || piece->empty()) break;
      all += *piece;
    }
    EXPECT_EQ(all, "data: {\"i\":0}\n\ndata: {\"i\":1}\n\ndata: {\"i\":2}\n\n");

    // 2 MB through a 4 KiB buffer, read slowly: every byte, in order.
    auto flood = co_await client->open(get(server.url("127.0.0.1", "/flood?bytes=2000000")));
    EXPECT_TRUE(flood);
    if (!flood) co_return;
    std::size_t total = 0;
    bool in_order = true;
    int reads = 0;
    while (true) {
      auto piece = co_await (*flood)->read();
      EXPECT_TRUE(piece);
      if (!piece || piece->empty()) break;
      for (char c : *piece) in_order = in_order && c == static_cast<char>('a' + (total++ % 26));
      if (++reads % 50 == 0) {
        asio::steady_timer t(co_await asio::this_coro::executor, std::chrono::milliseconds(5));
        co_await t.async_wait(asio::use_awaitable);
      }
    }
    EXPECT_EQ(total, 2000000u);
    EXPECT_TRUE(in_order);
  }());
}

TEST(HttpClient, AStreamCutOffMidBodyIsAFailedReadAndAnIdleOneCanBeCancelled) {
  test_server server;
  auto client = create_http_client(start_curl_loop());
  asio::io_context io;
  run_sync(io, [&]() -> asio::awaitable<void> {
    auto cut = co_await client->open(get(server.url("127.0.0.1", "/cut")));
    EXPECT_TRUE(cut);
    if (!cut) co_return;
    std::string got;
    result<std::string> piece = std::string();
    do {
      piece = co_await (*cut)->read();
      if (piece) got += *piece;
    } while (piece && !piece->empty());
    EXPECT_EQ(got, "partial");
    EXPECT_FALSE(piece);
    if (!piece) {
      EXPECT_EQ(piece.error().code, net::errc::connection_failed);
    }

    auto idle = co_await client->open(get(server.url("127.0.0.1", "/sse?events=2&gap=60000")));
    EXPECT_TRUE(idle);
    if (!idle) co_return;
    auto first = co_await (*idle)->read();
    EXPECT_TRUE(first && !first->empty());
    // with_deadline returns only once the read has ended: a cancelled read
    // completes rather than hanging, and the deadline's nullopt is the answer.
    auto reading = (*idle)->read();
    auto second = co_await core::with_deadline(core::real_clock(), std::move(reading), std::chrono::milliseconds(200));
    EXPECT_FALSE(second.has_value());
    (*idle)->cancel();
    auto after = co_await (*idle)->read();
    EXPECT_FALSE(after) << "a cancelled stream reads as cancelled";
    if (!after) {
      EXPECT_EQ(after.error().code, core::errc::cancelled);
    }
  }());
}

TEST(HttpClientTls, VerifiesAgainstTheExtraCaAndRefusesAWrongHostOrAnUntrustedCa) {
  test_ca ca;
  test_server server({"--tls", ca.server_pem, ca.server_key});
  curl_loop_options trusting;
  trusting.extra_ca_file = ca.ca_pem;
  auto client = create_http_client(start_curl_loop(trusting));
  auto ok = fetch(*client, get(server.url("localhost", "/echo", true)));
  ASSERT_TRUE(ok) << ok.error().describe();
  EXPECT_EQ(ok->status, 200);

  auto wrong_host = fetch(*client, get(server.url("127.0.0.1", "/echo", true)));
  ASSERT_FALSE(wrong_host);
  EXPECT_EQ(wrong_host.error().code, net::errc::tls_failed);
  EXPECT_NE(wrong_host.error().message.find("127.0.0.1"), std::string::npos) << wrong_host.error().message;

  // The system store alone does not know the test CA.
  auto system_only = create_http_client(start_curl_loop());
  auto untrusted = fetch(*system_only, get(server.url("localhost", "/echo", true)));
  ASSERT_FALSE(untrusted);
  EXPECT_EQ(untrusted.error().code, net::errc::tls_failed);
  EXPECT_NE(untrusted.error().hint.find("TLS_EXTRA_CA_FILE"), std::string::npos);

  // Nor does trusting another CA help.
  curl_loop_options other;
  other.extra_ca_file = ca.other_ca_pem;
  auto wrong_ca = create_http_client(start_curl_loop(other));
  auto refused = fetch(*wrong_ca, get(server.url("localhost", "/echo", true)));
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, net::errc::tls_failed);
}

TEST(HttpClientTls, UsesHttp2WhereTheServerOffersIt) {
  test_ca ca;
  test_server server({"--tls", ca.server_pem, ca.server_key, "--h2"});
  curl_loop_options trusting;
  trusting.extra_ca_file = ca.ca_pem;
  auto client = create_http_client(start_curl_loop(trusting));
  auto answer = fetch(*client, get(server.url("localhost", "/echo", true)));
  ASSERT_TRUE(answer) << answer.error().describe();
  EXPECT_EQ(json::parse(answer->body)["httpVersion"], "2.0");
}

TEST(HttpClientTls, AnUnreadableOrEmptyCaFileStopsTheStart) {
  EXPECT_THROW(start_curl_loop({.extra_ca_file = "/nonexistent/ca.pem"}), std::runtime_error);
  test_ca ca;
  EXPECT_THROW(start_curl_loop({.extra_ca_file = (ca.dir / "server.ext").string()}), std::runtime_error);
}

TEST(HttpClientProxy, ProxiesComeFromTheEnvironmentUnlessARequestSaysOtherwise) {
  test_server target;
  test_server proxy({"--proxy"});
  const std::string proxy_url = "http://127.0.0.1:" + std::to_string(proxy.port);
  ::setenv("http_proxy", proxy_url.c_str(), 1);
  auto client = create_http_client(start_curl_loop());
  auto via = fetch(*client, get(target.url("127.0.0.1", "/echo")));
  request direct_request = get(target.url("127.0.0.1", "/echo"));
  direct_request.proxy = "";
  auto direct = fetch(*client, direct_request);
  ::unsetenv("http_proxy");
  ASSERT_TRUE(via) << via.error().describe();
  EXPECT_EQ(via->header("x-via-test-proxy").value_or(""), "1");
  ASSERT_TRUE(direct);
  EXPECT_FALSE(direct->header("x-via-test-proxy"));
}

// A public_only request never goes direct on the environment's say-so: a
// no_proxy list names exactly the internal hosts it must not reach, so such a
// request goes through the proxy (which must filter) or, with none, is checked.
TEST(HttpClientProxy, APublicOnlyRequestIgnoresNoProxyAndIsCheckedWhenDirect) {
  test_server target;
  test_server proxy({"--proxy"});
  const std::string proxy_url = "http://127.0.0.1:" + std::to_string(proxy.port);
  ::setenv("http_proxy", proxy_url.c_str(), 1);
  ::setenv("no_proxy", "127.0.0.1,localhost", 1);
  auto client = create_http_client(start_curl_loop());
  request guarded = get(target.url("127.0.0.1", "/echo"));
  guarded.public_only = true;
  auto via = fetch(*client, guarded);
  ::unsetenv("http_proxy");
  // Upper-case HTTP_PROXY, which libcurl ignores for http: the request goes direct, so it is checked.
  ::setenv("HTTP_PROXY", proxy_url.c_str(), 1);
  auto direct = fetch(*client, guarded);
  ::unsetenv("HTTP_PROXY");
  ::unsetenv("no_proxy");
  ASSERT_TRUE(via) << via.error().describe();
  EXPECT_EQ(via->header("x-via-test-proxy").value_or(""), "1");
  ASSERT_FALSE(direct);
  EXPECT_EQ(direct.error().code, net::errc::address_refused) << direct.error().describe();
}

}  // namespace
}  // namespace harness::net
