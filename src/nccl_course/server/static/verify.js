/* The verify page: send a pasted or uploaded credential (its .json file, or the certificate's
   PNG with the credential baked in; or ?id=... from a certificate's QR code) to /exam/api/verify and show the verdict with every check. The credential's claims
   (learner, score...) are shown as facts only when it is VALID; otherwise, greyed and marked
   "unverified", apart from the verdict. */
"use strict";

const el = (id) => document.getElementById(id);
// A check's status is "ok", "failed" or "not checked" (nccl_course.certs.verify).
const CHECK_CLASS = { ok: "good", failed: "bad" };

// Names the verifier gives its checks and their status, as the learner reads them; a name the
// page does not know is shown as the server wrote it.
function checkName(name) {
  return {
    issuer: S("issuer"), schema: S("schema"), key: S("key"), signature: S("signature"),
    dates: S("dates"), status: S("status"),
  }[name] || name;
}

function checkStatus(status) {
  return { ok: S("ok"), failed: S("failed"), "not checked": S("not checked") }[status] || status;
}

// A verdict as the page shows it: VALID, NOT VALID, REVOKED or what the server said.
function verdictText(verdict) {
  return {
    VALID: S("VALID"), "NOT VALID": S("NOT VALID"), REVOKED: S("REVOKED"),
    "CANNOT CHECK": S("CANNOT CHECK"),
  }[verdict] || verdict;
}

// A credential's validFrom (an XML Schema dateTime) as a date and time in the page's language;
// anything else as written.
function formatValidFrom(text) {
  const when = new Date(text);
  if (Number.isNaN(when.getTime())) return text;
  return `${formatDate(when)} ${formatTime(when)}`;
}

function claimRows(claims, credentialId, label) {
  const score = claims.score_percent
    ? S("{value} %", { value: Number.isFinite(Number(claims.score_percent)) ? formatNumber(claims.score_percent) : claims.score_percent })
    : null;
  const rows = [[S("Learner"), claims.learner], [S("Achievement"), claims.achievement],
    [S("Issuer"), claims.issuer], [S("Score"), score],
    [S("Valid from"), claims.valid_from ? formatValidFrom(claims.valid_from) : null],
    [S("Credential"), credentialId]];
  const tag = label ? `<span class="tag">${escapeHtml(label)}</span> ` : "";
  // Each value in <bdi>: a right-to-left name cannot reorder the label beside it.
  return rows.filter(([, v]) => v)
    .map(([k, v]) => `<dt>${escapeHtml(k)}</dt><dd>${tag}<bdi>${escapeHtml(v)}</bdi></dd>`).join("");
}

function showResult(result) {
  el("verdict-panel").hidden = false;
  const verdict = el("verdict");
  const valid = result.ok === true && result.verdict === "VALID";
  const revoked = !valid && result.revoked === true;
  verdict.textContent = verdictText(valid ? "VALID" : (revoked ? "REVOKED" : (result.verdict || "NOT VALID")));
  verdict.className = `verdict ${valid ? "good" : "bad"}`;
  el("reason").textContent = result.reason || "";
  // Claims are facts only under VALID; otherwise they are what the document says, unverified.
  el("summary").innerHTML = valid ? claimRows(result.summary || {}, result.credential_id) : "";
  showShareLinks(el("share"), valid ? result.credential_id : null);
  const claims = valid ? null : (result.unverified_claims || null);
  const unverified = claims ? claimRows(claims, result.credential_id, S("unverified")) : "";
  el("claims").innerHTML = unverified;
  el("unverified").hidden = !unverified;
  el("checks").innerHTML = (result.checks || []).map((c) =>
    `<tr><td>${escapeHtml(checkName(c.name))}</td><td class="${CHECK_CLASS[c.status] || "note"}">${escapeHtml(checkStatus(c.status))}</td>`
    + `<td>${escapeHtml(c.detail)}</td></tr>`).join("");
}

async function verify(body) {
  try {
    showResult(await requestJson("POST", withLanguage("/exam/api/verify"), { body }));
  } catch (err) {
    showResult({ ok: false, reason: err.message, checks: [] });
  }
}

/* A baked certificate (Open Badges 3.0): a PNG whose one iTXt chunk "openbadgecredential"
   holds the credential's JSON. Read here, in the browser, as nccl_course.certs.baking reads
   it: every chunk whole and its CRC right, exactly one credential chunk. */
const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const BADGE_KEYWORD = "openbadgecredential";
const MAX_PNG_BYTES = 16 * 1024 * 1024; // nccl_course.certs.baking.MAX_PNG_BYTES
const MAX_TEXT_BYTES = 1024 * 1024; // nccl_course.certs.baking.MAX_TEXT_BYTES

class BadgeError extends Error {}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k += 1) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes) {
  let c = 0xffffffff;
  for (const byte of bytes) c = CRC_TABLE[(c ^ byte) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function isPng(bytes) {
  return PNG_SIGNATURE.every((byte, i) => bytes[i] === byte);
}

const damagedPng = () => new BadgeError(S("This PNG is damaged or cut short; download the certificate again."));

// The data of each openbadgecredential iTXt chunk, after its keyword and NUL.
function credentialChunks(bytes) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const found = [];
  for (let offset = PNG_SIGNATURE.length; ;) {
    if (offset + 12 > bytes.length) throw damagedPng();
    const end = offset + 12 + view.getUint32(offset);
    if (end > bytes.length) throw damagedPng();
    const typed = bytes.subarray(offset + 4, end - 4);
    if (view.getUint32(end - 4) !== crc32(typed)) throw damagedPng();
    const type = String.fromCharCode(...typed.subarray(0, 4));
    const data = typed.subarray(4);
    const nul = data.indexOf(0);
    if (type === "iTXt" && nul > 0 && String.fromCharCode(...data.subarray(0, nul)) === BADGE_KEYWORD) {
      found.push(data.subarray(nul + 1));
    }
    if (type === "IEND") return found;
    offset = end;
  }
}

// Inflate a compressed chunk's text, at most MAX_TEXT_BYTES of it.
async function inflate(bytes) {
  const reader = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("deflate")).getReader();
  const parts = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > MAX_TEXT_BYTES) throw new BadgeError(S("The credential in this PNG cannot be read."));
    parts.push(value);
  }
  return new Uint8Array(await new Blob(parts).arrayBuffer());
}

// The text of one chunk: compression flag and method, language tag NUL, translated keyword NUL.
async function chunkText(rest) {
  const language = rest.indexOf(0, 2);
  const translated = language < 0 ? -1 : rest.indexOf(0, language + 1);
  if (rest.length < 2 || rest[0] > 1 || translated < 0) {
    throw new BadgeError(S("The credential in this PNG cannot be read."));
  }
  try {
    const text = rest[0] ? await inflate(rest.subarray(translated + 1)) : rest.subarray(translated + 1);
    return new TextDecoder("utf-8", { fatal: true }).decode(text);
  } catch (err) {
    if (err instanceof BadgeError) throw err;
    throw new BadgeError(S("The credential in this PNG cannot be read."));
  }
}

async function bakedCredential(file) {
  if (file.size > MAX_PNG_BYTES) {
    throw new BadgeError(S("This image is larger than {size} MB, far more than a certificate; choose the credential's .json file.", { size: MAX_PNG_BYTES / 1024 / 1024 }));
  }
  const found = credentialChunks(new Uint8Array(await file.arrayBuffer()));
  if (found.length === 0) {
    throw new BadgeError(S("This PNG holds no credential. Choose the credential's .json file, or the PNG the result page offers."));
  }
  if (found.length > 1) {
    throw new BadgeError(S("This PNG holds {count} credentials; Open Badges 3.0 allows one.", { count: found.length }));
  }
  return chunkText(found[0]);
}

el("credential-file").addEventListener("change", async () => {
  const file = el("credential-file").files[0];
  if (!file) return;
  const head = new Uint8Array(await file.slice(0, PNG_SIGNATURE.length).arrayBuffer());
  if (!isPng(head)) {
    el("credential-text").value = await file.text();
    return;
  }
  try {
    el("credential-text").value = await bakedCredential(file);
  } catch (err) {
    if (!(err instanceof BadgeError)) throw err;
    el("credential-text").value = "";
    showResult({ ok: false, reason: err.message, checks: [] });
  }
});

el("verify-form").addEventListener("submit", (event) => {
  event.preventDefault();
  let credential;
  try {
    credential = JSON.parse(el("credential-text").value);
  } catch (err) {
    showResult({ ok: false, reason: S("This is not JSON: {error}", { error: err.message }), checks: [] });
    return;
  }
  verify({ credential });
});

const id = new URLSearchParams(location.search).get("id");
if (id) verify({ id });
