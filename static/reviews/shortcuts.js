// Keyboard shortcuts of the review pages (listed on each page, in #shortcuts).
// Item page: j/k next/previous item, c claim, u uphold, o override, q queue,
// Ctrl+Enter sends the form of the note being typed. Queue page: j/k move the selection,
// Enter opens it. Keys typed into a field are left alone; Esc leaves the field.
(() => {
  "use strict";

  const typing = (el) =>
    el && (el.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(el.tagName));

  function follow(name) {
    const link = document.querySelector(`[data-shortcut-target="${name}"]`);
    if (link) window.location.assign(link.href);
    return Boolean(link);
  }

  function chooseVerdict(value, focusSelector) {
    const radio = document.querySelector(`#resolve-form input[name="verdict"][value="${value}"]`);
    if (!radio) return false;
    radio.checked = true;
    radio.dispatchEvent(new Event("change", { bubbles: true }));
    const target = document.querySelector(focusSelector);
    if (target) {
      target.scrollIntoView({ block: "center" });
      target.focus();
    }
    return true;
  }

  function claim() {
    const button = document.querySelector('button[name="claim"]');
    if (button) button.click();
    return Boolean(button);
  }

  // The queue's rows: j/k move a highlighted row; Enter opens its item.
  const rows = [...document.querySelectorAll("table.queue tbody tr[data-item]")];
  let selected = -1;
  function select(index) {
    if (!rows.length) return false;
    selected = Math.max(0, Math.min(rows.length - 1, index));
    rows.forEach((row, i) => row.classList.toggle("selected", i === selected));
    rows[selected].setAttribute("aria-current", "true");
    rows.forEach((row, i) => { if (i !== selected) row.removeAttribute("aria-current"); });
    const link = rows[selected].querySelector("a");
    if (link) link.focus();
    return true;
  }

  const onItemPage = Boolean(document.querySelector("nav.queue-nav"));
  const actions = onItemPage
    ? {
        j: () => follow("next"),
        k: () => follow("previous"),
        c: claim,
        u: () => chooseVerdict("uphold", "#resolve-form textarea"),
        o: () => chooseVerdict("override", "#resolve-form select"),
        q: () => follow("queue"),
      }
    : {
        j: () => select(selected + 1),
        k: () => select(selected - 1),
        q: () => false,
      };

  document.addEventListener("keydown", (event) => {
    const field = event.target;
    if (typing(field)) {
      if (event.key === "Escape") field.blur();
      // A form marked data-no-shortcut-submit (the veto override's confirmation) is sent
      // only with its own button.
      const sendable = field.form && !field.form.hasAttribute("data-no-shortcut-submit");
      if (event.key === "Enter" && (event.ctrlKey || event.metaKey) && sendable) {
        event.preventDefault();
        field.form.requestSubmit();
      }
      return;
    }
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const action = actions[event.key];
    if (action && action()) event.preventDefault();
  });
})();
