/* The page a mailed link opens: /exam/confirm#TOKEN. The token stays after '#', which the
   browser never sends in a request; pressing the button posts it to /exam/api/confirm (a
   button, not a page load, so that a mail scanner fetching the link confirms nothing). A
   sign-in link answers with a new learner key, which this browser keeps, as the exam page
   does. */
"use strict";

const LEARNER_KEY_STORAGE = "nccl-course-learner-key";  // the exam page's (exam.js)
const linkToken = decodeURIComponent(window.location.hash.replace(/^#/, ""));

const say = (text, isError = false) => showMessage(document.getElementById("message"), text, isError);

/* The language links (?lang=) keep what follows '#' in the address: the token. */
for (const link of document.querySelectorAll("a[data-language-link]")) {
  link.href = link.href.split("#")[0] + window.location.hash;
}

if (!linkToken) {
  document.getElementById("confirm").disabled = true;
  say(S("This page needs the whole link from the e-mail (it ends with # and a code)."), true);
}

document.getElementById("confirm").addEventListener("click", async () => {
  const button = document.getElementById("confirm");
  button.disabled = true;
  try {
    const data = await requestJson("POST", withLanguage("/exam/api/confirm"), { body: { token: linkToken } });
    if (data.token) {
      localStorage.setItem(LEARNER_KEY_STORAGE, data.token);
      say(S("Confirmed: {email}. You are signed in as {name} in this browser.", { email: data.email, name: data.learner.name }));
    } else {
      say(S("Confirmed: {email}. The exam page where you registered goes on by itself.", { email: data.email }));
    }
    document.getElementById("to-exam").hidden = false;
  } catch (err) {
    say(err.message, true);
    button.disabled = err.status >= 500 ? false : true;
  }
});
