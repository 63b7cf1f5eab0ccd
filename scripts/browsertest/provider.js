// The EIP-1193 provider that a Page injects as window.ethereum. Every request
// goes to Go through the runtime binding __idlegpuWalletRequest; Go settles it
// by calling window.__idlegpuWalletSettle in the same execution context.
(() => {
  if (window.ethereum && window.ethereum.isIdlegpuTest) {
    return;
  }
  const pending = new Map();
  const listeners = new Map();
  let seq = 0;

  Object.defineProperty(window, "__idlegpuWalletSettle", {
    value: (id, error, result) => {
      const p = pending.get(id);
      if (!p) {
        return;
      }
      pending.delete(id);
      if (error) {
        const err = new Error(error.message);
        err.code = error.code;
        if (error.data !== undefined) {
          err.data = error.data;
        }
        p.reject(err);
      } else {
        p.resolve(result);
      }
    },
  });

  const provider = {
    isIdlegpuTest: true,
    request(args) {
      return new Promise((resolve, reject) => {
        if (!args || typeof args.method !== "string") {
          const err = new Error("request needs {method, params}");
          err.code = -32600;
          reject(err);
          return;
        }
        const id = ++seq;
        pending.set(id, { resolve, reject });
        const params = args.params === undefined ? [] : args.params;
        window.__idlegpuWalletRequest(JSON.stringify({ id, method: args.method, params }));
      });
    },
    on(event, fn) {
      if (!listeners.has(event)) {
        listeners.set(event, new Set());
      }
      listeners.get(event).add(fn);
      return provider;
    },
    removeListener(event, fn) {
      const set = listeners.get(event);
      if (set) {
        set.delete(fn);
      }
      return provider;
    },
  };
  Object.defineProperty(window, "ethereum", { value: provider, configurable: true });

  // EIP-6963: announce the provider to pages that discover wallets by event.
  const info = Object.freeze({
    uuid: "6f3c1c0e-0d1a-4c1e-9b1e-1d9e0c0ffee0",
    name: "idlegpu test wallet",
    icon: "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' width='1' height='1'/%3E",
    rdns: "org.idlegpu.testwallet",
  });
  const announce = () =>
    window.dispatchEvent(
      new CustomEvent("eip6963:announceProvider", { detail: Object.freeze({ info, provider }) }),
    );
  window.addEventListener("eip6963:requestProvider", announce);
  announce();
})();
