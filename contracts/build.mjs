// Compiles src/ with the solc pinned in package.json (solcjs: the compiler
// ships inside the npm package, nothing is downloaded at run time) and
// writes, for each contract, artifacts/<Name>.abi (JSON) and
// artifacts/<Name>.bin (creation bytecode, hex), which abigen turns into
// the Go bindings (contracts.mk).
//
// The output is byte-reproducible: fixed settings, sources named by their
// path relative to this directory, no metadata hash in the bytecode.
//
// Usage: node build.mjs [OUT_DIR]   (default: artifacts)

import { readFileSync, readdirSync, writeFileSync, mkdirSync, rmSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const require = createRequire(import.meta.url);
const solc = require("solc");

const here = fileURLToPath(new URL(".", import.meta.url));
const outDir = join(here, process.argv[2] ?? "artifacts");

// Every contract compiled and written, in one place so that adding one is
// deliberate (and the bindings follow it in contracts.mk).
const CONTRACTS = ["SettlementVault", "TestUSDC", "FeeOnTransferToken", "ReentrantToken"];

function solFiles(dir) {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) return solFiles(p);
      return name.endsWith(".sol") ? [p] : [];
    });
}

const sources = {};
for (const file of solFiles(join(here, "src"))) {
  sources[relative(here, file).split(sep).join("/")] = { content: readFileSync(file, "utf8") };
}

const input = {
  language: "Solidity",
  sources,
  settings: {
    // Cancun: transient storage for the reentrancy guard; every chain the
    // vault targets has it.
    evmVersion: "cancun",
    optimizer: { enabled: true, runs: 10_000 },
    metadata: { bytecodeHash: "none", appendCBOR: false },
    outputSelection: { "*": { "*": ["abi", "evm.bytecode.object"] } },
  },
};

function findImports(path) {
  // Imports name npm packages (@openzeppelin/contracts/...).
  try {
    return { contents: readFileSync(require.resolve(path), "utf8") };
  } catch (e) {
    return { error: `${path}: ${e.message}` };
  }
}

const output = JSON.parse(solc.compile(JSON.stringify(input), { import: findImports }));
// Errors, and warnings in our own sources, fail the build. OpenZeppelin's
// warnings (solc reminds that its transient-storage slots need care) are
// counted only.
let failed = false;
let theirs = 0;
for (const err of output.errors ?? []) {
  const ours = (err.sourceLocation?.file ?? "src/").startsWith("src/");
  if (err.severity === "error" || ours) {
    console.error(err.formattedMessage ?? err.message);
    failed = true;
  } else {
    theirs++;
  }
}
if (theirs > 0) console.log(`${theirs} compiler warning(s) in dependencies (not ours)`);
if (failed) process.exit(1);

const byName = {};
for (const [file, contracts] of Object.entries(output.contracts)) {
  for (const [name, c] of Object.entries(contracts)) {
    if (file.startsWith("src/")) byName[name] = c;
  }
}

rmSync(outDir, { recursive: true, force: true });
mkdirSync(outDir, { recursive: true });
for (const name of CONTRACTS) {
  const c = byName[name];
  if (!c) {
    console.error(`contract ${name} not found in src/`);
    process.exit(1);
  }
  writeFileSync(join(outDir, `${name}.abi`), JSON.stringify(c.abi, null, 2) + "\n");
  writeFileSync(join(outDir, `${name}.bin`), c.evm.bytecode.object + "\n");
  console.log(`${name}: ${c.evm.bytecode.object.length / 2} bytes of creation code`);
}
console.log(`solc ${solc.version()}`);
