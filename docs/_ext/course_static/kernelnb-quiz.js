// The book's quizzes, checked in the reader's browser with no kernel (kernelnb_course_book).
// Each quiz is a <form class="kernelnb-quiz"> of native radio inputs or a text input, a Check
// button and a live region; its answers and explanations are in the JSON of its data-quiz
// attribute, its interface words (in the page's language) in data-words.
(function () {
  "use strict";
  function number(text) {
    // a decimal comma (French) or point; spaces (thousands) ignored
    const t = String(text).trim().replace(/[\s\u202f\u00a0]/g, "").replace(",", ".");
    return t === "" || isNaN(Number(t)) ? null : Number(t);
  }
  function typeset(el) {
    if (window.MathJax && typeof window.MathJax.typesetPromise === "function") {
      window.MathJax.typesetPromise([el]).catch(function () {});
    }
  }
  function judge(form, quiz, words) {
    if (quiz.kind === "choice") {
      const picked = form.querySelector("input[type=radio]:checked");
      if (!picked) return { ok: null, text: words.choose };
      const choice = quiz.choices[Number(picked.value)];
      return { ok: choice.correct, text: choice.why };
    }
    const value = number(form.querySelector("input[type=text]").value);
    if (value === null) return { ok: null, text: words.number };
    const ok = Math.abs(value - quiz.value) <= quiz.tolerance;
    return { ok: ok, text: ok ? quiz.right : quiz.wrong };
  }
  function setup(form) {
    const quiz = JSON.parse(form.dataset.quiz);
    const words = JSON.parse(form.dataset.words);
    const out = form.querySelector(".kq-feedback");
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      const verdict = judge(form, quiz, words);
      // a mark that is not colour alone, then the verdict word unless the explanation starts
      // with it already ("Right: ...")
      let head = "";
      if (verdict.ok !== null) {
        const word = verdict.ok ? words.right : words.wrong;
        const first = (s) => s.trim().split(/[\s.:;,!]/)[0].toLowerCase();
        head = (verdict.ok ? "\u2713 " : "\u2717 ") +
          (first(word) === first(verdict.text) ? "" : word + " ");
      }
      out.textContent = head + verdict.text;
      out.className = "kq-feedback " + (verdict.ok === null ? "kq-none" : verdict.ok ? "kq-right" : "kq-wrong");
      form.dataset.state = verdict.ok === null ? "" : verdict.ok ? "right" : "wrong";
      typeset(out);
    });
  }
  // A choice that is a formula: its radio button named by what a screen reader says of the
  // formula (MathJax's speech, else its MathML's text), since a label's name leaves math out.
  function nameChoices() {
    document.querySelectorAll("form.kernelnb-quiz label").forEach(function (label) {
      const input = label.querySelector("input");
      if (!input || !label.querySelector("mjx-container")) return;
      const parts = [];
      label.childNodes.forEach(function (n) {
        if (n === input) return;
        if (n.nodeType === 3) {
          parts.push(n.textContent);
        } else if (n.matches && n.matches("mjx-container")) {
          const mml = n.querySelector("mjx-assistive-mml");
          parts.push(n.getAttribute("aria-label") || (mml || n).textContent);
        } else {
          parts.push(n.textContent);
        }
      });
      const name = parts.join(" ").replace(/\s+/g, " ").trim();
      if (name) input.setAttribute("aria-label", name);
    });
  }
  function init() {
    document.querySelectorAll("form.kernelnb-quiz").forEach(setup);
    if (window.MathJax && MathJax.startup && MathJax.startup.promise) {
      MathJax.startup.promise.then(nameChoices).catch(function () {});
    }
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
