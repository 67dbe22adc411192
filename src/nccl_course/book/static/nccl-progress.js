/* The reader's progress through the book, kept in this browser's localStorage only: no account,
 * no server, no network. Pages name themselves in <meta name="nccl-progress-doc">; the practice
 * quizzes announce each graded question with a "nccl-quiz-graded" event; lab pages carry a
 * "mark this lab done" checkbox; the progress page (nccl_course.book.progress) lists every page
 * of the book and offers export to a JSON file, import from one, and clearing.
 *
 * Stored shape (also the export file):
 *   { "format": "nccl-course-progress", "version": 1,
 *     "visited": { docname: ISO time of the last visit },
 *     "last": { "doc": docname, "title": page title } or null,
 *     "quiz": { "chapter/question-id": best score, 0 to 1 },
 *     "labs": { docname: ISO time it was marked done } }
 * What the script writes into the page goes through S() of the course's library
 * (nccl-page.js, loaded before this script): a translated page carries these strings in its
 * language as JSON (<script class="nccl-progress-strings">, written by nccl_course.book.progress).
 * Also loadable in Node (module.exports, with the library from the source tree) so the
 * validator can be tested alone. */
(function (root, page) {
  "use strict";

  var S = page.S;

  var KEY = "nccl-course-progress";
  var FORMAT = "nccl-course-progress";
  var VERSION = 1;
  var MAX_FILE_BYTES = 1024 * 1024;
  var MAX_ENTRIES = 5000;
  var DOC_RE = /^[A-Za-z0-9_][A-Za-z0-9_.\-/]{0,199}$/;
  var QUESTION_RE = /^[A-Za-z0-9_.-]{1,100}\/[A-Za-z0-9_.-]{1,100}$/;
  var TIME_RE = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;
  var TOP_KEYS = ["format", "version", "exported", "visited", "last", "quiz", "labs"];
  var TIME_EXAMPLE = "2026-01-31T12:00:00Z";

  function empty() {
    return { format: FORMAT, version: VERSION, visited: {}, last: null, quiz: {}, labs: {} };
  }

  function isPlainObject(value) {
    return value !== null && typeof value === "object" && !Array.isArray(value);
  }

  function validDoc(doc) {
    return typeof doc === "string" && DOC_RE.test(doc) && doc.split("/").indexOf("..") < 0;
  }

  // `badValue(name, key)`: the sentence for an entry whose value is wrong.
  function checkMap(data, name, keyOk, valueOk, badValue) {
    var map = data[name];
    if (!isPlainObject(map)) return S("\"{name}\" must be an object", { name: name });
    var keys = Object.keys(map);
    if (keys.length > MAX_ENTRIES) return S("\"{name}\" has more than {count} entries", { name: name, count: MAX_ENTRIES });
    for (var i = 0; i < keys.length; i++) {
      if (!keyOk(keys[i])) return S("\"{name}\" has an entry with a bad name: {key}", { name: name, key: JSON.stringify(keys[i].slice(0, 80)) });
      if (!valueOk(map[keys[i]])) return badValue(name, JSON.stringify(keys[i]));
    }
    return null;
  }

  function notATime(name, key) {
    return S("\"{name}\" entry {key} must be a time such as {example}", { name: name, key: key, example: TIME_EXAMPLE });
  }

  function notAScore(name, key) {
    return S("\"{name}\" entry {key} must be a score from 0 to 1", { name: name, key: key });
  }

  /* Why `data` is not a progress record (a sentence), or null if it is one. Checks everything
   * before anything is used, so an import is applied whole or not at all. */
  function problem(data) {
    if (!isPlainObject(data)) return S("the file does not hold a JSON object");
    if (data.format !== FORMAT) return S("this is not an nccl-course progress file (no \"format\": \"{format}\")", { format: FORMAT });
    if (data.version !== VERSION) {
      return S("unknown version {version} (this page reads version {expected})", { version: JSON.stringify(data.version), expected: VERSION });
    }
    var extra = Object.keys(data).filter(function (k) { return TOP_KEYS.indexOf(k) < 0; });
    if (extra.length) return S("unexpected field {name}", { name: JSON.stringify(extra[0].slice(0, 80)) });
    if ("exported" in data && !(typeof data.exported === "string" && TIME_RE.test(data.exported))) {
      return S("\"exported\" must be a time such as {example}", { example: TIME_EXAMPLE });
    }
    var isTime = function (v) { return typeof v === "string" && TIME_RE.test(v); };
    var isScore = function (v) { return typeof v === "number" && isFinite(v) && v >= 0 && v <= 1; };
    var why = checkMap(data, "visited", validDoc, isTime, notATime) ||
      checkMap(data, "quiz", function (k) { return QUESTION_RE.test(k); }, isScore, notAScore) ||
      checkMap(data, "labs", validDoc, isTime, notATime);
    if (why) return why;
    var last = data.last;
    if (last !== null && !(isPlainObject(last) && validDoc(last.doc) &&
        typeof last.title === "string" && last.title.length <= 300 &&
        Object.keys(last).length === 2)) {
      return S("\"last\" must be null or {\"doc\": a page name, \"title\": its title}");
    }
    return null;
  }

  function copy(data) {
    var out = empty();
    ["visited", "quiz", "labs"].forEach(function (name) {
      Object.keys(data[name]).forEach(function (k) { out[name][k] = data[name][k]; });
    });
    out.last = data.last ? { doc: data.last.doc, title: data.last.title } : null;
    return out;
  }

  // "50 %" in English, "%50" in Turkish: the page's table says how ("{value} %").
  function percent(x) {
    return S("{value} %", { value: Math.round(x * 100) });
  }

  // useStrings: the library's, so that Node (no page) can set the table ({strings, decimal}).
  var api = { problem: problem, empty: empty, percent: percent, useStrings: page.useStrings, FORMAT: FORMAT, VERSION: VERSION };
  if (typeof module !== "undefined" && module.exports) module.exports = api;
  root.NcclProgress = api;

  // ---------------------------------------------------------------- the page
  if (typeof document === "undefined") return;

  var storageWorks = true;

  function load() {
    var text = null;
    try {
      text = root.localStorage.getItem(KEY);
    } catch (err) {
      storageWorks = false;
    }
    if (!text) return empty();
    try {
      var data = JSON.parse(text);
      return problem(data) ? empty() : copy(data);
    } catch (err) {
      return empty();
    }
  }

  function save(state) {
    try {
      root.localStorage.setItem(KEY, JSON.stringify(state));
      return true;
    } catch (err) {
      storageWorks = false;
      return false;
    }
  }

  function now() {
    return new Date().toISOString();
  }

  function thisDoc() {
    var meta = document.querySelector('meta[name="nccl-progress-doc"]');
    var doc = meta ? meta.getAttribute("content") : null;
    return validDoc(doc) ? doc : null;
  }

  function pageTitle() {
    var h1 = document.querySelector("main h1, article h1, h1");
    var text = (h1 ? h1.textContent : document.title).replace(/[#¶]\s*$/, "").trim();
    return text.slice(0, 300);
  }

  function contentRoot() {
    var rootPath = document.documentElement.getAttribute("data-content_root");
    return rootPath === null ? "" : rootPath;
  }

  var state = load();

  function recordVisit() {
    var doc = thisDoc();
    if (!doc) return;
    state.visited[doc] = now();
    // The home page and the progress page are where one *continues from*, not a place to return.
    if (!document.querySelector(".nccl-progress, .nccl-progress-continue")) {
      state.last = { doc: doc, title: pageTitle() };
    }
    save(state);
  }

  function onGraded(event) {
    var d = event.detail || {};
    var key = d.chapter + "/" + d.qid;
    if (!QUESTION_RE.test(key) || typeof d.score !== "number" || !isFinite(d.score)) return;
    var score = Math.max(0, Math.min(1, d.score));
    if (!(key in state.quiz) || score > state.quiz[key]) state.quiz[key] = score;
    save(state);
    renderTable();
  }

  function initLabControl() {
    document.querySelectorAll(".nccl-progress-lab-control").forEach(function (box) {
      var doc = box.getAttribute("data-doc");
      var input = box.querySelector(".nccl-progress-lab-done");
      var note = box.querySelector(".nccl-progress-lab-note");
      input.checked = Object.prototype.hasOwnProperty.call(state.labs, doc);
      input.addEventListener("change", function () {
        if (input.checked) state.labs[doc] = now(); else delete state.labs[doc];
        var ok = save(state);
        note.textContent = " " + (ok ? (input.checked ? S("Marked done (kept in this browser).") : S("Marked not done."))
          : S("This browser does not let the page store anything; progress is not kept."));
      });
    });
  }

  function initContinue() {
    document.querySelectorAll(".nccl-progress-continue").forEach(function (p) {
      var last = state.last;
      if (!last || !validDoc(last.doc)) {
        p.hidden = true;
        return;
      }
      var link = p.querySelector(".nccl-progress-continue-link");
      link.setAttribute("href", contentRoot() + last.doc + ".html");
      link.textContent = last.title || last.doc;
      p.hidden = false;
    });
  }

  function renderTable() {
    var box = document.querySelector(".nccl-progress");
    if (!box) return;
    var pages = 0, visited = 0, questions = 0, answered = 0, points = 0, labs = 0, labsDone = 0;
    box.querySelectorAll("tr[data-doc]").forEach(function (row) {
      var doc = row.getAttribute("data-doc");
      var qids = JSON.parse(row.getAttribute("data-questions") || "[]");
      var isLab = row.getAttribute("data-lab") === "true";
      var seen = Object.prototype.hasOwnProperty.call(state.visited, doc);
      pages += 1;
      if (seen) visited += 1;
      row.querySelector(".nccl-progress-visited").textContent = seen ? "✓ " + S("visited") : "—";
      var quizCell = row.querySelector(".nccl-progress-quiz");
      if (qids.length) {
        var mine = qids.filter(function (q) { return Object.prototype.hasOwnProperty.call(state.quiz, q); });
        var sum = mine.reduce(function (acc, q) { return acc + state.quiz[q]; }, 0);
        questions += qids.length;
        answered += mine.length;
        points += sum;
        quizCell.textContent = mine.length
          ? S("{answered} of {total} answered, score {score}", { answered: mine.length, total: qids.length, score: percent(sum / qids.length) })
          : S("{answered} of {total} answered", { answered: 0, total: qids.length });
      } else {
        quizCell.textContent = "";
      }
      var labCell = row.querySelector(".nccl-progress-lab");
      if (isLab) {
        labs += 1;
        var done = Object.prototype.hasOwnProperty.call(state.labs, doc);
        if (done) labsDone += 1;
        labCell.textContent = done ? "✓ " + S("done") : S("not yet");
      } else {
        labCell.textContent = "";
      }
    });
    var summary = S("Visited {visited} of {pages} pages; practice questions answered: {answered} of {questions} (score {score}, best answer per question); labs done: {labs_done} of {labs}.", {
      visited: visited, pages: pages, answered: answered, questions: questions,
      score: percent(questions ? points / questions : 0), labs_done: labsDone, labs: labs,
    });
    if (!storageWorks) summary += " " + S("This browser does not let the page store anything, so progress is not kept.");
    box.querySelector(".nccl-progress-summary").textContent = summary;
    box.setAttribute("data-state", "ready");
  }

  function message(text, kind) {
    var p = document.querySelector(".nccl-progress-message");
    p.textContent = text;
    p.className = "nccl-progress-message" + (kind ? " nccl-progress-" + kind : "");
  }

  function exportFile() {
    var data = copy(state);
    data.exported = now();
    var blob = new Blob([JSON.stringify(data, null, 2) + "\n"], { type: "application/json" });
    var a = document.createElement("a");
    a.href = URL.createObjectURL(blob);
    a.download = "nccl-course-progress.json";
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(function () { URL.revokeObjectURL(a.href); }, 10000);
    message(S("Exported to {file}.", { file: a.download }), "ok");
  }

  function importFile(input) {
    var file = input.files && input.files[0];
    input.value = "";
    if (!file) return;
    var refuse = function (why) {
      message(S("Not imported: {why}. Nothing was changed.", { why: why }), "bad");
    };
    if (file.size > MAX_FILE_BYTES) {
      refuse(S("the file is larger than 1 MiB"));
      return;
    }
    file.text().then(function (text) {
      var data;
      try {
        data = JSON.parse(text);
      } catch (err) {
        refuse(S("the file is not JSON ({error})", { error: err.message }));
        return;
      }
      var why = problem(data);
      if (why) {
        refuse(why);
        return;
      }
      var next = copy(data);
      if (!save(next)) {
        refuse(S("this browser does not let the page store anything"));
        return;
      }
      state = next;
      renderTable();
      message(S("Imported: {pages} pages visited, {questions} questions answered, {labs} labs done.", {
        pages: Object.keys(state.visited).length,
        questions: Object.keys(state.quiz).length,
        labs: Object.keys(state.labs).length,
      }), "ok");
    }, function () {
      refuse(S("the file could not be read"));
    });
  }

  function clearAll() {
    if (!root.confirm(S("Clear your progress in this browser (pages visited, quiz scores, labs done)? This cannot be undone; export it first to keep a copy."))) {
      message(S("Nothing was cleared."));
      return;
    }
    try {
      root.localStorage.removeItem(KEY);
    } catch (err) {
      storageWorks = false;
    }
    state = empty();
    renderTable();
    message(S("Progress cleared."), "ok");
  }

  function initProgressPage() {
    var box = document.querySelector(".nccl-progress");
    if (!box) return;
    box.querySelector(".nccl-progress-export").addEventListener("click", exportFile);
    box.querySelector(".nccl-progress-clear").addEventListener("click", clearAll);
    var input = box.querySelector(".nccl-progress-import");
    input.addEventListener("change", function () { importFile(input); });
    renderTable();
  }

  function init() {
    recordVisit();
    initLabControl();
    initContinue();
    initProgressPage();
    document.addEventListener("nccl-quiz-graded", onGraded);
  }

  page.onReady(init);
})(typeof window !== "undefined" ? window : globalThis,
  typeof module !== "undefined" && module.exports ? require("../../static/nccl-page.js") : window);
