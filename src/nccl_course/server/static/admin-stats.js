/* The admin's item statistics page (nccl_course.server.routes.item_stats): sends the admin
   token typed into the form to GET /exam/api/admin/item-stats and draws the answer as tables.
   The token lives in the form field only: nothing is stored in the browser. */
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

function render(report) {
  document.getElementById("summary").textContent =
    `Exam ${report.exam_id}: ${report.attempts} graded attempts, ${report.responses} graded ` +
    `questions, ${report.items.length} distinct questions; judged from ` +
    `${report.min_responses} responses up.`;
  const rel = report.reliability;
  document.getElementById("reliability").textContent = rel
    ? `Reliability (${rel.method} over the ${rel.positions} positions of ${rel.attempts} ` +
      `attempts of one blueprint): ${figure(rel.alpha)}; total ${figure(rel.total_mean)} ` +
      `\u00b1 ${figure(rel.total_sd)} points, standard error of measurement ` +
      `${figure(rel.sem)} points.${rel.note ? ` (${rel.note})` : ""}`
    : "Reliability: no attempt with a complete set of positions.";
  fillTable(
    document.getElementById("items"),
    ["question", "objective", "n", "difficulty", "discrimination", "flags"],
    report.items.map((i) => [
      i.uid, i.objective || "", i.responses, figure(i.difficulty), figure(i.discrimination),
      i.flags.join(", "),
    ]),
  );
  const groupHeaders = ["questions", "n", "difficulty", "discrimination", "flagged"];
  fillTable(document.getElementById("chapters"), ["chapter", ...groupHeaders],
    groupRows(report.chapters));
  fillTable(document.getElementById("objectives"), ["objective", ...groupHeaders],
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
  showMessage(box, "Loading\u2026");
  try {
    const query = new URLSearchParams({ min_responses: minimum });
    const report = await requestJson("GET", `/exam/api/admin/item-stats?${query}`, { token });
    showMessage(box, report.attempts ? "" : "No graded attempts yet: the statistics read " +
      "submitted or expired attempts.");
    render(report);
  } catch (error) {
    document.getElementById("results").hidden = true;
    showMessage(box, error.message, true);
  }
}

onReady(() => {
  document.getElementById("stats-form").addEventListener("submit", load);
});
