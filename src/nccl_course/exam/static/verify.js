/* The verify page: send a pasted or uploaded credential (or ?id=... from a certificate's QR
   code) to /exam/api/verify and show the verdict with every check. */
"use strict";

const el = (id) => document.getElementById(id);
// A check's status is "ok", "failed" or "not checked" (nccl_course.certs.verify).
const CHECK_CLASS = { ok: "good", failed: "bad" };

function showResult(result) {
  el("verdict-panel").hidden = false;
  const verdict = el("verdict");
  const revoked = !result.ok && /revoked/i.test(result.reason || "");
  verdict.textContent = result.ok ? "VALID" : (revoked ? "REVOKED" : (result.verdict || "NOT VALID"));
  verdict.className = `verdict ${result.ok ? "good" : "bad"}`;
  el("reason").textContent = result.reason || "";
  const summary = result.summary || {};
  const rows = [["Learner", summary.learner], ["Achievement", summary.achievement],
    ["Issuer", summary.issuer], ["Score", summary.score_percent ? `${summary.score_percent} %` : null],
    ["Valid from", summary.valid_from], ["Credential", result.credential_id]];
  el("summary").innerHTML = rows.filter(([, v]) => v)
    .map(([k, v]) => `<dt>${escapeHtml(k)}</dt><dd>${escapeHtml(v)}</dd>`).join("");
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
