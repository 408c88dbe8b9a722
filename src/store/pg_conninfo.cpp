#include "pg_conninfo.hpp"

#include <libpq-fe.h>

namespace harness::store::detail {

std::string redact_url(const std::string& url) {
  char* message = nullptr;
  PQconninfoOption* options = PQconninfoParse(url.c_str(), &message);
  if (message != nullptr) PQfreemem(message);  // may quote the URL: not used
  if (options == nullptr) return "(an unreadable PostgreSQL URL)";
  std::string user, host, port, dbname;
  for (auto* o = options; o->keyword != nullptr; ++o) {
    if (o->val == nullptr) continue;
    const std::string key = o->keyword;
    if (key == "user") user = o->val;
    if (key == "host") host = o->val;
    if (key == "port") port = o->val;
    if (key == "dbname") dbname = o->val;
  }
  PQconninfoFree(options);
  std::string out = "postgresql://";
  if (!user.empty()) out += user + "@";
  out += host.empty() ? "localhost" : host;
  if (!port.empty()) out += ":" + port;
  return out + "/" + dbname;
}

bool parses_as_conninfo(const std::string& url) {
  char* message = nullptr;
  PQconninfoOption* options = PQconninfoParse(url.c_str(), &message);
  if (message != nullptr) PQfreemem(message);
  if (options == nullptr) return false;
  PQconninfoFree(options);
  return true;
}

connect_params::connect_params(const std::string& url)
    : keys_{"connect_timeout",  "keepalives", "keepalives_idle", "keepalives_interval",
            "keepalives_count", "options",    "dbname",          nullptr},
      values_{"10", "1", "30", "10", "3", "-c bytea_output=hex", url.c_str(), nullptr} {}

}  // namespace harness::store::detail
