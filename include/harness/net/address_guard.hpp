// Which addresses a request that a remote party chose may reach. An MCP
// server's OAuth discovery names the URLs the harness then fetches and POSTs
// to; without a check it could make the harness probe the internal network
// (SSRF): a database port on 10.0.0.5, the cloud metadata service at
// 169.254.169.254, a service on the harness's own loopback.
#pragma once

#include <memory>
#include <string>

#include <sys/socket.h>

namespace harness::net {

class http_client;

// False for loopback, private (RFC 1918, IPv6 unique local), link-local
// (169.254/16, fe80::/10, the cloud metadata addresses among them), carrier
// NAT (100.64/10), "this network" (0/8), multicast, broadcast, reserved and
// documentation ranges, and IPv4 mapped into IPv6 of any of them. True for
// an address on the public internet.
bool is_public_address(const sockaddr* address);

// False for "localhost" (and names under .localhost) and for an address
// literal (IPv6 in brackets or not) that is_public_address refuses; true for
// any other name, which only DNS can tell about.
bool is_public_host(const std::string& host);

// The address as text ("10.0.0.5", "::1"), for messages.
std::string address_text(const sockaddr* address);

// Wraps `client` so that every request it sends is marked public_only: the
// address libcurl connects to (after DNS, on every connection, none reused)
// must be public, else the request fails with address_refused. Such requests
// ignore no_proxy; through a proxy only the proxy's address is seen, so the
// check is the proxy's to make.
std::shared_ptr<http_client> public_only_client(std::shared_ptr<http_client> client);

}  // namespace harness::net
