// The deal's check on the replay page: the same derivation as piepmatz.core.commitment, so that
// a player need not take the server's word for it (`piepmatz verify` checks the replay too).
const SCHEME = "piepmatz-deal-1";
const encoder = new TextEncoder();

async function sha256(bytes) {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
}

function hex(bytes) {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** The deal's seed from the server's secret and each seat's part (null at a bot's seat). */
async function seedFrom(secret, parts) {
  const chunks = [encoder.encode(`${SCHEME}:seed:${secret}`)];
  for (const part of parts) {
    const data = encoder.encode(part || "");
    chunks.push(new Uint8Array([data.length >> 8, data.length & 255]), data);
  }
  const all = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const chunk of chunks) {
    all.set(chunk, at);
    at += chunk.length;
  }
  const digest = await sha256(all);
  let seed = 0n;
  for (const byte of digest.slice(0, 8)) seed = (seed << 8n) | BigInt(byte);
  return seed >> 1n;
}

/** What the record shows of its deal: `{outcome, seats}` where outcome is `verified`,
`commitment`, `parts` (`seats`: the people who added none), `seed`, `chosen`, `none` or
`unavailable` (no Web Crypto: a page not served over https or from this machine). */
export async function checkDeal(record) {
  const deal = record.deal;
  if (!deal) return { outcome: "none" };
  if (deal.chosen) return { outcome: "chosen" };
  if (!globalThis.crypto?.subtle) return { outcome: "unavailable" };
  const committed = hex(await sha256(encoder.encode(`${SCHEME}:commit:${deal.secret}`)));
  if (committed !== deal.commitment) return { outcome: "commitment" };
  const missing = deal.people.filter((seat) => !deal.parts[seat]);
  if (missing.length) return { outcome: "parts", seats: missing };
  // JSON numbers are doubles here: the seed (63 bits) is compared as the same double.
  const seed = await seedFrom(deal.secret, deal.parts);
  return { outcome: Number(seed) === record.options.seed ? "verified" : "seed" };
}
