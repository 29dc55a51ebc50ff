#!/usr/bin/env bash
# The quickstart of docs/quickstart.md as one script (test/docs/quickstart.e2e-spec.ts runs it,
# and checks that the page shows it verbatim, in bash and in zsh). Needs bash or zsh, curl and node.
set -euo pipefail
: "${KEY:?export KEY=sk_test_... first: the key that the first npm start printed}"
API="${API:-http://localhost:3000}"
RECEIVER_PORT="${RECEIVER_PORT:-4242}"

# api METHOD PATH [JSON]: calls the API with your key and prints the response body; on an
# answer other than 2xx it prints the status and the error body and fails.
api() {
  local args=(-sS -X "$1" "$API$2" -H "Authorization: Bearer $KEY" -w '\n%{http_code}')
  if [[ $# -ge 3 ]]; then args+=(-H 'Content-Type: application/json' -d "$3"); fi
  local out code
  out=$(curl "${args[@]}") || return 1
  code=${out##*$'\n'}
  out=${out%$'\n'*}
  if [[ $code != 2?? ]]; then
    printf '%s\n' "$1 $2 answered $code: $out" >&2
    return 1
  fi
  printf '%s\n' "$out"
}

# field PATH: prints one field of the JSON on standard input (`id`, `prices.0.planId`); fails
# when the field is missing or null, so no step ever carries on with an empty id.
field() {
  node -e '
    let v;
    try { v = JSON.parse(require("fs").readFileSync(0, "utf8")); } catch { process.exit(1); }
    for (const k of process.argv[1].split(".")) v = v == null ? undefined : v[k];
    if (v == null) { console.error(`no ${process.argv[1]} in the answer`); process.exit(1); }
    console.log(typeof v === "string" ? v : JSON.stringify(v));
  ' "$1"
}

fail() {
  printf '%s\n' "$*" >&2
  return 1
}

# 1. A webhook receiver on your machine: it writes each POST it gets (path, headers and body)
# as one line of received.jsonl and answers 204. Waits until it listens.
HOOKS=$(mktemp -d)
node -e '
  const fs = require("fs");
  const [port, file, ready] = process.argv.slice(1);
  const server = require("http").createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => (body += chunk));
    req.on("end", () => {
      if (req.method === "POST") {
        fs.appendFileSync(file, JSON.stringify({ path: req.url, headers: req.headers, body }) + "\n");
      }
      res.writeHead(204).end();
    });
  });
  server.on("error", (err) => {
    console.error(`the webhook receiver cannot listen on 127.0.0.1:${port} (${err.code}): set RECEIVER_PORT`);
    process.exit(1);
  });
  server.listen(Number(port), "127.0.0.1", () => fs.writeFileSync(ready, ""));
' "$RECEIVER_PORT" "$HOOKS/received.jsonl" "$HOOKS/listening" &
RECEIVER=$!
CLEANUP='kill "$RECEIVER" 2>/dev/null; rm -rf "$HOOKS"'
trap "$CLEANUP" EXIT
for _ in $(seq 50); do
  [[ -e $HOOKS/listening ]] && break
  kill -0 "$RECEIVER" 2>/dev/null || fail "the webhook receiver did not start"
  sleep 0.1
done
[[ -e $HOOKS/listening ]] || fail "the webhook receiver did not start within 5 s"

# 2. A webhook endpoint that sends every event to that receiver, at a path of this run's own.
# The answer holds the signing secret, shown only here (and after a rotation). The receiver
# stops when the script ends, so the endpoint is deleted then.
RUN="$$-$RANDOM"
BODY=$(printf '{"url":"http://127.0.0.1:%s/webhooks/%s","enabledEvents":["*"]}' "$RECEIVER_PORT" "$RUN")
ENDPOINT=$(api POST /v0/webhookEndpoints "$BODY")
ENDPOINT_ID=$(field id <<<"$ENDPOINT")
trap "api DELETE /v0/webhookEndpoints/$ENDPOINT_ID >/dev/null || true; $CLEANUP" EXIT
SECRET=$(field secret <<<"$ENDPOINT")
echo "webhook endpoint  $ENDPOINT_ID"

# 3. A product, and two billable metrics of it: API calls (counted) and tokens (summed).
PRODUCT=$(api POST /v0/products '{"name":"AI API","description":"Tokens and requests"}' | field id)
BODY=$(printf '{"productId":"%s","name":"API calls","unit":"call","aggregation":"COUNT"}' "$PRODUCT")
CALLS=$(api POST /v0/billableMetrics "$BODY" | field id)
BODY=$(printf '{"productId":"%s","name":"Tokens","unit":"token","aggregation":"SUM","valueProperty":"$.tokens"}' "$PRODUCT")
TOKENS=$(api POST /v0/billableMetrics "$BODY" | field id)
echo "product           $PRODUCT"
echo "billable metrics  $CALLS $TOKENS"

# 4. One price per metric (amounts are decimal strings), then a monthly plan that takes both.
BODY=$(printf '{"billableMetricId":"%s","model":"standard","invoiceDisplayName":"API calls","properties":{"unitPrice":"0.002"}}' "$CALLS")
PRICE_CALLS=$(api POST /v0/prices "$BODY" | field id)
BODY=$(printf '{"billableMetricId":"%s","model":"standard","invoiceDisplayName":"Tokens","properties":{"unitPrice":"0.00002"}}' "$TOKENS")
PRICE_TOKENS=$(api POST /v0/prices "$BODY" | field id)
BODY=$(printf '{"name":"Pro","productId":"%s","billingInterval":"monthly","currency":"USD","prices":["%s","%s"]}' "$PRODUCT" "$PRICE_CALLS" "$PRICE_TOKENS")
PLAN=$(api POST /v0/plans "$BODY")
PLAN_ID=$(field id <<<"$PLAN")
[[ $(field prices.1.planId <<<"$PLAN") == "$PLAN_ID" ]] || fail "the plan did not take its prices"
echo "prices            $PRICE_CALLS $PRICE_TOKENS"
echo "plan              $PLAN_ID"

# 5. The webhooks of this run's endpoint, in the order of their events. Each is checked as
# Standard Webhooks says: the signature is the base64 HMAC-SHA256, under the secret (base64
# after "whsec_"), of "id.timestamp.body". Waits up to 15 s for the plan's events, the last
# of the writes above (a webhook may arrive before one sent earlier).
node -e '
  const crypto = require("crypto");
  const fs = require("fs");
  const [secret, file, path] = process.argv.slice(1);
  const key = Buffer.from(secret.replace(/^whsec_/, ""), "base64");
  const deadline = Date.now() + 15000;
  (function look() {
    const lines = fs.existsSync(file) ? fs.readFileSync(file, "utf8").split("\n") : [];
    const received = lines
      .filter(Boolean)
      .map((line) => JSON.parse(line))
      .filter((r) => r.path === path)
      .map(({ headers: h, body }) => {
        const signed = `${h["webhook-id"]}.${h["webhook-timestamp"]}.${body}`;
        const mac = crypto.createHmac("sha256", key).update(signed).digest("base64");
        return { event: JSON.parse(body), ok: h["webhook-signature"].split(" ").includes(`v1,${mac}`) };
      })
      .sort((a, b) => (a.event.id < b.event.id ? -1 : 1));
    const count = (type) => received.filter((r) => r.event.type === type).length;
    if (count("plan.created") < 1 || count("price.updated") < 2) {
      if (Date.now() < deadline) return setTimeout(look, 200);
      console.error("the webhooks of the plan did not all arrive within 15 s");
      process.exit(1);
    }
    for (const r of received) {
      console.log(`webhook           ${r.event.id} ${r.event.type} signature ${r.ok ? "ok" : "WRONG"}`);
    }
    if (received.some((r) => !r.ok)) process.exit(1);
  })();
' "$SECRET" "$HOOKS/received.jsonl" "/webhooks/$RUN"

# 6. An external bank account, in test mode: the sandbox bank decides by the last four digits
# (docs/testing.md); 6789 is verified after about a second. A new number each run, because the
# same account twice is a 409. Polls for up to 10 s until the status leaves "pending".
ACCOUNT_NUMBER="$(printf '%05d%05d' "$RANDOM" "$RANDOM")6789"
BODY=$(printf '{"countryCode":"US","bankName":"STRIPE TEST BANK","currency":"USD","accountNumber":"%s","routingNumber":"110000000","accountHolderName":"Jenny Rosen","accountHolderType":"company"}' "$ACCOUNT_NUMBER")
ACCOUNT=$(api POST /v0/externalAccounts "$BODY" | field id)
STATUS=pending
for _ in $(seq 20); do
  STATUS=$(api GET "/v0/externalAccounts/$ACCOUNT" | field status)
  [[ $STATUS != pending ]] && break
  sleep 0.5
done
echo "bank account      $ACCOUNT $STATUS"
[[ $STATUS == verified ]] || fail "the test-mode bank account is $STATUS, not verified"
echo "done"
