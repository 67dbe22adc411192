/* The mock exam in the book (nccl_course.book.mock_exam): a form of the exam, answered without
 * feedback, then graded at once on "Submit the mock exam" with the practice quiz's grader and
 * feedback (window.NcclQuiz, static/nccl-quiz.js). The score is points / questions, as on the
 * server; the page's tables, written at build time with a row per chapter and per objective,
 * get their points here. The clock is shown on request and enforces nothing. Strings go
 * through S() of the course's library (nccl-page.js). */
"use strict";

(function () {
  if (typeof document === "undefined") return;

  function questions(form) {
    return Array.from(form.querySelectorAll(".nccl-mock-question"));
  }

  function answered(response, type) {
    if (response === null) return false;
    if (type === "multiple") return response.length > 0;
    if (type === "numeric" || type === "text") return response.trim() !== "";
    return true;
  }

  /* Grade one question: its score (0 to 1), with the verdict and feedback shown as in the
     practice quiz; an unanswered question scores 0. */
  function gradeQuestion(question) {
    const quiz = window.NcclQuiz;
    const type = question.getAttribute("data-type");
    const variant = question.querySelector(".nccl-quiz-variant");
    if (!answered(quiz.readResponse(variant, type), type)) {
      quiz.hideFeedback(variant);
      const box = variant.querySelector(".nccl-quiz-result");
      box.className = "nccl-quiz-result nccl-quiz-incorrect";
      box.textContent = S("Not answered: score 0.");
      const explanation = variant.querySelector('[data-fb="explanation"]');
      if (explanation) explanation.hidden = false;
      question.setAttribute("data-score", "0");
      return 0;
    }
    const graded = quiz.check(variant, type);
    const score = graded ? graded.score : 0;
    question.setAttribute("data-score", String(score));
    return score;
  }

  function fillRows(form, attribute, points, counts) {
    form.querySelectorAll(`tr[${attribute}]`).forEach((row) => {
      const name = row.getAttribute(attribute);
      const share = points[name] / counts[name];
      row.querySelector(".nccl-mock-points").textContent = formatNumber(points[name], 2);
      const percent = row.querySelector(".nccl-mock-percent");
      percent.textContent = formatPercent(share, 0);
      row.classList.toggle("nccl-mock-weak", share < Number(form.closest(".nccl-mock").getAttribute("data-pass")));
      if (row.classList.contains("nccl-mock-weak")) percent.textContent += ` (${S("revisit")})`;
    });
  }

  function submit(form) {
    const mock = form.closest(".nccl-mock");
    const pass = Number(mock.getAttribute("data-pass"));
    const byChapter = {}, byObjective = {}, nChapter = {}, nObjective = {};
    let total = 0;
    const all = questions(form);
    all.forEach((question) => {
      const score = gradeQuestion(question);
      total += score;
      const chapter = question.getAttribute("data-chapter");
      const objective = question.getAttribute("data-objective");
      byChapter[chapter] = (byChapter[chapter] || 0) + score;
      nChapter[chapter] = (nChapter[chapter] || 0) + 1;
      if (objective) {
        byObjective[objective] = (byObjective[objective] || 0) + score;
        nObjective[objective] = (nObjective[objective] || 0) + 1;
      }
      question.querySelectorAll("input, select").forEach((el) => { el.disabled = true; });
      question.querySelectorAll(".nccl-quiz-move button").forEach((el) => { el.disabled = true; });
    });
    const share = all.length ? total / all.length : 0;
    const passed = share >= pass - 1e-12;
    const score = form.querySelector(".nccl-mock-score");
    score.textContent = `${S("Score: {points} of {total} points ({percent}).", {
      points: formatNumber(total, 2), total: all.length, percent: formatPercent(share, 1),
    })} ${passed ? S("Passed: at or above the pass mark of {pass}.", { pass: formatPercent(pass, 0) })
      : S("Not passed: below the pass mark of {pass}.", { pass: formatPercent(pass, 0) })}`;
    score.className = `nccl-mock-score ${passed ? "nccl-mock-passed" : "nccl-mock-failed"}`;
    form.setAttribute("data-score", String(share));
    form.setAttribute("data-passed", String(passed));
    fillRows(form, "data-chapter", byChapter, nChapter);
    fillRows(form, "data-objective", byObjective, nObjective);
    form.querySelector(".nccl-mock-result").hidden = false;
    form.querySelector(".nccl-mock-submit").hidden = true;
    form.querySelector(".nccl-mock-again").hidden = false;
    score.focus();
  }

  function again(form) {
    const quiz = window.NcclQuiz;
    questions(form).forEach((question) => {
      const variant = question.querySelector(".nccl-quiz-variant");
      quiz.hideFeedback(variant);
      const box = variant.querySelector(".nccl-quiz-result");
      box.className = "nccl-quiz-result";
      box.textContent = "";
      variant.removeAttribute("data-outcome");
      question.removeAttribute("data-score");
      question.querySelectorAll("input, select, button").forEach((el) => { el.disabled = false; });
      question.querySelectorAll("input[type=radio], input[type=checkbox]").forEach((el) => { el.checked = false; });
      question.querySelectorAll("input[type=text]").forEach((el) => { el.value = ""; });
      question.querySelectorAll("select").forEach((el) => { el.value = ""; });
      const list = question.querySelector(".nccl-quiz-order");
      if (list) {
        Array.from(list.children)
          .sort((a, b) => Number(a.getAttribute("data-index")) - Number(b.getAttribute("data-index")))
          .forEach((item) => list.appendChild(item));
      }
    });
    form.removeAttribute("data-score");
    form.removeAttribute("data-passed");
    form.querySelector(".nccl-mock-result").hidden = true;
    form.querySelector(".nccl-mock-submit").hidden = false;
    form.querySelector(".nccl-mock-again").hidden = true;
    const first = form.querySelector(".nccl-mock-question input, .nccl-mock-question select, .nccl-mock-question button");
    if (first) first.focus();
  }

  function showForm(mock, number) {
    mock.querySelectorAll(".nccl-mock-form").forEach((form) => {
      form.hidden = form.getAttribute("data-form") !== String(number);
    });
  }

  /* The clock counts the blueprint's time limit down from "Start the clock"; at zero it says
     so and keeps everything open. */
  function startClock(mock) {
    const clock = mock.querySelector(".nccl-mock-clock");
    const limit = Number(mock.getAttribute("data-time-limit"));
    const end = Date.now() + limit * 1000;
    if (mock.ncclMockTimer) clearInterval(mock.ncclMockTimer);
    function tick() {
      const left = Math.max(0, Math.round((end - Date.now()) / 1000));
      if (left === 0) {
        clearInterval(mock.ncclMockTimer);
        clock.textContent = S("Time is up: the real exam would end here. Finish and submit when you are ready.");
        return;
      }
      clock.textContent = S("{minutes}:{seconds} left", {
        minutes: Math.floor(left / 60), seconds: String(left % 60).padStart(2, "0"),
      });
    }
    tick();
    mock.ncclMockTimer = setInterval(tick, 1000);
  }

  function init() {
    document.querySelectorAll(".nccl-mock").forEach((mock) => {
      mock.querySelectorAll('input[name="nccl-mock-form"]').forEach((radio) => {
        radio.addEventListener("change", () => { if (radio.checked) showForm(mock, radio.value); });
      });
      mock.addEventListener("click", (event) => {
        const button = event.target.closest("button");
        if (!button || button.disabled) return;
        const form = button.closest(".nccl-mock-form");
        if (button.classList.contains("nccl-mock-start")) startClock(mock);
        else if (button.classList.contains("nccl-mock-submit")) submit(form);
        else if (button.classList.contains("nccl-mock-again")) again(form);
        else if (button.classList.contains("nccl-quiz-up")) window.NcclQuiz.move(button.closest(".nccl-quiz-item"), -1);
        else if (button.classList.contains("nccl-quiz-down")) window.NcclQuiz.move(button.closest(".nccl-quiz-item"), 1);
      });
    });
  }

  onReady(init);
})();
