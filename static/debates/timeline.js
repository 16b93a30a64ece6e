// The call timeline on a debate page: opening a call loads its prompt and raw reply (a page the
// server renders and escapes; only its #call-detail part is taken), once per call. The live
// page replaces the timeline as the debate goes on and reopens the calls that were open; a
// reopened call shows what was loaded before.
(() => {
  "use strict";
  const loaded = new Map();

  async function load(details) {
    const slot = details.querySelector(".tl-raw");
    const url = details.dataset.src;
    if (!slot || !url || slot.dataset.loaded === "true") return;
    try {
      if (!loaded.has(url)) {
        const response = await fetch(url, { headers: { Accept: "text/html" } });
        if (!response.ok) throw new Error("HTTP " + response.status);
        const page = new DOMParser().parseFromString(await response.text(), "text/html");
        const part = page.getElementById("call-detail");
        if (!part) throw new Error("unexpected reply");
        loaded.set(url, part);
      }
      slot.replaceChildren(document.importNode(loaded.get(url), true));
      slot.dataset.loaded = "true";
    } catch (error) {
      slot.dataset.loaded = "false";
    }
  }

  // `toggle` does not bubble: listen while it goes down (capture).
  document.addEventListener(
    "toggle",
    (event) => {
      const details = event.target;
      if (details.matches && details.matches("details.tl-call[data-src]") && details.open) {
        load(details);
      }
    },
    true
  );
})();
