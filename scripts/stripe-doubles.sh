#!/usr/bin/env bash
# Two Stripe doubles, no network:
# 1. stripe-mock, Stripe's own stateless mock: every Stripe call the service makes (services/collection/stripe.ts),
#    validated against Stripe's OpenAPI spec, unknown parameters refused (stripe-mock-calls.ts). Built with
#    `go install` on the first run (cached afterwards).
# 2. localstripe (PyPI, stateful, in a venv as schemathesis is): the service itself, started on a fresh embedded
#    database, charges pm_card_visa off-session, is declined on 4000000000000341, refunds part through a PROVIDER credit
#    note, and takes localstripe's signed payment_intent.* webhooks through its own route (localstripe-calls.ts).
# Each runs on free loopback ports and is stopped at the end.
#   scripts/stripe-doubles.sh
set -euo pipefail
cd "$(dirname "$0")/.."

STRIPE_MOCK_VERSION=v0.203.0
bin="${XDG_CACHE_HOME:-$HOME/.cache}/billing-service/stripe-mock-$STRIPE_MOCK_VERSION"
if [ ! -x "$bin/stripe-mock" ]; then
  echo "Building stripe-mock $STRIPE_MOCK_VERSION into $bin"
  mkdir -p "$bin"
  GOBIN="$bin" go install "github.com/stripe/stripe-mock@$STRIPE_MOCK_VERSION"
fi

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
http_port=$(free_port)
https_port=$(free_port)
log=$(mktemp)
"$bin/stripe-mock" -http-addr "127.0.0.1:$http_port" -https-addr "127.0.0.1:$https_port" >"$log" 2>&1 &
mock=$!
stop_mock() {
  kill "$mock" 2>/dev/null || true
  wait "$mock" 2>/dev/null || true
  rm -f "$log"
}
trap stop_mock EXIT
for _ in $(seq 1 100); do
  curl -fs -u sk_test_123: "http://127.0.0.1:$http_port/v1/customers/cus_123" >/dev/null 2>&1 && break
  sleep 0.1
done
npx tsx scripts/stripe-mock-calls.ts "http://127.0.0.1:$http_port"
stop_mock

LOCALSTRIPE_VERSION=1.15.10   # works with Python 3.11
venv="${XDG_CACHE_HOME:-$HOME/.cache}/billing-service/localstripe-$LOCALSTRIPE_VERSION"
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import localstripe' 2>/dev/null; then
  echo "Installing localstripe $LOCALSTRIPE_VERSION into $venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check "localstripe==$LOCALSTRIPE_VERSION"
fi
work=$(mktemp -d)
stripe_port=$(free_port)
port=$(free_port)
admin_token="localstripe-admin-$(python3 -c 'import secrets; print(secrets.token_hex(16))')"
# In memory and on 127.0.0.1 only (localstripe's own start keeps /tmp/localstripe.pickle and listens everywhere).
"$venv/bin/python" scripts/localstripe-launcher.py "$stripe_port" >"$work/localstripe.log" 2>&1 &
stripe=$!
# One node process (no wrapper), so that the SIGTERM below reaches the server itself, which stops its database.
(cd packages/server && exec env PORT="$port" HOST=127.0.0.1 ADMIN_TOKEN="$admin_token" DATA_DIR="$work/data" \
  LOG_LEVEL=warn BILLING_SCHEDULER=false BILLING_GRACE_PERIOD=0 INVOICE_DRAFT_PERIOD=0 \
  node --import tsx src/main.ts) >"$work/server.log" 2>&1 &
server=$!
stop_all() {
  kill "$stripe" 2>/dev/null || true
  wait "$stripe" 2>/dev/null || true
  if kill -0 "$server" 2>/dev/null; then
    kill -TERM "$server"
    wait "$server" || true
  fi
  rm -rf "$work"
}
trap 'stop_mock; stop_all' EXIT
base="http://127.0.0.1:$port"
for _ in $(seq 1 600); do
  curl -fs "$base/health" >/dev/null 2>&1 && curl -fs -u sk_test_1: "http://127.0.0.1:$stripe_port/v1/customers" \
    >/dev/null 2>&1 && break
  if ! kill -0 "$server" 2>/dev/null || ! kill -0 "$stripe" 2>/dev/null; then
    echo "The server or localstripe stopped before answering:" >&2
    cat "$work/server.log" "$work/localstripe.log" >&2
    exit 1
  fi
  sleep 1
done
stripe_base="http://127.0.0.1:$stripe_port"
if ! npx tsx scripts/localstripe-calls.ts "$base" "$admin_token" "$stripe_base" "$work/localstripe.log"; then
  tail -n 40 "$work/server.log" "$work/localstripe.log" >&2
  exit 1
fi
