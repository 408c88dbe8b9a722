# PostgreSQL for the store's tests (tests/support/postgres_server starts its
# own server in a temp folder, on a unix socket only). Only the tests need it:
# ./scripts/run.sh sets HARNESS_SETUP=server and skips this (the server reaches
# a PostgreSQL of its own through STORE_URL and needs only libpq).
if [ "${HARNESS_SETUP:-all}" != server ]; then
  need_apt postgresql
  # The package makes (and may start) a cluster on port 5432: the tests do not
  # use it, so it must not run or start at boot.
  for conf in /etc/postgresql/*/main/start.conf; do
    [ -f "$conf" ] || continue
    version=$(basename "$(dirname "$(dirname "$conf")")")
    grep -qx manual "$conf" || echo manual >"$conf"
    pg_ctlcluster "$version" main status >/dev/null 2>&1 && pg_ctlcluster "$version" main stop || true
  done
fi
