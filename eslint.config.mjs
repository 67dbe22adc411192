// ESLint for the browser scripts the package ships (src/nccl_course/static/nccl-page.js and
// src/nccl_course/*/static/*.js): `make lint`.
// Only hand-written code is linted: the vendored libraries (MathJax, require.js, uPlot, the
// widgets manager) stay in node_modules/ (ignored by ESLint itself) and are copied into the
// build folders, ignored below with the rest of what .gitignore keeps out of the repository.
import js from "@eslint/js";
import globals from "globals";

// Every page loads the course's library (static/nccl-page.js) before its own scripts, as
// classic scripts sharing one global scope: in the book (Sphinx orders it first,
// nccl_course.sphinx_static.use_page_library) and on the exam pages (server/static/*.html, then
// markdown.js on the exam page, share.js on the exam and verify pages, then the page's own
// script). These are the functions the library declares for the scripts after it.
const readonly = (names) => Object.fromEntries(names.map((name) => [name, "readonly"]));
const pageLibrary = readonly([
  "S",
  "pageStrings",
  "useStrings",
  "pageLanguage",
  "withLanguage",
  "localizeDecimals",
  "formatNumber",
  "formatPercent",
  "formatTime",
  "formatDate",
  "requestJson",
  "requestBlob",
  "onReady",
  "element",
  "escapeHtml",
  "showMessage",
]);
const examMarkdown = readonly(["renderInline", "renderMarkdown", "loadMathJax", "typesetMath"]);
const examShare = readonly(["showShareLinks"]);

export default [
  {
    ignores: [
      "_build/",
      "**/_static/vendor/",
      ".venv/",
      ".venv-sky/",
      "var/",
      ".data/",
      "results/",
      "bench-results/",
      ".jupyter_cache/",
    ],
  },
  js.configs.recommended,
  {
    rules: {
      // An error a script ignores on purpose is still named (`catch (err) {}`): the ES5 scripts
      // (nccl-progress.js, nccl-quiz.js...) cannot drop the name, `catch {}` being ES2019.
      "no-unused-vars": ["error", { caughtErrors: "none" }],
    },
  },
  {
    files: ["src/**/static/*.js"],
    languageOptions: { sourceType: "script", globals: { ...globals.browser } },
  },
  {
    files: ["src/nccl_course/*/static/*.js"],
    languageOptions: { globals: pageLibrary },
  },
  {
    // Also loadable in Node (tests): `if (typeof module ... && module.exports) module.exports = api`.
    files: [
      "src/nccl_course/static/nccl-page.js",
      "src/nccl_course/book/static/nccl-progress.js",
      "src/nccl_course/quiz/static/nccl-quiz.js",
      "src/nccl_course/viz/static/cost-model.js",
    ],
    languageOptions: { globals: { module: "readonly" } },
  },
  {
    // In Node they take the library from the source tree: require("../../static/nccl-page.js").
    files: ["src/nccl_course/book/static/nccl-progress.js", "src/nccl_course/quiz/static/nccl-quiz.js"],
    languageOptions: { globals: { require: "readonly" } },
  },
  {
    // uPlot comes from the vendored uPlot script the page loads before this one.
    files: ["src/nccl_course/viz/static/nccl-explorers.js"],
    languageOptions: { globals: { uPlot: "readonly" } },
  },
  {
    // The tests' own Node scripts (tests/exam/api_fields.cjs reads the exam pages' scripts).
    files: ["tests/**/*.cjs"],
    languageOptions: { sourceType: "commonjs", globals: { ...globals.node } },
  },
  {
    files: ["src/nccl_course/server/static/exam.js"],
    languageOptions: { globals: examMarkdown },
  },
  {
    files: ["src/nccl_course/server/static/exam.js", "src/nccl_course/server/static/verify.js"],
    languageOptions: { globals: examShare },
  },
  {
    // Their top-level functions are used by the scripts loaded after them (above), which ESLint,
    // linting one file at a time, cannot see: check only what is local to a function.
    files: [
      "src/nccl_course/static/nccl-page.js",
      "src/nccl_course/server/static/markdown.js",
      "src/nccl_course/server/static/share.js",
    ],
    rules: { "no-unused-vars": ["error", { vars: "local", caughtErrors: "none" }] },
  },
  {
    // renderInline() marks code spans and math with NUL characters (\u0000), which no prompt
    // contains, and puts them back with a regular expression that matches them on purpose.
    files: ["src/nccl_course/server/static/markdown.js"],
    rules: { "no-control-regex": "off" },
  },
];
