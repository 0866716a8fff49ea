#!/usr/bin/env bash
# Sends every Stripe call the service makes (services/collection/stripe.ts) to stripe-mock, Stripe's own stateless
# mock, which validates each against Stripe's OpenAPI spec and refuses unknown parameters (stripe-mock-calls.ts).
# Builds stripe-mock with `go install` on the first run (cached afterwards), starts it on free loopback ports, stops it.
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
