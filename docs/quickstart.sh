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

# 3. A product, and two billable metrics of it: API calls (counted) and tokens (summed from
# the usage events of type "tokens").
PRODUCT=$(api POST /v0/products '{"name":"AI API","description":"Tokens and requests"}' | field id)
BODY=$(printf '{"productId":"%s","name":"API calls","unit":"call","aggregation":"COUNT"}' "$PRODUCT")
CALLS=$(api POST /v0/billableMetrics "$BODY" | field id)
BODY=$(printf '{"productId":"%s","name":"Tokens","unit":"token","aggregation":"SUM","valueProperty":"$.tokens","eventType":"tokens"}' "$PRODUCT")
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

# 7. A second monthly plan, to be invoiced: a fixed fee of 10.00 a month, 20% tax on top, and
# tokens priced in graduated tiers (the first 1,000 free; up to 10,000 at 0.001 each plus a
# flat 2.00 for reaching that tier; beyond, 0.0005 each).
BODY=$(printf '{"billableMetricId":"%s","model":"graduated","invoiceDisplayName":"Tokens","properties":{"tiers":[{"upTo":"1000","unitPrice":"0"},{"upTo":"10000","unitPrice":"0.001","flatPrice":"2.00"},{"upTo":null,"unitPrice":"0.0005"}]}}' "$TOKENS")
PRICE_TIERS=$(api POST /v0/prices "$BODY" | field id)
BODY=$(printf '{"name":"Starter","productId":"%s","billingInterval":"monthly","currency":"USD","fixedFee":"10.00","tax":{"behavior":"exclusive","rate":"20"},"prices":["%s"]}' "$PRODUCT" "$PRICE_TIERS")
STARTER=$(api POST /v0/plans "$BODY" | field id)
echo "starter plan      $STARTER $PRICE_TIERS"

# 8. A test clock frozen at midnight on 1 January 2027, a customer who lives on it, and a
# subscription of that customer to the plan: it starts at the clock's time, so its first
# period is the month of January 2027.
CLOCK=$(api POST /v0/testClocks '{"name":"Quickstart","frozenTime":"2027-01-01T00:00:00.000Z"}' | field id)
BODY=$(printf '{"name":"Jenny Rosen","email":"jenny@example.com","address":{"line1":"1 Main Street","city":"Springfield","postalCode":"12345","country":"US"},"testClockId":"%s"}' "$CLOCK")
CUSTOMER=$(api POST /v0/customers "$BODY" | field id)
BODY=$(printf '{"customerId":"%s","planId":"%s"}' "$CUSTOMER" "$STARTER")
SUBSCRIPTION=$(api POST /v0/subscriptions "$BODY")
SUBSCRIPTION_ID=$(field id <<<"$SUBSCRIPTION")
echo "test clock        $CLOCK"
echo "customer          $CUSTOMER"
echo "subscription      $SUBSCRIPTION_ID $(field currentPeriodStart <<<"$SUBSCRIPTION") $(field currentPeriodEnd <<<"$SUBSCRIPTION")"

# 9. Usage: three events of the tokens metric (type "tokens"), 1,200 + 4,800 + 9,000 = 15,000
# tokens, timestamped now on the customer's clock. Then the clock moves on a month and two
# hours: past the period's end (1 February, 00:00) and the hour of grace that the draft
# invoice waits for late usage, so the invoice is issued.
BODY=$(printf '{"events":[{"idempotencyKey":"%s-1","type":"tokens","customerId":"%s","data":{"tokens":1200}},{"idempotencyKey":"%s-2","type":"tokens","customerId":"%s","data":{"tokens":4800}},{"idempotencyKey":"%s-3","type":"tokens","customerId":"%s","data":{"tokens":9000}}]}' "$CUSTOMER" "$CUSTOMER" "$CUSTOMER" "$CUSTOMER" "$CUSTOMER" "$CUSTOMER")
echo "usage accepted    $(api POST /v0/usageEvents "$BODY" | field accepted)"
NOW=$(api POST "/v0/testClocks/$CLOCK/advance" '{"frozenTime":"2027-02-01T02:00:00.000Z"}' | field frozenTime)
echo "clock advanced    $NOW"

# 10. The invoice of January, read back: issued, numbered, every amount a decimal string.
INVOICE=$(api GET "/v0/invoices?subscriptionId=$SUBSCRIPTION_ID" | field data.0)
INVOICE_ID=$(field id <<<"$INVOICE")
NUMBER=$(field number <<<"$INVOICE")
echo "invoice           $INVOICE_ID $NUMBER $(field status <<<"$INVOICE") $(field periodStart <<<"$INVOICE") $(field periodEnd <<<"$INVOICE")"
echo "invoice lines     $(field lines.0.description <<<"$INVOICE") $(field lines.0.amount <<<"$INVOICE") $(field lines.1.description <<<"$INVOICE") $(field lines.1.quantity <<<"$INVOICE") $(field lines.1.amount <<<"$INVOICE")"
echo "invoice total     $(field subtotal <<<"$INVOICE") + $(field tax.amount <<<"$INVOICE") = $(field total <<<"$INVOICE") $(field currency <<<"$INVOICE")"
[[ $(field status <<<"$INVOICE") == issued ]] || fail "the invoice of January is not issued"

# 11. Its PDF, the document to send the customer, saved as INV-….pdf in PDF_DIR (default:
# the current directory). curl writes the file itself: a PDF is binary, no shell variable.
PDF="${PDF_DIR:-.}/$NUMBER.pdf"
CODE=$(curl -sS -o "$PDF" -w '%{http_code}' "$API/v0/invoices/$INVOICE_ID/pdf" -H "Authorization: Bearer $KEY")
[[ $CODE == 200 ]] || fail "GET /v0/invoices/$INVOICE_ID/pdf answered $CODE"
[[ $(head -c 4 "$PDF") == '%PDF' ]] || fail "$PDF is not a PDF"
echo "invoice pdf       $PDF"

# 12. The invoice.issued webhook of that invoice, checked as in step 5. Waits up to 30 s.
node -e '
  const crypto = require("crypto");
  const fs = require("fs");
  const [secret, file, path, invoice] = process.argv.slice(1);
  const key = Buffer.from(secret.replace(/^whsec_/, ""), "base64");
  const deadline = Date.now() + 30000;
  (function look() {
    const lines = fs.existsSync(file) ? fs.readFileSync(file, "utf8").split("\n") : [];
    const hit = lines
      .filter(Boolean)
      .map((line) => JSON.parse(line))
      .filter((r) => r.path === path)
      .map((r) => ({ ...r, event: JSON.parse(r.body) }))
      .find((r) => r.event.type === "invoice.issued" && r.event.data.object.id === invoice);
    if (!hit) {
      if (Date.now() < deadline) return setTimeout(look, 200);
      console.error("the invoice.issued webhook did not arrive within 30 s");
      process.exit(1);
    }
    const h = hit.headers;
    const signed = `${h["webhook-id"]}.${h["webhook-timestamp"]}.${hit.body}`;
    const mac = crypto.createHmac("sha256", key).update(signed).digest("base64");
    const ok = h["webhook-signature"].split(" ").includes(`v1,${mac}`);
    console.log(`invoice webhook   ${hit.event.id} invoice.issued signature ${ok ? "ok" : "WRONG"}`);
    if (!ok) process.exit(1);
  })();
' "$SECRET" "$HOOKS/received.jsonl" "/webhooks/$RUN" "$INVOICE_ID"
echo "done"
