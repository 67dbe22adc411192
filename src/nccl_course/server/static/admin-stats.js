/* The admin's item statistics page (nccl_course.server.routes.item_stats): sends the admin
   token typed into the form to GET /exam/api/admin/item-stats and draws the answer as tables.
   The token lives in the form field only: nothing is stored in the browser. The flags and
   their meanings stay as the API names them (the same words as `nccl-course exam stats`). */
"use strict";

function figure(value) {
  return value === null || value === undefined ? "-" : formatNumber(value, 2);
}

function fillTable(table, headers, rows) {
  table.replaceChildren(
    element("tr", {}, headers.map((h) => element("th", { text: h }))),
    ...rows.map((cells) => element("tr", {}, cells.map((c) => element("td", { text: String(c) })))),
  );
}

function groupRows(groups) {
  return groups.map((g) => [
    g.key, g.items, g.responses, figure(g.difficulty), figure(g.mean_discrimination), g.flagged,
  ]);
}

function reliabilityText(rel) {
  if (!rel) return S("Reliability: no attempt with a complete set of positions.");
  const text = S(
    "Reliability ({method} over the {positions} positions of {attempts} attempts of one blueprint): {alpha}; total {mean} ± {sd} points, standard error of measurement {sem} points.",
    {
      method: rel.method, positions: rel.positions, attempts: rel.attempts,
      alpha: figure(rel.alpha), mean: figure(rel.total_mean), sd: figure(rel.total_sd),
      sem: figure(rel.sem),
    },
  );
  return rel.note ? `${text} (${rel.note})` : text;
}

function render(report) {
  document.getElementById("summary").textContent = S(
    "Exam {exam}: {attempts} graded attempts, {responses} graded questions, {items} distinct questions; judged from {minimum} responses up.",
    {
      exam: report.exam_id, attempts: report.attempts, responses: report.responses,
      items: report.items.length, minimum: report.min_responses,
    },
  );
  document.getElementById("reliability").textContent = reliabilityText(report.reliability);
  const measures = [S("n"), S("difficulty"), S("discrimination")];
  fillTable(
    document.getElementById("items"),
    [S("question"), S("objective"), ...measures, S("flags")],
    report.items.map((i) => [
      i.uid, i.objective || "", i.responses, figure(i.difficulty), figure(i.discrimination),
      i.flags.join(", "),
    ]),
  );
  const groupHeaders = [S("questions"), ...measures, S("flagged")];
  fillTable(document.getElementById("chapters"), [S("chapter"), ...groupHeaders],
    groupRows(report.chapters));
  fillTable(document.getElementById("objectives"), [S("objective"), ...groupHeaders],
    groupRows(report.objectives));
  const used = [...new Set(report.items.flatMap((i) => i.flags))].sort();
  document.getElementById("flags").replaceChildren(
    ...used.flatMap((f) => [element("dt", { text: f }),
      element("dd", { text: report.flag_meanings[f] || "" })]),
  );
  document.getElementById("results").hidden = false;
}

async function load(event) {
  event.preventDefault();
  const box = document.getElementById("message");
  const token = document.getElementById("admin-token").value.trim();
  const minimum = document.getElementById("min-responses").value || "30";
  showMessage(box, S("Loading…"));
  try {
    const query = new URLSearchParams({ min_responses: minimum });
    const report = await requestJson("GET", `/exam/api/admin/item-stats?${query}`, { token });
    showMessage(box, report.attempts ? "" : S(
      "No graded attempts yet: the statistics read submitted or expired attempts.",
    ));
    render(report);
  } catch (error) {
    document.getElementById("results").hidden = true;
    showMessage(box, error.message, true);
  }
}

onReady(() => {
  document.getElementById("stats-form").addEventListener("submit", load);
});
