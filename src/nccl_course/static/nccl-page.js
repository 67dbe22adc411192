/* The course's one browser library, loaded before every script of the course's pages: the exam
   server's pages (exam, verify, confirm) and the book's scripts (progress, quizzes, explorers,
   narration). Both serve this same file: the server at /exam/lib/, the book in _static/
   (nccl_course.sphinx_static.PAGE_LIBRARY). A classic script: the functions it declares are
   globals for the scripts that load after it; in Node (tests) they are module.exports.

   - The page's language: S(english, fields), pageStrings(), pageLanguage(), withLanguage(url),
     formatNumber, formatPercent, localizeDecimals, formatTime, formatDate.
   - JSON requests: requestJson(method, url, { body, token }) and requestBlob(url, { token });
     a refusal (the server's error envelope {"error": code, "detail": sentence}) becomes an Error
     whose message is the sentence, with .status and .code.
   - The DOM: onReady(fn), element(tag, attrs, children), escapeHtml(text),
     showMessage(box, text, isError). */
"use strict";

/* ---- the page's language ----------------------------------------------------------------
   A page carries the strings its scripts show, in its language, as JSON tables
   {"strings": {English: translation}, "decimal": ",", "language": "tr"} (each key optional):
   the exam server puts one in each page's <head> (<script type="application/json"
   id="nccl-strings">, nccl_course.i18n.html_pages); a book page holds one per kind of widget
   it shows (<script type="application/json" class="nccl-quiz-strings">, ...-progress-,
   -explorer-, -narration-, nccl_course.i18n.interface.strings_script). An English page has
   none. The tables of a page are in one language, so they are read as one: their strings
   merged, the language (else <html lang>) and the decimal separator taken from any that gives
   them. Every text a script shows goes through S(english, fields): the translation, or the
   English when there is none (no table, an untranslated or empty entry), with each {name}
   that `fields` has filled in. The extractor (nccl_course.i18n.interface.script_strings)
   finds the S calls, so their first argument is a plain double-quoted string literal. */
const STRINGS_TABLES = 'script[type="application/json"]:is(#nccl-strings, [class^="nccl-"][class$="-strings"])';
let PAGE_STRINGS = null;

function readStringTables() {
  const page = { language: "", decimal: ".", strings: {} };
  if (typeof document === "undefined") return page;
  for (const table of document.querySelectorAll(STRINGS_TABLES)) {
    let data;
    try { data = JSON.parse(table.textContent); } catch (_) { continue; } // unreadable: English
    if (data && typeof data.strings === "object") Object.assign(page.strings, data.strings);
    if (data && typeof data.decimal === "string" && data.decimal) page.decimal = data.decimal;
    if (data && typeof data.language === "string" && data.language) page.language = data.language;
  }
  if (!page.language) page.language = document.documentElement.getAttribute("lang") || "";
  return page;
}

/* The page's merged table. Read once the document is parsed: a book page's tables are in its
   body, after the scripts in <head>. */
function pageStrings() {
  if (PAGE_STRINGS) return PAGE_STRINGS;
  const page = readStringTables();
  page.language = (page.language || "en").split("-")[0];
  if (typeof document === "undefined" || document.readyState !== "loading") PAGE_STRINGS = page;
  return page;
}

/* Use ``table`` ({strings, decimal, language}) instead of the page's: for Node, which has no
   page. */
function useStrings(table) {
  PAGE_STRINGS = { language: "en", decimal: ".", strings: {}, ...(table || {}) };
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
  return pageStrings().language;
}

/* ``url`` with ``lang=`` the page's language added to its query. */
function withLanguage(url) {
  return `${url}${url.includes("?") ? "&" : "?"}lang=${encodeURIComponent(pageLanguage())}`;
}

/* Every decimal point between two digits of ``text`` written with the page's separator:
   "1.5 ms" stays in English, "1,5 ms" in Turkish. */
function localizeDecimals(text) {
  const decimal = pageStrings().decimal;
  return decimal === "." ? String(text) : String(text).replace(/(\d)\.(\d)/g, `$1${decimal}$2`);
}

/* A number with ``digits`` decimals, written with the page's decimal separator (1,5 in Turkish). */
function formatNumber(value, digits) {
  return localizeDecimals(Number(value).toFixed(digits));
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

/* ---- requests -----------------------------------------------------------------------------
   The exam API answers JSON; a refusal is its error envelope {"error": a stable code the pages
   branch on, "detail": a sentence in the request's language} (nccl_course.server.api_models). */
async function send(method, url, { body, token, accept = "application/json" } = {}) {
  const headers = { Accept: accept };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (token) headers.Authorization = `Bearer ${token}`;
  const response = await fetch(url, {
    method, headers, body: body === undefined ? undefined : JSON.stringify(body), cache: "no-store",
  });
  if (response.ok) return response;
  let data = null;
  try { data = await response.json(); } catch (_) { data = null; }
  const error = new Error(data && typeof data.detail === "string" ? data.detail
    : S("HTTP {status}", { status: response.status }));
  error.status = response.status;
  error.code = data && typeof data.error === "string" ? data.error : undefined;
  throw error;
}

/* The JSON answer of ``method url`` (null when it has no body); throws the refusal's Error. */
async function requestJson(method, url, options = {}) {
  const response = await send(method, url, options);
  try { return await response.json(); } catch (_) { return null; }
}

/* A file the API serves (a certificate, a credential), as a Blob; throws the refusal's Error. */
async function requestBlob(url, { token } = {}) {
  const response = await send("GET", url, { token, accept: "*/*" });
  return response.blob();
}

/* ---- the DOM ------------------------------------------------------------------------------ */

/* Run ``start`` once the document is parsed (now, if it is). */
function onReady(start) {
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
}

/* A new element: ``attrs`` are attributes, but for ``text`` (its text); ``children`` are nodes
   or strings appended in order. */
function element(tag, attrs = {}, children = []) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (name === "text") node.textContent = value;
    else node.setAttribute(name, value);
  }
  for (const child of children) node.append(child);
  return node;
}

function escapeHtml(text) {
  return String(text).replace(/[&<>"']/g, (c) => ({
    "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;",
  })[c]);
}

/* The page's message line (class "message", "message error" for an error): hidden when
   ``text`` is empty. */
function showMessage(box, text, isError = false) {
  box.textContent = text || "";
  box.className = isError ? "message error" : "message";
  box.hidden = !text;
}

if (typeof module !== "undefined" && module.exports) {
  module.exports = {
    S, pageStrings, useStrings, pageLanguage, withLanguage, localizeDecimals, formatNumber,
    formatPercent, formatTime, formatDate, requestJson, requestBlob, onReady, element,
    escapeHtml, showMessage,
  };
}
