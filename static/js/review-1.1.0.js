/* The worker's linkage page: renders the grid from the JSON API (docs/api.md), reveals
   cells, saves and clears answers. Everything shown comes from the API, which only carries disclosed
   characters; the DOM is built with textContent, never from HTML strings. */
(function () {
  "use strict";

  const root = document.getElementById("review");
  if (!root) return;
  const api = root.dataset.api;
  const pageNo = Number(root.dataset.page);
  const csrf = document.querySelector('meta[name="csrf-token"]').content;
  const $ = (id) => document.getElementById(id);
  const glyphs = {};
  document.querySelectorAll(".legend [data-mark]").forEach((g) => { glyphs[g.dataset.mark] = g.textContent; });
  const MARK_NAMES = {
    substitution: "substitution", indel: "insertion or deletion", transposition: "transposition",
    date_swap: "month and day swapped", identical: "identical", different: "different",
    missing: "missing", name_swap: "names swapped",
  };
  const CHOICES = [ // keys 1-6, left to right as in the paper: H M L | L M H
    ["different", "high"], ["different", "medium"], ["different", "low"],
    ["same", "low"], ["same", "medium"], ["same", "high"],
  ];
  let data = null;      // the page as served by GET /api/v1/assignments/<id>?page=N
  let busy = false;     // one reveal at a time
  let syncedAt = 0;     // when the page was last read from the server (ms)
  /* A cell showing more characters than this is cut to one line with "…"; its "show all"
     button wraps it whole: the whole of what is *disclosed* (hidden characters stay masked;
     the page never holds more than the server revealed). */
  const LONG = 24;
  const expanded = new Set();  // cells shown whole, "pair:row:attribute", kept across redraws
  /* The advisor's hint (docs/advice.md), when the manager turned it on: per pair the cell worth
     opening next and whether the display suffices. It only outlines a cell: opening one is
     always the worker's click. */
  const adviceUrl = root.dataset.advice || null;
  const advice = new Map();

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (key === "class") node.className = value;
      else node.setAttribute(key, value === true ? "" : String(value));
    }
    for (const child of children.flat()) {
      if (child !== null && child !== undefined) node.append(child);
    }
    return node;
  }
  /* At least two decimals and three significant digits, so a non-zero cost never reads
     "+0.00%" (mirrors app/review/formatting.py:percent, used on the worker's home). */
  const pct = (x) => {
    const v = 100 * x;
    if (v === 0 || !Number.isFinite(v)) return v.toFixed(2) + "%";
    const decimals = Math.max(2, 2 - Math.floor(Math.log10(Math.abs(v))));
    return (decimals > 10 ? v.toExponential(2) : v.toFixed(decimals)) + "%";
  };
  const srOnly = (text) => el("span", { class: "sr-only" }, text);

  async function call(method, url, body) {
    let response;
    try {
      response = await fetch(url, {
        method, credentials: "same-origin",
        headers: { "Accept": "application/json", "Content-Type": "application/json", "X-CSRFToken": csrf },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (_) {
      return { ok: false, status: 0, body: { message: "The server could not be reached; nothing changed." } };
    }
    let json = {};
    try { json = await response.json(); } catch (_) { /* not JSON: keep {} */ }
    return { ok: response.ok, status: response.status, body: json };
  }

  function say(text) { $("status").textContent = text; }
  /* The project's break reminder (docs/quality.md): shown once a session is long enough. */
  function remindBreak(state) {
    const box = $("break-reminder");
    if (!box || !state) return;
    box.hidden = !state.due;
    box.textContent = state.due
      ? `You have been reviewing for ${Math.round(state.minutes)} minutes (${state.decisions} decisions): time for a break of ten minutes. Decisions made from now on are marked as made past the reminder.`
      : "";
  }
  function alarm(text) {
    const box = $("alert");
    box.textContent = text;
    box.hidden = !text;
  }

  /* ---------- meters, progress ---------- */
  function renderMeters() {
    const a = data.assignment;
    const chars = $("chars-meter");
    chars.querySelector(".meter-fill").style.width = Math.min(100, a.characters.percent) + "%";
    chars.setAttribute("aria-valuenow", a.characters.percent.toFixed(2));
    chars.setAttribute("aria-valuetext", `${a.characters.percent.toFixed(2)}% (${a.characters.disclosed} of ${a.characters.total} characters)`);
    $("chars-value").textContent = `${a.characters.percent.toFixed(2)}%`;
    const kapr = $("kapr-meter");
    kapr.querySelector(".meter-fill").style.width = scaled(a.kapr) + "%";
    kapr.querySelector(".meter-limit").style.left = scaled(a.budget) + "%";
    kapr.dataset.kaprExact = a.kapr_exact;
    kapr.setAttribute("aria-valuemax", (100 * riskScale()).toFixed(2));
    kapr.setAttribute("aria-valuenow", (100 * a.kapr).toFixed(2));
    kapr.setAttribute("aria-valuetext", `${pct(a.kapr)}, budget ${pct(a.budget)}`);
    // Unbounded: some anonymity set is smaller than kappa, so the score may pass 100%.
    $("kapr-value").textContent = pct(a.kapr) + (a.kapr_bounded === false ? " (unbounded)" : "");
    $("kapr-limit").textContent = pct(a.budget);
    // Percent of the maximum KAPR; the exact fractions on demand.
    $("kapr-value").title = `exactly ${a.kapr_exact} of the maximum KAPR`;
    $("kapr-limit").title = `exactly ${a.budget_exact} of the maximum KAPR`;
    $("chars-value").title = `${a.characters.disclosed} of ${a.characters.total} characters`;
  }

  /* The risk meter spans 0 to 125% of the budget (at most KAPR 1), so a small budget is
     still readable; the limit mark sits at 80% of its width. */
  function riskScale() {
    const a = data.assignment;
    return Math.min(1, Math.max(a.budget * 1.25, a.kapr, 0.001));
  }
  const scaled = (x) => Math.min(100, (100 * x) / riskScale());

  function preview(cost, over) {
    const ghost = $("kapr-meter").querySelector(".meter-ghost");
    if (cost === null) {
      ghost.hidden = true;
      $("kapr-preview").textContent = "";
      return;
    }
    const start = scaled(data.assignment.kapr);
    ghost.style.left = start + "%";
    ghost.style.width = Math.max(0.5, scaled(data.assignment.kapr + cost) - start) + "%";
    ghost.classList.toggle("over", over);
    ghost.hidden = false;
    $("kapr-preview").textContent = "+" + pct(cost);
  }

  function renderProgress(decided, total, tally) {
    $("progress").max = Math.max(1, total);
    $("progress").value = decided;
    $("progress-text").textContent = `${decided} / ${total}`;
    if (!tally) return;
    const part = (d) => `${d[0].toUpperCase()}${d.slice(1)} ${tally[d] || 0}` +
      ` (H ${tally[d + "-high"] || 0}, M ${tally[d + "-medium"] || 0}, L ${tally[d + "-low"] || 0})`;
    const parts = [part("same"), part("different")];
    if (data.assignment.allow_unsure) parts.push(`Unsure ${tally.unsure || 0}`);
    $("tally").textContent = parts.join(" · ");
  }

  /* ---------- the grid ---------- */
  function renderHead() {
    const head = $("grid-head");
    head.replaceChildren(
      el("th", { scope: "col" }, "Pair"), el("th", { scope: "col" }, "Record"),
      ...data.attributes.map((a) => el("th", { scope: "col" }, a.type === "date" ? `${a.name} (M/D/Y)` : a.name)),
      el("th", { scope: "col" }, "Your answer"));
  }

  function segment(seg) {
    const mark = seg.mark ? ` mark-${seg.mark}` : "";
    const title = seg.mark ? MARK_NAMES[seg.mark] || seg.mark : null;
    if (seg.kind === "shown") return el("span", { class: `seg shown${seg.mark ? " marked" : ""}${mark}`, title }, seg.text);
    if (seg.kind === "separator") return el("span", { class: "seg sep" }, seg.text);
    if (seg.kind === "marker") return el("span", { class: `seg marker${mark}`, title }, " ", seg.text);
    return el("span", { class: `seg hidden${mark}`, title: title ? `hidden, ${title}` : "hidden" }, seg.text);
  }

  function suggested(pair, row, attr) {
    const hint = advice.get(pair.id);
    return Boolean(hint && hint.suggestion && hint.suggestion.row === row && hint.suggestion.attribute === attr.name);
  }

  function cellButton(pair, row, attr) {
    const cell = pair.rows[row].cells[attr.name];
    const who = `Pair ${pair.position + 1}, record ${"AB"[row]}, ${attr.name}`;
    const hinted = suggested(pair, row, attr);
    let state = "open", reason = `Reveal (${cell.next_level}): +${pct(cell.next_cost || 0)} privacy risk`;
    if (cell.next_level === null) {
      state = "done";
      reason = cell.total === 0 ? "Missing value: nothing to reveal" : "Nothing more to reveal";
    } else if (!cell.affordable) {
      state = "over";
      reason = `Over budget: the next reveal costs ${pct(cell.next_cost)}, ` +
        `${pct(Math.max(0, data.assignment.budget - data.assignment.kapr))} left`;
    }
    const badge = state === "done" ? null
      : el("span", { class: "cost", "aria-hidden": "true" }, state === "over" ? `\u2298 +${pct(cell.next_cost)}` : `+${pct(cell.next_cost)}`);
    // The hint is for a cell the worker can open now (the budget may have moved since).
    const outlined = hinted && state === "open";
    if (outlined) reason = `Suggested by the advisor: worth its cost. ${reason}`;
    return el("button", {
      type: "button", class: `cell level-${cell.level} ${state}${outlined ? " suggested" : ""}`, title: reason, "data-level": cell.level,
      "aria-disabled": state === "open" ? null : "true",
      "data-pair": pair.id, "data-row": row, "data-attr": attr.name,
      "data-cost": cell.next_cost, "data-cost-exact": cell.next_cost_exact,
    },
    srOnly(`${who} (${cell.level}): `),
    el("span", { class: "value" }, cell.display.length ? cell.display.map(segment) : el("span", { class: "seg empty" }, "")),
    badge, srOnly(`. ${reason}.`));
  }

  function cellKey(pair, row, attr) { return `${pair.id}:${row}:${attr.name}`; }

  function expandButton(pair, row, attr) {
    const cell = pair.rows[row].cells[attr.name];
    const length = cell.display.reduce((n, seg) => n + seg.text.length, 0);
    if (length <= LONG) return null;
    const open = expanded.has(cellKey(pair, row, attr));
    const who = `pair ${pair.position + 1}, record ${"AB"[row]}, ${attr.name}`;
    return el("button", {
      type: "button", class: "expand", "aria-expanded": String(open),
      "data-key": cellKey(pair, row, attr),
      title: open ? `Show ${who} on one line` : `Show all ${length} characters of ${who} (what is disclosed)`,
    }, el("span", { "aria-hidden": "true" }, open ? "\u2191" : "\u2026"), srOnly(open ? `Fold ${who}` : `Show all of ${who}`));
  }

  function valueCell(pair, row, attr) {
    const open = expanded.has(cellKey(pair, row, attr));
    return el("td", { class: open ? "whole" : null },
      cellButton(pair, row, attr), expandButton(pair, row, attr), frequencyBadge(pair, row, attr));
  }

  function frequencyBadge(pair, row, attr) {
    const freq = (pair.rows[row].frequency || {})[attr.name];
    if (!freq) return null;
    const text = freq.replace("_", " ");
    return el("span", { class: `freq freq-${freq}`, title: `frequency of this ${attr.name}: ${text}` },
      el("span", { "aria-hidden": "true" }, glyphs.frequency || "f"), srOnly("frequency "), ` ${text}`);
  }

  function markupRow(pair) {
    const cells = data.attributes.map((attr) => {
      const marks = (pair.markups[attr.name] || []).filter((m) => glyphs[m]);
      return el("td", { class: "markups" }, marks.map((m) =>
        el("span", { class: `glyph mark-${m}`, title: MARK_NAMES[m] || m },
          el("span", { "aria-hidden": "true" }, glyphs[m]), srOnly(` ${MARK_NAMES[m] || m} `))));
    });
    const swap = pair.name_swap ? el("span", { class: "glyph mark-name_swap", title: "names swapped" }, glyphs.name_swap) : null;
    return el("tr", { class: "markup-row" }, el("th", { scope: "row", class: "rowhead" }, srOnly("Differences"), swap), cells);
  }

  function choicePanel(pair) {
    const chosen = pair.decision || {};
    const button = ([decision, confidence], key) => el("button", {
      type: "button", class: `choose ${decision}`, "data-pair": pair.id, "data-decision": decision,
      "data-confidence": confidence, "aria-pressed": String(chosen.decision === decision && chosen.confidence === (confidence || null)),
      title: `${decision === "unsure" ? "Unsure" : `${decision[0].toUpperCase()}${decision.slice(1)}, ${confidence} confidence`} (key ${key})`,
    }, el("span", { "aria-hidden": "true" }, confidence ? confidence[0].toUpperCase() : "?"),
    srOnly(decision === "unsure" ? "Unsure" : `${decision}, ${confidence} confidence`));
    const buttons = CHOICES.map((c, i) => button(c, i + 1));
    const unsure = data.assignment.allow_unsure ? button(["unsure", null], 0) : null;
    // Only an answered pair can be cleared (back to unanswered; the server keeps the history).
    const clear = pair.decision ? el("button", {
      type: "button", class: "clear-answer", "data-pair": pair.id, title: `Clear the answer of pair ${pair.position + 1}`,
    }, "Clear answer") : null;
    return el("td", { class: "choice", rowspan: 3 },
      el("div", { role: "group", "aria-label": `Pair ${pair.position + 1}: your answer` },
        el("div", { class: "scale" }, el("span", { class: "end" }, "Different"), buttons.slice(0, 3),
          el("span", { class: "mid", "aria-hidden": "true" }, "|"), buttons.slice(3), el("span", { class: "end" }, "Same")),
        unsure, clear));
  }

  // The linker's score, only when the manager chose to show it (the server sends none otherwise).
  function modelScore(pair) {
    const s = pair.scores;
    if (!s || s.match_probability === null || s.match_probability === undefined) return null;
    const key = s.match_key === null ? "" : `, rule ${s.match_key}`;
    return el("span", { class: "model-score", title: "the linker's match probability (and its rule)" },
      `p = ${Number(s.match_probability).toFixed(3)}${key}`);
  }

  // The advisor's cue that nothing more is worth its privacy cost for this pair.
  function sufficesCue(pair) {
    const hint = advice.get(pair.id);
    if (!hint || !hint.suffices) return null;
    return el("span", { class: "suffices", title: "The advisor: what is shown suffices; no cell is worth its privacy cost" },
      el("span", { "aria-hidden": "true" }, "\u2713 enough shown"), srOnly(". The advisor: the display suffices."));
  }

  /* Ask for the hint of some pairs and redraw them (never opens a cell). */
  async function refreshAdvice(pairIds) {
    if (!adviceUrl) return;
    const answers = await Promise.all(pairIds.map((id) => call("GET", `${adviceUrl}?pair=${id}`)));
    answers.forEach((res, i) => { if (res.ok) advice.set(pairIds[i], res.body); else advice.delete(pairIds[i]); });
    pairIds.forEach((id) => { const pair = data.pairs.find((p) => p.id === id); if (pair) replacePair(pair); });
    root.dataset.advised = String(Number(root.dataset.advised || 0) + 1);
  }

  function pairBody(pair) {
    const rowFor = (row) => el("tr", { class: `rec rec-${"ab"[row]}` },
      row === 0 ? el("th", { scope: "rowgroup", rowspan: 3, class: "pairhead" }, `Pair ${pair.position + 1}`, el("span", { class: "todo" }), modelScore(pair), sufficesCue(pair)) : null,
      el("th", { scope: "row", class: "rowhead" }, "AB"[row]),
      data.attributes.map((attr) => valueCell(pair, row, attr)),
      row === 0 ? choicePanel(pair) : null);
    return el("tbody", { class: "pair", "data-pair": pair.id }, rowFor(0), markupRow(pair), rowFor(1));
  }

  function keepFocus(render) {
    const active = document.activeElement;
    const key = active && active.dataset && active.dataset.pair
      ? `[data-pair="${active.dataset.pair}"]` + (active.classList.contains("cell")
        ? `.cell[data-row="${active.dataset.row}"][data-attr="${CSS.escape(active.dataset.attr)}"]`
        : `.choose[data-decision="${active.dataset.decision}"]` +
          (active.dataset.confidence ? `[data-confidence="${active.dataset.confidence}"]` : ":not([data-confidence])"))
      : null;
    render();
    const again = key && $("grid").querySelector(key);
    if (again) again.focus();
  }

  function renderPairs() {
    const grid = $("grid");
    keepFocus(() => {
      grid.querySelectorAll("tbody").forEach((b) => b.remove());
      data.pairs.forEach((pair) => grid.append(pairBody(pair)));
    });
  }

  function replacePair(pair) {
    const index = data.pairs.findIndex((p) => p.id === pair.id);
    if (index < 0) return;
    data.pairs[index] = pair;
    keepFocus(() => $("grid").querySelector(`tbody[data-pair="${pair.id}"]`).replaceWith(pairBody(pair)));
  }

  /* ---------- actions ---------- */
  /* Read the page and the answers from the server and draw them: on load, when the tab comes
     back into view (another tab may have revealed or answered), and after a refusal that says
     this view is stale. */
  async function load() {
    const [page, answers] = await Promise.all([call("GET", `${api}?page=${pageNo}`), call("GET", `${api}/decisions`)]);
    $("loading").hidden = true;
    if (!page.ok) { alarm(page.body.message || "The pairs could not be loaded."); return false; }
    data = page.body;
    syncedAt = Date.now();
    renderHead(); renderPairs(); renderMeters();
    remindBreak(data.assignment.break);
    if (answers.ok) renderProgress(answers.body.decided, answers.body.total, answers.body.tally);
    else renderProgress(data.assignment.decided, data.assignment.pairs_total, null);
    root.dataset.ready = "true";
    root.dataset.synced = String(Number(root.dataset.synced || 0) + 1);
    refreshAdvice(data.pairs.map((p) => p.id));
    return true;
  }

  /* The meters as the server holds them (every reveal's answer and refusal carries them):
     redraw them, and decide again which cells fit the budget. */
  function applyMeters(meters) {
    if (!meters) return;
    Object.assign(data.assignment, meters);
    reprice();
    renderPairs();
    renderMeters();
  }

  async function reveal(button) {
    if (busy) return;
    if (button.getAttribute("aria-disabled") === "true") { say(button.title); return; }
    busy = true;
    const target = { pair_id: Number(button.dataset.pair), row: Number(button.dataset.row), attribute: button.dataset.attr };
    // The level this page shows: if another tab revealed the cell meanwhile, the server
    // refuses (nothing charged) instead of charging a cost this page did not preview.
    const res = await call("POST", `${api}/reveal`, { ...target, shown_level: button.dataset.level })
      .finally(() => { busy = false; });
    if (res.ok) {
      alarm("");
      Object.assign(data.assignment, res.body.assignment);
      applyReveal(res.body);
      renderPairs();
      renderMeters();
      say(`Revealed record ${"AB"[target.row]} ${target.attribute} of pair ${res.body.position + 1}: +${pct(res.body.cost)} privacy risk.`);
      refreshAdvice([target.pair_id]);
    } else if (res.body.error === "budget_exceeded") {
      // The server's meters; if they moved, another tab spent: read what it revealed too.
      const moved = res.body.assignment && res.body.assignment.kapr_exact !== data.assignment.kapr_exact;
      applyMeters(res.body.assignment);
      if (moved) await load();
      alarm(`Refused: this reveal would cost ${pct(res.body.next_cost)} and take your privacy risk ` +
        `(${pct(res.body.kapr)}) over your budget of ${pct(data.assignment.budget)}. Nothing was revealed.`);
      const again = $("grid").querySelector(`.cell[data-pair="${target.pair_id}"][data-row="${target.row}"][data-attr="${CSS.escape(target.attribute)}"]`);
      if (again && again.classList.contains("open")) {
        again.setAttribute("aria-disabled", "true");
        again.classList.replace("open", "over");
        again.title = "Over budget: refused by the server";
      }
    } else if (res.body.error === "stale" || res.body.error === "nothing_to_reveal") {
      if (await load()) {
        alarm("This cell was revealed in another tab or window: the page now shows what the server " +
          "holds, with its meters. Nothing was charged; click again to reveal more.");
      }
    } else {
      alarm(res.body.message || `The reveal failed (${res.status}).`);
    }
  }

  /* A reveal answers with the revealed cell and the next costs that changed (its row's, or
     its pair's); no other cost changes, only whether it still fits the budget, decided here
     exactly (fractions). */
  function applyReveal(answer) {
    const pair = data.pairs.find((p) => p.id === answer.pair_id);
    if (pair) {
      for (const [row, cells] of Object.entries(answer.costs)) {
        for (const [name, next] of Object.entries(cells)) Object.assign(pair.rows[Number(row)].cells[name], next);
      }
      pair.rows[answer.row].cells[answer.attribute] = answer.cell;
    }
    reprice();
  }

  /* Whether each cell's next reveal fits the budget left, exactly (fractions). */
  function reprice() {
    const a = data.assignment;
    const room = sub(fraction(a.budget_exact), fraction(a.kapr_exact));
    data.pairs.forEach((p) => p.rows.forEach((r) => Object.values(r.cells).forEach((c) => {
      c.affordable = c.next_cost_exact !== null && !less(room, fraction(c.next_cost_exact));
    })));
  }

  /* Exact rationals as [numerator, denominator] BigInts, from "p/q", "p" or a decimal. */
  function fraction(text) {
    const [p, q] = String(text).split("/");
    if (q !== undefined) return [BigInt(p), BigInt(q)];
    const [mantissa, exponent] = p.toLowerCase().split("e");
    const [whole, decimals = ""] = mantissa.split(".");
    let num = BigInt(whole + decimals), den = 10n ** BigInt(decimals.length);
    const e = Number(exponent || 0);
    if (e >= 0) num *= 10n ** BigInt(e); else den *= 10n ** BigInt(-e);
    return [num, den];
  }
  const sub = ([a, b], [c, d]) => [a * d - c * b, b * d];
  const less = ([a, b], [c, d]) => a * d < c * b;  // denominators are positive

  /* Another tab changed this pair's answer since this page read it: show the server's answer
     and say so; nothing of this page's was saved. */
  function answerChanged(pair, body) {
    pair.decision = body.current;
    pair.answer_version = body.version;
    replacePair(pair);
    const now = body.current ? `${body.current.decision}${body.current.confidence ? ", " + body.current.confidence + " confidence" : ""}`
      : "no answer";
    alarm(`Pair ${pair.position + 1}: its answer was changed in another tab or window (it is now: ${now}). ` +
      "Yours was not saved; choose again to replace it.");
  }

  /* Answers are saved one after another, in the order they were given, however fast the keys
     come: each request carries the version the one before it returned (two keys on one pair
     are not a conflict with oneself), and the count drawn last is the server's latest. */
  let saving = Promise.resolve();
  function inTurn(save) {
    saving = saving.then(save, save);
    return saving;
  }

  function choose(pairId, decision, confidence) { return inTurn(() => saveAnswer(pairId, decision, confidence)); }
  function clearAnswer(pairId) { return inTurn(() => saveClear(pairId)); }

  async function saveAnswer(pairId, decision, confidence) {
    if (!data) return;
    const pair = data.pairs.find((p) => p.id === pairId);
    const res = await call("POST", `${api}/decisions`,
      { pair_id: pairId, decision, confidence, version: pair.answer_version ?? null });
    if (res.body.error === "answer_changed") { answerChanged(pair, res.body); return; }
    if (!res.ok) { alarm(res.body.message || `The answer was not saved (${res.status}).`); return; }
    alarm("");
    pair.decision = { decision, confidence };
    pair.answer_version = res.body.version;
    replacePair(pair);
    renderProgress(res.body.decided, res.body.total, res.body.tally);
    remindBreak(res.body.break);
    say(`Pair ${pair.position + 1}: ${decision}${confidence ? ", " + confidence + " confidence" : ""} saved.`);
  }

  async function saveClear(pairId) {
    if (!data) return;
    const pair = data.pairs.find((p) => p.id === pairId);
    const res = await call("POST", `${api}/decisions/clear`, { pair_id: pairId, version: pair.answer_version ?? null });
    if (res.body.error === "answer_changed") { answerChanged(pair, res.body); return; }
    if (!res.ok) { alarm(res.body.message || `The answer was not cleared (${res.status}).`); return; }
    alarm("");
    pair.decision = null;
    pair.answer_version = res.body.version;
    replacePair(pair);
    renderProgress(res.body.decided, res.body.total, res.body.tally);
    say(`Pair ${pair.position + 1}: answer cleared; it is unanswered again.`);
    const first = $("grid").querySelector(`tbody[data-pair="${pairId}"] .choose`);
    if (first) first.focus();
  }

  async function submitPage() {
    const ids = data.pairs.map((p) => p.id);
    const res = await call("POST", `${api}/pages/${pageNo}/submit`, { pair_ids: ids });
    $("grid").querySelectorAll("tbody.unanswered").forEach((b) => b.classList.remove("unanswered"));
    if (res.ok) {
      if (res.body.next_page) { window.location.assign(`${root.dataset.pageUrl}?page=${res.body.next_page}`); return; }
      alarm("");
      say(`Page submitted. All ${res.body.total} pairs are answered: thank you. You can change an answer, or Save & exit.`);
      return;
    }
    if (res.body.error === "unanswered") {
      const names = res.body.unanswered.map((id) => {
        const body = $("grid").querySelector(`tbody[data-pair="${id}"]`);
        body.classList.add("unanswered");
        body.querySelector(".todo").textContent = " \u26A0 needs an answer";
        return data.pairs.find((p) => p.id === id).position + 1;
      });
      alarm(`Not submitted: answer pair${names.length > 1 ? "s" : ""} ${names.join(", ")} first.`);
      $("grid").querySelector(`tbody[data-pair="${res.body.unanswered[0]}"] .choose`).focus();
    } else {
      alarm(res.body.message || `The page was not submitted (${res.status}).`);
    }
  }

  /* ---------- keyboard ---------- */
  function moveFrom(node, key) {
    const grid = $("grid");
    const rows = [...grid.querySelectorAll("tr.rec")];
    if (node.classList.contains("cell")) {
      const tr = node.closest("tr");
      const cells = [...tr.querySelectorAll(".cell")];
      const r = rows.indexOf(tr), c = cells.indexOf(node);
      if (key === "ArrowLeft") return cells[c - 1];
      if (key === "ArrowRight") return cells[c + 1] || node.closest("tbody").querySelector(".choose");
      const next = rows[r + (key === "ArrowDown" ? 1 : -1)];
      return next && next.querySelectorAll(".cell")[c];
    }
    const choices = [...node.closest("td").querySelectorAll(".choose")];
    const i = choices.indexOf(node);
    if (key === "ArrowRight") return choices[i + 1];
    if (key === "ArrowLeft") return choices[i - 1] || [...node.closest("tbody").querySelectorAll("tr.rec-a .cell")].pop();
    const bodies = [...grid.querySelectorAll("tbody.pair")];
    const other = bodies[bodies.indexOf(node.closest("tbody")) + (key === "ArrowDown" ? 1 : -1)];
    return other && other.querySelectorAll(".choose")[i];
  }

  $("grid").addEventListener("keydown", (event) => {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    const node = event.target;
    const body = node.closest && node.closest("tbody.pair");
    if (!body || !data) return;
    if (["ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown"].includes(event.key)) {
      const next = moveFrom(node, event.key);
      event.preventDefault();
      if (next) next.focus();
    } else if (/^[1-6]$/.test(event.key) || (event.key === "0" && data.assignment.allow_unsure)) {
      event.preventDefault();
      const [decision, confidence] = event.key === "0" ? ["unsure", null] : CHOICES[Number(event.key) - 1];
      choose(Number(body.dataset.pair), decision, confidence);
    }
  });
  $("grid").addEventListener("click", (event) => {
    const expand = event.target.closest(".expand");
    if (expand) {
      const key = expand.dataset.key;
      if (expanded.has(key)) expanded.delete(key); else expanded.add(key);
      const pair = data.pairs.find((p) => String(p.id) === key.split(":")[0]);
      replacePair(pair);
      const again = $("grid").querySelector(`.expand[data-key="${CSS.escape(key)}"]`);
      if (again) again.focus();
      return;
    }
    const cell = event.target.closest(".cell");
    // The second click of a double-click (detail 2) must not reveal a second level.
    if (cell) { if (event.detail <= 1) reveal(cell); return; }
    const clear = event.target.closest(".clear-answer");
    if (clear) { clearAnswer(Number(clear.dataset.pair)); return; }
    const pick = event.target.closest(".choose");
    if (pick) choose(Number(pick.dataset.pair), pick.dataset.decision, pick.dataset.confidence || null);
  });
  const hover = (event) => {
    const cell = event.target.closest && event.target.closest(".cell");
    if (!cell || !data) return;
    preview(cell.classList.contains("done") ? null : Number(cell.dataset.cost), cell.classList.contains("over"));
  };
  const unhover = (event) => { if (event.target.closest && event.target.closest(".cell")) preview(null, false); };
  $("grid").addEventListener("mouseover", hover);
  $("grid").addEventListener("focusin", hover);
  $("grid").addEventListener("mouseout", unhover);
  $("grid").addEventListener("focusout", unhover);
  $("submit-page").addEventListener("click", () => inTurn(submitPage)); // after the answers in flight
  // Back in view (another tab may have revealed or answered meanwhile): read the server again.
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible" && data && !busy && Date.now() - syncedAt > 2000) load();
  });

  load();
})();
