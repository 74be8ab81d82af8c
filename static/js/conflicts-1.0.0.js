/* The conflicts queue: "select every conflict on this page" and the count of the selection.
   Without JavaScript the rows are still selected one by one; the server does the rest. */
(function () {
  "use strict";
  const all = document.getElementById("select-page");
  const count = document.getElementById("selected-count");
  if (!all) return;
  const picks = () => [...document.querySelectorAll('input.pick[form="bulk"]')];
  const show = () => {
    const chosen = picks().filter((p) => p.checked).length;
    count.textContent = chosen ? `${chosen} selected` : "";
    all.checked = chosen > 0 && chosen === picks().length;
    all.indeterminate = chosen > 0 && chosen < picks().length;
  };
  document.getElementById("select-page-row").hidden = false;  // only offered where it works
  all.addEventListener("change", () => { picks().forEach((p) => { p.checked = all.checked; }); show(); });
  document.addEventListener("change", (event) => { if (event.target.matches("input.pick")) show(); });
  show();
})();
