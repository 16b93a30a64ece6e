// The schedule form in the admin: shows only the chosen protocol's options (each protocol's
// inputs are in a fieldset with the class protocol-<name>). Without script, all are shown and
// only the chosen protocol's are read.
(() => {
  "use strict";
  function update(select) {
    for (const group of document.querySelectorAll("fieldset.protocol-options")) {
      group.hidden = !group.classList.contains("protocol-" + select.value);
    }
  }
  document.addEventListener("DOMContentLoaded", () => {
    const select = document.getElementById("id_protocol");
    if (!select) return;
    select.addEventListener("change", () => update(select));
    update(select);
  });
})();
