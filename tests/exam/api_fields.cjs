/* The fields the exam pages' scripts read from the API's answers and send in its requests,
   checked against the OpenAPI document: run by tests/exam/test_js_api_fields.py, which explains
   the method. Usage: node api_fields.cjs OPENAPI.json SCRIPT.js...; prints a JSON list of
   {file, line, problem} (empty when every field is declared) and the calls it recognised.

   acorn is the parser ESLint itself is built on (node_modules/acorn, installed by npm). */
"use strict";

const fs = require("fs");
const path = require("path");
const acorn = require(require.resolve("acorn", { paths: [path.resolve(__dirname, "../..")] }));

const [documentPath, ...scripts] = process.argv.slice(2);
const openapi = JSON.parse(fs.readFileSync(documentPath, "utf8"));
const problems = [];
const calls = [];

/* ---- the document ------------------------------------------------------------------------- */
function resolve(schema) {
  let s = schema || {};
  while (s.$ref) s = openapi.components.schemas[s.$ref.replace("#/components/schemas/", "")];
  return s;
}

// A schema's alternatives (anyOf, oneOf, allOf, a $ref), flattened; null is no alternative.
function variants(schema) {
  const s = resolve(schema);
  const parts = s.anyOf || s.oneOf || s.allOf;
  if (parts) return parts.flatMap(variants);
  return s.type === "null" ? [] : [s];
}

function schemaName(schema) {
  return (schema && (schema.title || schema.$ref)) || "an answer";
}

function jsonSchema(content) {
  for (const [type, entry] of Object.entries(content || {})) {
    if (type === "application/json" || type.endsWith("+json")) return entry.schema;
  }
  return null;
}

// Each operation: its method, its path as segments ({param} matches any one segment), and the
// schemas of its request body and of its success answers (any 2xx: register answers 201 or 202).
const operations = [];
for (const [route, methods] of Object.entries(openapi.paths)) {
  for (const [method, op] of Object.entries(methods)) {
    const successes = Object.entries(op.responses || {}).filter(([code]) => code.startsWith("2"))
      .map(([, answer]) => jsonSchema(answer.content)).filter(Boolean);
    operations.push({
      method: method.toUpperCase(),
      route,
      segments: route.split("/"),
      request: op.requestBody ? jsonSchema(op.requestBody.content) : null,
      responses: successes,
    });
  }
}

/* ---- the scripts ---------------------------------------------------------------------------- */
const WILD = "\u0000"; // a part of a URL the script computes

// The URL an expression builds: a string, a template (its ${...} are WILD), withLanguage(URL).
function urlOf(node) {
  if (!node) return null;
  if (node.type === "Literal" && typeof node.value === "string") return node.value;
  if (node.type === "TemplateLiteral") {
    return node.quasis.map((q, i) => q.value.cooked + (i < node.expressions.length ? WILD : "")).join("");
  }
  if (node.type === "CallExpression" && node.callee.name === "withLanguage") return urlOf(node.arguments[0]);
  return null;
}

function operationFor(method, url) {
  const segments = url.split("?")[0].split("/");
  return operations.find((op) => op.method === method && op.segments.length === segments.length
    && op.segments.every((s, i) => (/^\{\w+\}$/.test(s) ? segments[i] !== "" : s === segments[i])));
}

function analyse(file) {
  const source = fs.readFileSync(file, "utf8");
  const ast = acorn.parse(source, { ecmaVersion: "latest", sourceType: "script", locations: true });
  const where = (node) => ({ file: path.basename(file), line: node.loc.start.line });
  let checking = false; // report problems only in the last pass
  const report = (node, problem) => {
    if (!checking) return;
    const key = `${where(node).line}:${problem}`;
    if (!seen.has(key)) { seen.add(key); problems.push({ ...where(node), problem }); }
  };
  const seen = new Set();

  // Functions of the file by name (declarations and `const f = (...) => ...`).
  const functions = new Map();
  // Wrappers of requestJson: name -> the parameter positions of method, url and body.
  const wrappers = new Map([["requestJson", { method: 0, url: 1, bodyOption: 2 }],
    ["requestBlob", { url: 0, get: true }]]);
  // What each binding holds: a list of schemas (a union); bindings are keyed by their
  // declaring node, found through the scope chain.
  const types = new Map();
  const members = new Map(); // "state.exam" -> schemas, for properties of the script's own objects
  // Parameters that receive a request body: function name -> [param index, schema, route].
  const bodyParams = new Map();
  let changed = true;

  function walk(node, scope, visit) {
    if (!node || typeof node.type !== "string") return;
    let inner = scope;
    if (/Function/.test(node.type)) {
      inner = { parent: scope, names: new Map() };
      node.params.forEach((p, i) => { if (p.type === "Identifier") inner.names.set(p.name, { fn: node, index: i }); else if (p.type === "AssignmentPattern") inner.names.set(p.left.name, { fn: node, index: i }); });
    } else if (node.type === "BlockStatement" || node.type === "ForOfStatement" || node.type === "ForStatement") {
      inner = { parent: scope, names: new Map() };
    }
    if (node.type === "VariableDeclarator" && node.id.type === "Identifier") scope.names.set(node.id.name, node);
    if (node.type === "FunctionDeclaration") scope.names.set(node.id.name, node);
    visit(node, inner);
    for (const [key, value] of Object.entries(node)) {
      if (key === "loc") continue;
      if (Array.isArray(value)) value.forEach((child) => walk(child, inner, visit));
      else if (value && typeof value.type === "string") walk(value, inner, visit);
    }
  }

  function lookup(scope, name) {
    for (let s = scope; s; s = s.parent) if (s.names.has(name)) return s.names.get(name);
    return null;
  }
  const keyOf = (binding) => (binding && binding.fn ? binding.fn : binding);
  function typesOf(binding) {
    if (!binding) return [];
    return binding.fn ? (types.get(binding.fn) || [])[binding.index] || [] : types.get(binding) || [];
  }
  function addTypes(binding, schemas) {
    if (!binding || !schemas.length) return;
    const key = keyOf(binding);
    if (binding.fn) {
      const list = types.get(key) || [];
      const old = list[binding.index] || [];
      const next = [...new Set([...old, ...schemas])];
      if (next.length !== old.length) { list[binding.index] = next; types.set(key, list); changed = true; }
    } else {
      const old = types.get(key) || [];
      const next = [...new Set([...old, ...schemas])];
      if (next.length !== old.length) { types.set(key, next); changed = true; }
    }
  }

  const memberPath = (node) => (node.type === "Identifier" ? node.name
    : node.type === "MemberExpression" && !node.computed ? `${memberPath(node.object)}.${node.property.name}` : null);

  // The API call an expression makes, if any: {op, body node, url}.
  function apiCall(node) {
    if (node.type !== "CallExpression" || node.callee.type !== "Identifier") return null;
    const wrapper = wrappers.get(node.callee.name);
    if (!wrapper) return null;
    const method = wrapper.get ? "GET" : node.arguments[wrapper.method] && node.arguments[wrapper.method].value;
    const url = urlOf(node.arguments[wrapper.url]);
    if (typeof method !== "string" || url === null) return null;
    let body = null;
    if (wrapper.body !== undefined) body = node.arguments[wrapper.body] || null;
    const options = wrapper.bodyOption !== undefined ? node.arguments[wrapper.bodyOption] : null;
    if (options && options.type === "ObjectExpression") {
      const prop = options.properties.find((p) => p.key && p.key.name === "body");
      if (prop) body = prop.value;
    }
    return { method, url, body, node };
  }

  // The schemas an expression's value has (empty: not an API value).
  function typeOf(node, scope, check) {
    if (!node) return [];
    switch (node.type) {
      case "AwaitExpression": return typeOf(node.argument, scope, check);
      case "Identifier": return typesOf(lookup(scope, node.name));
      case "LogicalExpression": return [...typeOf(node.left, scope, check), ...typeOf(node.right, scope, check)];
      case "ConditionalExpression": return [...typeOf(node.consequent, scope, check), ...typeOf(node.alternate, scope, check)];
      case "CallExpression": {
        const call = apiCall(node);
        if (call) {
          const op = operationFor(call.method, call.url);
          return op ? op.responses : [];
        }
        if (node.callee.type === "MemberExpression" && !node.callee.computed && node.callee.property.name === "find") {
          return itemsOf(typeOf(node.callee.object, scope, false));
        }
        return [];
      }
      case "MemberExpression": {
        const named = memberPath(node);
        if (named && members.has(named)) return members.get(named);
        const owner = typeOf(node.object, scope, check);
        if (node.computed) return itemsOf(owner);
        return propertyOf(owner, node.property.name, check ? node : null);
      }
      default: return [];
    }
  }

  function itemsOf(schemas) {
    return schemas.flatMap(variants).filter((s) => s.type === "array").map((s) => s.items);
  }

  // The schemas of .name on a value of `schemas`; a name no object alternative declares is a
  // problem (reported at `node` when checking).
  function propertyOf(schemas, name, node) {
    const alternatives = schemas.flatMap(variants);
    const objects = alternatives.filter((s) => s.properties);
    if (!objects.length) return [];
    const found = objects.filter((s) => Object.prototype.hasOwnProperty.call(s.properties, name));
    if (!found.length) {
      if (node) report(node, `reads .${name} of ${[...new Set(objects.map(schemaName))].join(" or ")}, which does not declare it`);
      return [];
    }
    return found.map((s) => s.properties[name]);
  }

  function checkBody(bodyNode, schema, route, scope, at) {
    if (!bodyNode) return;
    if (bodyNode.type === "ObjectExpression") {
      const declared = variants(schema).flatMap((s) => Object.keys(s.properties || {}));
      for (const prop of bodyNode.properties) {
        const key = prop.key && (prop.key.name || prop.key.value);
        if (key !== undefined && !declared.includes(key)) report(prop, `sends "${key}" to ${route}, whose request body does not declare it`);
      }
      return;
    }
    if (bodyNode.type === "Identifier") {
      const binding = lookup(scope, bodyNode.name);
      if (binding && binding.fn && binding.fn.id) {
        bodyParams.set(binding.fn.id.name, [binding.index, schema, route]);
        return;
      }
    }
    report(at, `sends a body to ${route} that this check cannot read (write it as an object literal)`);
  }

  function pass(check) {
    walk(ast, { parent: null, names: new Map() }, (node, scope) => {
      // A wrapper: `function api(method, url, body) { return requestJson(method, url, { body ... }) }`
      if (!check && (node.type === "FunctionDeclaration") && node.body.body.length === 1
          && node.body.body[0].type === "ReturnStatement") {
        let inner = node.body.body[0].argument;
        if (inner && inner.type === "AwaitExpression") inner = inner.argument;
        if (inner && inner.type === "CallExpression" && inner.callee.name === "requestJson") {
          const names = node.params.map((p) => p.name);
          const options = inner.arguments[2];
          const bodyProp = options && options.type === "ObjectExpression"
            && options.properties.find((p) => p.key && p.key.name === "body");
          wrappers.set(node.id.name, {
            method: names.indexOf(inner.arguments[0].name), url: names.indexOf(inner.arguments[1].name),
            body: bodyProp ? names.indexOf(bodyProp.value.name) : undefined,
          });
        }
      }
      if (node.type === "FunctionDeclaration") functions.set(node.id.name, node);
      if (node.type === "VariableDeclarator" && node.id.type === "Identifier" && node.init) {
        if (/Function/.test(node.init.type)) functions.set(node.id.name, node.init);
        addTypes(node, typeOf(node.init, scope, false));
      }
      if (node.type === "AssignmentExpression" && node.operator === "=") {
        const named = memberPath(node.left);
        const schemas = typeOf(node.right, scope, false);
        if (node.left.type === "Identifier") addTypes(lookup(scope, node.left.name), schemas);
        else if (named && schemas.length) {
          const old = members.get(named) || [];
          const next = [...new Set([...old, ...schemas])];
          if (next.length !== old.length) { members.set(named, next); changed = true; }
        }
      }
      if (node.type === "ForOfStatement" && node.left.type === "VariableDeclaration") {
        addTypes(node.left.declarations[0], itemsOf(typeOf(node.right, scope, false)));
      }
      if (node.type === "CallExpression") {
        const callee = node.callee;
        // Array callbacks: the first parameter is an item.
        if (callee.type === "MemberExpression" && !callee.computed
            && ["find", "some", "every", "filter", "map", "forEach"].includes(callee.property.name)) {
          const fn = node.arguments[0];
          if (fn && /Function/.test(fn.type) && fn.params.length) {
            addTypes({ fn, index: 0 }, itemsOf(typeOf(callee.object, scope, false)));
          }
        }
        // The script's own functions: each parameter holds what its callers pass.
        if (callee.type === "Identifier" && functions.has(callee.name)) {
          const fn = functions.get(callee.name);
          node.arguments.forEach((arg, i) => addTypes({ fn, index: i }, typeOf(arg, scope, false)));
          if (bodyParams.has(callee.name)) {
            const [index, schema, route] = bodyParams.get(callee.name);
            checkBody(node.arguments[index], schema, route, scope, node);
          }
        }
        const call = apiCall(node);
        if (call) {
          const op = operationFor(call.method, call.url);
          if (!op) {
            report(node, `calls ${call.method} ${call.url.replaceAll(WILD, "{...}")}, which the API does not declare`);
          } else {
            if (check) calls.push({ file: path.basename(file), method: op.method, route: op.route });
            if (call.body) {
              if (!op.request) report(node, `sends a body to ${op.method} ${op.route}, which takes none`);
              else checkBody(call.body, op.request, `${op.method} ${op.route}`, scope, node);
            }
          }
        }
      }
      if (check && node.type === "MemberExpression") typeOf(node, scope, true);
    });
  }

  // Types flow from calls to the functions they call, which may come earlier in the file: pass
  // until nothing new is learnt, then check.
  for (let i = 0; changed && i < 20; i++) { changed = false; pass(false); }
  checking = true;
  pass(true);
}

for (const file of scripts) analyse(file);
process.stdout.write(JSON.stringify({ problems, calls }));
