// The analytics page's auto-refresh: off unless the box is ticked; when on, the figures (#figures)
// are fetched again every minute from the page's own address (its filters and range) and put in
// place of the old ones, the charts drawn anew ("charts:update", static/charts/charts.js) and the
// tables left open or closed as they were. The choice is kept in this browser (localStorage).
(() => {
  "use strict";
  const KEY = "analytics:auto-refresh";
  const box = document.getElementById("auto-refresh");
  const status = document.getElementById("refreshed");
  if (!box) return;
  let timer = null;

  function remembered() {
    try {
      return window.localStorage.getItem(KEY) === "on";
    } catch {
      return false;
    }
  }

  function remember(on) {
    try {
      if (on) window.localStorage.setItem(KEY, "on");
      else window.localStorage.removeItem(KEY);
    } catch {
      // Storage refused (private mode): the box still works for this page.
    }
  }

  async function refresh() {
    const figures = document.getElementById("figures");
    try {
      const response = await fetch(window.location.href, { credentials: "same-origin" });
      if (!response.ok) throw new Error("the server answered " + response.status);
      const page = new DOMParser().parseFromString(await response.text(), "text/html");
      const fresh = page.getElementById("figures");
      if (!fresh || !figures) throw new Error("no figures in the answer");
      const open = [...figures.querySelectorAll("details[open][id]")].map((d) => d.id);
      figures.replaceWith(fresh);
      for (const id of open) {
        const details = document.getElementById(id);
        if (details) details.open = true;
      }
      document.dispatchEvent(new CustomEvent("charts:update"));
      status.textContent = "Updated at " + new Date().toLocaleTimeString();
    } catch (error) {
      status.textContent = "Could not refresh: " + error.message + ". Trying again in a minute.";
    }
  }

  function apply(on) {
    window.clearInterval(timer);
    timer = on ? window.setInterval(refresh, Number(box.dataset.everyMs) || 60000) : null;
    if (!on) status.textContent = "";
  }

  box.checked = remembered();
  apply(box.checked);
  box.addEventListener("change", () => {
    remember(box.checked);
    apply(box.checked);
  });
})();
