// idlegpu web app: the only script. Pages work without it; it adds the
// wallet (EIP-1193: eth_requestAccounts, eth_signTypedData_v4) to sign bids,
// cancels, closes and withdrawals, which the app's relayer then submits, and
// to send a withdrawal's claim to the vault (eth_sendTransaction).
"use strict";

(function () {
  var account = null;

  function $(sel, root) { return (root || document).querySelector(sel); }
  function all(sel, root) { return Array.prototype.slice.call((root || document).querySelectorAll(sel)); }

  function say(el, text, kind) {
    if (!el) return;
    el.hidden = false;
    el.textContent = text;
    el.className = "status " + (kind || "");
  }

  function connect() {
    if (!window.ethereum || typeof window.ethereum.request !== "function") {
      return Promise.reject(new Error("No wallet found: install a browser wallet (EIP-1193), or sign with `idlegpud tx auction sign-job`."));
    }
    return window.ethereum.request({ method: "eth_requestAccounts" }).then(function (accs) {
      if (!accs || !accs.length) throw new Error("The wallet gave no account.");
      account = accs[0];
      var ws = $("#wallet-status");
      if (ws) { ws.hidden = false; ws.textContent = account; ws.title = "connected wallet"; }
      return account;
    });
  }

  function post(url, body, json) {
    return fetch(url, {
      method: "POST",
      headers: { "Content-Type": json ? "application/json" : "application/x-www-form-urlencoded" },
      body: body,
    }).then(function (res) {
      return res.json().then(function (data) {
        if (!res.ok) throw new Error(data.error || res.statusText);
        return data;
      });
    });
  }

  // sign: prepare on the server, sign in the wallet, relay; returns the
  // relayer's answer.
  function sign(prepareURL, relayURL, form, status) {
    return connect().then(function (addr) {
      var body = new URLSearchParams(new FormData(form));
      body.set("wallet", addr);
      say(status, "Preparing…");
      return post(prepareURL, body.toString(), false).then(function (prep) {
        var msg = "Sign in your wallet";
        if (prep.escrow) msg += ": this job locks " + prep.escrow + " in escrow, plus at most " + prep.maxFee + " for the relayer.";
        say(status, msg);
        return window.ethereum.request({
          method: "eth_signTypedData_v4",
          params: [addr, JSON.stringify(prep.typedData)],
        }).then(function (sig) {
          var signed = prep.signed;
          signed.signature = sig;
          say(status, "Submitting…");
          return post(relayURL, JSON.stringify(signed), true);
        });
      });
    });
  }

  function fail(status) {
    return function (err) {
      var m = (err && err.message) || String(err);
      if (err && err.code === 4001) m = "You declined to sign; nothing was sent.";
      say(status, m, "bad");
    };
  }

  // claim sends the vault's claim from the wallet and follows it to its
  // receipt through the wallet's own EVM node (the app reads no EVM chain).
  // A claim the vault would refuse is refused by the wallet's estimate; the
  // revert's selector names the reason (data-refusals, from the vault's ABI).
  function claim(btn) {
    var status = $("#claim-status");
    var want = Number(btn.getAttribute("data-chain-id"));
    var refusals = JSON.parse(btn.getAttribute("data-refusals") || "{}");
    connect().then(function (addr) {
      return window.ethereum.request({ method: "eth_chainId" }).then(function (id) {
        if (parseInt(id, 16) === want) return null;
        say(status, "Switch your wallet to EVM chain " + want + "…");
        return window.ethereum.request({ method: "wallet_switchEthereumChain", params: [{ chainId: "0x" + want.toString(16) }] });
      }).then(function () {
        say(status, "Confirm the claim in your wallet…");
        return window.ethereum.request({
          method: "eth_sendTransaction",
          params: [{ from: addr, to: btn.getAttribute("data-vault"), data: btn.getAttribute("data-calldata") }],
        });
      });
    }).then(function (hash) {
      say(status, "Claim sent in " + hash + "; waiting for its block…");
      return receipt(hash, 0);
    }).then(function (r) {
      if (r.status === "0x1") {
        say(status, "Claimed: the vault paid in " + r.transactionHash + " (block " + parseInt(r.blockNumber, 16) + ").", "good");
      } else {
        say(status, "The claim in " + r.transactionHash + " reverted: nothing was paid.", "bad");
      }
    }).catch(function (err) {
      var text = JSON.stringify((err && err.data) || "") + " " + ((err && err.message) || "");
      for (var sel in refusals) {
        if (text.indexOf(sel) >= 0) { say(status, "The vault refuses the claim: " + refusals[sel], "bad"); return; }
      }
      fail(status)(err);
    });
  }

  function receipt(hash, tries) {
    return window.ethereum.request({ method: "eth_getTransactionReceipt", params: [hash] }).then(function (r) {
      if (r) return r;
      if (tries >= 120) throw new Error("No receipt for " + hash + " after 2 minutes: follow it in your wallet.");
      return new Promise(function (ok) { setTimeout(ok, 1000); }).then(function () { return receipt(hash, tries + 1); });
    });
  }

  function hexOf(text) {
    var bytes = new TextEncoder().encode(text), out = "0x";
    for (var i = 0; i < bytes.length; i++) out += (bytes[i] < 16 ? "0" : "") + bytes[i].toString(16);
    return out;
  }

  // endpoint: a request to the lease's provider, signed by the wallet
  // (personal_sign over the text the endpoint checks) and forwarded by the
  // app over pinned TLS.
  function endpoint(f) {
    var st = $(".status", f);
    var call = { leaseId: Number(f.getAttribute("data-lease")), action: f.getAttribute("data-endpoint") };
    var body = $("textarea", f);
    if (body) call.body = body.value;
    var epoch = $("select[name=epoch]", f);
    if (epoch) call.epoch = Number(epoch.value);
    return connect().then(function (addr) {
      call.wallet = addr;
      say(st, "Sign the request in your wallet…");
      return post("/api/endpoint/prepare", JSON.stringify(call), true).then(function (prep) {
        return window.ethereum.request({ method: "personal_sign", params: [hexOf(prep.text), addr] }).then(function (sig) {
          call.ts = prep.ts; call.nonce = prep.nonce; call.signature = sig;
          say(st, "Sending…");
          return post("/api/endpoint/forward", JSON.stringify(call), true);
        });
      });
    }).then(function (res) {
      if (call.action === "samples") {
        var table = $("table", f), tbody = $("tbody", table);
        tbody.textContent = "";
        (res.samples || []).forEach(function (smp) {
          var tr = document.createElement("tr");
          [smp.time, smp.gpu, smp.util, smp.memory, smp.power, smp.temp].forEach(function (v, i) {
            var td = document.createElement("td");
            td.textContent = v;
            if (i > 1) td.className = "n";
            tr.appendChild(td);
          });
          tbody.appendChild(tr);
        });
        table.hidden = false;
        say(st, res.text, "good");
      } else if (call.action === "logs") {
        var pre = $("pre", f);
        pre.hidden = false;
        pre.textContent = res.text || "(no output yet)";
        say(st, "The job's output, as the provider's endpoint returned it.", "good");
      } else {
        say(st, res.text || "Sent.", "good");
      }
    }, fail(st));
  }

  function onReady() {
    all("[data-needs-js]").forEach(function (el) { el.hidden = false; });
    all("[data-no-js]").forEach(function (el) { el.hidden = true; });

    all("[data-wallet-connect]").forEach(function (btn) {
      btn.addEventListener("click", function (ev) {
        ev.preventDefault();
        var status = $(btn.getAttribute("data-status") || "#wallet-message");
        connect().then(function (addr) {
          var target = btn.getAttribute("data-fill");
          if (target) {
            var input = $(target);
            input.value = addr;
            if (input.form) input.form.submit();
          }
        }, fail(status));
      });
    });

    var form = $("#post-job");
    if (form) {
      var status = $("#post-status");
      $("#sign-job").addEventListener("click", function (ev) {
        ev.preventDefault();
        sign("/api/prepare/job", "/api/relay/job", form, status).then(function (res) {
          say(status, "Posted job " + res.jobId + " (tx " + res.txhash + ").", "good");
          window.location.assign("/jobs/" + res.jobId);
        }, fail(status));
      });
    }

    var claimBtn = $("#claim-send");
    if (claimBtn) claimBtn.addEventListener("click", function (ev) { ev.preventDefault(); claim(claimBtn); });
    all("form[data-endpoint]").forEach(function (f) {
      f.addEventListener("submit", function (ev) { ev.preventDefault(); endpoint(f); });
    });

    all("form[data-wallet-action]").forEach(function (f) {
      var kind = f.getAttribute("data-wallet-action");
      var st = $(".status", f);
      f.addEventListener("submit", function (ev) {
        ev.preventDefault();
        sign("/api/prepare/" + kind, "/api/relay/" + kind, f, st).then(function (res) {
          say(st, "Done (tx " + res.txhash + "). Reloading…", "good");
          // A withdrawal shows the account it came from: its balance and
          // what its EVM address has been paid so far.
          if (res.evmRecipient) window.location.assign("/withdraw?account=" + res.evmRecipient);
          else window.location.reload();
        }, fail(st));
      });
    });
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", onReady);
  else onReady();
})();
