/* Interoperability with Digital Bazaar's @digitalbazaar/vc (an independent implementation of
   VC 2.0, Data Integrity and eddsa-rdfc-2022), offline.

   node vc_interop.mjs verify CONFIG.json   verify config.credential (and its status)
   node vc_interop.mjs issue CONFIG.json    sign config.credential with a fresh did:key

   CONFIG.json (written by tests/certs/test_interop_vc.py):
   - contexts: {URL: file}: the JSON-LD contexts, from the course's own files only;
   - documents: {URL: file}: DID documents and status list credentials to serve;
   - credential: the credential file; now: the moment to verify at (ISO 8601), optional.
   The document loader serves these and resolves did:key identifiers from the key itself;
   anything else is refused: nothing is fetched. The answer is one JSON object on stdout. */
/* global process */
import { readFileSync } from "node:fs";
import * as vc from "@digitalbazaar/vc";
import { DataIntegrityProof } from "@digitalbazaar/data-integrity";
import { cryptosuite } from "@digitalbazaar/eddsa-rdfc-2022-cryptosuite";
import * as Ed25519Multikey from "@digitalbazaar/ed25519-multikey";
import { checkStatus } from "@digitalbazaar/vc-bitstring-status-list";

const DID_V1 = "https://www.w3.org/ns/did/v1";
const MULTIKEY_V1 = "https://w3id.org/security/multikey/v1";

const readJson = (path) => JSON.parse(readFileSync(path, "utf8"));

// The DID document of a did:key (Ed25519), or its one verification method for "DID#key".
function didKeyDocument(url) {
  const [did, fragment] = url.split("#");
  const key = did.slice("did:key:".length);
  if (!key.startsWith("z6Mk") || (fragment !== undefined && fragment !== key)) {
    throw new Error(`${url} is not an Ed25519 did:key or its key`);
  }
  const method = { id: `${did}#${key}`, type: "Multikey", controller: did, publicKeyMultibase: key };
  if (fragment !== undefined) return { "@context": MULTIKEY_V1, ...method };
  return {
    "@context": [DID_V1, MULTIKEY_V1], id: did, verificationMethod: [method],
    assertionMethod: [method.id], authentication: [method.id],
  };
}

function makeLoader(config) {
  const served = new Map();
  for (const [url, path] of Object.entries({ ...config.contexts, ...config.documents })) {
    served.set(url, readJson(path));
  }
  const requested = [];
  const loader = async (url) => {
    requested.push(url);
    let document;
    if (url.startsWith("did:key:")) {
      document = didKeyDocument(url);
    } else if (served.has(url.split("#")[0])) {
      // A DID URL of a served DID document: the document, or the method it lists.
      document = served.get(url.split("#")[0]);
      if (url.includes("#")) {
        const method = (document.verificationMethod || []).find((m) => m.id === url);
        if (!method) throw new Error(`${url} is not in its DID document`);
        document = { "@context": document["@context"], ...method };
      }
    } else {
      throw new Error(`${url} is not available offline (not one of the course's files)`);
    }
    return { contextUrl: null, documentUrl: url, document: JSON.parse(JSON.stringify(document)) };
  };
  return { loader, requested };
}

const errorText = (error) => (error ? [error.message, ...(error.errors || []).map(errorText)].join("; ") : null);

async function verify(config) {
  const { loader, requested } = makeLoader(config);
  const credential = readJson(config.credential);
  const suite = new DataIntegrityProof({ cryptosuite });
  const now = config.now ? new Date(config.now) : undefined;
  const statuses = [];
  // The status list credential is verified here, as of `now` (the library's own check would
  // use the current time); then the library reads the bit from it.
  const statusCheck = async (options) => {
    const result = await checkStatus({ ...options, verifyBitstringStatusListCredential: false });
    for (const entry of result.results || []) {
      const listUrl = entry.credentialStatus.statusListCredential;
      const { document: list } = await loader(listUrl);
      const listResult = await vc.verifyCredential({ credential: list, suite, documentLoader: loader, now });
      statuses.push({ list: listUrl, verified: listResult.verified, error: errorText(listResult.error), status: Number(entry.status) });
      if (!listResult.verified) result.verified = false;
    }
    return result;
  };
  const result = await vc.verifyCredential({
    credential, suite, documentLoader: loader, now, checkStatus: statusCheck,
  });
  return {
    verified: result.verified,
    error: errorText(result.error) || errorText(result.results?.find((r) => r.error)?.error),
    statuses,
    requested,
  };
}

async function issue(config) {
  const { loader, requested } = makeLoader(config);
  const fresh = await Ed25519Multikey.generate();
  const controller = `did:key:${fresh.publicKeyMultibase}`;
  const keyPair = await Ed25519Multikey.from({
    ...(await fresh.export({ publicKey: true, secretKey: true, includeContext: true })),
    controller,
    id: `${controller}#${fresh.publicKeyMultibase}`,
  });
  const credential = readJson(config.credential);
  credential.issuer = typeof credential.issuer === "object" ? { ...credential.issuer, id: controller } : controller;
  const suite = new DataIntegrityProof({ signer: keyPair.signer(), cryptosuite });
  const signed = await vc.issue({ credential, suite, documentLoader: loader });
  return { credential: signed, requested };
}

const [command, configPath] = process.argv.slice(2);
const commands = { verify, issue };
if (!commands[command] || !configPath) {
  process.stderr.write("usage: node vc_interop.mjs verify|issue CONFIG.json\n");
  process.exit(2);
}
process.stdout.write(`${JSON.stringify(await commands[command](readJson(configPath)))}\n`);
