/* The verify page: send a pasted or uploaded credential (or ?id=... from a certificate's QR
   code) to /exam/api/verify and show the verdict with every check. The credential's claims
   (learner, score...) are shown as facts only when it is VALID; otherwise, greyed and marked
   "unverified", apart from the verdict. */
"use strict";

const el = (id) => document.getElementById(id);
// A check's status is "ok", "failed" or "not checked" (nccl_course.certs.verify).
const CHECK_CLASS = { ok: "good", failed: "bad" };

function claimRows(claims, credentialId, label) {
  const rows = [["Learner", claims.learner], ["Achievement", claims.achievement],
    ["Issuer", claims.issuer], ["Score", claims.score_percent ? `${claims.score_percent} %` : null],
    ["Valid from", claims.valid_from], ["Credential", credentialId]];
  const tag = label ? `<span class="tag">${escapeHtml(label)}</span> ` : "";
  return rows.filter(([, v]) => v)
    .map(([k, v]) => `<dt>${escapeHtml(k)}</dt><dd>${tag}${escapeHtml(v)}</dd>`).join("");
}

function showResult(result) {
  el("verdict-panel").hidden = false;
  const verdict = el("verdict");
  const valid = result.ok === true && result.verdict === "VALID";
  const revoked = !valid && /revoked/i.test(result.reason || "");
  verdict.textContent = valid ? "VALID" : (revoked ? "REVOKED" : (result.verdict || "NOT VALID"));
  verdict.className = `verdict ${valid ? "good" : "bad"}`;
  el("reason").textContent = result.reason || "";
  // Claims are facts only under VALID; otherwise they are what the document says, unverified.
  el("summary").innerHTML = valid ? claimRows(result.summary || {}, result.credential_id) : "";
  showShareLinks(el("share"), valid ? result.credential_id : null);
  const claims = valid ? null : (result.unverified_claims || null);
  const unverified = claims ? claimRows(claims, result.credential_id, "unverified") : "";
  el("claims").innerHTML = unverified;
  el("unverified").hidden = !unverified;
  el("checks").innerHTML = (result.checks || []).map((c) =>
    `<tr><td>${escapeHtml(c.name)}</td><td class="${CHECK_CLASS[c.status] || "note"}">${escapeHtml(c.status)}</td>`
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
    showResult({ ok: false, reason: `This is not JSON: ${err.message}`, checks: [] });
    return;
  }
  verify({ credential });
});

const id = new URLSearchParams(location.search).get("id");
if (id) verify({ id });
