/* The exam page: register or sign in, start or resume an attempt, answer (each answer is
   saved on the server as it is given), watch the timer, submit, read the result and download
   the certificate. Grading happens on the server only; this page never sees an answer key. */
"use strict";

const KEY_STORAGE = "nccl-course-learner-key";
const state = { token: localStorage.getItem(KEY_STORAGE), exam: null, attempt: null,
  deadline: 0, timerId: null, saves: new Map(), submitting: false, confirmPoll: null };

const $ = (id) => document.getElementById(id);
const show = (id, on = true) => { $(id).hidden = !on; };

const message = (text, isError = false) => showMessage($("message"), text, isError);

async function api(method, url, body) {
  return requestJson(method, url, { body, token: state.token });
}

function showOnly(section) {
  for (const id of ["auth", "confirm-email", "home", "attempt", "result"]) show(id, id === section);
  if (section !== "confirm-email") clearInterval(state.confirmPoll);
}

/* E-mail confirmation: until the link mailed at registration is opened (here or on another
   device), the server answers 403 email_unconfirmed; poll until it lets the learner in. */
function showConfirm(text) {
  $("confirm-text").textContent = text;
  showOnly("confirm-email");
  clearInterval(state.confirmPoll);
  state.confirmPoll = setInterval(() => home(true), 5000);
}

$("resend").addEventListener("click", async () => {
  try {
    const data = await api("POST", withLanguage("/exam/api/resend"));
    message(data.detail);
  } catch (err) {
    if (err.code === "already_confirmed") await home(); else message(err.message, true);
  }
});

/* ---- start-up, registration, sign-in -------------------------------------------------- */
async function boot() {
  try {
    state.exam = await requestJson("GET", withLanguage("/exam/api/exam"));
  } catch (err) {
    message(S("The exam server is not answering: {error}", { error: err.message }), true);
    return;
  }
  const ex = state.exam;
  loadMathJax(ex.mathjax);
  // The blueprint's title is English data: a page in another language keeps its own heading.
  if (pageLanguage() === "en") {
    $("exam-title").textContent = ex.title;
    $("exam-heading").textContent = ex.title;
  }
  $("rules").textContent = S("{questions} questions, {minutes} minutes, pass mark {pass_mark}, at most {attempts} attempts.", {
    questions: ex.question_count, minutes: Math.round(ex.time_limit_s / 60),
    pass_mark: formatPercent(ex.pass_score, 0), attempts: ex.max_attempts,
  }) + " " + S("Questions are drawn at random for each attempt; numbers in calculation questions change too.");
  if (ex.problems && ex.problems.length) {
    $("problems").textContent = S("Note: {problems}", { problems: ex.problems.join("; ") });
    show("problems");
  }
  if (state.token) await home(); else showOnly("auth");
}

$("register-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  try {
    const data = await requestJson("POST", withLanguage("/exam/api/register"),
      { body: { name: $("name").value, email: $("email").value } });
    state.token = data.token;
    localStorage.setItem(KEY_STORAGE, data.token);
    message(data.learner ? S("Registered. Your learner key is shown below: keep a copy.") : data.detail);
    await home();
  } catch (err) { message(err.message, true); }
});

$("signin-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  state.token = $("learner-key").value.trim();
  localStorage.setItem(KEY_STORAGE, state.token);
  await home();
});

$("confirm-signout").addEventListener("click", () => $("signout").click());

$("signout").addEventListener("click", () => {
  localStorage.removeItem(KEY_STORAGE);
  state.token = null;
  message("");
  showOnly("auth");
});

async function home(polling = false) {
  let me;
  try {
    me = await api("GET", "/exam/api/me");
  } catch (err) {
    if (err.code === "email_unconfirmed") { if (!polling) showConfirm(err.message); return; }
    const stored = localStorage.getItem(KEY_STORAGE);
    if (err.status === 401 && stored && stored !== state.token) {
      state.token = stored;  // signed in by a link opened in another tab of this browser
      return home();
    }
    if (err.status === 401) {
      localStorage.removeItem(KEY_STORAGE);
      state.token = null;
      message(err.message, true);
      showOnly("auth");
      return;
    }
    message(err.message, true);
    return;
  }
  if (polling && me.email_confirmed === false && state.exam.email_confirmation) return;
  stopTimer();
  $("learner-name").textContent = me.learner.name;
  $("learner-key-shown").textContent = state.token;
  const open = me.attempts.find((a) => a.status === "open");
  const passed = me.attempts.some((a) => a.passed);
  $("attempts-left").textContent = S("Attempts used: {used} of {max}.", { used: me.attempts_used, max: state.exam.max_attempts });
  $("start").textContent = open ? S("Resume the exam") : S("Start the exam");
  $("start").disabled = !open && (passed || me.attempts_left === 0);
  const list = $("attempt-list");
  list.innerHTML = "";
  for (const a of me.attempts) {
    const li = document.createElement("li");
    const score = a.score === null ? "" : " - " + S("{score}, {verdict}", {
      score: formatPercent(a.score), verdict: a.passed ? S("passed") : S("not passed") });
    li.textContent = S("Attempt {number}: {status}", { number: a.number, status: attemptStatus(a.status) }) + score + " ";
    if (a.status !== "open") {
      const link = document.createElement("button");
      link.type = "button";
      link.className = "secondary";
      link.textContent = S("Show result");
      link.addEventListener("click", () => openAttempt(a.id));
      li.appendChild(link);
    }
    list.appendChild(li);
  }
  showOnly("home");
}

$("start").addEventListener("click", async () => {
  try {
    const attempt = await api("POST", withLanguage("/exam/api/attempts"));
    message("");
    renderAttempt(attempt);
  } catch (err) {
    if (err.code === "email_unconfirmed") showConfirm(err.message); else message(err.message, true);
  }
});

$("back-home").addEventListener("click", () => home());

async function openAttempt(id) {
  try {
    const attempt = await api("GET", `/exam/api/attempts/${id}`);
    if (attempt.status === "open") renderAttempt(attempt); else renderResult(attempt);
  } catch (err) { message(err.message, true); }
}

/* ---- answering ------------------------------------------------------------------------- */
function renderAttempt(attempt) {
  state.attempt = attempt;
  state.saves = new Map();
  $("attempt-heading").textContent = S("Attempt {number}", { number: attempt.number });
  const list = $("questions");
  list.innerHTML = "";
  for (const item of attempt.questions) list.appendChild(renderQuestion(item));
  updateUnanswered();
  startTimer(attempt.remaining_s);
  showOnly("attempt");
  typesetMath(list);
}

/* A question's exhibit (an NCCL log, a program, a trace; nccl_course.quiz.exhibits): a
   captioned <pre> with numbered lines, focusable so that it scrolls from the keyboard, named
   by its caption for screen readers. The text is never Markdown: it is shown as written. */
const EXHIBIT_LABELS = { log: () => S("NCCL log"), program: () => S("Program"), trace: () => S("Profiler trace") };

function exhibitHtml(exhibit, id) {
  if (!exhibit) return "";
  const label = (EXHIBIT_LABELS[exhibit.kind] || (() => exhibit.kind))();
  const caption = exhibit.caption ? `${label}: ${exhibit.caption}` : label;
  const lines = exhibit.text.split("\n");
  const width = String(lines.length).length;
  const numbered = lines.map((line, i) => `${String(i + 1).padStart(width)}  ${line}`.trimEnd()).join("\n");
  return `<figure class="exhibit" data-kind="${escapeHtml(exhibit.kind)}">`
    + `<figcaption id="${id}">${escapeHtml(caption)}</figcaption>`
    + `<pre tabindex="0" role="region" aria-labelledby="${id}"><code>${escapeHtml(numbered)}</code></pre></figure>`;
}

function renderQuestion(item) {
  const q = item.question;
  const li = document.createElement("li");
  li.className = "question";
  li.dataset.index = item.index;
  li.dataset.type = q.type;
  li.innerHTML = exhibitHtml(q.exhibit, `exhibit-${item.index}`)
    + `<div class="prompt">${renderMarkdown(q.prompt)}</div>`;
  const controls = document.createElement("div");
  controls.className = "controls";
  li.appendChild(controls);
  const status = document.createElement("div");
  status.className = "save-status";
  status.setAttribute("aria-live", "polite");
  li.appendChild(status);
  const answered = item.response !== null && item.response !== undefined;
  if (answered) setStatus(li, "saved", S("Saved"));
  const name = `q${item.index}`;
  const save = (response) => queueSave(li, item.index, response);

  if (q.type === "single" || q.type === "multiple") {
    q.choices.forEach((text, i) => {
      const label = document.createElement("label");
      label.className = "option";
      const input = document.createElement("input");
      input.type = q.type === "single" ? "radio" : "checkbox";
      input.name = name;
      input.value = String(i);
      if (answered) input.checked = q.type === "single" ? item.response === i : item.response.includes(i);
      input.addEventListener("change", () => {
        if (q.type === "single") save(i);
        else save([...controls.querySelectorAll("input:checked")].map((el) => Number(el.value)));
      });
      const tag = document.createElement("span");
      tag.className = "choice-label";
      tag.textContent = choiceLabel(i);
      const span = document.createElement("span");
      span.innerHTML = renderInline(text);
      label.append(input, tag, span);
      controls.appendChild(label);
    });
  } else if (q.type === "numeric" || q.type === "text") {
    const input = document.createElement("input");
    input.type = "text";
    input.name = name;
    input.className = "answer-input";
    input.autocomplete = "off";
    input.setAttribute("aria-label", S("Answer"));
    if (answered) input.value = String(item.response);
    let timer = null;
    const commit = () => { clearTimeout(timer); if (input.value.trim()) save(input.value.trim()); };
    input.addEventListener("input", () => { clearTimeout(timer); timer = setTimeout(commit, 600); });
    input.addEventListener("change", commit);
    controls.appendChild(input);
    if (q.type === "numeric") {
      const hint = document.createElement("span");
      hint.className = "note";
      hint.textContent = " " + (q.unit
        ? S("in {unit} (or with a unit: {units})", { unit: q.unit, units: (q.units || []).join(", ") })
        : S("(a number)"));
      controls.appendChild(hint);
    }
  } else if (q.type === "ordering") {
    // One position selector per item; the response lists item indices first to last.
    const n = q.items.length;
    const selects = q.items.map((text, i) => {
      const label = document.createElement("label");
      label.className = "option";
      const select = document.createElement("select");
      select.name = `${name}-item${i}`;
      select.dataset.item = String(i);
      select.innerHTML = `<option value="">${escapeHtml(S("position..."))}</option>`
        + Array.from({ length: n }, (_, p) => `<option value="${p}">${p + 1}</option>`).join("");
      if (answered) select.value = String(item.response.indexOf(i));
      const span = document.createElement("span");
      span.innerHTML = renderInline(text);
      label.append(select, span);
      controls.appendChild(label);
      return select;
    });
    const onChange = () => {
      const positions = selects.map((s) => s.value);
      if (positions.some((p) => p === "")) { setStatus(li, "", S("Give every item a position.")); return; }
      if (new Set(positions).size !== n) { setStatus(li, "failed", S("Use each position once.")); return; }
      const order = new Array(n);
      positions.forEach((p, i) => { order[Number(p)] = i; });
      save(order);
    };
    selects.forEach((s) => s.addEventListener("change", onChange));
  } else if (q.type === "matching") {
    const selects = q.left.map((text, i) => {
      const label = document.createElement("label");
      label.className = "option";
      const span = document.createElement("span");
      span.innerHTML = renderInline(text) + " &rarr; ";
      const select = document.createElement("select");
      select.name = `${name}-left${i}`;
      select.innerHTML = `<option value="">${escapeHtml(S("choose..."))}</option>`
        + q.right.map((r, j) => `<option value="${j}">${escapeHtml(r)}</option>`).join("");
      if (answered) select.value = String(item.response[i]);
      label.append(span, select);
      controls.appendChild(label);
      return select;
    });
    const onChange = () => {
      if (selects.some((s) => s.value === "")) { setStatus(li, "", S("Match every item to save.")); return; }
      save(selects.map((s) => Number(s.value)));
    };
    selects.forEach((s) => s.addEventListener("change", onChange));
  } else {
    controls.textContent = S("Unsupported question type {type}.", { type: q.type });
  }
  return li;
}

function setStatus(li, kind, text) {
  const el = li.querySelector(".save-status");
  el.className = `save-status ${kind}`;
  el.textContent = text;
  li.dataset.saved = kind === "saved" ? "yes" : "no";
  updateUnanswered();
}

function updateUnanswered() {
  const items = [...document.querySelectorAll("#questions .question")];
  const missing = items.filter((li) => li.dataset.saved !== "yes").length;
  $("unanswered").textContent = missing
    ? S("{missing} of {total} questions have no saved answer.", { missing, total: items.length })
    : S("Every question has a saved answer.");
}

// One save in flight per question; a newer answer replaces a queued one. Network failures
// are retried (the server treats a repeated save as the same answer).
function queueSave(li, index, response) {
  const entry = state.saves.get(index) || { running: null, next: undefined };
  entry.next = response;
  state.saves.set(index, entry);
  setStatus(li, "", S("Saving..."));
  if (!entry.running) entry.running = drain(li, index, entry);
  return entry.running;
}

async function drain(li, index, entry) {
  while (entry.next !== undefined) {
    const response = entry.next;
    entry.next = undefined;
    for (let attempt = 0; ; attempt++) {
      try {
        const ack = await api("PUT", `/exam/api/attempts/${state.attempt.id}/answers/${index}`, { response });
        if (entry.next === undefined) setStatus(li, "saved", S("Saved ({time})", { time: formatTime(ack.saved_at) }));
        break;
      } catch (err) {
        if (err.status && err.status < 500) { setStatus(li, "failed", S("Not saved: {error}", { error: err.message })); break; }
        if (attempt >= 5) { setStatus(li, "failed", S("Not saved: the server is not answering.")); break; }
        setStatus(li, "failed", S("Not saved yet: retrying..."));
        await new Promise((r) => setTimeout(r, 500 * 2 ** attempt));
      }
    }
  }
  entry.running = null;
}

async function settleSaves() {
  for (const entry of state.saves.values()) if (entry.running) await entry.running;
}

/* ---- timer and submission -------------------------------------------------------------- */
function startTimer(remainingS) {
  stopTimer();
  state.deadline = Date.now() + remainingS * 1000;
  const tick = () => {
    const left = Math.max(0, Math.round((state.deadline - Date.now()) / 1000));
    const el = $("timer");
    el.textContent = S("{time} left", { time: `${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")}` });
    el.classList.toggle("low", left < 120);
    if (left === 0) { stopTimer(); submit(true); }
  };
  show("timer");
  tick();
  state.timerId = setInterval(tick, 1000);
}

function stopTimer() {
  if (state.timerId) clearInterval(state.timerId);
  state.timerId = null;
  show("timer", false);
}

$("submit").addEventListener("click", () => submit(false));

async function submit(timeUp) {
  if (state.submitting || !state.attempt) return;
  if (!timeUp) {
    const missing = [...document.querySelectorAll("#questions .question")].filter((li) => li.dataset.saved !== "yes").length;
    if (missing && !confirm(S("{missing} questions have no saved answer. Submit anyway?", { missing }))) return;
  }
  state.submitting = true;
  $("submit").disabled = true;
  try {
    await settleSaves();
    const result = await api("POST", `/exam/api/attempts/${state.attempt.id}/submit`);
    stopTimer();
    message(timeUp ? S("Time is up: the exam was graded with the answers saved in time.") : "");
    renderResult(result);
  } catch (err) {
    message(S("Submitting failed ({error}); press Submit again: it is safe to repeat.", { error: err.message }), true);
  } finally {
    state.submitting = false;
    $("submit").disabled = false;
  }
}

/* ---- result and certificate ------------------------------------------------------------ */
// The grader names choices "Choice 1", "Choice 2", ... in the order the page lists them, in the
// attempt's language (nccl_course.quiz.grading); the page labels them the same way.
const choiceLabel = (i) => S("Choice {number}", { number: i + 1 });

// An attempt's status as the learner reads it.
function attemptStatus(status) {
  return { open: S("open"), submitted: S("submitted"), expired: S("expired") }[status] || status;
}

// Points with at most two decimals, in the page's language ("4,5" in Turkish).
const formatPoints = (points) => formatNumber(Math.round(Number(points) * 100) / 100);

/* The learner's answer as HTML: choice and item texts are Markdown with math, like prompts. */
function describeResponse(q, response) {
  if (response === null || response === undefined) return escapeHtml(S("no answer"));
  const choice = (i) => `${escapeHtml(choiceLabel(i))}: ${renderInline(q.choices[i])}`;
  if (q.type === "single") return choice(response);
  if (q.type === "multiple") return response.map(choice).join("; ") || escapeHtml(S("none selected"));
  if (q.type === "ordering") return response.map((i) => renderInline(q.items[i])).join(" \u2192 ");
  if (q.type === "matching") {
    return response.map((j, i) => `${renderInline(q.left[i])} \u2192 ${renderInline(q.right[j])}`).join("; ");
  }
  return renderInline(String(response));
}

/* The choices of a single or multiple choice question, labelled as the feedback names them. */
function describeChoices(q, response) {
  if (q.type !== "single" && q.type !== "multiple") return "";
  const picked = (i) => (q.type === "single" ? response === i : (response || []).includes(i));
  const items = q.choices.map((text, i) => `<li${picked(i) ? ' class="picked"' : ""}>`
    + `<span class="choice-label">${escapeHtml(choiceLabel(i))}</span> ${renderInline(text)}</li>`);
  return `<ul class="choices">${items.join("")}</ul>`;
}

function renderResult(attempt) {
  stopTimer();
  state.attempt = attempt;
  const score = $("score");
  score.textContent = S("{score} ({points} of {max} points): {verdict}", {
    score: formatPercent(attempt.score), points: formatPoints(attempt.points),
    max: formatPoints(attempt.max_points),
    verdict: attempt.passed ? S("passed")
      : S("not passed (pass mark {pass_mark})", { pass_mark: formatPercent(attempt.pass_score, 0) }),
  });
  score.className = `score ${attempt.passed ? "good" : "bad"}`;
  show("credential", Boolean(attempt.passed && attempt.credential_id));
  show("revoked", Boolean(attempt.revoked));
  if (attempt.credential_id) {
    $("verify-link").href = `/exam/verify?id=${encodeURIComponent(attempt.credential_id)}&lang=${pageLanguage()}`;
  }
  showShareLinks($("share"), attempt.passed && !attempt.revoked ? attempt.credential_id : null);
  const list = $("feedback");
  list.innerHTML = "";
  for (const item of attempt.questions) {
    const li = document.createElement("li");
    li.className = "question";
    li.dataset.index = item.index;
    const unanswered = item.response === null || item.response === undefined;
    const verdict = item.correct ? S("right") : (item.score > 0 ? S("partly right") : (unanswered ? S("not answered") : S("wrong")));
    const points = S("({points} points)", { points: formatNumber(item.score ?? 0, 2) });
    li.innerHTML = `${exhibitHtml(item.question.exhibit, `result-exhibit-${item.index}`)}
      <div class="prompt">${renderMarkdown(item.question.prompt)}</div>
      ${describeChoices(item.question, item.response)}
      <div class="meta your-answer">${escapeHtml(S("Your answer:"))} ${describeResponse(item.question, item.response)}</div>
      <div class="feedback ${item.correct ? "right" : "wrong"}"><strong>${escapeHtml(verdict)}</strong>
      ${escapeHtml(points)}${renderMarkdown(item.feedback || "")}</div>`;
    list.appendChild(li);
  }
  showOnly("result");
  typesetMath(list);
  // The submit button is at the bottom of a long page: bring the score into view.
  $("result").scrollIntoView({ block: "start" });
}

async function download(path, filename) {
  try {
    const blob = await requestBlob(path, { token: state.token });
    const url = URL.createObjectURL(blob);
    const a = document.createElement("a");
    a.href = url;
    a.download = filename;
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10000);
  } catch (err) { message(S("Download failed: {error}", { error: err.message }), true); }
}

$("download-json").addEventListener("click", () => download(`/exam/api/attempts/${state.attempt.id}/credential`, "nccl-course-credential.json"));
$("download-pdf").addEventListener("click", () => download(`/exam/api/attempts/${state.attempt.id}/certificate.pdf`, "nccl-course-certificate.pdf"));
$("download-png").addEventListener("click", () => download(`/exam/api/attempts/${state.attempt.id}/certificate.png`, "nccl-course-certificate.png"));

boot();
