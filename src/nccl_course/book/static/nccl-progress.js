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
 * Also loadable in Node (module.exports) so the validator can be tested alone. */
(function (root) {
  "use strict";

  var KEY = "nccl-course-progress";
  var FORMAT = "nccl-course-progress";
  var VERSION = 1;
  var MAX_FILE_BYTES = 1024 * 1024;
  var MAX_ENTRIES = 5000;
  var DOC_RE = /^[A-Za-z0-9_][A-Za-z0-9_.\-\/]{0,199}$/;
  var QUESTION_RE = /^[A-Za-z0-9_.\-]{1,100}\/[A-Za-z0-9_.\-]{1,100}$/;
  var TIME_RE = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;
  var TOP_KEYS = ["format", "version", "exported", "visited", "last", "quiz", "labs"];

  function empty() {
    return { format: FORMAT, version: VERSION, visited: {}, last: null, quiz: {}, labs: {} };
  }

  function isPlainObject(value) {
    return value !== null && typeof value === "object" && !Array.isArray(value);
  }

  function validDoc(doc) {
    return typeof doc === "string" && DOC_RE.test(doc) && doc.split("/").indexOf("..") < 0;
  }

  function checkMap(data, name, keyOk, valueOk, what) {
    var map = data[name];
    if (!isPlainObject(map)) return '"' + name + '" must be an object';
    var keys = Object.keys(map);
    if (keys.length > MAX_ENTRIES) return '"' + name + '" has more than ' + MAX_ENTRIES + " entries";
    for (var i = 0; i < keys.length; i++) {
      if (!keyOk(keys[i])) return '"' + name + '" has an entry with a bad name: ' + JSON.stringify(keys[i].slice(0, 80));
      if (!valueOk(map[keys[i]])) return '"' + name + '" entry ' + JSON.stringify(keys[i]) + " must be " + what;
    }
    return null;
  }

  /* Why `data` is not a progress record (a sentence), or null if it is one. Checks everything
   * before anything is used, so an import is applied whole or not at all. */
  function problem(data) {
    if (!isPlainObject(data)) return "the file does not hold a JSON object";
    if (data.format !== FORMAT) return 'this is not an nccl-course progress file (no "format": "' + FORMAT + '")';
    if (data.version !== VERSION) return "unknown version " + JSON.stringify(data.version) + " (this page reads version " + VERSION + ")";
    var extra = Object.keys(data).filter(function (k) { return TOP_KEYS.indexOf(k) < 0; });
    if (extra.length) return "unexpected field " + JSON.stringify(extra[0].slice(0, 80));
    if ("exported" in data && !(typeof data.exported === "string" && TIME_RE.test(data.exported))) {
      return '"exported" must be a time such as 2026-01-31T12:00:00Z';
    }
    var isTime = function (v) { return typeof v === "string" && TIME_RE.test(v); };
    var isScore = function (v) { return typeof v === "number" && isFinite(v) && v >= 0 && v <= 1; };
    var why = checkMap(data, "visited", validDoc, isTime, "a time such as 2026-01-31T12:00:00Z") ||
      checkMap(data, "quiz", function (k) { return QUESTION_RE.test(k); }, isScore, "a score from 0 to 1") ||
      checkMap(data, "labs", validDoc, isTime, "a time such as 2026-01-31T12:00:00Z");
    if (why) return why;
    var last = data.last;
    if (last !== null && !(isPlainObject(last) && validDoc(last.doc) &&
        typeof last.title === "string" && last.title.length <= 300 &&
        Object.keys(last).length === 2)) {
      return '"last" must be null or {"doc": a page name, "title": its title}';
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

  var api = { problem: problem, empty: empty, FORMAT: FORMAT, VERSION: VERSION };
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
        note.textContent = ok ? (input.checked ? " Marked done (kept in this browser)." : " Marked not done.")
          : " This browser does not let the page store anything; progress is not kept.";
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

  function percent(x) {
    return Math.round(x * 100) + " %";
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
      row.querySelector(".nccl-progress-visited").textContent = seen ? "✓ visited" : "—";
      var quizCell = row.querySelector(".nccl-progress-quiz");
      if (qids.length) {
        var mine = qids.filter(function (q) { return Object.prototype.hasOwnProperty.call(state.quiz, q); });
        var sum = mine.reduce(function (acc, q) { return acc + state.quiz[q]; }, 0);
        questions += qids.length;
        answered += mine.length;
        points += sum;
        quizCell.textContent = mine.length ? mine.length + " of " + qids.length + " answered, score " + percent(sum / qids.length)
          : "0 of " + qids.length + " answered";
      } else {
        quizCell.textContent = "";
      }
      var labCell = row.querySelector(".nccl-progress-lab");
      if (isLab) {
        labs += 1;
        var done = Object.prototype.hasOwnProperty.call(state.labs, doc);
        if (done) labsDone += 1;
        labCell.textContent = done ? "✓ done" : "not yet";
      } else {
        labCell.textContent = "";
      }
    });
    var summary = "Visited " + visited + " of " + pages + " pages; practice questions answered: " +
      answered + " of " + questions + " (score " + percent(questions ? points / questions : 0) +
      ", best answer per question); labs done: " + labsDone + " of " + labs + ".";
    if (!storageWorks) summary += " This browser does not let the page store anything, so progress is not kept.";
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
    message("Exported to nccl-course-progress.json.", "ok");
  }

  function importFile(input) {
    var file = input.files && input.files[0];
    input.value = "";
    if (!file) return;
    var refuse = function (why) {
      message("Not imported: " + why + ". Nothing was changed.", "bad");
    };
    if (file.size > MAX_FILE_BYTES) {
      refuse("the file is larger than 1 MiB");
      return;
    }
    file.text().then(function (text) {
      var data;
      try {
        data = JSON.parse(text);
      } catch (err) {
        refuse("the file is not JSON (" + err.message + ")");
        return;
      }
      var why = problem(data);
      if (why) {
        refuse(why);
        return;
      }
      var next = copy(data);
      if (!save(next)) {
        refuse("this browser does not let the page store anything");
        return;
      }
      state = next;
      renderTable();
      message("Imported: " + Object.keys(state.visited).length + " pages visited, " +
        Object.keys(state.quiz).length + " questions answered, " +
        Object.keys(state.labs).length + " labs done.", "ok");
    }, function () {
      refuse("the file could not be read");
    });
  }

  function clearAll() {
    if (!root.confirm("Clear your progress in this browser (pages visited, quiz scores, labs done)? This cannot be undone; export it first to keep a copy.")) {
      message("Nothing was cleared.");
      return;
    }
    try {
      root.localStorage.removeItem(KEY);
    } catch (err) {
      storageWorks = false;
    }
    state = empty();
    renderTable();
    message("Progress cleared.", "ok");
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

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})(typeof window !== "undefined" ? window : globalThis);
