/* The verify page: send a pasted or uploaded credential (or ?id=... from a certificate's QR
   code) to /exam/api/verify and show the verdict with every check. The credential's claims
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
    ? S("{value} %", { value: pageStrings().decimal === "," ? String(claims.score_percent).replace(".", ",") : claims.score_percent })
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
  const revoked = !valid && /revoked/i.test(result.reason || "");
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
    showResult(await requestJson("POST", "/exam/api/verify", { body }));
  } catch (err) {
    showResult({ ok: false, reason: err.message, checks: [] });
  }
}

el("credential-file").addEventListener("change", async () => {
  const file = el("credential-file").files[0];
  if (file) el("credential-text").value = await file.text();
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
