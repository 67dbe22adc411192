/* Shared helpers for the exam, verify and confirm pages: the page's language (S), escaping, a
   small markdown renderer (prompts and feedback are MyST markdown; math is left as written),
   and JSON requests. No CDN. */
"use strict";

/* ---- the page's language ----------------------------------------------------------------
   The server translates each page's HTML and puts the strings its scripts show, in the page's
   language, in <script type="application/json" id="nccl-strings"> (nccl_course.i18n.html_pages).
   Every text a script shows goes through S(english, fields): its translation, or the English
   when there is none (a page served without a table, a string not translated yet), with
   {name} fields filled in. The extractor (nccl_course.i18n.interface) finds the S calls, so
   the first argument is always a plain string literal. */
let PAGE_STRINGS = null;

function pageStrings() {
  if (PAGE_STRINGS) return PAGE_STRINGS;
  PAGE_STRINGS = { language: "en", decimal: ".", strings: {} };
  const el = typeof document === "undefined" ? null : document.getElementById("nccl-strings");
  if (el) {
    try { Object.assign(PAGE_STRINGS, JSON.parse(el.textContent)); } catch (_) { /* English */ }
  }
  return PAGE_STRINGS;
}

function S(text, fields) {
  const table = pageStrings().strings || {};
  let out = Object.prototype.hasOwnProperty.call(table, text) && table[text] ? table[text] : text;
  if (fields) {
    out = out.replace(/\{(\w+)\}/g, (m, name) => (
      Object.prototype.hasOwnProperty.call(fields, name) ? String(fields[name]) : m));
  }
  return out;
}

/* The page's language ("en", "tr"): API calls pass it, so that what the server writes (an
   attempt's questions, a mail) is in the language the learner reads. */
function pageLanguage() {
  return pageStrings().language || "en";
}

/* ``url`` with ``lang=`` the page's language added to its query. */
function withLanguage(url) {
  return `${url}${url.includes("?") ? "&" : "?"}lang=${encodeURIComponent(pageLanguage())}`;
}

/* A number with ``digits`` decimals, written with the page's decimal separator (1,5 in Turkish). */
function formatNumber(value, digits) {
  const text = Number(value).toFixed(digits);
  return pageStrings().decimal === "," ? text.replace(".", ",") : text;
}

/* A fraction as a percentage: "87.5 %" in English, "%87,5" in Turkish. */
function formatPercent(fraction, digits = 1) {
  return S("{value} %", { value: formatNumber(Number(fraction) * 100, digits) });
}

/* A time of day and a date as the page's language writes them. */
function formatTime(date) {
  return new Date(date).toLocaleTimeString(pageLanguage());
}

function formatDate(date) {
  return new Date(date).toLocaleDateString(pageLanguage(), { year: "numeric", month: "long", day: "numeric" });
}

/* The language links (?lang=) keep what follows '#' in the address: the confirm page's token. */
if (typeof document !== "undefined") {
  document.addEventListener("DOMContentLoaded", () => {
    if (!window.location.hash) return;
    for (const link of document.querySelectorAll("a[data-language-link]")) {
      link.href = link.href.split("#")[0] + window.location.hash;
    }
  });
}

function escapeHtml(text) {
  return String(text).replace(/[&<>"']/g, (c) => ({
    "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;",
  })[c]);
}

function renderInline(text) {
  // Escape first, then add the few inline marks the banks use.
  let html = escapeHtml(text);
  const codes = [];
  html = html.replace(/`([^`]+)`/g, (_, code) => { codes.push(`<code>${code}</code>`); return `\u0000${codes.length - 1}\u0000`; });
  // TeX is left for MathJax: keep * and _ inside $...$ away from the emphasis rules.
  html = html.replace(/\$\$[^$]+\$\$|\$[^$\n]+\$/g, (math) => { codes.push(math); return `\u0000${codes.length - 1}\u0000`; });
  html = html.replace(/\*\*([^*]+)\*\*/g, "<strong>$1</strong>");
  html = html.replace(/(^|[^*])\*([^*\s][^*]*)\*/g, "$1<em>$2</em>");
  html = html.replace(/\u0000(\d+)\u0000/g, (_, i) => codes[Number(i)]);
  return html;
}

/* Paragraphs, "-" lists and fenced code. As in Markdown, a line break inside a paragraph or a
   list item is not a paragraph break: YAML block scalars wrap long feedback over several lines,
   and a wrapped line continues its item (a lazy continuation line). A blank line followed by an
   indented line starts a second paragraph in the same item. */
function renderMarkdown(text) {
  const out = [];
  const lines = String(text || "").replace(/\r\n/g, "\n").split("\n");
  let para = [];     // lines of the open paragraph
  let list = null;   // items of the open list; an item is a list of paragraphs (lists of lines)
  let blank = false; // a blank line since the last line of the open list
  const closePara = () => {
    if (para.length) out.push(`<p>${renderInline(para.join(" "))}</p>`);
    para = [];
  };
  const renderItem = (item) => (item.length === 1 ? renderInline(item[0].join(" "))
    : item.map((lines) => `<p>${renderInline(lines.join(" "))}</p>`).join(""));
  const closeList = () => {
    if (list) out.push(`<ul>${list.map((item) => `<li>${renderItem(item)}</li>`).join("")}</ul>`);
    list = null;
    blank = false;
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const fence = line.match(/^\s*(```|~~~)/);
    if (fence) {
      closePara();
      closeList();
      const body = [];
      for (i++; i < lines.length && !lines[i].trim().startsWith(fence[1]); i++) body.push(lines[i]);
      out.push(`<pre><code>${escapeHtml(body.join("\n"))}</code></pre>`);
      continue;
    }
    const item = line.match(/^\s*[-*]\s+(.*)$/);
    if (item) {
      closePara();
      list = list || [];
      list.push([[item[1]]]);
      blank = false;
      continue;
    }
    if (!line.trim()) {
      if (list) blank = true; else closePara();
      continue;
    }
    if (list) {
      const last = list[list.length - 1];
      if (!blank) { last[last.length - 1].push(line.trim()); continue; }
      if (/^\s{2,}\S/.test(line)) { last.push([line.trim()]); blank = false; continue; }
      closeList();
    }
    para.push(line.trim());
  }
  closePara();
  closeList();
  return out.join("\n");
}

async function requestJson(method, url, { body, token } = {}) {
  const headers = { Accept: "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (token) headers.Authorization = `Bearer ${token}`;
  const response = await fetch(url, {
    method, headers, body: body === undefined ? undefined : JSON.stringify(body), cache: "no-store",
  });
  let data = null;
  try { data = await response.json(); } catch (_) { data = null; }
  if (!response.ok) {
    const detail = data && typeof data.detail === "string" ? data.detail
      : S("HTTP {status}", { status: response.status });
    const error = new Error(detail);
    error.status = response.status;
    error.code = data && data.error;
    throw error;
  }
  return data;
}

/* Math in prompts and feedback ($...$, $$...$$) is typeset by MathJax 3 when the server ships
   it (the same npm copy the book uses); without it the TeX stays readable as written. */
function loadMathJax(url) {
  if (!url || window.MathJax) return;
  window.MathJax = {
    tex: { inlineMath: [["$", "$"], ["\\(", "\\)"]], displayMath: [["$$", "$$"], ["\\[", "\\]"]] },
    startup: { typeset: false },
  };
  const script = document.createElement("script");
  script.src = url;
  script.async = true;
  document.head.appendChild(script);
}

function typesetMath(element, tries = 0) {
  const mj = window.MathJax;
  if (mj && mj.startup && mj.startup.promise && mj.typesetPromise) {
    mj.startup.promise.then(() => mj.typesetPromise([element])).catch(() => {});
  } else if (mj && tries < 40) {
    setTimeout(() => typesetMath(element, tries + 1), 250);  // the script is still loading
  }
}
