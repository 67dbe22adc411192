/* Practice quizzes in the book: grading mirrors nccl_course.quiz.grading rule for rule
 * (quizzes/README.md). The answer key of each question variant is the JSON in its
 * <script class="nccl-quiz-key">; feedback texts are hidden blocks [data-fb] in the page.
 * No network, no kernel. What it writes into the page goes through S() of the course's
 * library (nccl-page.js, loaded before this script): a translated page carries these strings
 * in its language as JSON (<script class="nccl-quiz-strings">, nccl_course.quiz.sphinx_directive).
 * Also loadable in Node (module.exports, with the library from the source tree) so tests can
 * compare it with the Python grader. */
(function (root, page) {
  "use strict";

  var S = page.S;

  // Same pattern as nccl_course.quiz.units.NUMBER_RE.
  var NUMBER_RE = /^\s*([+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)\s*(\S*)\s*$/;
  var TEXT_DROP = /[\s\-_.]+/g;
  // nccl_course.quiz.units.read_number's rule (page.readLocalizedNumber): "1,5 ms" and
  // "26.214.400 B" in Turkish; "1.875" reads two ways and is refused with the same words.
  function delocalize(text, decimal) {
    try {
      return page.readLocalizedNumber(text, decimal || ".");
    } catch (err) {
      if (!err || !err.ambiguous) throw err;
      throw new Unreadable(S("'{typed}' could be {whole} or {fraction}; write it without a thousands separator, as {whole} or {fraction}",
        { typed: err.text, whole: err.whole, fraction: err.fraction.replace(".", decimal || ".") }));
    }
  }

  function Unreadable(message) {
    this.message = message;
  }

  function expectedText(unit, units) {
    if (unit === "") return S("expected a number without a unit, e.g. {example}", { example: "1.75" });
    return S("expected a number, optionally with a unit ({units}); a bare number is read in {unit}",
      { units: Object.keys(units).join(", "), unit: unit });
  }

  function readNumber(response, unit, units, decimal) {
    if (typeof response === "number") {
      if (!isFinite(response)) throw new Unreadable(S("expected a finite number"));
      return response;
    }
    if (typeof response !== "string") {
      throw new Unreadable(S("expected a number, or a number with a unit such as '{example}'",
        { example: "23.2 ms" }));
    }
    var m = NUMBER_RE.exec(delocalize(response, decimal));
    if (!m) throw new Unreadable(expectedText(unit, units));
    var value = Number(m[1]);
    var given = m[2];
    if (given === "" || given === unit) return value;
    if (!Object.prototype.hasOwnProperty.call(units, given)) {
      throw new Unreadable(expectedText(unit, units));
    }
    return value * units[given] / units[unit];
  }

  function normalizeText(text) {
    // Turkish's dotted and dotless i as one letter, as nccl_course.quiz.grading does.
    return String(text).normalize("NFKC").toLowerCase().replace(/\u0307/g, "").replace(/ı/g, "i")
      .replace(TEXT_DROP, "");
  }

  function index(value, n) {
    if (typeof value === "string" && /^\s*-?[0-9]+\s*$/.test(value)) value = parseInt(value, 10);
    if (typeof value !== "number" || !Number.isInteger(value) || value < 0 || value >= n) {
      throw new Unreadable(S("expected an index from 0 to {last}, got {value}", { last: n - 1, value: value }));
    }
    return value;
  }

  function indices(values, n) {
    if (!Array.isArray(values)) throw new Unreadable(S("expected a list of indices"));
    return values.map(function (v) { return index(v, n); });
  }

  var graders = {
    single: function (key, response) {
      var chosen = index(response, key.n_choices);
      var right = key.correct.indexOf(chosen) >= 0;
      return { score: right ? 1 : 0, outcome: right ? "correct" : "incorrect", chosen: chosen };
    },
    multiple: function (key, response) {
      var n = key.n_choices;
      var picked = indices(response, n);
      var selected = picked.filter(function (v, i) { return picked.indexOf(v) === i; });
      var hits = 0, falsePicks = 0;
      selected.forEach(function (i) {
        if (key.correct.indexOf(i) >= 0) hits += 1; else falsePicks += 1;
      });
      var nc = key.correct.length;
      var score = Math.max(0, hits / nc - falsePicks / (n - nc));
      var outcome = score === 1 ? "correct" : (score > 0 ? "partial" : "incorrect");
      return { score: score, outcome: outcome, selected: selected.sort(function (a, b) { return a - b; }) };
    },
    numeric: function (key, response) {
      var value = readNumber(response, key.unit, key.units, key.decimal);
      if (Math.abs(value - key.answer) <= key.tol) {
        return { score: 1, outcome: "correct", value: value };
      }
      for (var i = 0; i < key.mistakes.length; i++) {
        if (Math.abs(value - key.mistakes[i].answer) <= key.mistakes[i].tol) {
          return { score: 0, outcome: "mistake:" + i, value: value };
        }
      }
      return { score: 0, outcome: "incorrect", value: value };
    },
    ordering: function (key, response) {
      var n = key.order.length;
      var order = indices(response, n);
      var sorted = order.slice().sort(function (a, b) { return a - b; });
      for (var i = 0; i < n; i++) {
        if (sorted[i] !== i) throw new Unreadable("expected each of the " + n + " items exactly once");
      }
      var inPlace = 0;
      for (var j = 0; j < n; j++) if (order[j] === key.order[j]) inPlace += 1;
      return { score: inPlace === n ? 1 : 0, outcome: inPlace === n ? "correct" : "incorrect", in_place: inPlace };
    },
    matching: function (key, response) {
      var nLeft = key.match.length;
      var chosen = indices(response, key.n_right);
      if (chosen.length !== nLeft) throw new Unreadable("expected one choice for each of the " + nLeft + " items");
      var right = 0;
      for (var i = 0; i < nLeft; i++) if (chosen[i] === key.match[i]) right += 1;
      return { score: right === nLeft ? 1 : 0, outcome: right === nLeft ? "correct" : "incorrect", right: right };
    },
    text: function (key, response) {
      if (typeof response !== "string") throw new Unreadable("expected text");
      var given = normalizeText(response);
      if (key.answers.indexOf(given) >= 0) return { score: 1, outcome: "correct" };
      for (var i = 0; i < key.mistakes.length; i++) {
        if (given === key.mistakes[i].answer) return { score: 0, outcome: "mistake:" + i };
      }
      return { score: 0, outcome: "incorrect" };
    }
  };

  function gradeKey(key, response) {
    try {
      return graders[key.type](key, response);
    } catch (err) {
      if (err instanceof Unreadable) {
        return { score: 0, outcome: "unreadable", message: S("Could not read the answer: {message}.", { message: err.message }) };
      }
      throw err;
    }
  }

  var api = { gradeKey: gradeKey, readNumber: readNumber, normalizeText: normalizeText };
  if (typeof module !== "undefined" && module.exports) {
    module.exports = api;
  }
  root.NcclQuiz = api;

  // ---------------------------------------------------------------- the page
  if (typeof document === "undefined") return;

  function readKey(variant) {
    return JSON.parse(variant.querySelector("script.nccl-quiz-key").textContent);
  }

  function readResponse(variant, type) {
    if (type === "single") {
      var checked = variant.querySelector(".nccl-quiz-choices input:checked");
      return checked ? Number(checked.value) : null;
    }
    if (type === "multiple") {
      return Array.prototype.map.call(
        variant.querySelectorAll(".nccl-quiz-choices input:checked"),
        function (el) { return Number(el.value); });
    }
    if (type === "numeric" || type === "text") {
      return variant.querySelector(".nccl-quiz-input").value;
    }
    if (type === "ordering") {
      return Array.prototype.map.call(
        variant.querySelectorAll(".nccl-quiz-order > .nccl-quiz-item"),
        function (el) { return Number(el.getAttribute("data-index")); });
    }
    if (type === "matching") {
      var values = Array.prototype.map.call(
        variant.querySelectorAll(".nccl-quiz-select"), function (el) { return el.value; });
      if (values.some(function (v) { return v === ""; })) return null;
      return values.map(Number);
    }
    return null;
  }

  function hideFeedback(variant) {
    variant.querySelectorAll("[data-fb]").forEach(function (el) { el.hidden = true; });
    variant.querySelectorAll(".nccl-quiz-choice").forEach(function (el) {
      el.classList.remove("nccl-quiz-right", "nccl-quiz-wrong", "nccl-quiz-missed");
    });
  }

  function show(variant, name) {
    var el = variant.querySelector('[data-fb="' + name + '"]');
    if (el) el.hidden = false;
    return el;
  }

  function setResult(variant, cls, text) {
    var box = variant.querySelector(".nccl-quiz-result");
    box.className = "nccl-quiz-result " + cls;
    box.textContent = text;
  }

  // Tells the page a question was graded (the progress script keeps the best score per
  // question in the browser); the grader itself knows nothing of what listens.
  function announce(variant, score) {
    var question = variant.closest(".nccl-quiz-question");
    var quiz = variant.closest(".nccl-quiz");
    if (!question || !quiz) return;
    document.dispatchEvent(new CustomEvent("nccl-quiz-graded", { detail: {
      chapter: quiz.getAttribute("data-chapter"),
      qid: question.getAttribute("data-qid"),
      score: score
    } }));
  }

  function check(variant, type) {
    hideFeedback(variant);
    var key = readKey(variant);
    var response = readResponse(variant, type);
    if (response === null || (type === "multiple" && response.length === 0) ||
        ((type === "numeric" || type === "text") && response.trim() === "")) {
      setResult(variant, "nccl-quiz-unreadable", S("Choose or type an answer first."));
      return;
    }
    var g = gradeKey(key, response);
    variant.setAttribute("data-outcome", g.outcome);
    if (g.outcome === "unreadable") {
      setResult(variant, "nccl-quiz-unreadable", g.message);
      return g;
    }
    var verdict = g.outcome === "correct" ? S("Correct.") :
      (g.outcome === "partial" ? S("Partly right: score {score}.", { score: page.formatNumber(g.score, 2) }) : S("Not quite."));
    if (type === "ordering" && g.outcome !== "correct") {
      verdict += " " + S("{in_place} of {count} items are in the right place.",
        { in_place: g.in_place, count: key.order.length });
    }
    if (type === "matching" && g.outcome !== "correct") {
      verdict += " " + S("{right} of {count} pairs are right.",
        { right: g.right, count: key.match.length });
    }
    announce(variant, g.score);
    setResult(variant, g.outcome === "correct" ? "nccl-quiz-correct" :
      (g.outcome === "partial" ? "nccl-quiz-partial" : "nccl-quiz-incorrect"), verdict);
    if (type === "single") {
      show(variant, "choice-" + g.chosen);
      show(variant, "explanation");
    } else if (type === "multiple") {
      var choices = variant.querySelectorAll(".nccl-quiz-choice");
      for (var i = 0; i < key.n_choices; i++) {
        var isCorrect = key.correct.indexOf(i) >= 0;
        var picked = g.selected.indexOf(i) >= 0;
        if (picked || isCorrect) show(variant, "choice-" + i);
        if (picked) choices[i].classList.add(isCorrect ? "nccl-quiz-right" : "nccl-quiz-wrong");
        else if (isCorrect) choices[i].classList.add("nccl-quiz-missed");
      }
      show(variant, "explanation");
    } else {
      show(variant, g.outcome);
      if (g.outcome === "correct") show(variant, "explanation");
    }
    return g;
  }

  function reveal(variant) {
    var key = readKey(variant);
    setResult(variant, "nccl-quiz-revealed", S("Answer: {answer}", { answer: key.display }));
    show(variant, "explanation");
  }

  function move(item, direction) {
    var list = item.parentNode;
    // Moving a node takes the focus away from the button in it: a keyboard user who pressed
    // "move up" keeps the focus on that button, to press it again.
    var focused = document.activeElement;
    if (direction < 0 && item.previousElementSibling) {
      list.insertBefore(item, item.previousElementSibling);
    } else if (direction > 0 && item.nextElementSibling) {
      list.insertBefore(item.nextElementSibling, item);
    }
    if (focused && item.contains(focused) && document.activeElement !== focused) focused.focus();
  }

  function nextVariant(question) {
    var variants = question.querySelectorAll(":scope > .nccl-quiz-variant");
    var current = Number(question.getAttribute("data-current"));
    var next = (current + 1) % variants.length;
    variants[current].hidden = true;
    variants[next].hidden = false;
    question.setAttribute("data-current", String(next));
    var input = variants[next].querySelector("input, select, button");
    if (input) input.focus();
  }

  function init() {
    document.querySelectorAll(".nccl-quiz-question").forEach(function (question) {
      var type = question.getAttribute("data-type");
      question.addEventListener("click", function (event) {
        var target = event.target.closest("button");
        if (!target) return;
        var variant = target.closest(".nccl-quiz-variant");
        if (target.classList.contains("nccl-quiz-check")) check(variant, type);
        else if (target.classList.contains("nccl-quiz-reveal")) reveal(variant);
        else if (target.classList.contains("nccl-quiz-new")) nextVariant(question);
        else if (target.classList.contains("nccl-quiz-up")) move(target.closest(".nccl-quiz-item"), -1);
        else if (target.classList.contains("nccl-quiz-down")) move(target.closest(".nccl-quiz-item"), 1);
      });
      question.addEventListener("keydown", function (event) {
        if (event.key === "Enter" && event.target.classList.contains("nccl-quiz-input")) {
          event.preventDefault();
          check(event.target.closest(".nccl-quiz-variant"), type);
        }
      });
    });
  }

  // The mock exam (book/static/nccl-mock-exam.js) grades and shows its questions with these, so
  // a question there gets the same verdict and feedback as in the practice quiz.
  api.readResponse = readResponse;
  api.check = check;
  api.hideFeedback = hideFeedback;
  api.move = move;

  page.onReady(init);
})(typeof window !== "undefined" ? window : globalThis,
  typeof module !== "undefined" && module.exports ? require("../../static/nccl-page.js") : window);
