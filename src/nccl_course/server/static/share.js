/* Sharing a certificate: "Add to LinkedIn" (LinkedIn's Add to Profile form, filled in from the
   credential by the server: GET /exam/api/credentials/ID/share) on the result and verify pages.
   Kept apart from exam.js and verify.js: each page calls showShareLinks(box, credentialId). */
"use strict";

async function showShareLinks(box, credentialId) {
  if (!box) return;
  box.hidden = true;
  box.textContent = "";
  if (!credentialId) return;
  let share;
  try {
    share = await requestJson("GET", `/exam/api/credentials/${encodeURIComponent(credentialId)}/share`);
  } catch (err) {
    return; // revoked or unknown: nothing to share, and the page already says why
  }
  const link = document.createElement("a");
  link.className = "share-linkedin";
  link.href = share.linkedin_url;
  link.target = "_blank";
  link.rel = "noopener noreferrer";
  link.textContent = S("Add to LinkedIn");
  const note = document.createElement("span");
  note.className = "note";
  note.textContent = " " + S("opens LinkedIn’s “add a certification” form, filled in; nothing is sent until you save it there.");
  box.append(link, note);
  box.hidden = false;
}
