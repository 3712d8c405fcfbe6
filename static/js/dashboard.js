// Small progressive enhancements; every page works without this file.
document.addEventListener("click", (event) => {
  const button = event.target.closest("button[data-copy]");
  if (!button) return;
  const source = document.querySelector(button.dataset.copy);
  if (!source) return;
  const text = source.textContent;
  const done = () => {
    const label = button.textContent;
    button.textContent = "Copied";
    setTimeout(() => { button.textContent = label; }, 1500);
  };
  if (navigator.clipboard && window.isSecureContext) {
    navigator.clipboard.writeText(text).then(done, () => fallbackCopy(source, done));
  } else {
    fallbackCopy(source, done);
  }
});

function fallbackCopy(source, done) {
  // Plain-HTTP intranets have no Clipboard API: select the text and use execCommand.
  const range = document.createRange();
  range.selectNodeContents(source);
  const selection = window.getSelection();
  selection.removeAllRanges();
  selection.addRange(range);
  try { document.execCommand("copy"); done(); } catch (e) { /* the text stays selected for Ctrl+C */ }
}

// Collapsed rule rows (<details>): open the one the address points at (#rule-ID, e.g. after saving it).
function openTarget() {
  if (!location.hash) return;
  const target = document.getElementById(decodeURIComponent(location.hash.slice(1)));
  if (target && target.tagName === "DETAILS") { target.open = true; target.scrollIntoView(); }
}
document.addEventListener("DOMContentLoaded", openTarget);
window.addEventListener("hashchange", openTarget);

// Forms that ask before they submit (data-confirm): the CSP allows no inline onclick handlers.
document.addEventListener("submit", (event) => {
  const message = event.target.dataset && event.target.dataset.confirm;
  if (message && !window.confirm(message)) event.preventDefault();
});

// Apply-fix on the profile form: put the fixed text into the form's source field (the live findings
// re-validate it through their usual input trigger), or dismiss the proposal.
document.addEventListener("click", (event) => {
  const use = event.target.closest("button[data-use-source]");
  if (use) {
    const fixed = document.querySelector(use.dataset.useSource);
    const field = document.getElementById("id_source");
    if (fixed && field) {
      field.value = fixed.textContent;
      field.dispatchEvent(new Event("input", { bubbles: true }));
      const box = use.closest("#source-fix");
      if (box) box.innerHTML = "";
      field.focus();
    }
    return;
  }
  const dismiss = event.target.closest("button[data-dismiss]");
  if (dismiss) {
    const box = document.querySelector(dismiss.dataset.dismiss);
    if (box) box.innerHTML = "";
  }
});
