// The /docs page: Swagger UI for the REST document, and a small renderer of our own for the
// gateway's AsyncAPI document (docs/reference.md says why). Everything is served by Hearth.
"use strict";

const tabs = { rest: document.getElementById("tab-rest"), gateway: document.getElementById("tab-gateway") };
let gatewayShown = false;

function show(view) {
  for (const [name, tab] of Object.entries(tabs)) {
    tab.setAttribute("aria-selected", String(name === view));
    document.getElementById(name).hidden = name !== view;
  }
  if (view === "gateway" && !gatewayShown) {
    gatewayShown = true;
    renderGateway().catch((error) => {
      document.getElementById("gateway").textContent = `Could not load the gateway document: ${error.message}`;
    });
  }
  if (view === "rest") history.replaceState(null, "", location.pathname);
  else if (!gatewayHash()) history.replaceState(null, "", "#gateway");
}
tabs.rest.addEventListener("click", () => show("rest"));
tabs.gateway.addEventListener("click", () => show("gateway"));

window.SwaggerUIBundle({
  url: "/api/v1/openapi.json",
  dom_id: "#swagger",
  presets: [window.SwaggerUIBundle.presets.apis],
  layout: "BaseLayout",
  // Nothing leaves this origin: no online validator badge.
  validatorUrl: null,
  docExpansion: "none",
  defaultModelsExpandDepth: 0,
  filter: true,
});
const gatewayHash = () => /^#(gateway|event-|schema-)/.test(location.hash);
show(gatewayHash() ? "gateway" : "rest");
// A link to an event or a schema opens it.
window.addEventListener("hashchange", () => {
  const target = document.getElementById(location.hash.slice(1));
  if (target && target.tagName === "DETAILS") target.open = true;
});

const escape = (text) => String(text).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
const refName = (ref) => ref.slice(ref.lastIndexOf("/") + 1);
/** Escaped text with its `code` spans shown as code. */
const prose = (text) => escape(text).replace(/`([^`]+)`/g, "<code>$1</code>");

/** A JSON Schema (draft-07) as a readable tree. */
function schemaHtml(schema, depth = 0) {
  if (!schema || typeof schema !== "object" || Object.keys(schema).length === 0) return `<span class="ref-type">any</span>`;
  if (schema.$ref) return `<a href="#schema-${escape(refName(schema.$ref))}">${escape(refName(schema.$ref))}</a>`;
  for (const key of ["oneOf", "anyOf", "allOf"]) {
    if (Array.isArray(schema[key])) {
      const joiner = key === "allOf" ? " and " : " or ";
      const nonNull = schema[key].filter((s) => s.type !== "null");
      const nullable = nonNull.length < schema[key].length ? " or null" : "";
      if (nonNull.length === 1) return schemaHtml(nonNull[0], depth) + nullable;
      return `<ul>${nonNull.map((s) => `<li>${joiner.trim()} ${schemaHtml(s, depth + 1)}</li>`).join("")}</ul>${nullable}`;
    }
  }
  if (schema.const !== undefined) return `<span class="ref-type">${escape(JSON.stringify(schema.const))}</span>`;
  if (schema.enum) return `<span class="ref-type">${schema.enum.map((v) => escape(JSON.stringify(v))).join(" | ")}</span>`;
  const types = [].concat(schema.type ?? []);
  const nullable = types.includes("null") ? " or null" : "";
  const type = types.filter((t) => t !== "null")[0];
  if (type === "array") return `array of ${schemaHtml(schema.items, depth + 1)}${nullable}`;
  if (type === "object" || schema.properties) {
    const required = new Set(schema.required ?? []);
    const rows = Object.entries(schema.properties ?? {}).map(
      ([name, child]) =>
        `<li><span class="ref-name">${escape(name)}</span>${required.has(name) ? "" : '<span class="ref-type">?</span>'}: ${schemaHtml(child, depth + 1)}</li>`,
    );
    if (schema.additionalProperties && typeof schema.additionalProperties === "object") {
      rows.push(`<li><span class="ref-type">[key: string]</span>: ${schemaHtml(schema.additionalProperties, depth + 1)}</li>`);
    } else if (schema.additionalProperties === true) rows.push(`<li><span class="ref-type">…other fields</span></li>`);
    return `object${nullable}<ul>${rows.join("")}</ul>`;
  }
  const format = schema.format ? ` (${escape(schema.format)})` : "";
  return `<span class="ref-type">${escape(type ?? "any")}${format}</span>${nullable}`;
}

const block = (label, schema) => `<p class="ref-label">${escape(label)}</p><div class="ref-schema">${schemaHtml(schema)}</div>`;

async function renderGateway() {
  const response = await fetch("/api/v1/asyncapi.json");
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
  const doc = await response.json();
  const messages = doc.components.messages;
  const message = (ref) => messages[refName(ref)];
  const clientOps = Object.values(doc.operations).filter((op) => op.action === "receive");
  const serverOps = Object.values(doc.operations).filter((op) => op.action === "send");
  const client = clientOps.map((op) => {
    const sent = message(op.messages[0].$ref);
    const ack = message(op.reply.messages[0].$ref);
    return `<details class="ref-event" id="event-${escape(op.title)}"><summary>${escape(op.title)}</summary>
      ${sent.payload ? block("Payload", sent.payload) : "<p>No payload.</p>"}${block("Ack", ack.payload)}</details>`;
  });
  const server = serverOps.map((op) => {
    const sent = message(op.messages[0].$ref);
    return `<details class="ref-event" id="event-${escape(op.title)}"><summary>${escape(op.title)}<span class="ref-note">${prose(op.description)}</span></summary>
      ${block("Payload", sent.payload)}</details>`;
  });
  const schemas = Object.entries(doc.components.schemas).map(
    ([name, schema]) => `<details class="ref-event" id="schema-${escape(name)}"><summary>${escape(name)}</summary><div class="ref-schema">${schemaHtml(schema)}</div></details>`,
  );
  const server0 = Object.values(doc.servers)[0];
  document.getElementById("gateway").innerHTML = `
    <h2>${escape(doc.info.title)} <small>${escape(doc.info.version)}</small></h2>
    <p>${prose(doc.info.description)}</p>
    <p>Path <code>${escape(server0.pathname)}</code> on this instance. ${prose(server0.description)}</p>
    <h2>Client → server (${client.length})</h2>${client.join("")}
    <h2>Server → client (${server.length})</h2>${server.join("")}
    <h2>Schemas (${schemas.length})</h2>${schemas.join("")}`;
  const target = location.hash.startsWith("#event-") || location.hash.startsWith("#schema-") ? document.getElementById(location.hash.slice(1)) : null;
  if (target) target.open = true;
}
