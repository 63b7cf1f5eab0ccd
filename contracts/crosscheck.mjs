// Checks the Go payout package's vectors (payout/testdata/vectors.json,
// written by TestVectors) against implementations independent of it:
//   - trees and proofs against OpenZeppelin's merkle-tree
//     (StandardMerkleTree with ["address", "uint256"] leaves): the same
//     root, the same proofs, the same dump to the byte, and Go's dump loads
//     and validates in it;
//   - valset checkpoints, root digests and signatures against ethers v6
//     (its ABI coder, keccak256, EIP-191 message hash and RFC 6979 signer).
//
// Usage: node crosscheck.mjs VECTORS.json
// It prints one line per check and exits non-zero on any mismatch.

import { readFileSync } from "node:fs";
import { StandardMerkleTree } from "@openzeppelin/merkle-tree";
import { ethers } from "ethers";

let failures = 0;
let checks = 0;

function report(name, ok, detail) {
  checks++;
  if (!ok) failures++;
  if (!ok || process.env.VERBOSE) {
    console.log(`${ok ? "ok  " : "FAIL"} ${name}${detail ? ": " + detail : ""}`);
  }
}

const lower = (s) => String(s).toLowerCase();
const same = (name, got, want) => report(name, lower(got) === lower(want), `got ${got}, want ${want}`);

function checkTree(tv) {
  const tree = StandardMerkleTree.of(tv.values, ["address", "uint256"]);
  same(`${tv.name}: root`, tree.root, tv.root);
  const dump = JSON.stringify(tree.dump());
  report(`${tv.name}: dump`, dump === JSON.stringify(tv.dump), `OpenZeppelin ${dump}`);
  tv.values.forEach((value, i) => {
    const proof = tree.getProof(i);
    report(`${tv.name}: proof ${i}`, JSON.stringify(proof) === JSON.stringify(tv.proofs[i]),
      `OpenZeppelin ${JSON.stringify(proof)}`);
    report(`${tv.name}: verify ${i}`, StandardMerkleTree.verify(tv.root, ["address", "uint256"], value, tv.proofs[i]));
  });
  let loaded;
  try {
    loaded = StandardMerkleTree.load(tv.dump); // validates every node and leaf
    report(`${tv.name}: Go dump loads`, true);
  } catch (e) {
    report(`${tv.name}: Go dump loads`, false, e.message);
    return;
  }
  same(`${tv.name}: loaded root`, loaded.root, tv.root);
  const total = tv.values.reduce((s, [, amount]) => s + BigInt(amount), 0n);
  same(`${tv.name}: total`, total.toString(), tv.total);
}

function checkDigests(dv) {
  const coder = ethers.AbiCoder.defaultAbiCoder();
  same(`${dv.name}: valset tag`, ethers.id("idlegpu.SettlementVault.valset.v1"), dv.valsetTag);
  same(`${dv.name}: root tag`, ethers.id("idlegpu.SettlementVault.root.v1"), dv.rootTag);
  const { vaultId, chainId, vault } = dv.domain;
  const checkpoint = ethers.keccak256(coder.encode(
    ["bytes32", "bytes32", "uint256", "address", "uint64", "address[]", "uint64[]"],
    [dv.valsetTag, vaultId, chainId, vault, dv.valset.nonce, dv.valset.validators, dv.valset.powers],
  ));
  same(`${dv.name}: valset checkpoint`, checkpoint, dv.valsetCheckpoint);
  const r = dv.root;
  const digest = ethers.keccak256(coder.encode(
    ["bytes32", "bytes32", "uint256", "address", "uint64", "uint64", "bytes32", "uint256"],
    [dv.rootTag, vaultId, chainId, vault, r.valsetNonce, r.epoch, r.root, r.totalCumulative],
  ));
  same(`${dv.name}: root digest`, digest, r.digest);

  dv.signatures.forEach((sv, i) => {
    const wallet = new ethers.Wallet(sv.key);
    same(`${dv.name}: sig ${i} address`, wallet.address, sv.address);
    same(`${dv.name}: sig ${i} signed hash`, ethers.hashMessage(ethers.getBytes(sv.digest)), sv.signedHash);
    const sig = wallet.signingKey.sign(sv.signedHash);
    same(`${dv.name}: sig ${i} r`, sig.r, sv.r);
    same(`${dv.name}: sig ${i} s`, sig.s, sv.s);
    same(`${dv.name}: sig ${i} v`, sig.v, sv.v);
    const recovered = ethers.verifyMessage(ethers.getBytes(sv.digest), ethers.Signature.from({ r: sv.r, s: sv.s, v: sv.v }));
    same(`${dv.name}: sig ${i} recovers`, recovered, sv.address);
  });
}

const [file] = process.argv.slice(2);
if (!file) {
  console.error("usage: node crosscheck.mjs VECTORS.json");
  process.exit(2);
}
const v = JSON.parse(readFileSync(file, "utf8"));
for (const tv of v.trees) {
  try {
    checkTree(tv);
  } catch (e) {
    report(`${tv.name}: tree`, false, e.stack || String(e));
  }
}
for (const dv of v.digests) {
  try {
    checkDigests(dv);
  } catch (e) {
    report(`${dv.name}: digests`, false, e.stack || String(e));
  }
}
const pkg = (name) => JSON.parse(readFileSync(new URL(`./node_modules/${name}/package.json`, import.meta.url))).version;
console.log(`@openzeppelin/merkle-tree ${pkg("@openzeppelin/merkle-tree")}, ethers ${ethers.version}: ` +
  `${checks - failures}/${checks} checks agree with the Go vectors`);
if (failures > 0) process.exit(1);
