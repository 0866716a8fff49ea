#!/usr/bin/env bash
# Generates a Python client from the service's OpenAPI document with openapi-python-client, as a Python user would,
# and checks it: the generator must skip nothing (any WARNING it prints, e.g. an operation or response it could not
# read, fails the check), every generated module must import under `python -W error` (a SyntaxWarning in generated
# code is an error), and the package must pass `mypy --strict`. The document is built by the function /openapi.json
# serves (buildOpenApiDocument, packages/server/src/http/openapi.ts), with the servers entry `/` of a server without
# PUBLIC_URL: no database, no port. The generator's code is checked as it writes it: no formatter runs after it.
#
#   scripts/python-client.sh                        (about 10 s once the venv is cached)
#   scripts/python-client.sh --keep DIR             also copies the generated package and the document into DIR
set -euo pipefail
cd "$(dirname "$0")/.."

keep=""
if [ "${1:-}" = "--keep" ]; then
  keep="${2:?--keep needs a directory}"
fi

OPENAPI_PYTHON_CLIENT_VERSION=0.29.1   # works with Python 3.11 (the generated code needs 3.10 or later)
MYPY_VERSION=2.4.1
# The generated client's own dependencies, pinned so that mypy reads the same types from one run to the next.
HTTPX_VERSION=0.28.1
ATTRS_VERSION=26.1.0
venv="${XDG_CACHE_HOME:-$HOME/.cache}/billing-service/python-client-$OPENAPI_PYTHON_CLIENT_VERSION-mypy-$MYPY_VERSION"
if [ ! -x "$venv/bin/mypy" ]; then
  echo "Installing openapi-python-client $OPENAPI_PYTHON_CLIENT_VERSION and mypy $MYPY_VERSION into $venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check "openapi-python-client==$OPENAPI_PYTHON_CLIENT_VERSION" \
    "mypy==$MYPY_VERSION" "httpx==$HTTPX_VERSION" "attrs==$ATTRS_VERSION"
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

(cd packages/server && node --import tsx --input-type=module -e '
  const { buildOpenApiDocument } = await import("./src/http/openapi.ts");
  const { appRouter } = await import("./src/routers/index.ts");
  process.stdout.write(JSON.stringify(buildOpenApiDocument(appRouter, "/")));
') >"$work/openapi.json"

# The customer's live stream (GET /customers/{customerId}/stream, Server-Sent Events) is left out of what the generator
# reads: its call never ends (heartbeats), so a request/response client would wait forever, and openapi-python-client
# 0.29 reads an event's schema under text/event-stream as the whole body (from_dict on a str: a mypy error and a
# ValueError). Python users read the stream with an SSE client (README: Testing; docs/decisions.md).
python3 - "$work/openapi.json" <<'PY'
import json, sys
path = sys.argv[1]
document = json.load(open(path))
del document["paths"]["/customers/{customerId}/stream"]
json.dump(document, open(path, "w"))
PY

# application/pdf is a media type openapi-python-client does not know (it reads JSON, text/* and
# application/octet-stream): without this override it leaves the PDF operations without their typed answer. The
# document describes the PDF as binary (`type: string, format: binary`), which the override lets it read as a File.
# A Python user generating a client needs the same line (README: Testing; docs/decisions.md, "A Python client").
cat >"$work/config.yaml" <<'YAML'
content_type_overrides:
  application/pdf: application/octet-stream
post_hooks: []
YAML

status=0
echo "== openapi-python-client $OPENAPI_PYTHON_CLIENT_VERSION: generating billing_client"
(cd "$work" && "$venv/bin/openapi-python-client" generate --path openapi.json --config config.yaml --meta none \
  --output-path billing_client --fail-on-warning) >"$work/generate.log" 2>&1 || status=1
if [ "$status" -ne 0 ] || grep -qi "warning" "$work/generate.log"; then
  cat "$work/generate.log"
  echo "openapi-python-client could not read the whole document (above)" >&2
  status=1
fi

if [ -d "$work/billing_client" ]; then
  echo "== python -W error: importing every generated module"
  (cd "$work" && PYTHONDONTWRITEBYTECODE=1 "$venv/bin/python" -W error -c '
import importlib, pkgutil
import billing_client
def fail(name):
    raise  # walk_packages would skip a package whose import fails
found = pkgutil.walk_packages(billing_client.__path__, "billing_client.", onerror=fail)
names = ["billing_client"] + [m.name for m in found]
for name in names:
    importlib.import_module(name)
print(f"{len(names)} modules imported")
') || status=1

  echo "== mypy $MYPY_VERSION --strict billing_client"
  (cd "$work" && "$venv/bin/mypy" --strict --cache-dir "$work/.mypy_cache" billing_client) || status=1
fi

if [ -n "$keep" ]; then
  mkdir -p "$keep"
  cp -r "$work/openapi.json" "$work/billing_client" "$keep"/ 2>/dev/null || true
fi
exit "$status"
