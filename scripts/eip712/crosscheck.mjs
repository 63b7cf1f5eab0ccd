// Checks the chain's EIP-712 vectors (JobBid, Withdraw) against ethers v6, an
// implementation independent of the chain's Go encoder
// (x/auction/types/eip712.go) and of go-ethereum.
//
// Usage: node crosscheck.mjs VECTOR.json [VECTOR.json ...]
//
// Each vector file (written by x/auction/client/wallet/ethers_test.go) holds
//   domain, types (without EIP712Domain), primaryType, message (as ethers
//   takes it: numbers as decimal strings, addresses checksummed),
//   key (the signer's private key),
//   expectedDomainSeparator, expectedStructHash, expectedDigest (the chain's),
//   expectedSignature (RFC 6979 over expectedDigest, v 27/28),
//   goSignature (what the Go wallet signs; checked with verifyTypedData).
// It prints one line per check and exits non-zero on any mismatch.

import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { ethers } from "ethers";

let failures = 0;

function report(file, name, ok, detail) {
  if (!ok) failures++;
  console.log(`${ok ? "ok  " : "FAIL"} ${basename(file)}: ${name}${detail ? ": " + detail : ""}`);
}

const lower = (s) => String(s).toLowerCase();

function check(file) {
  const v = JSON.parse(readFileSync(file, "utf8"));
  const { domain, types, message } = v;
  if ("EIP712Domain" in types) {
    report(file, "types", false, "types must not hold EIP712Domain (ethers derives it from the domain)");
    return;
  }
  const encoder = ethers.TypedDataEncoder.from(types);
  if (v.primaryType !== undefined) {
    report(file, "primary type", encoder.primaryType === v.primaryType,
      `ethers ${encoder.primaryType}, vector ${v.primaryType}`);
  }

  // The digest, and on a mismatch which half of it differs.
  const digest = ethers.TypedDataEncoder.hash(domain, types, message);
  report(file, "digest", lower(digest) === lower(v.expectedDigest),
    lower(digest) === lower(v.expectedDigest) ? digest : `ethers ${digest}, chain ${v.expectedDigest}`);
  if (v.expectedDomainSeparator !== undefined) {
    const sep = ethers.TypedDataEncoder.hashDomain(domain);
    report(file, "domain separator", lower(sep) === lower(v.expectedDomainSeparator),
      lower(sep) === lower(v.expectedDomainSeparator) ? sep : `ethers ${sep}, chain ${v.expectedDomainSeparator}`);
  }
  if (v.expectedStructHash !== undefined) {
    const sh = encoder.hash(message);
    report(file, "struct hash", lower(sh) === lower(v.expectedStructHash),
      lower(sh) === lower(v.expectedStructHash) ? sh : `ethers ${sh}, chain ${v.expectedStructHash} (ethers encodes ${encoder.encodeType(encoder.primaryType)})`);
  }

  const key = v.key.startsWith("0x") ? v.key : "0x" + v.key;
  const wallet = new ethers.Wallet(key);
  if (message.renter !== undefined) {
    report(file, "renter is the key's address", message.renter === wallet.address,
      `key ${wallet.address}, renter ${message.renter}`);
  }

  return { domain, types, message, wallet, v };
}

async function sign(file, { domain, types, message, wallet, v }) {
  // ethers signs with RFC 6979 too: the very bytes Go signed.
  const sig = await wallet.signTypedData(domain, types, message);
  if (lower(sig) === lower(v.expectedSignature)) {
    report(file, "ethers signature", true, "byte-identical to Go's");
  } else {
    // Allow only a difference in v's form (27/28 vs 0/1).
    const a = ethers.Signature.from(sig);
    const b = ethers.Signature.from(v.expectedSignature);
    const sameRS = a.r === b.r && a.s === b.s;
    const ra = ethers.recoverAddress(v.expectedDigest, a);
    const rb = ethers.recoverAddress(v.expectedDigest, b);
    const ok = sameRS && ra === wallet.address && rb === wallet.address;
    report(file, "ethers signature", ok,
      ok ? `same r,s and signer; v differs in form (ethers ${sig.slice(-2)}, Go ${v.expectedSignature.slice(-2)})`
        : `ethers ${sig}, Go ${v.expectedSignature}`);
  }

  let recovered;
  try {
    recovered = ethers.verifyTypedData(domain, types, message, v.goSignature);
  } catch (e) {
    report(file, "Go signature verifies", false, e.message);
    return;
  }
  report(file, "Go signature verifies", recovered === wallet.address,
    recovered === wallet.address ? `signer ${recovered}` : `recovered ${recovered}, key ${wallet.address}`);
}

const files = process.argv.slice(2);
if (files.length === 0) {
  console.error("usage: node crosscheck.mjs VECTOR.json [VECTOR.json ...]");
  process.exit(2);
}
console.log(`ethers ${ethers.version}`);
for (const file of files) {
  try {
    const ctx = check(file);
    if (ctx) await sign(file, ctx);
  } catch (e) {
    report(file, "vector", false, e.stack || String(e));
  }
}
if (failures > 0) {
  console.log(`${failures} check(s) failed`);
  process.exit(1);
}
