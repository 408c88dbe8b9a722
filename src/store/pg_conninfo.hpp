// PostgreSQL connection strings in messages and logs: never the password.
#pragma once

#include <string>

namespace harness::store::detail {

// "postgresql://user@host:port/dbname" from a libpq URI or key=value string,
// without the password and without other options; "(an unreadable PostgreSQL
// URL)" when libpq cannot parse it.
std::string redact_url(const std::string& url);

}  // namespace harness::store::detail
