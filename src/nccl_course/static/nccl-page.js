/* The course's one browser library, loaded before every script of the course's pages: the exam
   server's pages (exam, verify, confirm) and the book's scripts (progress, quizzes, explorers,
   narration). Both serve this same file: the server at /exam/lib/, the book in _static/
   (nccl_course.sphinx_static.PAGE_LIBRARY). A classic script: the functions it declares are
   globals for the scripts that load after it; in Node (tests) they are module.exports.

   - The page's language: S(english, fields), pageStrings(), pageLanguage(), withLanguage(url),
     formatNumber, readLocalizedNumber, formatPercent, localizeDecimals, formatTime,
     formatDate.
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

/* How each language writes numbers: the twin of nccl_course.i18n.numbers (DECIMAL_SEPARATOR,
   GROUP_SEPARATOR, GROUP_FROM_DIGITS), which says why Turkish groups from five digits and
   English generated numbers are not grouped. */
const NUMBER_STYLES = {
  en: { decimal: ".", group: ",", groupFrom: null },
  tr: { decimal: ",", group: ".", groupFrom: 5 },
};

/* Plain decimal digits of a non-negative number written by String() or toFixed(), which may
   use an exponent ("1e-7", "3e+21"). */
function plainDigits(text) {
  const m = /^(\d+)(?:\.(\d*))?e([+-]\d+)$/.exec(text);
  if (!m) return text;
  const digits = m[1] + (m[2] || "");
  const point = m[1].length + Number(m[3]);
  if (point <= 0) return `0.${"0".repeat(-point)}${digits}`;
  if (point >= digits.length) return digits + "0".repeat(point - digits.length);
  return `${digits.slice(0, point)}.${digits.slice(point)}`;
}

/* ``value`` written as the page's language (or ``options.language``) writes numbers: the twin of
   nccl_course.i18n.numbers.format_number, and a test runs both on the same numbers.
   ``options`` is the number of decimals ("1,50"), or {digits, sigFigs, math, language}: sigFigs
   significant figures with trailing zeros dropped and whole numbers kept whole ("2,18"); neither
   digits nor sigFigs: the shortest digits that read back as ``value``; math: for MathJax
   ("1{,}875"). Turkish groups integers of five or more digits with dots ("26.214.400"). Ties
   round away from zero on the float's exact value (toFixed), as the Python does. */
function formatNumber(value, options) {
  const opts = typeof options === "number" ? { digits: options } : (options || {});
  const language = opts.language || pageLanguage();
  const style = NUMBER_STYLES[language] || { ...NUMBER_STYLES.en, decimal: pageStrings().decimal || "." };
  const number = Number(value);
  if (!Number.isFinite(number)) throw new Error(`expected a finite number, got ${value}`);
  const size = Math.abs(number);
  let text;
  let strip = true;
  if (opts.digits !== undefined && opts.digits !== null) {
    text = plainDigits(size.toFixed(opts.digits));
    strip = false;
  } else if (opts.sigFigs) {
    const exponent = size === 0 ? 0 : Number(size.toExponential().split("e")[1]);
    if (size === 0) text = "0";
    else if (exponent >= opts.sigFigs - 1) text = plainDigits(size.toFixed(0));
    else {
      const decimals = opts.sigFigs - 1 - exponent;
      text = size.toFixed(decimals);
      if (Number(text) >= 10 ** (exponent + 1)) text = size.toFixed(decimals - 1); // 9.995 -> 10.0
    }
  } else {
    text = plainDigits(String(size));
  }
  let [whole, fraction = ""] = text.split(".");
  if (strip) fraction = fraction.replace(/0+$/, "");
  if (style.groupFrom !== null && whole.length >= style.groupFrom) {
    const group = opts.math && style.group === "," ? "{,}" : style.group;
    whole = whole.replace(/\B(?=(\d{3})+$)/g, group);
  }
  const decimal = opts.math && style.decimal === "," ? "{,}" : style.decimal;
  const out = fraction ? `${whole}${decimal}${fraction}` : whole;
  return number < 0 && /[1-9]/.test(out) ? `-${out}` : out;
}

/* A typed number in a language whose decimal separator is ``decimal``, written plainly
   (decimal point, no grouping); text that is not a number comes back as is. The twin of
   nccl_course.i18n.numbers.delocalize_number, whose docstring gives the rule; a number that
   reads two ways ("1.875" in Turkish) throws {ambiguous: true, text, whole, fraction}. */
const TYPED_NUMBER = /^(\s*[+-]?)([0-9.,]*[0-9][0-9.,]*)((?:[eE][+-]?[0-9]+)?)([\s\S]*)$/;
const GROUPED_NUMBER = /^[1-9][0-9]{0,2}(?:[.,][0-9]{3})+$/;

function readLocalizedNumber(text, decimal) {
  const m = TYPED_NUMBER.exec(text);
  if (!m) return text;
  const [, sign, body, exponent, rest] = m;
  const dots = body.split(".").length - 1;
  const commas = body.split(",").length - 1;
  if (!dots && !commas) return text;
  const last = Math.max(body.lastIndexOf("."), body.lastIndexOf(","));
  const kind = body[last];
  const head = body.slice(0, last);
  const tail = body.slice(last + 1);
  if (dots && commas) {
    if (body.split(kind).length !== 2 || !GROUPED_NUMBER.test(head)) return text;
    if (kind !== decimal && kind !== ".") return text;
    return `${sign}${head.replace(/[.,]/g, "")}.${tail}${exponent}${rest}`;
  }
  if (dots + commas > 1) {
    return GROUPED_NUMBER.test(body) ? `${sign}${body.split(kind).join("")}${exponent}${rest}` : text;
  }
  if (kind === decimal) return `${sign}${head || "0"}.${tail}${exponent}${rest}`;
  if (GROUPED_NUMBER.test(body)) {
    throw { ambiguous: true, text: text.trim(), whole: head + tail, fraction: `${head}.${tail}` };
  }
  if (kind === ".") return `${sign}${head || "0"}.${tail}${exponent}${rest}`;
  return text;
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
    readLocalizedNumber,
    formatPercent, formatTime, formatDate, requestJson, requestBlob, onReady, element,
    escapeHtml, showMessage,
  };
}
